"""Open FalkorDB from a URL, whatever stands behind it: one server, a Sentinel, or a Redis Cluster of them.

falkordb-py 1.8 cannot open a cluster from a URL: ``FalkorDB.from_url`` probes the node, finds it is in cluster
mode, and its ``Cluster_Conn`` pops a ``username`` key the URL's pool never set (``KeyError: 'username'``); opened
by host and port instead, it drops the socket timeouts, and its ``list_graphs`` sends ``GRAPH.LIST`` — a command
with no key — which a cluster client cannot route. So a cluster node gets a redis-py ``RedisCluster`` built from
the URL with our options, wrapped in the small surface ``db.py`` uses of a FalkorDB client. A graph is one key on
one shard: ``GRAPH.QUERY``, ``GRAPH.RO_QUERY``, ``GRAPH.DELETE`` and ``GRAPH.CONSTRAINT`` are routed by their key,
and the keyless ``GRAPH.LIST`` and ``GRAPH.CONFIG`` go to every primary.
"""

from __future__ import annotations

from typing import Any

FALKOR_SCHEMES = {"falkor://": "redis://", "falkors://": "rediss://"}


def redis_url(url: str) -> str:
    """``falkor://`` and ``falkors://`` (falkordb-py's spellings) as the ``redis://``/``rediss://`` redis-py reads."""
    for falkor, redis in FALKOR_SCHEMES.items():
        if url.startswith(falkor):
            return redis + url[len(falkor) :]
    return url


class ClusterClient:
    """The part of falkordb-py's ``FalkorDB`` that RGuard uses, over a Redis Cluster."""

    def __init__(self, cluster: Any) -> None:
        self.connection = cluster
        self.execute_command = cluster.execute_command

    def select_graph(self, name: str) -> Any:
        from falkordb import Graph

        return Graph(self, name)  # Graph only calls client.execute_command, which routes by the graph's key

    def node_connections(self) -> list[Any]:
        """One plain client per primary, for the commands that have no key to route by."""
        cluster = self.connection
        return [cluster.get_redis_connection(node) for node in cluster.get_primaries()]

    def list_graphs(self) -> list[str]:
        names: set[str] = set()
        for conn in self.node_connections():
            names.update(conn.execute_command("GRAPH.LIST") or [])
        return sorted(names)


def node_connections(db: Any) -> list[Any]:
    """The connections a keyless command must reach: every primary of a cluster, else the one server."""
    if isinstance(db, ClusterClient):
        return db.node_connections()
    return [db.connection]


def open_url(url: str, options: dict[str, Any]) -> Any:
    """A client for ``url``: a ClusterClient when the node is in cluster mode, else falkordb-py's own (which
    also follows a Sentinel to its primary)."""
    import falkordb
    import redis
    from redis.cluster import RedisCluster

    plain = redis_url(url)
    probe = redis.Redis.from_url(plain, decode_responses=True, **options)
    try:
        mode = probe.info(section="server").get("redis_mode")
    finally:
        probe.close()
    if mode == "cluster":
        return ClusterClient(RedisCluster.from_url(plain, decode_responses=True, **options))
    return falkordb.FalkorDB.from_url(url, **options)

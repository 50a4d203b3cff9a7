"""Export a repository's whole graph as JSON for audits: every node with labels and props, every edge."""

from __future__ import annotations

from ..db import Store
from ..errors import UnknownRepository
from ..graph_state import require_complete
from ..jsontypes import JSONObject


def export_graph(store: Store, repo: str) -> JSONObject:
    """``{"nodes": [{id, labels, props}], "edges": [{src, dst, type, props}]}``; paged reads throughout."""
    graph = store.repo_graph(repo)
    if not graph.exists():
        raise UnknownRepository(repo)
    require_complete(graph)
    nodes = [
        {"id": r["props"].get("id"), "labels": r["labels"], "props": r["props"]}
        for r in graph.paged(
            "MATCH (n) RETURN labels(n) AS labels, properties(n) AS props ORDER BY ID(n)", name="export.nodes"
        )
    ]
    edges = [
        {"src": r["src"], "dst": r["dst"], "type": r["type"], "props": r["props"]}
        for r in graph.paged(
            "MATCH (a)-[e]->(b) RETURN a.id AS src, b.id AS dst, type(e) AS type, properties(e) AS props ORDER BY ID(e)",
            name="export.edges",
        )
    ]
    return {"repo": repo, "nodes": nodes, "edges": edges}

"""RGuard on a Redis Cluster of FalkorDB nodes: three primaries and a replica started from the bundled binaries on
loopback, reached through ``FALKORDB_URL`` naming any one node.

A graph is one key on one shard, so repositories spread over the primaries: the names below are picked so that
every primary holds at least one. Each command must see all of them from any node (``GRAPH.LIST`` has no key and
is asked of every primary), and ingest, guard, memory, views and the MCP server must work on graphs whichever
shard holds them. ``make test-cluster`` runs the memory, guard, ingest and view suites on such a cluster too.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from mcp import Client, StdioServerParameters
from redis.crc import key_slot

from rguard_core.config import Settings
from rguard_core.db import Store, repo_graph_name
from rguard_core.explore.graph_view import build_view
from rguard_core.ingest.pipeline import ingest_git
from rguard_core.memory import status
from rguard_core.memory.recompute import recompute
from rguard_core.seed import DEMO_REPO, load_demo
from rguard_core.untrusted import unquote
from tests.falkordb_server import Cluster, Sentinel, Server
from tests.test_ingest_git import GitRepo

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.server

PRICE = "def unit_price(row):\n    return row.get('price') or 0\n"
REASONED = PRICE.replace("row.get('price') or 0", "row.get('price')")
UNDO = (
    "diff --git a/app/prices.py b/app/prices.py\n--- a/app/prices.py\n+++ b/app/prices.py\n@@ -1,2 +1,2 @@\n"
    " def unit_price(row):\n-    return row.get('price')\n+    return row.get('price', 0) or 0\n"
)


def _one_repo_per_shard(cluster: Cluster) -> list[str]:
    """Repository names whose graphs hash to each primary's slots in turn (the demo seed lands where it lands)."""
    step = Cluster.SLOTS // len(cluster.primaries)
    picked: dict[int, str] = {}
    for k in range(1000):
        name = f"team/service-{k}"
        shard = min(key_slot(repo_graph_name(name).encode()) // step, len(cluster.primaries) - 1)
        picked.setdefault(shard, name)
        if len(picked) == len(cluster.primaries):
            return [picked[i] for i in sorted(picked)]
    raise AssertionError("no names found for every shard")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    c = Cluster(tmp_path_factory.mktemp("falkordb-cluster"), primaries=3, replicas=1)
    yield c
    c.stop()


@pytest.fixture(scope="module")
def repos(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The demo seed and one small git history per shard, ingested through the second primary's URL."""
    gr = GitRepo(tmp_path_factory.mktemp("cluster-hist") / "hist")
    gr.commit("Initial layout", {"app/prices.py": PRICE})
    gr.commit(
        "Keep unknown prices as None\n\nAn unknown price is not a free item: callers must be able to tell a "
        "missing price from zero, so we no longer coerce it to 0.",
        {"app/prices.py": REASONED},
    )
    store = Store(Settings(falkordb_url=cluster.url(1)))
    load_demo(store)
    names = _one_repo_per_shard(cluster)
    for name in names:
        ingest_git(store, gr.root, name)
    store.close()
    return [DEMO_REPO, *names]


def test_every_node_sees_every_repository_on_every_shard(cluster: Cluster, repos: list[str]) -> None:
    held = cluster.graphs_by_node()
    assert all(any(g.startswith("rguard__") for g in graphs) for graphs in held.values()), held
    every = sorted(g for graphs in held.values() for g in graphs)
    for node in range(len(cluster.primaries) + len(cluster.replicas)):  # the replica's URL finds the cluster too
        store = Store(Settings(falkordb_url=cluster.url(node)))
        assert store.list_graphs() == every
        assert store.list_repos() == sorted(repos)
        assert store.repo_graph(repos[1]).exists() and not store.repo_graph("team/nowhere").exists()
        store.close()
    # falkordb-py's own spelling of the scheme is read as well
    store = Store(Settings(falkordb_url=cluster.url(0).replace("redis://", "falkor://")))
    assert store.list_repos() == sorted(repos)
    store.close()


def _cli(cluster: Cluster, tmp_path: Path, *args: str) -> Any:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FALKORDB_URL": cluster.url(2), "RGUARD_DATA_DIR": str(tmp_path)}
    env.pop("FALKORDB_READ_URL", None)
    res = subprocess.run(
        [sys.executable, "-m", "rguard_core", *args, "--json"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode in (0, 1), res.stderr  # guard exits 1 on a warning
    return json.loads(res.stdout)


def test_cli_lists_guards_and_reports_memory_on_the_cluster(cluster: Cluster, repos: list[str], tmp_path: Path) -> None:
    assert sorted(_cli(cluster, tmp_path, "repos")["repos"]) == sorted(repos)
    diff = tmp_path / "undo.diff"
    diff.write_text(UNDO)
    for repo in repos[1:]:  # one on each shard
        report = _cli(cluster, tmp_path, "guard", "--repo", repo, "--diff", str(diff))
        assert report["verdict"] == "warn", report
        assert "Keep unknown prices as None" in json.dumps(report)
    memory = _cli(cluster, tmp_path, "memory", "status", "--repo", DEMO_REPO)
    store = Store(Settings(falkordb_url=cluster.url(0)))
    assert memory["decisions"] and memory == json.loads(json.dumps(status(store.repo_graph(DEMO_REPO))))
    store.close()
    assert not (tmp_path / "engine.json").exists(), "a cluster URL must not start an embedded engine"


def test_memory_recompute_and_views_on_the_cluster(cluster: Cluster, repos: list[str]) -> None:
    store = Store(Settings(falkordb_url=cluster.url(0)))
    g = store.repo_graph(DEMO_REPO)
    before = status(g)
    assert recompute(g) is not None
    assert status(g) == before, "recompute on the cluster must change nothing"
    view = build_view(store, DEMO_REPO)
    assert any(n.id.startswith("decision:") for n in view.nodes)
    for ws in ("forged-invoice", "launch-date", "bank-account-change"):
        assert status(store.workspace_graph(ws))["claims"]
    store.close()


def test_the_tightest_result_cap_across_the_primaries_is_used(cluster: Cluster, repos: list[str]) -> None:
    store = Store(Settings(falkordb_url=cluster.url(0)))
    assert store.result_cap is None
    with redis.Redis(port=cluster.primaries[2].port, decode_responses=True) as node:
        node.execute_command("GRAPH.CONFIG", "SET", "RESULTSET_SIZE", 40)
        try:
            store.refresh_limits(force=True)
            assert store.result_cap == 40  # one shard's cap bounds every read: a graph may live there
            assert store.list_repos() == sorted(repos)
        finally:
            node.execute_command("GRAPH.CONFIG", "SET", "RESULTSET_SIZE", -1)
    store.refresh_limits(force=True)
    assert store.result_cap is None
    store.close()


def test_mcp_server_on_the_cluster(cluster: Cluster, repos: list[str], tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "FALKORDB_READ_URL"}
    env.update({"PYTHONPATH": str(ROOT), "FALKORDB_URL": cluster.url(3), "RGUARD_DATA_DIR": str(tmp_path)})
    params = StdioServerParameters(command=sys.executable, args=["-m", "rguard_core", "mcp"], env=env, cwd=str(ROOT))

    async def go() -> dict[str, Any]:
        async with Client(params) as c:
            return {
                "repos": await c.call_tool("list_repos", {}),
                "guard": await c.call_tool("guard_diff", {"repo": repos[-1], "diff": UNDO}),
            }

    r = asyncio.run(go())
    assert not r["repos"].is_error and not r["guard"].is_error, (r["repos"].content, r["guard"].content)
    assert sorted(unquote(x) for x in r["repos"].structured_content["repos"]) == sorted(repos)
    assert r["guard"].structured_content["verdict"] == "warn"


def test_a_sentinel_url_reaches_its_primary(tmp_path: Path) -> None:
    """falkordb-py follows a Sentinel to the primary it watches; RGuard only has to hand it the URL."""
    primary = Server(tmp_path, cap=None)
    sentinel = Sentinel(tmp_path, primary)
    try:
        store = Store(Settings(falkordb_url=sentinel.url()))
        load_demo(store)
        assert store.list_repos() == [DEMO_REPO]
        with redis.Redis(port=primary.port, decode_responses=True) as direct:
            assert repo_graph_name(DEMO_REPO) in direct.execute_command("GRAPH.LIST")
        store.close()
    finally:
        sentinel.stop()
        primary.stop()

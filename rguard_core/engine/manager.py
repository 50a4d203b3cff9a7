"""One engine per data dir: find the running one, or start it once however many users start at the same time.

    ensure_engine(settings)  -> the socket of a ready engine (starting it when none runs)
    engine_status(settings)  -> what runs, where, since when, with which persistence
    stop_engine(settings)    -> a clean shutdown (the append-only file is fsynced), then the lock is free

Liveness is the data dir's lock file: the server process holds an flock on it for as long as it lives (the
starter takes the lock and hands the descriptor down), so the kernel releases it the moment the server dies,
SIGKILL included. A pid or socket left behind by a dead engine is therefore recognised without guessing from
pids, and replaced. Starters serialise on a second lock, so two starting at once end with one engine.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from ..config import Settings
from ..errors import ConfigError, EngineStartFailed
from ..jsontypes import JSONObject
from .paths import FSYNC_POLICIES, EnginePaths, EngineState, check_private_dir
from .resp import RespConnection, RespError, ping
from .shutdown import shutdown

START_TIMEOUT_S = 120.0  # a big append-only file loads for a while; a dead start is noticed at once
STOP_TIMEOUT_S = 20.0
UNRESPONSIVE_S = 15.0  # a loaded engine that stops answering PING (hung, stopped) for this long is reported


@dataclass(frozen=True)
class EngineStatus:
    running: bool
    data_dir: str
    socket: str
    pid: int | None
    supervisor_pid: int | None
    since: str | None
    appendonly: bool | None
    appendfsync: str | None
    aof_dir: str | None
    idle_stop_s: float | None
    log: str
    live: dict[str, str]  # from the server's INFO when it runs: aof status, memory, clients, uptime

    def as_dict(self) -> JSONObject:
        return dict(self.__dict__)


def engine_options(settings: Settings) -> tuple[float, str]:
    if settings.engine_fsync not in FSYNC_POLICIES:
        raise ConfigError(
            f"RGUARD_ENGINE_FSYNC must be one of {', '.join(FSYNC_POLICIES)}, got {settings.engine_fsync!r}"
        )
    return float(settings.engine_idle_s), settings.engine_fsync


def _read_state(paths: EnginePaths) -> EngineState:
    try:
        data = json.loads(paths.state.read_text())
        return cast(EngineState, data) if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _ready(paths: EnginePaths) -> bool:
    return _read_state(paths).get("state") == "ready" and ping(paths.socket)


def damaged(paths: EnginePaths) -> str | None:
    """Why the data dir's append-only files cannot be the store they were, or None. The server itself would start
    on them as an empty store: no manifest, or a manifest whose files are missing or whose base is empty, means
    the graphs (and every reviewer's corrections) are gone, and a re-ingest would then write over that silently."""
    aof, manifest = paths.aof_dir, paths.aof_manifest
    if not aof.exists():
        return None  # a new data dir (or one from before the append-only file): nothing to lose
    if not aof.is_dir():
        return f"{aof} is not a folder"
    if not manifest.is_file():
        if any(aof.iterdir()):
            return f"{manifest} is missing while {aof} holds data files"
        return None
    try:
        lines = manifest.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as e:
        return f"{manifest} cannot be read ({e.strerror or e})"
    listed = [ln.split()[1] for ln in lines if ln.startswith("file ") and len(ln.split()) > 1]
    if not listed:
        return f"{manifest} lists no data files"
    for name in listed:
        f = aof / name
        if "/" in name or not f.is_file():
            return f"{f}, listed in {manifest.name}, is missing"
        if " type b" in next((ln for ln in lines if ln.split()[1:2] == [name]), "") and f.stat().st_size == 0:
            return f"{f} (the base file) is empty"
    return None


def _prepare_dir(paths: EnginePaths) -> None:
    """Fail before anything starts when the data dir cannot hold the engine's files, or holds damaged ones."""
    broken = damaged(paths)
    if broken:
        raise EngineStartFailed(
            paths.data_dir,
            f"the data dir is damaged: {broken}. Nothing was started or written; restore the folder from a backup, "
            "or move it away to start empty",
        )
    try:
        paths.data_dir.mkdir(parents=True, exist_ok=True)
        probe = paths.data_dir / f".write-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise EngineStartFailed(
            paths.data_dir,
            f"the data dir cannot be written ({e.strerror or e}); set RGUARD_DATA_DIR to a folder you can write",
        ) from e


@contextlib.contextmanager
def _flock(path: Path, timeout_s: float) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise EngineStartFailed(
                        path.parent, f"another process has been starting the engine for {timeout_s:.0f} s (lock {path})"
                    ) from None
                time.sleep(0.02)
        yield
    finally:
        os.close(fd)  # closing releases the flock


def _lock_held(paths: EnginePaths) -> bool:
    """True while some engine process lives on this data dir (it holds the lock)."""
    try:
        fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def ensure_engine(settings: Settings) -> Path:
    """The socket of this data dir's ready engine; starts one when none runs. Raises EngineStartFailed."""
    paths = EnginePaths.for_dir(settings.data_dir)
    if paths.socket.parent != paths.data_dir:  # a deep data dir's socket lives in the shared runtime folder
        unsafe = check_private_dir(paths.socket.parent)
        if unsafe:
            raise EngineStartFailed(
                paths.data_dir, f"refusing the engine's socket folder: {unsafe}; remove it, or set XDG_RUNTIME_DIR"
            )
    if _ready(paths):  # the warm path: one small file read and one PING
        return paths.socket
    idle_s, fsync = engine_options(settings)
    _prepare_dir(paths)
    try:
        return _start_or_join(paths, idle_s, fsync)
    except OSError as e:
        raise EngineStartFailed(
            paths.data_dir,
            f"cannot use the engine's files ({e.strerror or e}: "
            f"{e.filename or paths.data_dir}); is the data dir another user's?",
        ) from e


def _start_or_join(paths: EnginePaths, idle_s: float, fsync: str) -> Path:
    with _flock(paths.start_lock, START_TIMEOUT_S):
        for _attempt in range(3):
            if _ready(paths):
                return paths.socket
            fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)  # an engine lives (still loading, or its starter was killed): wait for it
                if _wait_ready(paths, None):
                    return paths.socket
                continue  # it died before it was ready (or the lock was only probed): start one
            try:
                _clear_stale(paths)
                proc = _spawn(paths, fd, idle_s, fsync)
            finally:
                os.close(fd)  # the supervisor (and then the server) hold the lock through the inherited descriptor
            _wait_ready(paths, proc)
            return paths.socket
    raise EngineStartFailed(paths.data_dir, f"the engine kept stopping during start; see {paths.log}")


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


def _clear_stale(paths: EnginePaths) -> None:
    for p in (paths.socket, paths.error):
        with contextlib.suppress(FileNotFoundError):
            p.unlink()
    state = _read_state(paths)
    if state:
        state["state"] = "stale"
        with contextlib.suppress(OSError):
            paths.state.write_text(json.dumps(state))


def _spawn(paths: EnginePaths, lock_fd: int, idle_s: float, fsync: str) -> subprocess.Popen[bytes]:
    cmd = [
        sys.executable,
        "-m",
        "rguard_core.engine.supervisor",
        "--data-dir",
        str(paths.data_dir),
        "--lock-fd",
        str(lock_fd),
        "--idle-s",
        str(idle_s),
        "--fsync",
        fsync,
    ]
    env = dict(os.environ)
    pkg_root = str(Path(__file__).resolve().parents[2])  # so the supervisor imports this very rguard_core
    env["PYTHONPATH"] = pkg_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    with open(paths.supervisor_log, "ab") as log:
        return subprocess.Popen(
            cmd,
            pass_fds=(lock_fd,),
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            cwd=str(paths.data_dir),
            env=env,
        )


def _wait_ready(paths: EnginePaths, proc: subprocess.Popen[bytes] | None) -> bool:
    """Wait for the engine we started (``proc``) or one that already lives; False when the latter died first."""
    started = time.monotonic()
    deadline = started + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if _ready(paths):
            return True
        if proc is None:
            if not _lock_held(paths):
                return False
            state = _read_state(paths)
            if state.get("state") == "ready" and time.monotonic() - started > UNRESPONSIVE_S:
                raise EngineStartFailed(
                    paths.data_dir,
                    f"the engine (pid {state.get('pid')}) holds this data dir but "
                    f"has not answered for {UNRESPONSIVE_S:.0f} s; stop it with "
                    "`python -m rguard_core engine stop`",
                )
            if state.get("state") == "starting" and not _alive(state.get("supervisor_pid")) and ping(paths.socket):
                return True  # its supervisor was killed after the server came up: the server itself is fine
        elif proc.poll() is not None:
            if _ready(paths):
                return True
            try:
                why = paths.error.read_text().strip()
            except OSError:
                why = f"the engine stopped during start; see {paths.supervisor_log} and {paths.log}"
            raise EngineStartFailed(paths.data_dir, why)
        time.sleep(0.01)
    raise EngineStartFailed(
        paths.data_dir, f"the engine did not become ready within {START_TIMEOUT_S:.0f} s; see {paths.log}"
    )


def engine_status(settings: Settings) -> EngineStatus:
    paths = EnginePaths.for_dir(settings.data_dir)
    state = _read_state(paths)
    running = _lock_held(paths) and ping(paths.socket)
    live: dict[str, str] = {}
    if running:
        with contextlib.suppress(OSError, ConnectionError, RespError), RespConnection(paths.socket) as c:
            info = {**c.info("persistence"), **c.info("server"), **c.info("memory"), **c.info("clients")}
            keys = (
                "aof_enabled",
                "aof_last_write_status",
                "aof_last_bgrewrite_status",
                "uptime_in_seconds",
                "used_memory_human",
                "connected_clients",
                "redis_version",
            )
            live = {k: info[k] for k in keys if k in info}
    return EngineStatus(
        running=running,
        data_dir=str(paths.data_dir),
        socket=str(paths.socket),
        pid=state.get("pid") if running else None,
        supervisor_pid=state.get("supervisor_pid") if running else None,
        since=state.get("since") if running else None,
        appendonly=state.get("appendonly"),
        appendfsync=state.get("appendfsync"),
        aof_dir=state.get("aof_dir") or str(paths.aof_dir),
        idle_stop_s=state.get("idle_stop_s"),
        log=str(paths.log),
        live=live,
    )


def stop_engine(settings: Settings, timeout_s: float = STOP_TIMEOUT_S) -> bool:
    """Stop this data dir's engine cleanly; True when one was running. Escalates to SIGTERM, then SIGKILL."""
    paths = EnginePaths.for_dir(settings.data_dir)
    if not _lock_held(paths):
        return False
    state = _read_state(paths)
    with contextlib.suppress(OSError, ConnectionError, RespError), RespConnection(paths.socket) as c:
        shutdown(c)  # the log folded into a fresh base first, so the next start replays nothing
    if _wait_unlocked(paths, timeout_s):
        return True
    pid = state.get("pid")
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if isinstance(pid, int):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        if _wait_unlocked(paths, 5.0):
            return True
    raise EngineStartFailed(paths.data_dir, f"the engine (pid {pid}) did not stop")


def _wait_unlocked(paths: EnginePaths, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not _lock_held(paths):
            return True
        time.sleep(0.02)
    return not _lock_held(paths)

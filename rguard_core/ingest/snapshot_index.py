"""When each PR file of a snapshot folder was merged, remembered between ingests by file name, size and mtime.

An append (``ingest snapshot --since-pr N``) wants only the PRs merged after #N, but merge order is not number
order, so without this it read and checked every ``pulls/<n>.json`` to find them: 0.06 s at 1,000 PRs, 0.7 s
at 10,000, most of an append's time. With it, a PR file read once is judged from its remembered ``merged_at``
without being opened again. A merge time never changes once a PR is merged, so a merged PR's entry is trusted
without even a ``stat`` (10,000 of them would cost as much as the append); an unmerged PR's entry holds only
while the file's size and mtime are unchanged (it may have merged since), and a new file is read as before. The index lives in RGuard's data dir, never in the snapshot folder (which may be read-only and is
untrusted); a damaged or foreign index is ignored and rebuilt, never trusted.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

VERSION = 1
Stamp = tuple[int, int]  # (size, mtime in ns)


class MergedIndex:
    def __init__(self, index_dir: Path | None, snapshot_dir: Path) -> None:
        real = os.path.realpath(snapshot_dir)
        self._real = real
        self.path = (
            index_dir / f"{hashlib.sha256(real.encode()).hexdigest()[:24]}.json" if index_dir is not None else None
        )
        self._files: dict[str, tuple[int, int, str | None]] = {}
        self._dirty = False
        if self.path is not None:
            self._files = _load(self.path, real)

    def merged_at(self, name: str, stamp: Callable[[str], Stamp | None]) -> tuple[bool, str | None]:
        """(known, merged_at) for ``name``: a remembered merge time as it is; a remembered "not merged" only while
        ``stamp(name)`` (size and mtime, read only then) is the one it was remembered with."""
        got = self._files.get(name)
        if got is None:
            return False, None
        if got[2] is not None:
            return True, got[2]
        now = stamp(name)
        return (True, None) if now is not None and (got[0], got[1]) == now else (False, None)

    def remember(self, name: str, stamp: Stamp | None, merged_at: str | None) -> None:
        if stamp is None:
            return
        if self._files.get(name) != (stamp[0], stamp[1], merged_at):
            self._files[name] = (stamp[0], stamp[1], merged_at)
            self._dirty = True

    def save(self) -> None:
        """Write the index if it changed; a data dir that cannot be written only costs the next append time."""
        if self.path is None or not self._dirty:
            return
        body = {"version": VERSION, "dir": self._real, "files": {k: list(v) for k, v in self._files.items()}}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".index-")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(body, fh, separators=(",", ":"))
            os.replace(tmp, self.path)  # readers see the old index or the new one, never half of one
            self._dirty = False
        except OSError:
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(tmp)


def _load(path: Path, real: str) -> dict[str, tuple[int, int, str | None]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != VERSION or data.get("dir") != real:
        return {}
    files = data.get("files")
    out: dict[str, tuple[int, int, str | None]] = {}
    for name, v in files.items() if isinstance(files, dict) else ():
        if (
            isinstance(v, list)
            and len(v) == 3
            and all(isinstance(x, int) and not isinstance(x, bool) for x in v[:2])
            and (v[2] is None or isinstance(v[2], str))
        ):
            out[str(name)] = (v[0], v[1], v[2])
    return out

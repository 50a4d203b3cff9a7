"""Past evaluation runs: one JSON line per run under ``<data_dir>/eval/<kind>.jsonl``.

Each line carries when it ran, the git commit of the code that ran it and the judge, so a regression
shows next to the previous run. Appends take a file lock; a damaged line is skipped (and counted) when
reading, never rewritten, so nothing already recorded is lost.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import subprocess
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from ..config import Settings
from ..errors import InvalidInput
from ..jsontypes import JSONObject

KINDS = ("guard", "memory", "replay", "why")
REPO_ROOT = Path(__file__).resolve().parent.parent.parent


@dataclass(frozen=True)
class RunInfo:
    """The ``run`` object of an eval result: when, which code (git sha), which judge."""

    at: str
    git_sha: str | None
    judge: str | None

    def as_dict(self) -> JSONObject:
        return asdict(self)


def current_run(judge: str | None) -> RunInfo:
    """A RunInfo for a run starting now."""
    return RunInfo(dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), git_sha(), judge)


def git_sha(root: Path = REPO_ROOT) -> str | None:
    """The checked-out commit (with ``-dirty`` when tracked files changed); None outside a git checkout."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, timeout=10, check=False)
        if head.returncode != 0:
            return None
        sha = head.stdout.decode().strip()
        dirty = subprocess.run(
            ["git", "diff", "--quiet", "HEAD", "--"], cwd=root, capture_output=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return f"{sha}-dirty" if dirty.returncode == 1 else sha


def history_path(settings: Settings, kind: str) -> Path:
    if kind not in KINDS:
        raise InvalidInput(f"unknown eval kind {kind!r}; choose one of: {', '.join(KINDS)}")
    return settings.data_dir / "eval" / f"{kind}.jsonl"


def append_run(settings: Settings, kind: str, record: JSONObject) -> Path:
    """Append one run record (a JSON object) to the kind's history file."""
    path = history_path(settings, kind)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(record, ensure_ascii=False, sort_keys=True, default=str)
    with path.open("a", encoding="utf-8") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)  # concurrent runs (page + CLI) must not interleave lines
        try:
            fh.write(line + "\n")
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
    return path


@dataclass(frozen=True)
class History:
    runs: list[JSONObject]  # newest first, each as the history file holds it
    skipped: int  # damaged lines that could not be read

    def as_dict(self) -> JSONObject:
        return {"runs": self.runs, "skipped": self.skipped}


def list_runs(settings: Settings, kind: str, *, limit: int = 50, where: Mapping[str, object] | None = None) -> History:
    """The newest ``limit`` runs of a kind, optionally only those whose top-level fields equal ``where``."""
    path = history_path(settings, kind)
    if not path.is_file():
        return History([], 0)
    runs: list[JSONObject] = []
    skipped = 0
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            skipped += 1
            continue
        if not isinstance(rec, dict):
            skipped += 1
            continue
        if where and any(rec.get(k) != v for k, v in where.items()):
            continue
        runs.append(rec)
    runs.reverse()
    return History(runs[:limit], skipped)

"""Recent guard runs, for the overview: one JSON line per run under ``<RGUARD_DATA_DIR>/activity/guard.jsonl``.

Appends take a file lock; a damaged line is skipped when reading, never rewritten. Only what the overview
shows is kept (repository, verdict, the decisions it cited by title, where it ran), not the diff.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
from pathlib import Path

from .config import Settings
from .guard.model import GuardReport
from .jsontypes import JSONObject

MAX_READ = 2000  # lines read back from the end of the log


def _path(settings: Settings) -> Path:
    return settings.data_dir / "activity" / "guard.jsonl"


def record_guard_run(settings: Settings, report: GuardReport, where: str, pr: int | None = None) -> None:
    """Append one run; never raises for a full disk or a read-only data dir (the guard's answer matters more).
    The report's paths (the diff's files, as the guard parsed them) and ``pr`` say which change it was."""
    rec = {
        "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "repo": report.repo,
        "verdict": report.verdict,
        "where": where,
        "pr": pr,
        "paths": report.paths[:MAX_PATHS],
        "files": len(report.paths),
        "findings": [
            {"label": f.label, "summary": f.summary[:120], "decision_id": f.decision_id} for f in report.findings[:5]
        ],
    }
    path = _path(settings)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)
    except OSError:
        return


MAX_PATHS = 3  # files named per run; the count says how many more


def run_subject(rec: JSONObject) -> str:
    """Which change a recorded run judged: "PR #12", or its files ("tollgate/pricing.py +2 more")."""
    if rec.get("pr"):
        return f"PR #{rec['pr']}"
    paths = [str(p) for p in rec.get("paths") or []]
    more = int(rec.get("files") or len(paths)) - len(paths)
    if not paths:
        return "a diff"
    return ", ".join(paths) + (f" +{more} more" if more > 0 else "")


def recent_guard_runs(settings: Settings, repo: str, limit: int = 8) -> list[JSONObject]:
    """The newest ``limit`` runs for ``repo``, newest first."""
    path = _path(settings)
    if not path.is_file():
        return []
    out = []
    for line in reversed(path.read_text(encoding="utf-8", errors="replace").splitlines()[-MAX_READ:]):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict) and rec.get("repo") == repo:
            out.append(rec)
            if len(out) >= limit:
                break
    return out

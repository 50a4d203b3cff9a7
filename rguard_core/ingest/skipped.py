"""Coverage that tells all: every record file of a snapshot is either read or listed as skipped, with why.

A snapshot holds more than the ingest reads: issues no ingested PR links to, PRs beyond ``max_prs``, files
that are not numbered records. Each one gets a line ``skipped <file>: <why>`` in the coverage report, and a
count line says how many record files there were and how many were read, so nothing is dropped silently.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

from .model import RepoHistory

PREFIX = "skipped "
MAX_PEEK_BYTES = 1_000_000  # an issue record read only to tell whether it is a PR's


def _records(folder: Path) -> tuple[list[int], list[str]]:
    numbered, other = [], []
    for p in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        (numbered.append(int(p.stem)) if re.fullmatch(r"[0-9]+", p.stem) else other.append(p.name))
    return sorted(numbered), other


def _is_pr_record(path: Path) -> bool:
    try:
        st = os.lstat(path)  # snapshot files are untrusted: no link, FIFO or device is opened, no huge read
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_PEEK_BYTES:
            return False
        return bool(json.loads(path.read_text(encoding="utf-8")).get("pull_request"))
    except (OSError, ValueError, AttributeError, RecursionError):
        return False


def snapshot_skips(repo_dir: Path, hist: RepoHistory, max_prs: int) -> list[str]:
    """Lines for the coverage report: the counts, then every PR or issue file the ingest did not read."""
    read_prs = {p.number for p in hist.pulls}
    read_issues = {i.number for i in hist.issues}
    prs, odd_prs = _records(repo_dir / "pulls")
    issues, odd_issues = _records(repo_dir / "issues")
    out = [
        f"read {len(read_prs & set(prs))} of {len(prs)} PR files and {len(read_issues & set(issues))} of "
        f"{len(issues)} issue files in the snapshot"
    ]
    said = "\n".join(hist.problems)  # files the snapshot reader already reported (odd name, wrong number, null)

    def told(rel: str) -> bool:
        return f"{rel} " in said or f"{rel}\n" in said or said.endswith(rel)

    prs = [n for n in prs if not told(f"pulls/{n}.json")]
    issues = [n for n in issues if not told(f"issues/{n}.json")]
    odd_prs = [name for name in odd_prs if not told(f"pulls/{name}")]
    for n in prs:
        if n not in read_prs:
            out.append(f"{PREFIX}pulls/{n}.json: PR #{n} is older than the newest {max_prs} PRs read")
    for n in issues:
        if n in read_issues or n in read_prs:
            continue  # read, or the issue record of a PR that was read as a PR
        if _is_pr_record(repo_dir / "issues" / f"{n}.json"):
            out.append(f"{PREFIX}issues/{n}.json: the issue record of PR #{n}, whose PR file was not read")
        else:
            out.append(
                f"{PREFIX}issues/{n}.json: issue #{n} is linked from no PR that was read (Fixes/refs #{n}), "
                "so no decision rests on it"
            )
    out += [f"{PREFIX}pulls/{name}: not a numbered PR record" for name in odd_prs]
    out += [f"{PREFIX}issues/{name}: not a numbered issue record" for name in odd_issues]
    return out

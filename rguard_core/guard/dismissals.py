"""After the judge: reviewers' dismissals ("wrong") that still hold take a finding out of the verdict.

A dismissal is about one decision on the lines it was judged on. Each finding gets a ``lines_key``: a hash of the
diff's changed lines (``+``/``-``, whitespace-normalised, with their file) in the files that reached the
decision — all changed lines when it was reached by symbol or issue only. A finding is dismissed when an applied
"wrong" Correction on its decision carries the same ``lines_key`` and the same ``decision_key`` (the decision's
summary and quote as stored now). Change the lines, or re-ingest a decision whose text changed, and the finding
is back. Undoing the dismissal (``memory revert``) marks the Correction reverted, and the finding is back too.
"""

from __future__ import annotations

import hashlib

from ..db import Graph
from ..feedback_keys import decision_key
from .learned import entries
from .model import Dismissal, Finding, ParsedDiff

DECISION_TEXT_Q = "MATCH (d:Decision) WHERE d.id IN $ids RETURN d.id AS id, d.summary AS summary, d.quote AS quote"


def lines_key(diff: ParsedDiff, files: list[str]) -> str:
    """The changed lines of ``files`` in ``diff`` (all files when none of them is in it), as a short hash."""
    wanted = set(files)
    chosen = [f for f in diff.files if wanted & set(f.paths)] or diff.files
    h = hashlib.sha256()
    for f in sorted(chosen, key=lambda f: f.path):
        for hunk in f.hunks:
            for kind, text in hunk.lines:
                if kind in "+-":
                    h.update(f"{f.path}\x00{kind}\x00{' '.join(text.split())}\n".encode())
    return h.hexdigest()[:16]


def apply_dismissals(
    graph: Graph, diff: ParsedDiff, findings: list[Finding], files: dict[str, list[str]]
) -> tuple[list[Finding], list[Finding]]:
    """(findings still in force, findings dismissed); sets every finding's ``lines_key``."""
    for f in findings:
        f.lines_key = lines_key(diff, files.get(f.decision_id, []))
    ids = [f.decision_id for f in findings]
    if not ids:
        return findings, []
    wrongs = {d: [e for e in es if e.kind == "wrong"] for d, es in entries(graph, ids).items()}
    if not any(wrongs.values()):
        return findings, []
    keys = {
        r["id"]: decision_key(r["summary"], r["quote"])
        for r in graph.read(DECISION_TEXT_Q, {"ids": ids}, name="guard.dismissals")
    }
    kept, dismissed = [], []
    for f in findings:
        match = next(
            (
                e
                for e in wrongs.get(f.decision_id, [])
                if e.lines_key == f.lines_key and e.decision_key == keys.get(f.decision_id)
            ),
            None,
        )
        if match is None:
            kept.append(f)
            continue
        f.dismissed = Dismissal(match.correction, match.by, match.reason, match.at, match.revision)
        dismissed.append(f)
    return kept, dismissed

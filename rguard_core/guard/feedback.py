"""Reviewer feedback on a guard finding: validated here, written by the memory engine (memory/reviews.py).

  ack       keeps the finding; records who and why; later runs list it under ``learned`` (one per reviewer)
  wrong     dismisses the finding for that decision on those lines (the finding's ``lines_key``): later runs
            show it as dismissed, by whom and why, and do not warn on it until the decision or the lines change
  override  marks the decision superseded and writes a new Decision that SUPERSEDES it, resting on the
            reviewer's own words (a ``human_correction`` Source and a claim quoting it), never the old evidence

Every kind is a Correction node written by the memory engine's compare-and-set, so it survives re-ingest and a
full recompute, and can be undone (``memory revert CORRECTION_ID``) as a new audit entry.
"""

from __future__ import annotations

import re

from ..db import Store
from ..errors import InvalidInput, UnknownRepository
from ..feedback_keys import REVIEW_KINDS
from ..graph_state import require_complete
from ..jsontypes import JSONObject
from ..memory.reviews import ReviewResult, record_review
from .learned import FeedbackEntry, entries
from .run import run_guard

__all__ = [  # the read side lives in learned.py (run.py reads it); pages import it from here too
    "KINDS",
    "FeedbackEntry",
    "entries",
    "give_feedback",
    "record_feedback",
]

KINDS = REVIEW_KINDS
MAX_REASON = 4000
_LOGIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\[\]-]{0,99}$")


def give_feedback(
    store: Store,
    repo: str,
    decision_id: str,
    kind: str,
    by: str,
    reason: str,
    *,
    lines_key: str | None = None,
    diff: str | None = None,
) -> ReviewResult:
    """Store one piece of feedback on a finding. A ``wrong`` needs the finding's lines: ``lines_key`` from a
    guard run, or the ``diff`` the guard judged (it is guarded again to find the finding)."""
    graph = store.repo_graph(repo)
    kind, by, reason = _check(kind, by, reason, decision_id)
    if not graph.exists():
        raise UnknownRepository(repo)
    require_complete(graph)
    if kind == "wrong" and not lines_key:
        if diff is None:
            raise InvalidInput(
                "to dismiss a finding, say which lines it was judged on: give the diff the guard "
                "judged, or the finding's lines key from the guard's report"
            )
        lines_key = _lines_of(store, repo, decision_id, diff)
    return record_review(graph, decision_id, kind, by, reason, lines_key=lines_key)


def record_feedback(
    store: Store,
    repo: str,
    decision_id: str,
    kind: str,
    by: str,
    reason: str,
    *,
    lines_key: str | None = None,
    diff: str | None = None,
) -> JSONObject:
    """give_feedback as the CLI's JSON document (correction id, decision status, new decision…)."""
    res = give_feedback(store, repo, decision_id, kind, by, reason, lines_key=lines_key, diff=diff)
    return {"repo": repo, **res.as_dict()}


def _lines_of(store: Store, repo: str, decision_id: str, diff: str) -> str:
    report = run_guard(store, repo, diff)
    for f in [*report.findings, *report.dismissed]:
        if f.decision_id == decision_id:
            return f.lines_key
    raise InvalidInput(f"the guard reports no finding on {decision_id} for this diff; nothing to dismiss")


def _check(kind: str, by: str, reason: str, decision_id: str) -> tuple[str, str, str]:
    """Validated input; messages name the field, not a CLI flag, so the page and the CLI can both show them."""
    kind = (kind or "").strip().lower()
    if kind not in KINDS:
        raise InvalidInput(f"unknown feedback kind {kind!r}; choose one of: {', '.join(KINDS)}")
    by = (by or "").strip()
    if not _LOGIN.match(by):
        raise InvalidInput(f"your login must be letters, digits, '.', '_' or '-' (got {by!r})")
    if not reason or not reason.strip():
        raise InvalidInput("say why: a reason is required (for override: the new decision, in your own words)")
    if len(reason) > MAX_REASON:
        raise InvalidInput(f"the reason is too long ({len(reason)} characters, at most {MAX_REASON})")
    if not decision_id or not decision_id.startswith("decision:"):
        raise InvalidInput(f"the decision must be a decision id like 'decision:pr:12', got {decision_id!r}")
    return kind, by, reason

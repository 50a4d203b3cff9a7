"""Reviewer feedback on guard findings, written by the memory engine (the one writer of corrections).

Every kind is one compare-and-set query (writes.py) on the graph's memory revision and the decision's revision,
so feedback from many reviewers at once loses nothing and never interleaves with a quarantine or correction.

  ack       the finding stands; records who and why. One ack per reviewer and decision: a second ack by the
            same reviewer returns the first (``status: 'already'``); undo it to change the reason.
  wrong     dismisses the finding for that decision on those lines: the Correction stores the finding's
            ``lines_key`` (the diff's changed lines the finding rests on) and ``decision_key`` (the decision's
            summary and quote). A later guard run shows the finding as dismissed and does not warn on it while
            both keys match (guard/dismissals.py). One dismissal per reviewer, decision and lines.
  override  the reviewer's words become a ``human_correction`` Source with one Fragment, a Claim quoting it
            (an observation) and a Justification from that claim to a new Decision that SUPERSEDES the old one.
            The new decision holds through the reviewer's correction like any other decision holds through its
            evidence, so a full recompute (``memory recompute``, re-ingest) keeps it.

Undo any of them with undo.undo (``memory revert CORRECTION_ID``): a new audit entry, nothing erased.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from dataclasses import dataclass

from ..db import Graph
from ..errors import ConflictError, InvalidInput
from ..evidence import Span, anchor
from ..feedback_keys import REVIEW_KINDS, decision_key
from ..jsontypes import JSONObject, Params, Row
from . import writes
from .recompute import optimistic

LINES_KEY = re.compile(r"^[0-9a-f]{16}$")

_CHECK_DECISION = "MATCH (d:Decision {id: $decision}) WHERE coalesce(d.rev, 0) = $drev "
_CORRECTION = (
    "CREATE (c:Correction {id: $cid, kind: $kind, by: $by, reason: $reason, created_at: $at, state: 'applied', "
    "rev: 0, target_id: $decision, lines_key: $lines_key, decision_key: $decision_key, new_decision: $new_id}) "
    "CREATE (c)-[:ABOUT]->(d) "
)
_OVERRIDE = (
    "SET d.status = 'superseded', d.rev = coalesce(d.rev, 0) + 1 "
    "MERGE (a:Person {id: $person}) ON CREATE SET a.login = $by, a.is_bot = false "
    "CREATE (s:Source {id: $sid, kind: 'human_correction', title: $title, text: $text, by: $by, created_at: $at, "
    "quarantined: false, rev: 0}) "
    "CREATE (a)-[:AUTHORED]->(s) "
    "CREATE (fr:Fragment {id: $fid, source_id: $sid, start: $start, end: $end, text: $quote}) "
    "CREATE (s)-[:HAS_FRAGMENT]->(fr) "
    "CREATE (hc:Claim {id: $claim_id, statement: $quote, quote: $quote, source_id: $sid, start: $start, end: $end, "
    "rev: 0, status: 'active', holds: true, confidence: 0.0, confidence_kind: 'human_correction', extractor: 'human'}) "
    "CREATE (hc)-[:EVIDENCED_BY]->(fr) "
    "CREATE (n:Decision {id: $new_id, summary: $summary, quote: $quote, source_id: $sid, start: $start, end: $end, "
    "extractor: 'human', rev: 0, status: 'active', holds: true, score_factor: 1.0}) "
    "CREATE (j:Justification {id: $just_id, holds: true}) "
    "CREATE (j)-[:PREMISE]->(hc) CREATE (j)-[:JUSTIFIES]->(n) "
    "CREATE (n)-[:EVIDENCED_BY]->(fr) CREATE (n)-[:DERIVED_FROM]->(s) CREATE (n)-[:SUPERSEDES]->(d) "
)


@dataclass(frozen=True)
class ReviewResult:
    """What one piece of feedback wrote (or found already written)."""

    status: str  # recorded | already
    kind: str
    correction: str
    decision: str
    by: str
    reason: str
    created_at: str
    decision_status: str
    new_decision: str | None = None
    lines_key: str | None = None

    def as_dict(self) -> JSONObject:
        # "status" is the decision's status after the feedback (the CLI's contract); "recorded" says whether
        # this call wrote it or found the reviewer's earlier one
        out: JSONObject = {
            "kind": self.kind,
            "correction": self.correction,
            "decision_id": self.decision,
            "by": self.by,
            "reason": self.reason,
            "created_at": self.created_at,
            "status": self.decision_status,
            "recorded": self.status,
        }
        if self.new_decision:
            out["new_decision"] = self.new_decision
        if self.lines_key:
            out["lines_key"] = self.lines_key
        return out


def record_review(
    graph: Graph,
    decision_id: str,
    kind: str,
    by: str,
    reason: str,
    *,
    lines_key: str | None = None,
    now: str | None = None,
) -> ReviewResult:
    """Store one piece of feedback through the memory engine's compare-and-set (validated by the caller)."""
    if kind not in REVIEW_KINDS:
        raise InvalidInput(f"unknown feedback kind {kind!r}; choose one of: {', '.join(REVIEW_KINDS)}")
    if kind == "wrong" and not (lines_key and LINES_KEY.match(lines_key)):
        raise InvalidInput("a dismissal needs the lines it is about: the finding's lines key from a guard run")
    at = now or dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    cid = f"corr:{uuid.uuid4().hex}"

    def attempt(revision: int) -> ReviewResult | None:
        d = _decision(graph, decision_id)
        if kind == "override" and d.status == "superseded":
            raise ConflictError(
                f"{decision_id} is already superseded; run the guard again and give feedback on the decision it shows"
            )
        if kind in ("ack", "wrong"):
            prior = _prior(graph, decision_id, kind, by, lines_key, d.key)
            if prior is not None:
                return ReviewResult(
                    "already",
                    kind,
                    prior["id"],
                    decision_id,
                    by,
                    prior["reason"] or "",
                    prior["at"] or "",
                    d.status,
                    lines_key=lines_key,
                )
        lines = lines_key if kind == "wrong" else None
        params: Params = {
            "decision": decision_id,
            "drev": d.rev,
            "cid": cid,
            "kind": kind,
            "by": by,
            "reason": reason,
            "at": at,
            "lines_key": lines,
            "decision_key": d.key if kind == "wrong" else None,
            "new_id": None,
        }
        write = _CORRECTION
        new_id: str | None = None
        if kind == "override":
            override = _override_params(by, reason, at)
            new_id = override.new_id
            params.update(override.params)
            write = _OVERRIDE + _CORRECTION
        new = writes.cas_write(
            graph,
            writes.WritePlan(revision),
            check=_CHECK_DECISION,
            write=write,
            params=params,
            name=f"memory.review.{kind}",
        )
        if new is None:
            return None
        status = "superseded" if kind == "override" else d.status
        return ReviewResult("recorded", kind, cid, decision_id, by, reason, at, status, new_id, lines)

    return optimistic(graph, attempt, f"{kind} on {decision_id}")


@dataclass(frozen=True)
class _DecisionRef:
    """The decision feedback is about, as read before the write: status, revision and what it says (its key)."""

    status: str
    rev: int
    key: str


@dataclass(frozen=True)
class _Override:
    """The parameters of an override's new source, claim and decision, and the new decision's id."""

    new_id: str
    params: Params


def _decision(graph: Graph, decision_id: str) -> _DecisionRef:
    rows = graph.read(
        "MATCH (d:Decision {id: $id}) RETURN coalesce(d.status, 'active') AS status, "
        "coalesce(d.rev, 0) AS rev, d.summary AS summary, d.quote AS quote",
        {"id": decision_id},
        name="memory.review.decision",
    )
    if not rows:
        raise InvalidInput(f"{graph.name} has no decision {decision_id!r}; use a decision id from a guard finding")
    r = rows[0]
    return _DecisionRef(str(r["status"]), int(r["rev"]), decision_key(r["summary"], r["quote"]))


def _prior(graph: Graph, decision_id: str, kind: str, by: str, lines_key: str | None, dkey: str) -> Row | None:
    rows = graph.read(
        "MATCH (c:Correction {kind: $kind, by: $by})-[:ABOUT]->(:Decision {id: $id}) "
        "WHERE coalesce(c.state, 'applied') = 'applied' "
        "RETURN c.id AS id, c.reason AS reason, c.created_at AS at, c.lines_key AS lines, c.decision_key AS dkey "
        "ORDER BY c.created_at",
        {"kind": kind, "by": by, "id": decision_id},
        name="memory.review.prior",
    )
    for r in rows:
        if kind == "ack" or (r["lines"] == lines_key and r["dkey"] == dkey):
            return r
    return None


def _override_params(by: str, text: str, at: str) -> _Override:
    sid = f"src:hc:{uuid.uuid4().hex}"
    span = anchor(sid, text, text.strip())
    if not isinstance(span, Span):
        raise InvalidInput(f"the override text cannot be used as a quote ({span.reason})")
    frag = f"{sid}:{span.start}:{span.end}"
    new_id = f"decision:{sid}"
    return _Override(
        new_id,
        {
            "sid": sid,
            "text": text,
            "person": f"person:{by}",
            "fid": f"frag:{frag}",
            "start": span.start,
            "end": span.end,
            "quote": span.text,
            "summary": " ".join(span.text.split())[:200],
            "new_id": new_id,
            "claim_id": f"claim:{frag}",
            "just_id": f"just:decision:{sid}",
            "title": f"Override by {by}",
        },
    )

"""Reviewer feedback on a guard finding, stored as Correction nodes that survive re-ingest.

  ack       keeps the finding; records who and why; later runs list it under ``learned``
  wrong     multiplies the decision's score_factor by 0.25 (re-ingest never resets it)
  override  marks the decision superseded and writes a new Decision that SUPERSEDES it, quoting the
            reviewer's own words from a new ``human_correction`` Source (never the old evidence)

Each kind is one atomic query. Ingest only MERGEs nodes it builds and sets ``status``/``score_factor``
on create, so Corrections, the new Source/Decision and the SUPERSEDES edge all survive a re-ingest.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from typing import Any

from ..db import Graph, Store
from ..errors import ConflictError, InvalidInput, UnknownRepository
from ..evidence import Span, anchor
from ..graph_state import require_complete

KINDS = ("ack", "wrong", "override")
WRONG_FACTOR = 0.25
MAX_REASON = 4000
_LOGIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\[\]-]{0,99}$")

ACK_Q = """
MATCH (d:Decision {id: $decision})
CREATE (c:Correction {id: $cid, kind: 'ack', by: $by, reason: $reason, created_at: $at, state: 'applied',
                      target_id: $decision})
CREATE (c)-[:ABOUT]->(d)
RETURN c.id AS correction, coalesce(d.score_factor, 1.0) AS score_factor, d.status AS status
"""

WRONG_Q = """
MATCH (d:Decision {id: $decision})
SET d.score_factor = coalesce(d.score_factor, 1.0) * $factor
CREATE (c:Correction {id: $cid, kind: 'wrong', by: $by, reason: $reason, created_at: $at, state: 'applied',
                      target_id: $decision, factor: $factor})
CREATE (c)-[:ABOUT]->(d)
RETURN c.id AS correction, d.score_factor AS score_factor, d.status AS status
"""

OVERRIDE_Q = """
MATCH (d:Decision {id: $decision})
WHERE coalesce(d.status, 'active') <> 'superseded'
SET d.status = 'superseded', d.rev = coalesce(d.rev, 0) + 1
MERGE (a:Person {id: $person})
ON CREATE SET a.login = $by, a.is_bot = false
CREATE (s:Source {id: $sid, kind: 'human_correction', text: $text, by: $by, created_at: $at,
                  quarantined: false, rev: 0})
CREATE (a)-[:AUTHORED]->(s)
CREATE (fr:Fragment {id: $fid, source_id: $sid, start: $start, end: $end, text: $quote})
CREATE (s)-[:HAS_FRAGMENT]->(fr)
CREATE (n:Decision {id: $new_id, summary: $summary, quote: $quote, source_id: $sid, start: $start, end: $end,
                    extractor: 'human', rev: 0, status: 'active', holds: true, score_factor: 1.0})
CREATE (n)-[:EVIDENCED_BY]->(fr)
CREATE (n)-[:DERIVED_FROM]->(s)
CREATE (n)-[:SUPERSEDES]->(d)
CREATE (c:Correction {id: $cid, kind: 'override', by: $by, reason: $text, created_at: $at, state: 'applied',
                      target_id: $decision, new_decision: $new_id})
CREATE (c)-[:ABOUT]->(d)
RETURN c.id AS correction, n.id AS new_decision, d.status AS status
"""

LEARNED_Q = """
MATCH (c:Correction)-[:ABOUT]->(d:Decision)
WHERE d.id IN $ids AND c.kind IN ['ack', 'wrong']
RETURN d.id AS decision, c.kind AS kind, c.by AS by, c.reason AS reason, c.created_at AS at, d.id AS about
UNION ALL
MATCH (d:Decision) WHERE d.id IN $ids WITH d
MATCH (d)-[:SUPERSEDES]->(o:Decision)<-[:ABOUT]-(c:Correction)
WHERE c.kind = 'override'
RETURN d.id AS decision, c.kind AS kind, c.by AS by, c.reason AS reason, c.created_at AS at, o.id AS about
"""


def record_feedback(store: Store, repo: str, decision_id: str, kind: str, by: str, reason: str) -> dict[str, Any]:
    """Store one piece of feedback on a finding; returns what was written (correction id, new decision…)."""
    graph = store.repo_graph(repo)
    kind, by, reason = _check(kind, by, reason, decision_id)
    if not graph.exists():
        raise UnknownRepository(repo)
    require_complete(graph)
    exists = graph.read("MATCH (d:Decision {id: $id}) RETURN d.status AS status", {"id": decision_id},
                        name="feedback.check")
    if not exists:
        raise InvalidInput(f"repository {repo} has no decision {decision_id!r}; use a decision_id from a guard finding")
    at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    params: dict[str, Any] = {"decision": decision_id, "cid": f"corr:{uuid.uuid4().hex}", "by": by,
                              "reason": reason, "at": at}
    if kind == "ack":
        rows = graph.query(ACK_Q, params, name="feedback.ack")
    elif kind == "wrong":
        rows = graph.query(WRONG_Q, {**params, "factor": WRONG_FACTOR}, name="feedback.wrong")
    else:
        rows = _override(graph, params, reason)
        if not rows:
            raise ConflictError(
                f"{decision_id} is already superseded; run the guard again and give feedback on the decision it shows"
            )
    return {"repo": repo, "decision_id": decision_id, "kind": kind, "by": by, "reason": reason, "created_at": at,
            **rows[0]}


def _override(graph: Graph, params: dict[str, Any], text: str) -> list[dict[str, Any]]:
    sid = f"src:hc:{uuid.uuid4().hex}"
    span = anchor(sid, text, text.strip())
    if not isinstance(span, Span):
        raise InvalidInput(f"override text cannot be used as a quote ({span.reason})")
    summary = " ".join(span.text.split())[:200]
    return graph.query(OVERRIDE_Q, {
        **params, "sid": sid, "text": text, "person": f"person:{params['by']}", "fid": f"frag:{sid}:{span.start}:{span.end}",
        "start": span.start, "end": span.end, "quote": span.text, "summary": summary,
        "new_id": f"decision:{sid}",
    }, name="feedback.override")


def learned(graph: Graph, ids: list[str]) -> dict[str, list[str]]:
    """What earlier feedback taught about each decision, oldest first, for the report's ``learned`` list."""
    out: dict[str, list[tuple[str, str]]] = {}
    for r in graph.read(LEARNED_Q, {"ids": ids}, name="feedback.learned"):
        when = str(r.get("at") or "")[:10]
        reason = " ".join(str(r.get("reason") or "").split())[:200]
        if r["kind"] == "ack":
            note = f"acknowledged by {r['by']} on {when}: {reason}"
        elif r["kind"] == "wrong":
            note = f"marked wrong by {r['by']} on {when} (score x{WRONG_FACTOR}): {reason}"
        else:
            note = f"override by {r['by']} on {when} replaced {r['about']}: {reason}"
        out.setdefault(r["decision"], []).append((str(r.get("at") or ""), note))
    return {k: [n for _, n in sorted(v)] for k, v in out.items()}


def _check(kind: str, by: str, reason: str, decision_id: str) -> tuple[str, str, str]:
    kind = (kind or "").strip().lower()
    if kind not in KINDS:
        raise InvalidInput(f"unknown feedback kind {kind!r}; choose one of: {', '.join(KINDS)}")
    by = (by or "").strip()
    if not _LOGIN.match(by):
        raise InvalidInput(f"--by must be a login (letters, digits, '.', '_', '-'), got {by!r}")
    if not reason or not reason.strip():
        raise InvalidInput("--reason is required: say why (for override: the new decision, in your own words)")
    if len(reason) > MAX_REASON:
        raise InvalidInput(f"--reason is too long ({len(reason)} characters, at most {MAX_REASON})")
    if not decision_id or not decision_id.startswith("decision:"):
        raise InvalidInput(f"--decision must be a decision id like 'decision:pr:12', got {decision_id!r}")
    return kind, by, reason

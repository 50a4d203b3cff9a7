"""Feedback still in force on decisions, as guard runs and the Guard page read it (feedback.py writes it).

``ack`` and ``wrong`` are read on the decision they were given on; an ``override`` on the decision that
replaced the one it was given on (so a later run on the new decision lists why it exists).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..db import Graph

ENTRIES_Q = """
MATCH (c:Correction)-[:ABOUT]->(d:Decision)
WHERE d.id IN $ids AND c.kind IN ['ack', 'wrong'] AND coalesce(c.state, 'applied') = 'applied'
RETURN d.id AS decision, c.id AS id, c.kind AS kind, c.by AS by, c.reason AS reason, c.created_at AS at,
       d.id AS about, coalesce(c.rev, 0) AS rev, c.lines_key AS lines_key, c.decision_key AS decision_key
UNION ALL
MATCH (d:Decision) WHERE d.id IN $ids WITH d
MATCH (d)-[:SUPERSEDES]->(o:Decision)<-[:ABOUT]-(c:Correction)
WHERE c.kind = 'override' AND coalesce(c.state, 'applied') = 'applied'
RETURN d.id AS decision, c.id AS id, c.kind AS kind, c.by AS by, c.reason AS reason, c.created_at AS at,
       o.id AS about, coalesce(c.rev, 0) AS rev, c.lines_key AS lines_key, c.decision_key AS decision_key
"""


@dataclass(frozen=True)
class FeedbackEntry:
    """One piece of feedback still in force on a decision (what a page lists, with an undo)."""

    correction: str
    decision: str
    kind: str  # ack | wrong | override
    by: str
    reason: str
    at: str
    about: str  # the decision it was given on (for an override: the one it replaced)
    revision: int
    lines_key: str | None = None
    decision_key: str | None = None

    @property
    def note(self) -> str:
        when = self.at[:10]
        reason = " ".join(self.reason.split())[:200]
        if self.kind == "ack":
            return f"acknowledged by {self.by} on {when}: {reason}"
        if self.kind == "wrong":
            return f"dismissed by {self.by} on {when} for the lines it was judged on: {reason}"
        return f"override by {self.by} on {when} replaced {self.about}: {reason}"


def entries(graph: Graph, ids: list[str]) -> dict[str, list[FeedbackEntry]]:
    """Feedback still in force on each decision (not undone), oldest first."""
    out: dict[str, list[FeedbackEntry]] = {}
    for r in graph.read(ENTRIES_Q, {"ids": ids}, name="feedback.learned"):
        e = FeedbackEntry(
            r["id"],
            r["decision"],
            r["kind"],
            str(r.get("by") or ""),
            str(r.get("reason") or ""),
            str(r.get("at") or ""),
            r["about"],
            int(r["rev"]),
            r.get("lines_key"),
            r.get("decision_key"),
        )
        out.setdefault(e.decision, []).append(e)
    return {k: sorted(v, key=lambda e: (e.at, e.correction)) for k, v in out.items()}


def learned(graph: Graph, ids: list[str]) -> dict[str, list[str]]:
    """What earlier feedback taught about each decision, oldest first, for the report's ``learned`` list."""
    return {k: [e.note for e in v] for k, v in entries(graph, ids).items()}


GIVEN_Q = """
MATCH (d:Decision {id: $decision})<-[:ABOUT]-(c:Correction)
WHERE c.kind = $kind AND c.by = $by
RETURN count(c) AS n
"""


def ever_given(graph: Graph, decision: str, kind: str, by: str) -> bool:
    """Whether this graph holds that reviewer's feedback of that kind on the decision, in force or undone: a graph
    without it lost it (a fresh CI cache), while an undone one was taken back on purpose."""
    rows = graph.read(GIVEN_Q, {"decision": decision, "kind": kind, "by": by}, name="feedback.ever_given")
    return bool(rows and int(rows[0]["n"]) > 0)

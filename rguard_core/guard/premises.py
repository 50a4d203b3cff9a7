"""Premise rules: does each candidate decision still stand? Each rule is one parameterised Cypher read.

R1  a linked issue (Refs) is still open: the reason is live                     holds
R2  a merged "Fixes #N" whose issue is still open: the fix did not settle it     stale
R3  the ADR's status: accepted holds; proposed is stale; deprecated/superseded/rejected is broken
R4  the decision was superseded (or supersedes an older one: holds); a revert is R7's, not R4's
R5  it depends on a PR that is not merged, or an issue that is still open        stale
R6  every human author has been inactive for Settings.inactive_days, counted back from the
    repository's latest activity (so a recorded snapshot gives the same answer on any day)   stale
R7  the decision's PR or commit was reverted (by a revert not itself reverted)  broken
    — reverts are read at ingest in every form ingest/reverts.py knows (sha, "Revert \"title\"", #N)
P1  a claim it rests on was withdrawn or corrected (support engine: holds=false / superseded)  stale
P2  its source, or a source of a claim it rests on, is quarantined               broken
P3  the support engine labelled it review / correction / compensation
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from ..db import Graph
from ..jsontypes import Row


@dataclass(frozen=True)
class Rule:
    id: str
    query: str
    status: Callable[[Row, int], tuple[str, str] | None]  # row, inactive_days -> (status, detail) or None


def _r1(r: Row, _: int) -> tuple[str, str]:
    return "holds", f"refs #{r['n']} ({r['title']}), still open: the reason is live"


def _r2(r: Row, _: int) -> tuple[str, str]:
    return "stale", f"merged as a fix for #{r['n']} ({r['title']}), but #{r['n']} is still open"


def _r3(r: Row, _: int) -> tuple[str, str]:
    status = (r.get("status") or "proposed").lower()
    verdict = {"accepted": "holds", "proposed": "stale"}.get(status, "broken")
    return verdict, f"ADR {r.get('path')} is {status}"


def _r4(r: Row, _: int) -> tuple[str, str]:
    if r.get("newer"):
        return "broken", f"superseded by {r['newer']}"
    if r.get("older"):
        return "holds", f"supersedes {r['older']}"
    return "broken", "marked superseded"


def _r5(r: Row, _: int) -> tuple[str, str]:
    what = "is not merged" if r.get("is_pr") else "is still open"
    return "stale", f"depends on #{r['n']} ({r['title']}), which {what}"


def _r6(r: Row, days: int) -> tuple[str, str] | None:
    last, latest = r.get("last"), r.get("latest")
    if not last or not latest:
        return None
    idle = (_date(latest) - _date(last)).days
    who = ", ".join(sorted(r.get("authors") or []))
    if idle > days:
        return "stale", f"every author ({who}) inactive for {idle} days (limit {days}): ask the experts instead"
    return None


def _r7(r: Row, _: int) -> tuple[str, str]:
    by = f"#{r['n']}" if r.get("n") is not None else r["by"]
    return "broken", f"reverted by {by}"


def _p1(r: Row, _: int) -> tuple[str, str]:
    return "stale", f'supporting claim withdrawn or corrected: "{_short(r["quote"])}"'


def _p2(r: Row, _: int) -> tuple[str, str]:
    return "broken", f"source {r['source']} is quarantined"


def _p3(r: Row, _: int) -> tuple[str, str]:
    label = r.get("label") or "correction"
    return ("stale" if label == "review" else "broken"), f"support engine labelled it '{label}'"


RULES: tuple[Rule, ...] = (
    Rule(
        "R1",
        """MATCH (d:Decision) WHERE d.id IN $ids WITH d MATCH (d)-[:DERIVED_FROM]->(p:Source)-[:REFERENCES]->(i:Issue)
WHERE i.state = 'open' RETURN d.id AS decision, i.number AS n, i.title AS title""",
        _r1,
    ),
    Rule(
        "R2",
        """MATCH (d:Decision) WHERE d.id IN $ids WITH d MATCH (d)-[:DERIVED_FROM]->(p:PR)-[:FIXES]->(i:Issue)
WHERE p.merged = true AND i.state = 'open' RETURN d.id AS decision, i.number AS n, i.title AS title""",
        _r2,
    ),
    Rule(
        "R3",
        """MATCH (d:Decision) WHERE d.id IN $ids WITH d MATCH (doc:Doc) WHERE doc.id = d.source_id
RETURN d.id AS decision, doc.status AS status, doc.path AS path""",
        _r3,
    ),
    Rule(
        "R4",
        """MATCH (d:Decision) WHERE d.id IN $ids WITH d MATCH (d)
OPTIONAL MATCH (n:Decision)-[:SUPERSEDES]->(d)
OPTIONAL MATCH (d)-[:SUPERSEDES]->(o:Decision)
WITH d, collect(DISTINCT n.id) AS newer, collect(DISTINCT o.id) AS older
WHERE (d.status = 'superseded' AND d.reverted_by IS NULL) OR size(newer) > 0 OR size(older) > 0
RETURN d.id AS decision, newer[0] AS newer, older[0] AS older""",
        _r4,
    ),
    Rule(
        "R5",
        """MATCH (d:Decision) WHERE d.id IN $ids WITH d MATCH (d)-[:DERIVED_FROM]->(p:Source)-[:DEPENDS_ON]->(q:Source)
WHERE (q:PR AND coalesce(q.merged, false) = false) OR (q:Issue AND q.state = 'open')
RETURN d.id AS decision, q.number AS n, q.title AS title, q:PR AS is_pr""",
        _r5,
    ),
    Rule(
        "R6",
        """MATCH (x:Person) WHERE x.is_bot = false WITH max(x.last_active) AS latest
MATCH (d:Decision) WHERE d.id IN $ids WITH d, latest MATCH (s:Source) WHERE s.id = d.source_id
WITH d, latest, s MATCH (s)<-[:AUTHORED]-(a:Person)
WHERE a.is_bot = false
RETURN d.id AS decision, max(a.last_active) AS last, latest, collect(DISTINCT a.login) AS authors""",
        _r6,
    ),
    Rule(
        "R7",
        """MATCH (d:Decision) WHERE d.id IN $ids WITH d MATCH (p:Source) WHERE p.id = d.source_id
WITH d, p MATCH (p)<-[:REVERTS]-(r:Source)
WHERE coalesce(r.merged, true) = true AND NOT (r)<-[:REVERTS]-(:Source {merged: true})
  AND NOT (r)<-[:REVERTS]-(:Commit)
RETURN DISTINCT d.id AS decision, r.number AS n, r.id AS by""",
        _r7,
    ),
    Rule(
        "P1",
        """MATCH (d:Decision) WHERE d.id IN $ids WITH d MATCH (d)<-[:JUSTIFIES]-(:Justification)-[:PREMISE]->(c:Claim)
WHERE c.holds = false OR c.status = 'superseded' RETURN DISTINCT d.id AS decision, c.quote AS quote""",
        _p1,
    ),
    Rule(
        "P2",
        """MATCH (d:Decision) WHERE d.id IN $ids WITH d MATCH (d)
OPTIONAL MATCH (d)<-[:JUSTIFIES]-(:Justification)-[:PREMISE]->(c:Claim)
WITH d, collect(DISTINCT c.source_id) + [d.source_id] AS sids
UNWIND sids AS sid MATCH (s:Source {id: sid}) WHERE s.quarantined = true
RETURN DISTINCT d.id AS decision, s.id AS source""",
        _p2,
    ),
    Rule(
        "P3",
        """MATCH (d:Decision) WHERE d.id IN $ids WITH d MATCH (d)
WHERE d.label IN ['review', 'correction', 'compensation'] OR d.holds = false
RETURN d.id AS decision, d.label AS label""",
        _p3,
    ),
)

BROKEN_STANDING = ("R3", "R4", "R7")  # rules whose "broken" means the decision no longer stands


def run_rule(graph: Graph, rule: Rule, ids: list[str], inactive_days: int) -> list[tuple[str, dict[str, str]]]:
    """(decision id, premise dict) for every row of one rule that has something to say."""
    out = []
    for r in graph.read(rule.query, {"ids": ids}, name=f"premise.{rule.id}"):
        res = rule.status(r, inactive_days)
        if res is not None:
            out.append((r["decision"], {"rule": rule.id, "status": res[0], "detail": res[1]}))
    return out


def no_longer_stands(premises: list[dict[str, str]]) -> bool:
    """True when the decision was reverted, superseded or its ADR withdrawn: nothing left to contradict."""
    return any(p["rule"] in BROKEN_STANDING and p["status"] == "broken" for p in premises)


def _date(s: str) -> dt.date:
    return dt.date.fromisoformat(str(s)[:10])


def _short(s: str, n: int = 120) -> str:
    s = " ".join(str(s).split())
    return s if len(s) <= n else s[: n - 1] + "…"

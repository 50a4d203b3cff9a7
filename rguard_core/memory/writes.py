"""One atomic compare-and-set write per memory step.

A step reads the graph's memory revision, reads and recomputes its region in Python, then writes everything
in ONE query that first checks the memory revision and the revision of every node it changes. If anything
moved in between, the query matches nothing and writes nothing, and the step is planned again. Because a
query is atomic in FalkorDB, a crash leaves either the old state or the complete new one.

Measured on FalkorDB 4.18 (embedded): a write query that BEGINS with MATCH on an existing node is serialized
with other writers, so the compare-and-set holds under 16 concurrent writers; one that begins with MERGE or
OPTIONAL MATCH of a node that may not exist yet is not (16 racing "create if missing" queries made duplicates).
So the memory-state node is created once by ensure_state(), whose query starts with a MATCH, and every step
starts with ``MATCH (m:MemoryState ...) WHERE m.rev = $revision``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

from ..db import Graph
from ..jsontypes import Params, ParamsIn
from .engine import Holds
from .graphio import STATE_ID
from .model import SupportGraph


class ClaimSet(TypedDict):
    """One claim's new support, sent as a Cypher parameter row (``rev`` is the revision it was read at)."""

    id: str
    rev: int
    holds: bool


class JustSet(TypedDict):
    id: str
    holds: bool


class DecisionSet(TypedDict):
    id: str
    rev: int
    holds: bool
    label: str | None


class ActionSet(TypedDict):
    id: str
    rev: int
    status: str


@dataclass
class WritePlan:
    """Changes to store, each with the revision it was read at (the compare part of compare-and-set)."""

    revision: int
    claims: list[ClaimSet] = field(default_factory=list)
    justs: list[JustSet] = field(default_factory=list)
    decisions: list[DecisionSet] = field(default_factory=list)
    actions: list[ActionSet] = field(default_factory=list)

    def changed_ids(self) -> set[str]:
        return (
            {x["id"] for x in self.claims}
            | {x["id"] for x in self.justs}
            | {x["id"] for x in self.decisions}
            | {x["id"] for x in self.actions}
        )


def plan_changes(
    graph: SupportGraph,
    revision: int,
    after: Holds,
    labels: dict[str, str | None] | None = None,
    action_status: dict[str, str] | None = None,
    force_claims: set[str] | None = None,
) -> WritePlan:
    """Everything whose stored value differs from the computed one (``force_claims`` always get a new revision)."""
    plan = WritePlan(revision)
    labels = labels or {}
    force = force_claims or set()
    for cid, claim in sorted(graph.claims.items()):
        new = after.nodes.get(cid, claim.holds)
        if new != claim.holds or cid in force:
            plan.claims.append({"id": cid, "rev": claim.rev, "holds": bool(new)})
    for jid, j in sorted(graph.justs.items()):
        if after.justs.get(jid) != j.holds:
            plan.justs.append({"id": jid, "holds": bool(after.justs.get(jid))})
    for did, dec in sorted(graph.decisions.items()):
        new_holds = after.nodes.get(did, dec.holds)
        new_label = labels.get(did, dec.label)
        if new_holds != dec.holds or new_label != dec.label:
            plan.decisions.append({"id": did, "rev": dec.rev, "holds": bool(new_holds), "label": new_label})
    for aid, act in sorted((action_status or {}).items()):
        if act != graph.actions[aid].status:
            plan.actions.append({"id": aid, "rev": graph.actions[aid].rev, "status": act})
    return plan


MAX_PLAN_ROWS = 10_000


def split_plan(plan: WritePlan, limit: int = MAX_PLAN_ROWS) -> list[WritePlan]:
    """Cut a huge plan into parts whose revisions chain (part k expects revision + k), so each stays one
    quick query; a step's own plan is region-sized and never split."""
    rows = [(kind, x) for kind in ("claims", "justs", "decisions", "actions") for x in getattr(plan, kind)]
    parts = []
    for k, i in enumerate(range(0, max(len(rows), 1), limit)):
        part = WritePlan(plan.revision + k)
        for kind, x in rows[i : i + limit]:
            getattr(part, kind).append(x)
        parts.append(part)
    return parts


def ensure_state(graph: Graph) -> None:
    """Create the graph's memory-state node (revision 0) unless it exists; safe when called concurrently."""
    graph.query(
        "MATCH (n) WITH count(n) AS _ MERGE (m:MemoryState {id: $id}) ON CREATE SET m.rev = 0",
        {"id": STATE_ID},
        name="memory.state.init",
    )


_CHECK = (
    "CALL {{ WITH m UNWIND ${param} AS k MATCH (n:{label} {{id: k.id}}) WHERE coalesce(n.rev, 0) = k.rev "
    "RETURN count(n) AS {alias} }}\n"
)
_SETS = (
    ("Claim", "set_claims", "n.holds = u.holds, n.rev = coalesce(n.rev, 0) + 1"),
    ("Justification", "set_justs", "n.holds = u.holds"),
    ("Decision", "set_decisions", "n.holds = u.holds, n.label = u.label, n.rev = coalesce(n.rev, 0) + 1"),
    ("Action", "set_actions", "n.status = u.status, n.rev = coalesce(n.rev, 0) + 1"),
)


def cas_write(
    graph: Graph,
    plan: WritePlan,
    *,
    check: str = "",
    write: str = "",
    params: ParamsIn | None = None,
    name: str = "memory.write",
) -> int | None:
    """Apply ``plan`` (plus the step's own ``check``/``write`` clauses) atomically; the new revision, or None on conflict.

    ``check`` may MATCH/WHERE further preconditions (keeping one row); ``write`` creates the step's own nodes.
    Both are literal Cypher written in this package; every value travels as a parameter.
    """
    q = "MATCH (m:MemoryState {id: $state_id}) WHERE m.rev = $revision\n"
    for label, param, alias in (
        ("Claim", "chk_claims", "ok_c"),
        ("Decision", "chk_decisions", "ok_d"),
        ("Action", "chk_actions", "ok_a"),
    ):
        q += _CHECK.format(param=param, label=label, alias=alias)
    q += "WITH m WHERE ok_c = size($chk_claims) AND ok_d = size($chk_decisions) AND ok_a = size($chk_actions)\n"
    q += check + "\n" + write + "\n"
    for label, param, assignment in _SETS:
        # FalkorDB wants a WITH between an updating clause and a CALL subquery
        q += f"WITH m CALL {{ WITH m UNWIND ${param} AS u MATCH (n:{label} {{id: u.id}}) SET {assignment} }}\n"
    q += "SET m.rev = m.rev + 1\nRETURN m.rev AS rev"
    p: Params = {
        **(params or {}),
        "state_id": STATE_ID,
        "revision": plan.revision,
        "chk_claims": [{"id": x["id"], "rev": x["rev"]} for x in plan.claims],
        "chk_decisions": [{"id": x["id"], "rev": x["rev"]} for x in plan.decisions],
        "chk_actions": [{"id": x["id"], "rev": x["rev"]} for x in plan.actions],
        "set_claims": plan.claims,
        "set_justs": plan.justs,
        "set_decisions": plan.decisions,
        "set_actions": plan.actions,
    }
    rows = graph.query(q, p, name=name)
    return int(rows[0]["rev"]) if rows else None

"""What still stands: recompute stored support (whole graph or one region) and report it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..db import Graph
from . import writes
from .engine import action_status, least_fixed_point
from .graphio import read_all, read_region, read_revision
from .sources import independent_sources


@dataclass
class RecomputeResult:
    revision: int
    changed: int
    region: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        return {"revision": self.revision, "changed": self.changed, "region": self.region}


def recompute(graph: Graph, seeds: list[str] | None = None) -> RecomputeResult:
    """Recompute stored holds and action statuses: the region downstream of ``seeds`` claims, or everything.

    Labels are left alone: they record what steps did, and a recompute is not a step.
    """
    from .steps import optimistic

    def attempt(revision: int) -> RecomputeResult | None:
        sg = read_all(graph) if seeds is None else read_region(graph, seeds)
        after = least_fixed_point(sg, sg.quarantined, sg.node_ids())
        statuses = {
            a.id: action_status(a.executed, all(after.get(d, sg) for d in a.decisions)) for a in sg.actions.values()
        }
        plan = writes.plan_changes(sg, revision, after, action_status=statuses)
        region = {"claims": len(sg.claims), "decisions": len(sg.decisions), "justifications": len(sg.justs)}
        if not plan.changed_ids() and read_revision(graph) == revision:
            return RecomputeResult(revision, 0, region)  # consistent already: no write, no new revision
        new: int | None = revision
        for part in writes.split_plan(plan):  # huge recomputes land in revision-chained batches
            new = writes.cas_write(graph, part, name="memory.recompute")
            if new is None:
                return None  # someone wrote in between: start over from a fresh read
        assert new is not None
        return RecomputeResult(new, len(plan.changed_ids()), region)

    if read_revision(graph) is None:
        writes.ensure_state(graph)  # a graph whose support was never computed (a fresh repository graph)
    return optimistic(graph, attempt, "recompute")


def status(graph: Graph) -> dict[str, Any]:
    """Every claim (holds, independent sources), decision (holds, label) and action (status), as stored."""
    if read_revision(graph) is None and graph.exists():
        recompute(graph)
    sg = read_all(graph)
    holds = least_fixed_point(sg, sg.quarantined, [])  # nothing recomputed: justification holds from stored premises
    holds.nodes = {n: sg.stored_holds(n) for n in sg.node_ids()}
    counts = independent_sources(sg, holds)
    return {
        "claims": {c: {"holds": holds.nodes[c], "sources": counts[c]} for c in sorted(sg.claims)},
        "decisions": {d: {"holds": holds.nodes[d], "label": sg.decisions[d].label} for d in sorted(sg.decisions)},
        "actions": {a: {"status": sg.actions[a].status or "active"} for a in sorted(sg.actions)},
    }

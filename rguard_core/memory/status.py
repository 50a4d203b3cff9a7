"""What still stands: every claim, decision and action as stored (support computed first if it never was)."""

from __future__ import annotations

from typing import TypedDict

from ..db import Graph
from .engine import least_fixed_point
from .graphio import read_all, read_revision
from .recompute import recompute
from .sources import independent_sources


class ClaimStanding(TypedDict):
    holds: bool
    sources: int  # independent sources the claim still rests on


class DecisionStanding(TypedDict):
    holds: bool
    label: str | None


class ActionStanding(TypedDict):
    status: str


class MemoryStatus(TypedDict):
    """What ``memory status --json`` prints: every node by id, as stored."""

    claims: dict[str, ClaimStanding]
    decisions: dict[str, DecisionStanding]
    actions: dict[str, ActionStanding]


def status(graph: Graph) -> MemoryStatus:
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

"""Truth maintenance, pure Python: least fixed point of support, what a step changes, independent sources.

Semantics (the contract the oracle in tests/memory_oracle.py checks):
- an observation (claim with a source and a verbatim quote) holds while its source is not quarantined and the
  claim is not superseded; a superseded claim never holds, not even through a justification;
- a justification holds when it has at least one premise and all premises hold (AND);
- a claim holds when it is a holding observation or any justification of it holds (OR); a decision holds only
  through justifications;
- support is the least fixed point grown outward from holding observations, so cycles never support themselves.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from .model import ClaimState, SupportGraph, max_label


@dataclass
class Holds:
    """Computed holds for the recomputed nodes and for every justification in the graph given."""

    nodes: dict[str, bool]
    justs: dict[str, bool]

    def get(self, node_id: str, graph: SupportGraph) -> bool:
        """Computed value inside the region, stored value outside it."""
        if node_id in self.nodes:
            return self.nodes[node_id]
        return graph.stored_holds(node_id)


def observation_holds(claim: ClaimState, quarantined: set[str] | frozenset[str]) -> bool:
    """An observation holds while its source is trusted and it was not corrected away."""
    return (
        claim.observation
        and not claim.superseded
        and claim.source_id is not None
        and claim.source_id not in quarantined
    )


def least_fixed_point(
    graph: SupportGraph, quarantined: set[str] | frozenset[str], inside: Iterable[str] | None = None
) -> Holds:
    """Recompute holds for ``inside`` (default: every claim and decision), other nodes being constants.

    Counting forward chaining: each justification waits for its remaining premises; a node becomes true
    only when reached from a holding observation, so a cycle with no outside support stays false.
    """
    region = set(inside) if inside is not None else graph.node_ids()
    holds = dict.fromkeys(region, False)
    blocked = {c.id for c in graph.claims.values() if c.superseded}
    waiting: dict[str, int] = {}
    users: dict[str, list[str]] = defaultdict(list)
    queue = [cid for cid in region if cid in graph.claims and observation_holds(graph.claims[cid], quarantined)]
    for j in graph.justs.values():
        premises = set(j.premises)
        if not premises or any(p not in region and not graph.stored_holds(p) for p in premises):
            continue  # can never hold in this computation
        inner = [p for p in premises if p in region]
        waiting[j.id] = len(inner)
        for p in inner:
            users[p].append(j.id)
        if not inner:
            queue.extend(j.conclusions)
    while queue:
        node = queue.pop()
        if node not in region or holds[node] or node in blocked:
            continue
        holds[node] = True
        for jid in users[node]:
            waiting[jid] -= 1
            if waiting[jid] == 0:
                queue.extend(graph.justs[jid].conclusions)
    just_holds = {jid: waiting.get(jid, -1) == 0 for jid in graph.justs}
    return Holds(holds, just_holds)


def reached_from(graph: SupportGraph, seeds: Iterable[str], holds: Holds) -> set[str]:
    """Nodes whose holding support includes a seed: forward from the seeds through holding justifications."""
    users: dict[str, list[str]] = defaultdict(list)
    for j in graph.justs.values():
        for p in set(j.premises):
            users[p].append(j.id)
    seen = {s for s in seeds if holds.get(s, graph)}
    stack = list(seen)
    while stack:
        node = stack.pop()
        for jid in users[node]:
            if not holds.justs.get(jid):
                continue
            for c in graph.justs[jid].conclusions:
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
    return seen


@dataclass
class StepOutcome:
    """What one step (a quarantine or a correction) changes in the region it recomputed."""

    before: Holds
    after: Holds
    fell_claims: list[str] = field(default_factory=list)
    fell_decisions: list[str] = field(default_factory=list)
    kept_decisions: list[str] = field(default_factory=list)  # lost a supporting claim but still hold
    labels: dict[str, str | None] = field(default_factory=dict)  # decision -> label after the step
    action_status: dict[str, str] = field(default_factory=dict)  # action -> status after the step

    def labelled(self, graph: SupportGraph) -> dict[str, str]:
        """Decisions whose label moved up in this step, with the new label."""
        return {d: lab for d, lab in self.labels.items() if lab is not None and lab != graph.decisions[d].label}

    def changed_actions(self, graph: SupportGraph) -> dict[str, str]:
        return {a: s for a, s in self.action_status.items() if s != graph.actions[a].status}


def action_status(executed: bool, decisions_hold: bool) -> str:
    """An action is active while its decision holds; otherwise compensate if executed, else held."""
    if decisions_hold:
        return "active"
    return "compensate" if executed else "held"


def step_outcome(
    graph: SupportGraph,
    quarantined_before: set[str],
    quarantined_after: set[str],
    superseded_after: set[str],
    seeds: set[str],
    review_kept: bool,
) -> StepOutcome:
    """Recompute the region before and after one step and label the decisions that held before it.

    ``seeds`` are the claims the step takes away; a decision that still holds but whose holding support
    before the step included a seed is ``kept`` and, when ``review_kept``, labelled ``review``.
    """
    region = graph.node_ids()
    before = least_fixed_point(graph, quarantined_before, region)
    for cid in superseded_after:
        graph.claims[cid].superseded = True
    after = least_fixed_point(graph, quarantined_after, region)
    out = StepOutcome(before, after)
    out.fell_claims = sorted(c for c in graph.claims if before.nodes[c] and not after.nodes[c])
    touched = reached_from(graph, seeds, before)
    for did, dec in sorted(graph.decisions.items()):
        new: str | None = None
        if before.nodes[did] and not after.nodes[did]:
            out.fell_decisions.append(did)
            executed = any(a.executed for a in graph.actions.values() if did in a.decisions)
            new = "compensation" if executed else "correction"
        elif before.nodes[did] and did in touched:
            out.kept_decisions.append(did)
            new = "review" if review_kept else None
        out.labels[did] = max_label(dec.label, new)
    for aid, act in graph.actions.items():
        ok = all(after.get(d, graph) for d in act.decisions)
        out.action_status[aid] = action_status(act.executed, ok)
    return out


def lineage_roots(lineage: dict[str, tuple[str, ...]]) -> dict[str, frozenset[str]]:
    """Every source's lineage roots: follow derived_from to sources that derive from nothing."""
    memo: dict[str, frozenset[str]] = {}

    def roots(sid: str, visiting: frozenset[str]) -> frozenset[str]:
        if sid in memo:
            return memo[sid]
        parents = [p for p in lineage.get(sid, ()) if p not in visiting]
        if not lineage.get(sid):
            result = frozenset({sid})
        else:
            found: set[str] = set()
            for p in parents:
                found |= roots(p, visiting | {sid})
            result = frozenset(found or {sid})  # a pure lineage cycle counts as one root
        memo[sid] = result
        return result

    for sid in lineage:
        roots(sid, frozenset())
    return memo

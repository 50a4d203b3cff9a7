"""The memory engine's write protocol: the optimistic retry loop every step runs in, and ``recompute``, which
that loop falls back to (a graph whose support was never computed, or a region too stale to patch).

Both live here because each needs the other: a step retries until its compare-and-set lands and recomputes
when it cannot patch, and a recompute is itself a compare-and-set write that retries. Steps (corrections,
incidents, undo, reviews), ``status`` and ``retrieve`` build on this module; it builds only on the pure engine,
the graph reads and the writes.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..db import Graph
from ..errors import ConflictError
from ..jsontypes import JSONObject
from . import writes
from .engine import action_status, least_fixed_point
from .graphio import NeedsFullRecompute, read_all, read_region, read_revision

MAX_ATTEMPTS = 60


@dataclass
class RecomputeResult:
    revision: int
    changed: int
    region: dict[str, int]

    def as_dict(self) -> JSONObject:
        return {"revision": self.revision, "changed": self.changed, "region": self.region}


def optimistic[T](graph: Graph, attempt: Callable[[int], T | None], what: str) -> T:
    """Run ``attempt(revision)`` until its compare-and-set write lands; it returns None when it lost a race.

    A graph whose support was never computed (a fresh repository graph) is computed in full first.
    """
    for n in range(MAX_ATTEMPTS):
        revision = read_revision(graph)
        if revision is None:
            recompute(graph)
            continue
        try:
            result = attempt(revision)
        except NeedsFullRecompute:
            recompute(graph)
            continue
        if result is not None:
            return result
        time.sleep(random.uniform(0, 0.002 * min(n + 1, 10)))  # back off so racing writers spread out
    raise ConflictError(f"{what}: the graph kept changing underneath; gave up after {MAX_ATTEMPTS} attempts")


def recompute(graph: Graph, seeds: list[str] | None = None) -> RecomputeResult:
    """Recompute stored holds and action statuses: the region downstream of ``seeds`` claims, or everything.

    Labels are left alone: they record what steps did, and a recompute is not a step.
    """

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

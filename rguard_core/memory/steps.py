"""Shared machinery of a memory step: the report it returns and the optimistic retry loop around it."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..db import Graph
from ..errors import ConflictError
from .engine import StepOutcome
from .graphio import NeedsFullRecompute, read_revision
from .model import SupportGraph

MAX_ATTEMPTS = 60


@dataclass
class StepReport:
    """What one step did: what fell, what was labelled, which actions were held, how big the region was."""

    fell_claims: list[str] = field(default_factory=list)
    fell_decisions: list[str] = field(default_factory=list)
    kept_decisions: list[str] = field(default_factory=list)
    labelled: dict[str, str] = field(default_factory=dict)
    actions: dict[str, str] = field(default_factory=dict)  # actions whose status changed -> new status
    region: dict[str, int] = field(default_factory=dict)
    revision: int | None = None
    # what an undo (lift, revert) brings back, and each labelled decision's label before the step
    restored_claims: list[str] = field(default_factory=list)
    restored_decisions: list[str] = field(default_factory=list)
    previous_labels: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def from_outcome(cls, graph: SupportGraph, out: StepOutcome) -> StepReport:
        labelled = out.labelled(graph)
        return cls(
            fell_claims=list(out.fell_claims),
            fell_decisions=list(out.fell_decisions),
            kept_decisions=list(out.kept_decisions),
            labelled=labelled,
            previous_labels={d: graph.decisions[d].label for d in labelled},
            actions=dict(sorted(out.changed_actions(graph).items())),
            region={"claims": len(graph.claims), "decisions": len(graph.decisions), "justifications": len(graph.justs)},
        )

    @property
    def held(self) -> list[str]:
        return sorted(a for a, s in self.actions.items() if s == "held")

    @property
    def compensate(self) -> list[str]:
        return sorted(a for a, s in self.actions.items() if s == "compensate")

    def as_dict(self) -> dict[str, Any]:
        return {
            "fell": {"claims": self.fell_claims, "decisions": self.fell_decisions},
            "kept": self.kept_decisions,
            "labelled": self.labelled,
            "held": self.held,
            "compensate": self.compensate,
            "actions": self.actions,
            "region": self.region,
            "revision": self.revision,
            "restored": {"claims": self.restored_claims, "decisions": self.restored_decisions},
            "previous_labels": self.previous_labels,
        }

    @property
    def empty(self) -> bool:
        """Nothing fell, rose, was labelled or changed status."""
        return not (
            self.fell_claims
            or self.fell_decisions
            or self.kept_decisions
            or self.labelled
            or self.actions
            or self.restored_claims
            or self.restored_decisions
        )

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> StepReport:
        return cls(
            fell_claims=list(d.get("fell", {}).get("claims", [])),
            fell_decisions=list(d.get("fell", {}).get("decisions", [])),
            kept_decisions=list(d.get("kept", [])),
            labelled=dict(d.get("labelled", {})),
            actions=dict(d.get("actions", {})),
            region=dict(d.get("region", {})),
            revision=d.get("revision"),
            restored_claims=list(d.get("restored", {}).get("claims", [])),
            restored_decisions=list(d.get("restored", {}).get("decisions", [])),
            previous_labels=dict(d.get("previous_labels", {})),
        )


def optimistic[T](graph: Graph, attempt: Callable[[int], T | None], what: str) -> T:
    """Run ``attempt(revision)`` until its compare-and-set write lands; it returns None when it lost a race.

    A graph whose support was never computed (a fresh repository graph) is computed in full first.
    """
    from .status import recompute  # late: status builds on this module

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

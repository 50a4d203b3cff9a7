"""What a memory step returns: its report (the retry loop around a step is recompute.optimistic)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

from ..jsontypes import JSONObject
from .engine import StepOutcome
from .model import SupportGraph


class NodeLists(TypedDict):
    claims: list[str]
    decisions: list[str]


class StepPayload(TypedDict):
    """A step report as JSON: stored on its Incident or Correction (``result``) and spread into CLI/MCP output."""

    fell: NodeLists
    kept: list[str]
    labelled: dict[str, str]
    held: list[str]
    compensate: list[str]
    actions: dict[str, str]
    region: dict[str, int]
    revision: int | None
    restored: NodeLists
    previous_labels: dict[str, str | None]


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

    def as_dict(self) -> StepPayload:
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
    def from_dict(cls, d: JSONObject) -> StepReport:
        """Read back a stored ``result`` (decoded JSON; older entries may lack keys)."""
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

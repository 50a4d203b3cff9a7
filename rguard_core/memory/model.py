"""The support graph as the engine sees it: plain dataclasses, read from FalkorDB or built from a scenario."""

from __future__ import annotations

from dataclasses import dataclass, field

# Labels only move up this ladder during incidents and corrections.
LABEL_RANK: dict[str | None, int] = {None: 0, "review": 1, "correction": 2, "compensation": 3}


@dataclass
class ClaimState:
    """A claim: an observation when it has a source and a verbatim quote; derived otherwise."""

    id: str
    source_id: str | None = None
    observation: bool = False
    superseded: bool = False
    holds: bool | None = None  # as stored in the graph (None: never computed)
    rev: int = 0


@dataclass
class JustState:
    """A justification: AND over its premises, supporting each of its conclusions (usually one)."""

    id: str
    conclusions: tuple[str, ...]
    premises: tuple[str, ...]
    holds: bool | None = None


@dataclass
class DecisionState:
    id: str
    holds: bool | None = None
    label: str | None = None
    rev: int = 0


@dataclass
class ActionState:
    id: str
    decisions: tuple[str, ...]
    executed: bool = False
    status: str | None = None
    rev: int = 0


@dataclass
class SupportGraph:
    """All (or one region of) the support structure, plus which sources are quarantined.

    ``outside`` holds stored values of nodes that are not recomputed (premises outside a region, decisions of
    an action outside the region); the engine treats them as constants.
    """

    claims: dict[str, ClaimState] = field(default_factory=dict)
    justs: dict[str, JustState] = field(default_factory=dict)
    decisions: dict[str, DecisionState] = field(default_factory=dict)
    actions: dict[str, ActionState] = field(default_factory=dict)
    quarantined: set[str] = field(default_factory=set)
    lineage: dict[str, tuple[str, ...]] = field(default_factory=dict)
    outside: dict[str, bool] = field(default_factory=dict)

    def node_ids(self) -> set[str]:
        return set(self.claims) | set(self.decisions)

    def stored_holds(self, node_id: str) -> bool:
        """The stored value of a claim or decision (outside constants first); unknown counts as not holding."""
        if node_id in self.outside:
            return self.outside[node_id]
        node = self.claims.get(node_id) or self.decisions.get(node_id)
        return bool(node is not None and node.holds)


def max_label(a: str | None, b: str | None) -> str | None:
    """The more severe of two labels (labels never move down)."""
    return a if LABEL_RANK[a] >= LABEL_RANK[b] else b

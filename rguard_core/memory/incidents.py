"""Quarantine: a source turns out bad. One step: its observations stop holding, support is recomputed
downstream of them only, and every decision that held before the step is labelled by what it lost."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from ..db import Graph
from ..errors import InvalidInput
from ..graph_state import require_complete
from . import writes
from .engine import observation_holds, step_outcome
from .graphio import read_region, seeds_of_source
from .steps import StepReport, optimistic

_CHECK = "MATCH (s:Source {id: $sid}) WHERE coalesce(s.quarantined, false) = false"
_WRITE = (
    "SET s.quarantined = true, s.quarantined_by = $by, s.quarantine_reason = $reason, s.quarantined_at = $now, "
    "s.rev = coalesce(s.rev, 0) + 1 "
    "CREATE (i:Incident {id: $inc, source_id: $sid, reason: $reason, by: $by, created_at: $now, result: $result})"
    "-[:ABOUT]->(s)"
)


@dataclass
class IncidentResult:
    """The outcome of quarantining one source."""

    source: str
    incident: str | None
    already_quarantined: bool
    report: StepReport = field(default_factory=StepReport)

    def as_dict(self) -> dict[str, Any]:
        return {"incident": self.incident, "source": self.source, "already_quarantined": self.already_quarantined,
                **self.report.as_dict()}


def quarantine_source(graph: Graph, source_id: str, reason: str = "", by: str = "") -> IncidentResult:
    """Quarantine ``source_id`` as one step; a second quarantine of the same source changes nothing."""
    require_complete(graph)
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    incident = f"inc:{uuid.uuid4().hex}"

    def attempt(revision: int) -> IncidentResult | None:
        src = graph.read("MATCH (s:Source {id: $sid}) RETURN coalesce(s.quarantined, false) AS q", {"sid": source_id},
                         name="memory.quarantine.source")
        if not src:
            raise InvalidInput(f"no source {source_id!r} in {graph.name}")
        if src[0]["q"]:
            return IncidentResult(source_id, _existing_incident(graph, source_id), True)
        seeds = seeds_of_source(graph, source_id)
        sg = read_region(graph, seeds)
        before = set(sg.quarantined) - {source_id}
        lost = {c for c in seeds if c in sg.claims and sg.claims[c].source_id == source_id
                and observation_holds(sg.claims[c], before)}
        out = step_outcome(sg, before, before | {source_id}, set(), lost, review_kept=True)
        report = StepReport.from_outcome(sg, out)
        report.revision = revision + 1  # what the write below sets when it lands
        plan = writes.plan_changes(sg, revision, out.after, out.labels, out.action_status)
        params = {"sid": source_id, "by": by, "reason": reason, "now": now, "inc": incident,
                  "result": json.dumps(report.as_dict(), sort_keys=True)}
        new = writes.cas_write(graph, plan, check=_CHECK, write=_WRITE, params=params, name="memory.quarantine")
        if new is None:
            return None
        return IncidentResult(source_id, incident, False, report)

    return optimistic(graph, attempt, f"quarantine of {source_id}")


def _existing_incident(graph: Graph, source_id: str) -> str | None:
    rows = graph.read(
        "MATCH (i:Incident)-[:ABOUT]->(:Source {id: $sid}) RETURN i.id AS id ORDER BY i.created_at, i.id LIMIT 1",
        {"sid": source_id}, name="memory.quarantine.incident",
    )
    return rows[0]["id"] if rows else None

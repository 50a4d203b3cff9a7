"""Quarantine: a source turns out bad. One step: its observations stop holding, support is recomputed
downstream of them only, and every decision that held before the step is labelled by what it lost.

``preview_quarantine`` computes the same step without writing (the blast radius a reviewer confirms);
``quarantine_source`` given that preview (or the source's revision) refuses when the source or the support
around it changed since. Lifting a quarantine is an undo (undo.py): a new audit entry, nothing erased."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import uuid
from dataclasses import dataclass, field

from ..db import Graph
from ..errors import InvalidInput, StaleCorrectionPreview
from ..graph_state import require_complete
from ..jsontypes import JSONObject, Row
from . import writes
from .engine import StepOutcome, observation_holds, step_outcome
from .graphio import read_region, seeds_of_source
from .model import SupportGraph
from .recompute import optimistic
from .steps import StepReport

_CHECK = (
    "MATCH (s:Source {id: $sid}) WHERE coalesce(s.quarantined, false) = false "
    "AND ($srev IS NULL OR coalesce(s.rev, 0) = $srev)"
)
_WRITE = (
    "SET s.quarantined = true, s.quarantined_by = $by, s.quarantine_reason = $reason, s.quarantined_at = $now, "
    "s.rev = coalesce(s.rev, 0) + 1 "
    "CREATE (i:Incident {id: $inc, source_id: $sid, reason: $reason, by: $by, created_at: $now, result: $result, state: 'applied', rev: 0})"
    "-[:ABOUT]->(s)"
)


@dataclass
class IncidentResult:
    """The outcome of quarantining one source."""

    source: str
    incident: str | None
    already_quarantined: bool
    report: StepReport = field(default_factory=StepReport)
    by: str | None = None  # already quarantined: by whom (another reviewer's tab, say)

    def as_dict(self) -> JSONObject:
        return {
            "incident": self.incident,
            "source": self.source,
            "already_quarantined": self.already_quarantined,
            **({"quarantined_by": self.by} if self.already_quarantined else {}),
            **self.report.as_dict(),
        }


@dataclass(frozen=True)
class QuarantinePreview:
    """What quarantining a source would do (its blast radius), and the revisions it was computed from."""

    source: str
    title: str
    revision: int  # the source's revision the preview saw
    graph_revision: int
    report: StepReport
    fingerprint: str


def preview_quarantine(graph: Graph, source_id: str) -> QuarantinePreview:
    """The blast radius of quarantining ``source_id``; nothing is written."""

    def attempt(revision: int) -> QuarantinePreview | None:
        row = _source_row(graph, source_id)
        if row["q"]:
            raise InvalidInput(f"source {source_id!r} is already quarantined; lift it first to quarantine it again")
        sg, out = _plan(graph, source_id)
        report = StepReport.from_outcome(sg, out)
        return QuarantinePreview(
            source_id, row["title"] or "", int(row["rev"]), revision, report, _fingerprint(report, int(row["rev"]))
        )

    return optimistic(graph, attempt, f"preview of quarantine of {source_id}")


def quarantine_source(
    graph: Graph,
    source_id: str,
    reason: str = "",
    by: str = "",
    *,
    revision: int | None = None,
    preview: QuarantinePreview | None = None,
) -> IncidentResult:
    """Quarantine ``source_id`` as one step; a second quarantine of the same source changes nothing.

    Given ``revision`` (the source's) or a ``preview``, the write is refused with StaleCorrectionPreview when the
    source, or what rests on it, changed since.
    """
    require_complete(graph)
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    incident = f"inc:{uuid.uuid4().hex}"
    if preview is not None:
        if preview.source != source_id:
            raise InvalidInput(f"the preview is of {preview.source!r}, not {source_id!r}; preview again")
        revision = preview.revision

    def attempt(graph_revision: int) -> IncidentResult | None:
        row = _source_row(graph, source_id)
        if row["q"]:
            return IncidentResult(source_id, _existing_incident(graph, source_id), True, by=row.get("by"))
        if revision is not None and int(row["rev"]) != revision:
            raise StaleCorrectionPreview(f"source {source_id!r}", revision, int(row["rev"]))
        sg, out = _plan(graph, source_id)
        report = StepReport.from_outcome(sg, out)
        if preview is not None and _fingerprint(report, int(row["rev"])) != preview.fingerprint:
            raise StaleCorrectionPreview(f"what rests on source {source_id!r}", preview.graph_revision, graph_revision)
        report.revision = graph_revision + 1  # what the write below sets when it lands
        plan = writes.plan_changes(sg, graph_revision, out.after, out.labels, out.action_status)
        params = {
            "sid": source_id,
            "by": by,
            "reason": reason,
            "now": now,
            "inc": incident,
            "srev": revision,
            "result": json.dumps(report.as_dict(), sort_keys=True),
        }
        new = writes.cas_write(graph, plan, check=_CHECK, write=_WRITE, params=params, name="memory.quarantine")
        if new is None:
            return None
        return IncidentResult(source_id, incident, False, report)

    return optimistic(graph, attempt, f"quarantine of {source_id}")


def _source_row(graph: Graph, source_id: str) -> Row:
    rows = graph.read(
        "MATCH (s:Source {id: $sid}) RETURN coalesce(s.quarantined, false) AS q, coalesce(s.rev, 0) AS rev, "
        "coalesce(s.title, left(s.text, 120)) AS title, s.quarantined_by AS by",
        {"sid": source_id},
        name="memory.quarantine.source",
    )
    if not rows:
        raise InvalidInput(f"no source {source_id!r} in {graph.name}")
    return rows[0]


def _plan(graph: Graph, source_id: str) -> tuple[SupportGraph, StepOutcome]:
    seeds = seeds_of_source(graph, source_id)
    sg = read_region(graph, seeds)
    before = set(sg.quarantined) - {source_id}
    lost = {
        c
        for c in seeds
        if c in sg.claims and sg.claims[c].source_id == source_id and observation_holds(sg.claims[c], before)
    }
    return sg, step_outcome(sg, before, before | {source_id}, set(), lost, review_kept=True)


def _fingerprint(report: StepReport, source_rev: int) -> str:
    body = {k: v for k, v in report.as_dict().items() if k not in ("region", "revision")}
    return hashlib.sha256(json.dumps([source_rev, body], sort_keys=True).encode()).hexdigest()[:16]


def _existing_incident(graph: Graph, source_id: str) -> str | None:
    rows = graph.read(
        "MATCH (i:Incident)-[:ABOUT]->(:Source {id: $sid}) WHERE coalesce(i.state, 'applied') = 'applied' "
        "RETURN i.id AS id ORDER BY i.created_at DESC, i.id LIMIT 1",
        {"sid": source_id},
        name="memory.quarantine.incident",
    )
    return rows[0]["id"] if rows else None


def quarantined_by(graph: Graph, source_id: str) -> str | None:
    """Who quarantined the source (None when it is not quarantined or nobody was recorded)."""
    row = _source_row(graph, source_id)
    return str(row["by"]) if row["q"] and row.get("by") else None

"""Undo: lift a quarantine, revert a claim correction, withdraw guard feedback — each a new audit entry.

Nothing is erased. The undone Correction (or Incident) keeps every property and is marked ``state: 'reverted'``
with ``reverted_by`` pointing at a new Correction (``kind: 'lift'`` for a quarantine, ``'revert'`` otherwise)
that says who undid it, why, when, and what it changed. Like every memory step, an undo is ONE compare-and-set
query (writes.py) checked against the undone entry's revision, so two reviewers cannot undo the same thing
twice or undo something that changed since their preview.

What each undo does to the graph:
- quarantine (``memory lift SOURCE_ID``): the source is trusted again; its observations hold again and support
  is recomputed downstream of them;
- claim correction: the old claim is active again and the reviewer's replacement claim is withdrawn (marked
  superseded, ``withdrawn_by``); support is recomputed around both;
- ack / wrong (a dismissal): the feedback stops counting (learned notes, dismissed findings);
- override: the reviewer's decision is withdrawn (its human-source claim no longer holds, ``status:
  'withdrawn'``), its SUPERSEDES edge is removed, and the overridden decision is active again.

A decision the undone step labelled, and that holds again after the undo, gets back the label it had before
the step (recorded in the step's result); labels the step did not set are left alone.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass

from ..db import Graph
from ..errors import ConflictError, InvalidInput, StaleCorrectionPreview
from ..graph_state import require_complete
from ..jsontypes import JSONObject
from . import writes
from .engine import Holds, action_status, least_fixed_point
from .graphio import read_region, seeds_of_source
from .model import SupportGraph
from .recompute import optimistic
from .steps import StepReport

UNDOABLE = ("quarantine", "claim", "ack", "wrong", "override")

_TARGET_Q = (
    "MATCH (k {id: $id}) WHERE k:Correction OR k:Incident "
    "RETURN k:Incident AS incident, coalesce(k.kind, 'quarantine') AS kind, coalesce(k.state, 'applied') AS state, "
    "coalesce(k.rev, 0) AS rev, k.target_id AS target_id, k.source_id AS source_id, k.replacement_id AS replacement, "
    "k.new_decision AS new_decision, k.result AS result, k.reverted_by AS reverted_by, k.by AS by"
)
_CHECK_TARGET = (
    "MATCH (k {id: $target}) WHERE (k:Correction OR k:Incident) AND coalesce(k.rev, 0) = $krev "
    "AND coalesce(k.state, 'applied') = 'applied' "
)
_MARK_TARGET = (
    "SET k.state = 'reverted', k.reverted_by = $undo, k.rev = coalesce(k.rev, 0) + 1 "
    "CREATE (u:Correction {id: $undo, kind: $undo_kind, by: $by, reason: $reason, created_at: $now, state: 'applied', "
    "rev: 0, target_id: $target, undoes: $kind, about_id: $about, result: $result})-[:ABOUT]->(k) "
)
_EXTRA = {
    "quarantine": (
        "MATCH (s:Source {id: $about}) WHERE s.quarantined = true ",
        "SET s.quarantined = false, s.lifted_by = $by, s.lifted_at = $now, s.rev = coalesce(s.rev, 0) + 1 ",
    ),
    "claim": (
        "MATCH (old:Claim {id: $about}) WHERE old.status = 'superseded' "
        "MATCH (nc:Claim {id: $replacement}) WHERE coalesce(nc.status, 'active') <> 'superseded' ",
        "SET old.status = 'active', old.superseded_by = null, nc.status = 'superseded', nc.withdrawn_by = $undo ",
    ),
    "override": (
        "MATCH (nd:Decision {id: $new_decision})-[e:SUPERSEDES]->(od:Decision {id: $about}) ",
        "DELETE e SET nd.status = 'withdrawn', nd.withdrawn_by = $undo, od.status = 'active', "
        "od.rev = coalesce(od.rev, 0) + 1 "
        "WITH m, k, nd OPTIONAL MATCH (hc:Claim {id: $human_claim}) "
        "SET hc.status = 'superseded', hc.withdrawn_by = $undo ",
    ),
}


@dataclass(frozen=True)
class UndoTarget:
    """The entry to undo, as stored."""

    id: str
    kind: str  # quarantine | claim | ack | wrong | override | ...
    about: str  # the source, claim or decision it was about
    state: str
    revision: int
    replacement: str | None
    new_decision: str | None
    reverted_by: str | None
    by: str | None
    step: StepReport


@dataclass(frozen=True)
class UndoPreview:
    """What undoing ``target`` would change, and the revision of the entry it was computed from."""

    target: UndoTarget
    graph_revision: int
    report: StepReport
    fingerprint: str

    @property
    def revision(self) -> int:
        return self.target.revision


@dataclass(frozen=True)
class UndoResult:
    status: str  # reverted | already_reverted
    undo: str  # the new audit entry (Correction kind lift | revert)
    target: str
    kind: str
    about: str
    report: StepReport

    def as_dict(self) -> JSONObject:
        return {
            "status": self.status,
            "undo": self.undo,
            "target": self.target,
            "kind": self.kind,
            "about": self.about,
            **self.report.as_dict(),
        }


def undo_id(target_id: str) -> str:
    """Deterministic: an entry is undone at most once, so a retried undo finds its own audit entry."""
    return f"corr:undo:{hashlib.sha256(target_id.encode()).hexdigest()[:20]}"


def find_target(graph: Graph, target_id: str) -> UndoTarget:
    rows = graph.read(_TARGET_Q, {"id": target_id}, name="memory.undo.target")
    if not rows:
        raise InvalidInput(f"no correction or quarantine {target_id!r} in {graph.name}; pick one from the history")
    r = rows[0]
    kind = "quarantine" if r["incident"] else str(r["kind"])
    if kind not in UNDOABLE:
        raise InvalidInput(f"{target_id} is a {kind}, which cannot be undone; to redo what it undid, apply it again")
    about = r["source_id"] if r["incident"] else r["target_id"]
    try:
        step = StepReport.from_dict(json.loads(r["result"] or "{}"))
    except (TypeError, ValueError):
        step = StepReport()
    return UndoTarget(
        target_id,
        kind,
        str(about),
        str(r["state"]),
        int(r["rev"]),
        r["replacement"],
        r["new_decision"],
        r["reverted_by"],
        r["by"],
        step,
    )


def active_incident(graph: Graph, source_id: str) -> str:
    """The quarantine incident currently in force on a source."""
    rows = graph.read(
        "MATCH (s:Source {id: $sid}) OPTIONAL MATCH (i:Incident)-[:ABOUT]->(s) "
        "WHERE coalesce(i.state, 'applied') = 'applied' "
        "RETURN coalesce(s.quarantined, false) AS q, i.id AS inc ORDER BY i.created_at DESC",
        {"sid": source_id},
        name="memory.undo.incident",
    )
    if not rows:
        raise InvalidInput(f"no source {source_id!r} in {graph.name}")
    if not rows[0]["q"] or rows[0]["inc"] is None:
        raise InvalidInput(f"source {source_id!r} is not quarantined; nothing to lift")
    return str(rows[0]["inc"])


def preview_undo(graph: Graph, target_id: str) -> UndoPreview:
    """What undoing ``target_id`` would change; nothing is written."""

    def attempt(revision: int) -> UndoPreview | None:
        t = find_target(graph, target_id)
        if t.state != "applied":
            raise ConflictError(f"{target_id} was already undone ({t.reverted_by})")
        _check_undoable(graph, t)
        _, _, report, _ = _plan(graph, t)
        return UndoPreview(t, revision, report, _fingerprint(report, t.revision))

    return optimistic(graph, attempt, f"preview of undoing {target_id}")


def preview_lift(graph: Graph, source_id: str) -> UndoPreview:
    return preview_undo(graph, active_incident(graph, source_id))


def undo(
    graph: Graph,
    target_id: str,
    by: str,
    reason: str = "",
    *,
    revision: int | None = None,
    preview: UndoPreview | None = None,
    now: str | None = None,
) -> UndoResult:
    """Undo one correction or quarantine as a new audit entry, if it is still at ``revision`` (or the preview holds)."""
    who = (by or "").strip()
    if not who:
        raise InvalidInput("an undo needs the reviewer's name or login")
    require_complete(graph)
    if preview is not None:
        if preview.target.id != target_id:
            raise InvalidInput(f"the preview is of {preview.target.id!r}, not {target_id!r}; preview again")
        revision = preview.revision
    now = now or dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    uid = undo_id(target_id)

    def attempt(graph_revision: int) -> UndoResult | None:
        t = find_target(graph, target_id)
        if t.state != "applied":
            if t.reverted_by == uid:
                return _already(graph, t, uid)
            raise ConflictError(f"{target_id} was already undone ({t.reverted_by})")
        if revision is not None and t.revision != revision:
            raise StaleCorrectionPreview(f"{t.kind} {target_id!r}", revision, t.revision)
        _check_undoable(graph, t)
        sg, after, report, labels = _plan(graph, t)
        if preview is not None and _fingerprint(report, t.revision) != preview.fingerprint:
            raise StaleCorrectionPreview(f"what rests on {t.about!r}", preview.graph_revision, graph_revision)
        report.revision = graph_revision + 1
        statuses = {
            a.id: action_status(a.executed, all(after.get(d, sg) for d in a.decisions)) for a in sg.actions.values()
        }
        force = {c for c in (t.about, t.replacement) if t.kind == "claim" and c in sg.claims}
        force |= {c for c in _human_claims(sg, t)}
        plan = writes.plan_changes(sg, graph_revision, after, labels, statuses, force_claims=force)
        check, write = _EXTRA.get(t.kind, ("", ""))
        params = {
            "target": t.id,
            "krev": t.revision,
            "undo": uid,
            "undo_kind": "lift" if t.kind == "quarantine" else "revert",
            "kind": t.kind,
            "about": t.about,
            "by": who,
            "reason": reason,
            "now": now,
            "replacement": t.replacement,
            "new_decision": t.new_decision,
            "human_claim": next(iter(_human_claims(sg, t)), None),
            "result": json.dumps(report.as_dict(), sort_keys=True),
        }
        new = writes.cas_write(
            graph,
            plan,
            check=_CHECK_TARGET + check,
            write=_MARK_TARGET + write,
            params=params,
            name=f"memory.undo.{t.kind}",
        )
        if new is None:
            return None
        return UndoResult("reverted", uid, t.id, t.kind, t.about, report)

    return optimistic(graph, attempt, f"undo of {target_id}")


def lift_quarantine(
    graph: Graph,
    source_id: str,
    by: str,
    reason: str = "",
    *,
    revision: int | None = None,
    preview: UndoPreview | None = None,
) -> UndoResult:
    """Lift the quarantine in force on ``source_id`` (an undo of its incident)."""
    target = preview.target.id if preview is not None else active_incident(graph, source_id)
    return undo(graph, target, by, reason, revision=revision, preview=preview)


def _check_undoable(graph: Graph, t: UndoTarget) -> None:
    if t.kind == "claim":
        rows = graph.read(
            "MATCH (nc:Claim {id: $id}) RETURN coalesce(nc.status, 'active') AS s, nc.superseded_by AS by",
            {"id": t.replacement},
            name="memory.undo.replacement",
        )
        if rows and rows[0]["s"] == "superseded":
            raise ConflictError(
                f"the replacement {t.replacement} was itself corrected since (by {rows[0]['by']}); "
                "undo that correction first"
            )
    if t.kind == "override":
        rows = graph.read(
            "MATCH (nd:Decision {id: $nd})-[:SUPERSEDES]->(:Decision {id: $od}) RETURN count(*) AS n",
            {"nd": t.new_decision, "od": t.about},
            name="memory.undo.override",
        )
        if not rows or not rows[0]["n"]:
            raise ConflictError(f"{t.new_decision} no longer supersedes {t.about}; nothing to undo")


def _seeds(graph: Graph, t: UndoTarget) -> list[str]:
    if t.kind == "quarantine":
        return seeds_of_source(graph, t.about)
    if t.kind == "claim":
        return [c for c in (t.about, t.replacement) if c]
    if t.kind == "override" and t.new_decision:
        rows = graph.read(
            "MATCH (:Decision {id: $nd})<-[:JUSTIFIES]-(:Justification)-[:PREMISE]->(c:Claim) "
            "RETURN DISTINCT c.id AS id",
            {"nd": t.new_decision},
            name="memory.undo.override_claims",
        )
        return sorted(r["id"] for r in rows)
    return []


def _human_claims(sg: SupportGraph, t: UndoTarget) -> set[str]:
    if t.kind != "override":
        return set()
    return {c for c, st in sg.claims.items() if st.source_id and st.source_id.startswith("src:hc:")}


def _plan(graph: Graph, t: UndoTarget) -> tuple[SupportGraph, Holds, StepReport, dict[str, str | None]]:
    """The region around the undone entry, recomputed as if it had never been applied."""
    sg = read_region(graph, _seeds(graph, t))
    before = least_fixed_point(sg, sg.quarantined, sg.node_ids())
    quarantined = set(sg.quarantined)
    if t.kind == "quarantine":
        quarantined.discard(t.about)
    if t.kind == "claim":
        if t.about in sg.claims:
            sg.claims[t.about].superseded = False
        if t.replacement and t.replacement in sg.claims:
            sg.claims[t.replacement].superseded = True
    for c in _human_claims(sg, t):
        sg.claims[c].superseded = True
    after = least_fixed_point(sg, quarantined, sg.node_ids())
    labels: dict[str, str | None] = {}
    for did, dec in sg.decisions.items():
        if did in t.step.labelled and dec.label == t.step.labelled[did] and after.nodes.get(did):
            labels[did] = t.step.previous_labels.get(did)
    report = StepReport(
        fell_claims=sorted(c for c in sg.claims if before.nodes.get(c) and not after.nodes.get(c)),
        fell_decisions=sorted(d for d in sg.decisions if before.nodes.get(d) and not after.nodes.get(d)),
        restored_claims=sorted(c for c in sg.claims if after.nodes.get(c) and not before.nodes.get(c)),
        restored_decisions=sorted(d for d in sg.decisions if after.nodes.get(d) and not before.nodes.get(d)),
        labelled={d: lab for d, lab in labels.items() if lab is not None},
        previous_labels={d: sg.decisions[d].label for d in labels},
        region={"claims": len(sg.claims), "decisions": len(sg.decisions), "justifications": len(sg.justs)},
    )
    statuses = {
        a.id: action_status(a.executed, all(after.get(d, sg) for d in a.decisions)) for a in sg.actions.values()
    }
    report.actions = dict(sorted((a, s) for a, s in statuses.items() if s != sg.actions[a].status))
    return sg, after, report, labels


def _fingerprint(report: StepReport, rev: int) -> str:
    body = {k: v for k, v in report.as_dict().items() if k not in ("region", "revision")}
    return hashlib.sha256(json.dumps([rev, body], sort_keys=True).encode()).hexdigest()[:16]


def _already(graph: Graph, t: UndoTarget, uid: str) -> UndoResult:
    rows = graph.read(
        "MATCH (u:Correction {id: $id}) RETURN u.result AS result", {"id": uid}, name="memory.undo.existing"
    )
    report = StepReport.from_dict(json.loads(rows[0]["result"] or "{}")) if rows else StepReport()
    return UndoResult("already_reverted", uid, t.id, t.kind, t.about, report)

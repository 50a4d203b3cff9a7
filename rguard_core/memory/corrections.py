"""Claim corrections, the reviewer flow: preview what would change, then apply with a revision check.

What a correction means (the contract the preview reports and apply writes):
- the old claim is kept, marked ``superseded``, and never holds again (not even through a justification);
- the reviewer's words become a new ``human_correction`` Source with one Fragment, and the replacement Claim
  quotes that fragment (confidence 0.0, ``confidence_kind: human_correction``) and SUPERSEDES the old claim;
  it never inherits the old evidence;
- the replacement does NOT take over the old claim's place as a premise: a corrected fact is a different
  fact, so whatever rested on the old claim must keep other support or fall. Decisions that lose their last
  support are labelled ``correction`` (or ``compensation`` when one of their actions was executed); decisions
  that keep other support are listed but not flagged; their actions are held / to compensate accordingly.

Apply is one atomic compare-and-set query (see writes.py), so a crash leaves nothing or everything, and a
retry of the same correction finds it applied (``already_applied``) and re-runs the propagation check.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field

from ..db import Graph
from ..errors import ConflictError, InvalidInput, StaleCorrectionPreview
from ..graph_state import require_complete
from ..jsontypes import JSONObject, Row
from . import writes
from .engine import StepOutcome, step_outcome
from .graphio import read_region
from .model import SupportGraph
from .recompute import optimistic, recompute
from .steps import StepReport

_CHECK = (
    "MATCH (old:Claim {id: $cid}) WHERE coalesce(old.rev, 0) = $crev AND coalesce(old.status, 'active') <> 'superseded'"
)
_WRITE = (
    "CREATE (k:Correction {id: $corr, kind: 'claim', by: $by, created_at: $now, state: 'applied', target_id: $cid, "
    "replacement_id: $new_id, source_id: $src, statement: $text, previous_statement: old.statement, result: $result}) "
    "CREATE (hs:Source {id: $src, kind: 'human_correction', title: $title, text: $text, by: $by, created_at: $now, "
    "quarantined: false, rev: 0}) "
    "CREATE (f:Fragment {id: $frag, source_id: $src, start: 0, end: $len, text: $text}) "
    "CREATE (nc:Claim {id: $new_id, statement: $text, quote: $text, source_id: $src, start: 0, end: $len, rev: 0, "
    "status: 'active', holds: true, confidence: 0.0, confidence_kind: 'human_correction', extractor: 'human'}) "
    "SET nc.kind = old.kind "
    "CREATE (hs)-[:HAS_FRAGMENT]->(f), (nc)-[:EVIDENCED_BY]->(f), (nc)-[:SUPERSEDES]->(old), (k)-[:ABOUT]->(old) "
    "SET old.status = 'superseded', old.superseded_by = $new_id"
)


@dataclass(frozen=True)
class CorrectionIds:
    """Deterministic ids: the same correction (claim + text) always maps to the same nodes."""

    correction: str
    source: str
    fragment: str
    claim: str

    @classmethod
    def of(cls, claim_id: str, text: str, generation: int = 0) -> CorrectionIds:
        """``generation`` counts earlier applications of the same correction that were reverted since."""
        seed = f"{claim_id}\x00{text}" + (f"\x00{generation}" if generation else "")
        key = hashlib.sha256(seed.encode()).hexdigest()[:20]
        src = f"src:hc:{key}"
        return cls(f"corr:claim:{key}", src, f"frag:{src}:0:{len(text)}", f"claim:{src}:0:{len(text)}")


@dataclass
class CorrectionPreview:
    """What applying a correction would do, and the revisions it was computed from."""

    claim: str
    statement: str | None
    new_statement: str
    by: str
    revision: int  # the claim's revision the preview saw
    graph_revision: int
    report: StepReport = field(default_factory=StepReport)
    fingerprint: str = ""

    def as_dict(self) -> JSONObject:
        r = self.report
        return {
            "claim": self.claim,
            "statement": self.statement,
            "new_statement": self.new_statement,
            "by": self.by,
            "revision": self.revision,
            "graph_revision": self.graph_revision,
            "claims_fall": r.fell_claims,
            "decisions_lose_support": r.fell_decisions,
            "decisions_keep_support": r.kept_decisions,
            "actions_held": r.held,
            "actions_compensate": r.compensate,
            "labels": r.labelled,
            "region": r.region,
            "fingerprint": self.fingerprint,
        }


@dataclass
class CorrectionResult:
    status: str  # applied | already_applied
    correction: str
    claim: str
    replacement: str
    source: str
    report: StepReport = field(default_factory=StepReport)
    recheck_changed: int = 0

    def as_dict(self) -> JSONObject:
        return {
            "status": self.status,
            "correction": self.correction,
            "claim": self.claim,
            "replacement": self.replacement,
            "source": self.source,
            **self.report.as_dict(),
            "recheck_changed": self.recheck_changed,
        }


def preview_correction(graph: Graph, claim_id: str, new_statement: str, by: str) -> CorrectionPreview:
    """What correcting ``claim_id`` to ``new_statement`` would change; nothing is written."""
    text, by = _validate(new_statement, by)

    def attempt(revision: int) -> CorrectionPreview | None:
        row = _claim_row(graph, claim_id)
        if row["status"] == "superseded":
            raise ConflictError(
                f"claim {claim_id!r} was already corrected (replaced by {row['superseded_by']!r}); "
                "correct the replacement instead"
            )
        sg, out = _plan(graph, claim_id)
        preview = CorrectionPreview(
            claim_id, row["statement"], text, by, int(row["rev"]), revision, StepReport.from_outcome(sg, out)
        )
        preview.fingerprint = _fingerprint(preview.report, int(row["rev"]))
        return preview

    return optimistic(graph, attempt, f"preview of correction to {claim_id}")


def apply_correction(
    graph: Graph,
    claim_id: str,
    new_statement: str,
    by: str,
    revision: int | None = None,
    *,
    preview: CorrectionPreview | None = None,
    now: str | None = None,
) -> CorrectionResult:
    """Apply a correction if the claim is still at ``revision`` (and, given a preview, its outcome is unchanged).

    Raises StaleCorrectionPreview when something changed since the preview; the same correction applied
    again returns ``already_applied`` with the existing replacement after re-checking propagation.
    """
    text, by = _validate(new_statement, by)
    require_complete(graph)
    ids = _current_ids(graph, claim_id, text)
    if preview is not None:
        revision = preview.revision
    done = _already_applied(graph, ids, claim_id)
    if done is not None:
        return done
    now = now or dt.datetime.now(dt.UTC).isoformat(timespec="seconds")

    def attempt(graph_revision: int) -> CorrectionResult | None:
        row = _claim_row(graph, claim_id)
        if revision is not None and int(row["rev"]) != revision:
            again = _already_applied(graph, ids, claim_id)
            if again is not None:
                return again
            raise StaleCorrectionPreview(f"claim {claim_id!r}", revision, int(row["rev"]))
        if row["status"] == "superseded":
            again = _already_applied(graph, ids, claim_id)
            if again is not None:
                return again
            raise ConflictError(
                f"claim {claim_id!r} was already corrected differently "
                f"(replaced by {row['superseded_by']!r}); preview again"
            )
        sg, out = _plan(graph, claim_id)
        report = StepReport.from_outcome(sg, out)
        if preview is not None and _fingerprint(report, int(row["rev"])) != preview.fingerprint:
            raise StaleCorrectionPreview(
                f"the support around claim {claim_id!r}", preview.graph_revision, graph_revision
            )
        report.revision = graph_revision + 1  # what the write below sets when it lands
        plan = writes.plan_changes(
            sg, graph_revision, out.after, out.labels, out.action_status, force_claims={claim_id}
        )
        params = {
            "cid": claim_id,
            "crev": int(row["rev"]),
            "corr": ids.correction,
            "src": ids.source,
            "frag": ids.fragment,
            "new_id": ids.claim,
            "text": text,
            "len": len(text),
            "by": by,
            "now": now,
            "title": f"Correction of {claim_id} by {by}",
            "result": json.dumps(report.as_dict(), sort_keys=True),
        }
        new = writes.cas_write(graph, plan, check=_CHECK, write=_WRITE, params=params, name="memory.correction.apply")
        if new is None:
            return None
        return CorrectionResult("applied", ids.correction, claim_id, ids.claim, ids.source, report)

    return optimistic(graph, attempt, f"correction of {claim_id}")


def _current_ids(graph: Graph, claim_id: str, text: str) -> CorrectionIds:
    """The ids of this correction's live application: past the generations that were reverted (kept as history)."""
    for generation in range(1000):
        ids = CorrectionIds.of(claim_id, text, generation)
        rows = graph.read(
            "MATCH (k:Correction {id: $id}) RETURN coalesce(k.state, 'applied') AS state",
            {"id": ids.correction},
            name="memory.correction.generation",
        )
        if not rows or rows[0]["state"] != "reverted":
            return ids
    raise ConflictError(f"the correction of {claim_id} was applied and reverted too often; word it differently")


def _validate(new_statement: str, by: str) -> tuple[str, str]:
    text = (new_statement or "").strip()
    who = (by or "").strip()
    if not text:
        raise InvalidInput("a correction needs the corrected statement, in your own words")
    if not who:
        raise InvalidInput("a correction needs the reviewer's name or login")
    return text, who


def _claim_row(graph: Graph, claim_id: str) -> Row:
    rows = graph.read(
        "MATCH (c:Claim {id: $id}) RETURN c.statement AS statement, coalesce(c.rev, 0) AS rev, "
        "coalesce(c.status, 'active') AS status, c.superseded_by AS superseded_by",
        {"id": claim_id},
        name="memory.correction.claim",
    )
    if not rows:
        raise InvalidInput(f"no claim {claim_id!r} in {graph.name}")
    return rows[0]


def _plan(graph: Graph, claim_id: str) -> tuple[SupportGraph, StepOutcome]:
    sg = read_region(graph, [claim_id])
    q = set(sg.quarantined)
    return sg, step_outcome(sg, q, q, {claim_id}, {claim_id}, review_kept=False)


def _fingerprint(report: StepReport, claim_rev: int) -> str:
    body = {k: v for k, v in report.as_dict().items() if k not in ("region", "revision")}
    return hashlib.sha256(json.dumps([claim_rev, body], sort_keys=True).encode()).hexdigest()[:16]


def _already_applied(graph: Graph, ids: CorrectionIds, claim_id: str) -> CorrectionResult | None:
    rows = graph.read(
        "MATCH (k:Correction {id: $id}) RETURN k.state AS state, k.result AS result",
        {"id": ids.correction},
        name="memory.correction.existing",
    )
    if not rows or rows[0]["state"] != "applied":
        return None
    check = recompute(graph, seeds=[claim_id])  # the propagation check: the old claim's region, recomputed
    original = StepReport.from_dict(json.loads(rows[0]["result"] or "{}"))
    return CorrectionResult("already_applied", ids.correction, claim_id, ids.claim, ids.source, original, check.changed)

"""Read-only look-ups for the Corrections page: find a claim, decision or source by text; list what was done.

Search here is for reviewers, so unlike ``retrieve`` it also finds claims that no longer hold (a reviewer
must be able to see what fell); the page shows their status next to them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..db import Graph
from ..jsontypes import JSONObject, Row
from .graph_view import claim_status, decision_status, source_status

_WORD = re.compile(r"[A-Za-z0-9_]{2,}")


def _newer(var: str) -> str:
    """How many decisions SUPERSEDE the decision ``var`` (graph_view counts the same for its status)."""
    return f"size([({var})<-[:SUPERSEDES]-(m:Decision) | m.id])"


TARGET_KINDS = ("claim", "decision", "source")


@dataclass(frozen=True)
class Target:
    id: str
    kind: str  # claim | decision | source
    text: str
    status: str  # holds | fallen | superseded | quarantined | needs review ...
    revision: int | None
    source_id: str | None = None


@dataclass(frozen=True)
class HistoryEntry:
    id: str
    kind: str  # quarantine | claim | ack | wrong | override ...
    target: str | None
    by: str | None
    reason: str | None
    at: str | None
    result: JSONObject = field(default_factory=dict)  # the stored step report (memory.steps.StepPayload), decoded
    state: str = "applied"  # applied | reverted (undone by a later entry; kept, never erased)
    revision: int = 0

    @property
    def undoable(self) -> bool:
        return self.state == "applied" and self.kind in ("quarantine", "claim", "ack", "wrong", "override")


def search_targets(graph: Graph, text: str, kinds: tuple[str, ...] = TARGET_KINDS, limit: int = 25) -> list[Target]:
    """Claims, decisions and sources whose text matches ``text`` (any word); an id matches exactly."""
    text = (text or "").strip()
    out: list[Target] = []
    exact = _by_id(graph, text) if text else None
    if exact is not None:
        return [exact]
    words = _WORD.findall(text)
    if not words:
        return out
    ft = " | ".join(words)
    if "claim" in kinds:
        out += [
            _claim(r)
            for r in graph.read(
                "CALL db.idx.fulltext.queryNodes('Claim', $q) YIELD node, score RETURN node.id AS id, "
                "node.statement AS text, node.status AS status, node.holds AS holds, node.rev AS rev, "
                "node.source_id AS sid ORDER BY score DESC LIMIT $lim",
                {"q": ft, "lim": limit},
                name="browse.claims",
            )
        ]
    if "decision" in kinds:
        out += [
            _decision(r)
            for r in graph.read(
                "CALL db.idx.fulltext.queryNodes('Decision', $q) YIELD node, score RETURN node.id AS id, "
                "node.summary AS text, node.status AS status, node.holds AS holds, node.label AS label, "
                f"{_newer('node')} AS newer, node.rev AS rev, node.source_id AS sid ORDER BY score DESC LIMIT $lim",
                {"q": ft, "lim": limit},
                name="browse.decisions",
            )
        ]
    if "source" in kinds:
        low = [w.lower() for w in words]
        out += [
            _source(r)
            for r in graph.read(
                "MATCH (s:Source) WHERE any(w IN $words WHERE toLower(coalesce(s.title, '')) CONTAINS w "
                "OR s.id = w) RETURN s.id AS id, coalesce(s.title, left(s.text, 120)) AS text, "
                "s.quarantined AS q, s.rev AS rev ORDER BY s.id LIMIT $lim",
                {"words": low, "lim": limit},
                name="browse.sources",
            )
        ]
    unique = {t.id: t for t in reversed(out)}  # keep each id once, at its first (best) position
    return sorted(unique.values(), key=out.index)[: limit * len(kinds)]


def history(graph: Graph, limit: int = 200) -> list[HistoryEntry]:
    """Corrections (claim corrections and guard feedback) and incidents (quarantines), newest first."""
    rows = graph.read(
        "MATCH (c) WHERE c:Correction OR c:Incident OPTIONAL MATCH (c)-[:ABOUT]->(t) "
        "RETURN c.id AS id, CASE WHEN c:Incident THEN 'quarantine' ELSE c.kind END AS kind, "
        "coalesce(t.id, c.target_id, c.source_id) AS target, c.by AS by, c.reason AS reason, "
        "c.created_at AS at, c.result AS result, coalesce(c.state, 'applied') AS state, coalesce(c.rev, 0) AS rev "
        "ORDER BY at DESC, id LIMIT $lim",
        {"lim": limit},
        name="browse.history",
    )
    return [
        HistoryEntry(
            r["id"],
            r["kind"] or "correction",
            r["target"],
            r["by"],
            r["reason"],
            r["at"],
            _json(r["result"]),
            r["state"],
            int(r["rev"]),
        )
        for r in rows
    ]


def titles(graph: Graph, ids: list[str]) -> dict[str, str]:
    """A readable name for each claim, decision, action or source id (the statement, summary or title)."""
    if not ids:
        return {}
    rows = graph.read(
        "UNWIND $ids AS i OPTIONAL MATCH (c:Claim {id: i}) OPTIONAL MATCH (d:Decision {id: i}) "
        "OPTIONAL MATCH (a:Action {id: i}) OPTIONAL MATCH (s:Source {id: i}) "
        "RETURN i AS id, coalesce(c.statement, d.summary, a.summary, s.title, left(s.text, 120)) AS text",
        {"ids": sorted(set(ids))},
        name="browse.titles",
    )
    return {r["id"]: str(r["text"] or "") for r in rows}


def _by_id(graph: Graph, node_id: str) -> Target | None:
    rows = graph.read(
        "MATCH (n {id: $id}) WHERE n:Claim OR n:Decision OR n:Source RETURN labels(n) AS labels, n.id AS id, "
        "coalesce(n.statement, n.summary, n.title, left(n.text, 120)) AS text, n.status AS status, "
        f"n.holds AS holds, n.label AS label, {_newer('n')} AS newer, n.quarantined AS q, n.rev AS rev, "
        "n.source_id AS sid",
        {"id": node_id},
        name="browse.by_id",
    )
    if not rows:
        return None
    r = rows[0]
    if "Claim" in r["labels"]:
        return _claim(r)
    if "Decision" in r["labels"]:
        return _decision(r)
    return _source(r)


def _claim(r: Row) -> Target:
    status = claim_status(r.get("status"), r.get("holds"))
    return Target(r["id"], "claim", r.get("text") or "", status, r.get("rev"), r.get("sid"))


def _decision(r: Row) -> Target:
    # the Decision graph's status (graph_view.decision_status), so both pages say the same of one decision
    status = decision_status(r.get("status"), r.get("holds"), r.get("label"), int(r.get("newer") or 0))
    return Target(r["id"], "decision", r.get("text") or "", status, r.get("rev"), r.get("sid"))


def _source(r: Row) -> Target:
    return Target(r["id"], "source", r.get("text") or "", source_status(r.get("q")), r.get("rev"))


def _json(raw: Any) -> JSONObject:
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except (TypeError, ValueError):
        return {"raw": str(raw)}
    return data if isinstance(data, dict) else {"value": data}

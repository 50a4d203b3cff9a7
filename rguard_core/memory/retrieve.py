"""Retrieval over what still stands: full-text search that never returns the text of a claim that does not hold."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

from ..db import Graph
from ..errors import InvalidInput
from ..jsontypes import JSONObject
from .graphio import read_revision
from .recompute import recompute

_WORD = re.compile(r"[^\W_]+|_", re.UNICODE)


class RetrieveHit(TypedDict):
    """One claim or decision that holds and matched, as ``memory retrieve --json`` prints it."""

    kind: str  # claim | decision
    id: str
    statement: NotRequired[str | None]  # claim
    quote: NotRequired[str | None]  # claim
    source: NotRequired[str | None]  # claim
    summary: NotRequired[str | None]  # decision
    label: NotRequired[str | None]  # decision
    score: float | None
    matched: NotRequired[int]  # query words the visible text contains (set while ranking)


@dataclass
class RetrieveResult:
    query: str
    results: list[RetrieveHit] = field(default_factory=list)
    withheld: int = 0  # matches that do not hold: counted, never shown

    def as_dict(self) -> JSONObject:
        return {"query": self.query, "results": self.results, "withheld": self.withheld}


def retrieve(graph: Graph, query: str, limit: int = 10) -> RetrieveResult:
    """Claims and decisions matching ``query`` that hold, best first, with their quote and source."""
    terms = [t for t in _WORD.findall(query or "") if t != "_"]
    if not terms:
        raise InvalidInput("retrieve needs a query with at least one word")
    if read_revision(graph) is None and graph.exists():
        recompute(graph)  # holds were never computed on this graph
    # the terms are passed as a parameter; OR-ing them keeps recall for natural-language questions
    ft = " | ".join(terms)
    claims = graph.read(
        "CALL db.idx.fulltext.queryNodes('Claim', $q) YIELD node, score "
        "RETURN node.id AS id, node.holds AS holds, score, "
        "CASE WHEN node.holds = true THEN node.statement ELSE null END AS statement, "
        "CASE WHEN node.holds = true THEN node.quote ELSE null END AS quote, "
        "CASE WHEN node.holds = true THEN node.source_id ELSE null END AS source "
        "LIMIT $lim",
        {"q": ft, "lim": limit * 10},
        name="memory.retrieve.claims",
    )
    decisions = graph.read(
        "CALL db.idx.fulltext.queryNodes('Decision', $q) YIELD node, score "
        "RETURN node.id AS id, node.holds AS holds, score, node.label AS label, "
        "CASE WHEN node.holds = true THEN node.summary ELSE null END AS summary "
        "LIMIT $lim",
        {"q": ft, "lim": limit * 10},
        name="memory.retrieve.decisions",
    )
    out = RetrieveResult(query)
    hits: list[RetrieveHit] = []
    for r in claims:
        if r["holds"] is True:
            hits.append(
                {
                    "kind": "claim",
                    "id": r["id"],
                    "statement": r["statement"],
                    "quote": r["quote"],
                    "source": r["source"],
                    "score": r["score"],
                }
            )
        else:
            out.withheld += 1
    for r in decisions:
        if r["holds"] is True:
            hits.append(
                {"kind": "decision", "id": r["id"], "summary": r["summary"], "label": r["label"], "score": r["score"]}
            )
        else:
            out.withheld += 1
    wanted = {t.lower() for t in terms}
    for h in hits:  # rank by how many query words the visible text contains, then by the index's TF-IDF
        visible = (h.get("statement"), h.get("quote"), h.get("summary"))
        words = {w.lower() for w in _WORD.findall(" ".join(str(v or "") for v in visible))}
        h["matched"] = len(wanted & words)
    hits.sort(key=lambda h: (-h.get("matched", 0), -float(h["score"] or 0), h["id"]))
    out.results = hits[:limit]
    return out

"""Alternatives the authors considered and rejected for each decision (REJECTED_FOR), with their quotes."""

from __future__ import annotations

from ..db import Graph

MAX_PER_DECISION = 5

ALTERNATIVES_Q = """
MATCH (a:Alternative)-[:REJECTED_FOR]->(d:Decision)
WHERE d.id IN $ids
RETURN d.id AS decision, a.id AS alt, a.text AS text, a.quote AS quote
ORDER BY a.id
"""


def alternatives(graph: Graph, ids: list[str]) -> dict[str, list[dict[str, str]]]:
    out: dict[str, list[dict[str, str]]] = {}
    for r in graph.read(ALTERNATIVES_Q, {"ids": ids}, name="alternatives"):
        items = out.setdefault(r["decision"], [])
        if len(items) < MAX_PER_DECISION and r.get("quote"):
            items.append({"text": r.get("text") or r["quote"], "quote": r["quote"]})
    return out

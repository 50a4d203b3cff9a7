"""Who to ask: humans who edited the diff's files, ranked by PageRank and betweenness computed in FalkorDB.

Both algorithms run over Person-[:COLLABORATED]->Person (humans only, weighted by shared files).
Score = 0.5 * PageRank + 0.3 * betweenness (each scaled to the repository's maximum) + 0.2 * the person's
share of edits on the files; people inactive for Settings.inactive_days (counted back from the
repository's latest activity) count a third. Bus factor = active human editors of the files.
"""

from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass, field
from typing import Any

from ..db import Graph

MAX_EXPERTS = 3
BETWEENNESS_SEED = 42  # a fixed seed: the same graph gives the same experts
BETWEENNESS_SAMPLES = 32
INACTIVE_WEIGHT = 1 / 3

MAX_EDITORS_PER_FILE = 30  # a hot file's top editors by edit count; the long tail never ranks anyway

EDITORS_Q = """
MATCH (f:File) WHERE f.path IN $paths
WITH f
MATCH (p:Person)-[e:EDITED]->(f)
WHERE p.is_bot = false
WITH f, p, e ORDER BY e.count DESC
WITH f, collect({login: p.login, edits: e.count, last_active: p.last_active})[..$top] AS eds
UNWIND eds AS x
RETURN x.login AS login, f.path AS path, x.edits AS edits, x.last_active AS last_active
"""
HAS_COLLABORATION_Q = "MATCH (:Person)-[c:COLLABORATED]->(:Person) RETURN 1 AS one LIMIT 1"
STAMP_Q = "MATCH (r:Repo {id: 'repo'}) RETURN r.ingested_at AS at, r.full_name AS name"
LATEST_Q = "MATCH (p:Person) WHERE p.is_bot = false RETURN max(p.last_active) AS latest"
# ORDER BY so the scores can be read in pages below a server's result cap (one page below 10,000 people)
PAGERANK_Q = """
CALL algo.pageRank('Person', 'COLLABORATED') YIELD node, score
RETURN node.login AS login, score ORDER BY login
"""
BETWEENNESS_Q = """
CALL algo.betweenness({nodeLabels: ['Person'], relationshipTypes: ['COLLABORATED'],
                       samplingSize: $samples, samplingSeed: $seed}) YIELD node, score
RETURN node.login AS login, score ORDER BY login
"""
AUTHORS_Q = """
MATCH (d:Decision) WHERE d.id IN $ids WITH d
MATCH (s:Source) WHERE s.id = d.source_id
WITH d, s
MATCH (s)<-[:AUTHORED]-(a:Person)
WHERE a.is_bot = false
RETURN d.id AS decision, a.login AS login
"""


@dataclass
class People:
    """Everything the ranking needs, read once per guard run."""

    editors: list[dict[str, Any]] = field(default_factory=list)
    pagerank: dict[str, float] = field(default_factory=dict)
    betweenness: dict[str, float] = field(default_factory=dict)
    latest: str | None = None


def editors(graph: Graph, paths: list[str], name: str = "experts.editors") -> list[dict[str, Any]]:
    """Each file's top human editors by edit count."""
    return graph.read(EDITORS_Q, {"paths": paths, "top": MAX_EDITORS_PER_FILE}, name=name)


_CACHE: dict[tuple[str, str, str], tuple[dict[str, float], dict[str, float]]] = {}
_CACHE_LOCK = threading.Lock()


def centrality(graph: Graph) -> tuple[dict[str, float], dict[str, float]]:
    """PageRank and betweenness, computed in FalkorDB once per ingest of this graph (then reused in-process).

    COLLABORATED only changes when the repository is ingested again, which moves ``Repo.ingested_at``.
    """
    rows = graph.read(STAMP_Q, name="experts.stamp")
    stamp = str(rows[0]["at"]) if rows and rows[0].get("at") else ""
    key = (graph.store.target, graph.name, stamp)
    with _CACHE_LOCK:
        hit = _CACHE.get(key) if stamp else None
    if hit is not None:
        return hit
    # the algorithms refuse a label or relationship type the graph has never seen: no collaboration, no ranking
    has_edges = graph.read(HAS_COLLABORATION_Q, name="experts.has_collaboration")
    value = (pagerank(graph), betweenness(graph)) if has_edges else ({}, {})
    if stamp:
        with _CACHE_LOCK:
            _CACHE[key] = value
    return value


def latest_activity(graph: Graph) -> str | None:
    rows = graph.read(LATEST_Q, name="experts.latest")
    return rows[0]["latest"] if rows else None


def pagerank(graph: Graph) -> dict[str, float]:
    return {
        r["login"]: float(r["score"] or 0) for r in graph.paged(PAGERANK_Q, page_size=10_000, name="experts.pagerank")
    }


def betweenness(graph: Graph) -> dict[str, float]:
    rows = graph.paged(
        BETWEENNESS_Q,
        {"samples": BETWEENNESS_SAMPLES, "seed": BETWEENNESS_SEED},
        page_size=10_000,
        name="experts.betweenness",
    )
    return {r["login"]: float(r["score"] or 0) for r in rows}


def authors(graph: Graph, ids: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for r in graph.read(AUTHORS_Q, {"ids": ids}, name="experts.authors"):
        out.setdefault(r["decision"], []).append(r["login"])
    return out


def rank(
    people: People, files: list[str], decision_authors: list[str], inactive_days: int
) -> tuple[list[dict[str, Any]], int]:
    """Top experts for these files (plus the decision's authors who edited them) and the files' bus factor."""
    rows = [e for e in people.editors if e["path"] in files]
    edits: dict[str, float] = {}
    last: dict[str, str | None] = {}
    for e in rows:
        edits[e["login"]] = edits.get(e["login"], 0) + float(e.get("edits") or 1)
        last[e["login"]] = e.get("last_active")
    total = sum(edits.values()) or 1.0
    pr_max = max(people.pagerank.values(), default=0) or 1.0
    bt_max = max(people.betweenness.values(), default=0) or 1.0
    scored: list[dict[str, Any]] = []
    active = 0
    for login, n in edits.items():
        score = 0.5 * people.pagerank.get(login, 0) / pr_max + 0.3 * people.betweenness.get(login, 0) / bt_max
        score += 0.2 * n / total + (0.05 if login in decision_authors else 0)
        if _inactive(last.get(login), people.latest, inactive_days):
            score *= INACTIVE_WEIGHT
        else:
            active += 1
        scored.append({"login": login, "score": round(score, 4)})
    scored.sort(key=lambda x: (-float(x["score"]), str(x["login"])))
    return scored[:MAX_EXPERTS], active


def _inactive(last: str | None, latest: str | None, days: int) -> bool:
    if not last or not latest:
        return False
    return (dt.date.fromisoformat(latest[:10]) - dt.date.fromisoformat(last[:10])).days > days

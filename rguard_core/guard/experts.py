"""Who to ask: the one ranking of people for a decision or for files (the Guard, the Decision graph's detail
pane, ``who-knows`` and the MCP ``who_knows`` tool all call ``ranked``/``rank``).

"Who to ask about this decision" is a property of the decision, not of the diff that reached it:
``for_decisions`` ranks over every file the decision's sources changed (``DERIVED_FROM`` -> ``TOUCHES``: a PR's
files; an ADR's, those of the PR that added it), so a Guard finding and the decision's detail pane name the same
people in the same order whatever part of the decision a diff touches (tests/test_who_to_ask.py).
``who-knows PATH`` and MCP ``who_knows`` stay questions about files (``rank`` over the files asked about, no
voices). "The files" below are the decision's files, or the files asked about.

Rules, applied in order:

- **H1 editors.** The candidates are the humans (never bots) who edited the files: each file's top
  ``MAX_EDITORS_PER_FILE`` editors by edit count. Score = 0.5 * PageRank + 0.3 * betweenness (both over
  Person-[:COLLABORATED]->Person, humans only, weighted by shared files, each scaled to the repository's
  maximum; computed in FalkorDB once per ingest) + 0.2 * the person's share of edits on the files.
- **H2 voices.** A candidate who wrote the decision's source, or commented on it, gets ``VOICE_BONUS``.
- **H3 inactive.** People inactive for Settings.inactive_days (counted back from the repository's latest
  activity) count ``INACTIVE_WEIGHT`` (a third).
- **H4 discussion.** When nobody edited the files (a decision from an issue or a reviewer's override, files only
  bots touched, a graph without file history), the decision's voices are named instead, score 0: its source's human authors, then
  who commented on it, most comments first.
- At most ``MAX_EXPERTS`` people, best score first (ties by login). Bus factor = active human editors of the
  files.

A decision's voices are ``authors(graph, decision_ids)`` (its ``source_id``'s authors and commenters); for
sources that are not a decision's (a claim's, an action's), ``source_voices``.
"""

from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass, field

from ..db import Graph
from ..jsontypes import JSONObject, Row

# The rules above by id (H: who to ask; guard/registry.py keeps every rule id unique across the families)
RULES: dict[str, str] = {
    "H1": "editors: the humans who edited the files, ranked by collaboration and share of edits",
    "H2": "voices: whoever wrote or commented on the decision's source gets a bonus",
    "H3": "inactive: people inactive for a while count a third",
    "H4": "discussion: nobody edited the files, so the decision's authors and commenters are named",
}

MAX_EXPERTS = 3
BETWEENNESS_SEED = 42  # a fixed seed: the same graph gives the same experts
BETWEENNESS_SAMPLES = 32
INACTIVE_WEIGHT = 1 / 3
VOICE_BONUS = 0.05

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
# who wrote and who discussed a source; each query is prefixed by one of the two ways to name the sources (KEYED_*)
KEYED_BY_DECISION = (
    "MATCH (d:Decision) WHERE d.id IN $ids WITH d MATCH (s:Source) WHERE s.id = d.source_id WITH d.id AS key, s "
)
KEYED_BY_SOURCE = "UNWIND $ids AS sid MATCH (s:Source {id: sid}) WITH sid AS key, s "
AUTHORS_Q = "MATCH (s)<-[:AUTHORED]-(a:Person) WHERE a.is_bot = false RETURN key, a.login AS login ORDER BY key, login"
# every file a decision's sources changed (a PR's, or for an ADR the PR that added it): the decision's files
DECISION_FILES_Q = (
    "UNWIND $ids AS did MATCH (:Decision {id: did})-[:DERIVED_FROM]->(:Source)-[:TOUCHES]->(f:File) "
    "RETURN did, collect(DISTINCT f.path) AS paths"
)
COMMENTERS_Q = (
    "MATCH (s)<-[:ON]-(c:Comment)<-[:AUTHORED]-(p:Person) WHERE p.is_bot = false "
    "RETURN key, p.login AS login, count(c) AS n ORDER BY key, n DESC, login"
)


@dataclass
class People:
    """Everything the ranking needs, read once per guard run."""

    editors: list[Row] = field(default_factory=list)
    pagerank: dict[str, float] = field(default_factory=dict)
    betweenness: dict[str, float] = field(default_factory=dict)
    latest: str | None = None


def editors(graph: Graph, paths: list[str], name: str = "experts.editors") -> list[Row]:
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
    """Each decision's voices (rules H2, H4): its source's human authors, then who commented on it."""
    return _voices(graph, KEYED_BY_DECISION, ids, "experts.authors")


def source_voices(graph: Graph, source_ids: list[str]) -> list[str]:
    """The voices of these sources together: their human authors, then who commented on them."""
    by_source = _voices(graph, KEYED_BY_SOURCE, source_ids, "experts.source_voices")
    wrote = [login for sid in source_ids for login in by_source.get(sid, [])]
    return list(dict.fromkeys(wrote))


def _voices(graph: Graph, keyed: str, ids: list[str], name: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    if not ids:
        return out
    for r in graph.read(keyed + AUTHORS_Q, {"ids": ids}, name=name):
        out.setdefault(r["key"], []).append(r["login"])
    comments: dict[str, list[tuple[int, str]]] = {}
    for r in graph.read(keyed + COMMENTERS_Q, {"ids": ids}, name=f"{name}.commenters"):
        comments.setdefault(r["key"], []).append((-int(r["n"] or 0), r["login"]))
    for key, rows in comments.items():
        voices = out.setdefault(key, [])
        voices += [login for _, login in sorted(rows) if login not in voices]
    return out


@dataclass(frozen=True)
class Expert:
    """One person to ask, as ranked; ``edits`` 0 means named from the decision's discussion (rule H4)."""

    login: str
    score: float
    edits: int = 0
    last_active: str | None = None

    def as_dict(self) -> JSONObject:
        """The guard's and who-knows' JSON shape."""
        return {"login": self.login, "score": self.score}


def ranked(people: People, files: list[str], voices: list[str], inactive_days: int) -> tuple[list[Expert], int]:
    """The top experts for these files and the decision whose ``voices`` are given (rules H1–H4), and the files'
    bus factor."""
    wanted = set(files)
    rows = [e for e in people.editors if e["path"] in wanted]
    edits: dict[str, float] = {}
    last: dict[str, str | None] = {}
    for e in rows:
        edits[e["login"]] = edits.get(e["login"], 0) + float(e.get("edits") or 1)
        last[e["login"]] = e.get("last_active")
    total = sum(edits.values()) or 1.0
    pr_max = max(people.pagerank.values(), default=0) or 1.0
    bt_max = max(people.betweenness.values(), default=0) or 1.0
    scored: list[Expert] = []
    active = 0
    for login, n in edits.items():
        score = 0.5 * people.pagerank.get(login, 0) / pr_max + 0.3 * people.betweenness.get(login, 0) / bt_max
        score += 0.2 * n / total + (VOICE_BONUS if login in voices else 0)
        if _inactive(last.get(login), people.latest, inactive_days):
            score *= INACTIVE_WEIGHT
        else:
            active += 1
        scored.append(Expert(login, round(score, 4), int(n), last.get(login)))
    scored.sort(key=lambda x: (-x.score, x.login))
    if not scored:
        scored = [Expert(login, 0.0) for login in dict.fromkeys(voices)]
    return scored[:MAX_EXPERTS], active


def rank(
    people: People, files: list[str], decision_authors: list[str], inactive_days: int
) -> tuple[list[JSONObject], int]:
    """``ranked`` in the guard's JSON shape (``decision_authors``: the decision's voices, ``authors``)."""
    who, bus = ranked(people, files, decision_authors, inactive_days)
    return [e.as_dict() for e in who], bus


@dataclass(frozen=True)
class Ranking:
    """Whom to ask about one decision (rules H1–H4, best first) and its files' bus factor."""

    experts: tuple[Expert, ...]
    bus_factor: int
    files: tuple[str, ...]  # the decision's files the ranking read


def decision_files(graph: Graph, ids: list[str]) -> dict[str, list[str]]:
    """Every file each decision's sources changed, sorted."""
    if not ids:
        return {}
    rows = graph.read(DECISION_FILES_Q, {"ids": ids}, name="experts.decision_files")
    return {r["did"]: sorted(p for p in r["paths"] or [] if p) for r in rows}


def for_decisions(graph: Graph, ids: list[str], inactive_days: int) -> dict[str, Ranking]:
    """Whom to ask about each decision: ``ranked`` over all the decision's files with its voices (the one answer
    the Guard's findings and the detail pane show). Five reads for any number of decisions; PageRank and
    betweenness come from the per-ingest cache (``centrality``)."""
    if not ids:
        return {}
    files = decision_files(graph, ids)
    every = sorted({p for paths in files.values() for p in paths})
    pagerank_, betweenness_ = centrality(graph)
    people = People(editors(graph, every) if every else [], pagerank_, betweenness_, latest_activity(graph))
    voices = authors(graph, ids)
    out = {}
    for did in ids:
        own = files.get(did, [])
        who, bus = ranked(people, own, voices.get(did, []), inactive_days)
        out[did] = Ranking(tuple(who), bus, tuple(own))
    return out


def _inactive(last: str | None, latest: str | None, days: int) -> bool:
    if not last or not latest:
        return False
    return (dt.date.fromisoformat(latest[:10]) - dt.date.fromisoformat(last[:10])).days > days

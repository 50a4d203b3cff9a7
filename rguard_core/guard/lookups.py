"""Two questions an agent asks before it edits, answered with the guard's own parts.

``who_knows``      files → people, ranked by the one "who to ask" (experts.rank: PageRank, betweenness,
                   edit share, inactivity) over the same reads a guard run makes.
``check_premises`` decision ids → each premise rule's status (premises.RULES), and whether it still stands.

The CLI (``rguard who-knows``, ``rguard premises``) and the MCP server call these; results are plain dicts,
the JSON contract both print.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..db import Graph, Store, validate_repo
from ..errors import InvalidInput, UnknownRepository
from ..graph_state import require_complete
from ..jsontypes import JSONObject
from . import experts, premises

MAX_FILES = 200
MAX_IDS = 100
MAX_PATH = 1000

KNOWN_FILES_Q = "MATCH (f:File) WHERE f.path IN $paths RETURN f.path AS path"
DECISIONS_Q = """
MATCH (d:Decision) WHERE d.id IN $ids
RETURN d.id AS id, d.summary AS summary, coalesce(d.status, 'active') AS status
"""


@dataclass(frozen=True)
class FileExperts:
    path: str
    known: bool  # the graph has seen this file
    experts: list[JSONObject] = field(default_factory=list)  # experts.rank's JSON shape: login, score
    bus_factor: int = 0


@dataclass(frozen=True)
class WhoKnows:
    repo: str
    files: list[str]
    experts: list[JSONObject]  # for all the files together, in experts.rank's JSON shape
    bus_factor: int
    per_file: list[FileExperts]

    def as_dict(self) -> JSONObject:
        return asdict(self)


@dataclass(frozen=True)
class DecisionPremises:
    decision_id: str
    summary: str
    status: str
    stands: bool  # False when reverted, superseded or its ADR withdrawn (premises.no_longer_stands)
    premises: list[dict[str, str]]


@dataclass(frozen=True)
class PremiseCheck:
    repo: str
    decisions: list[DecisionPremises]
    unknown: list[str]  # ids the graph has no decision for

    def as_dict(self) -> JSONObject:
        return asdict(self)


def _graph(store: Store, repo: str) -> tuple[str, Graph]:
    repo = validate_repo(repo)
    graph = store.repo_graph(repo)
    if not graph.exists():
        raise UnknownRepository(repo)
    require_complete(graph)
    return repo, graph


def _clean_list(values: list[str], what: str, limit: int) -> list[str]:
    if isinstance(values, str) or not isinstance(values, list):
        raise InvalidInput(f"give {what} as a list")
    out = list(dict.fromkeys(str(v).strip() for v in values if str(v).strip()))
    if not out:
        raise InvalidInput(f"give at least one of {what}")
    if len(out) > limit:
        raise InvalidInput(f"{len(out)} {what} given; at most {limit} at once")
    if any(len(v) > MAX_PATH for v in out):
        raise InvalidInput(f"one of the {what} is longer than {MAX_PATH} characters")
    return out


def who_knows(store: Store, repo: str, paths: list[str]) -> WhoKnows:
    """Whom to ask about these files: the guard's expert ranking, for the files together and one by one."""
    repo, graph = _graph(store, repo)
    paths = _clean_list(paths, "file paths", MAX_FILES)
    known = {r["path"] for r in graph.read(KNOWN_FILES_Q, {"paths": paths}, name="who_knows.known")}
    pagerank, betweenness = experts.centrality(graph)
    people = experts.People(experts.editors(graph, paths), pagerank, betweenness, experts.latest_activity(graph))
    days = store.settings.inactive_days
    top, bus = experts.rank(people, paths, [], days)
    per_file = []
    for p in paths:
        who, b = experts.rank(people, [p], [], days)
        per_file.append(FileExperts(p, p in known, who, b))
    return WhoKnows(repo, paths, top, bus, per_file)


def check_premises(store: Store, repo: str, decision_ids: list[str]) -> PremiseCheck:
    """Every premise rule's verdict on each decision, as the guard would show it in a finding."""
    repo, graph = _graph(store, repo)
    ids = _clean_list(decision_ids, "decision ids", MAX_IDS)
    rows = {r["id"]: r for r in graph.read(DECISIONS_Q, {"ids": ids}, name="premises.decisions")}
    found = [i for i in ids if i in rows]
    by_id: dict[str, list[dict[str, str]]] = {i: [] for i in found}
    if found:
        for rule in premises.RULES:
            for did, p in premises.run_rule(graph, rule, found, store.settings.inactive_days):
                by_id.setdefault(did, []).append(p)
    out = []
    for i in found:
        prem = sorted(by_id[i], key=lambda p: p["rule"])
        out.append(
            DecisionPremises(
                i, str(rows[i].get("summary") or ""), str(rows[i]["status"]), not premises.no_longer_stands(prem), prem
            )
        )
    return PremiseCheck(repo, out, [i for i in ids if i not in rows])

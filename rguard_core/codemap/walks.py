"""Fixed, parameterised walks over the code map: neighbours, n hops in or out, the shortest import chain
between two files, the blast radius of a file, and a decision's files with their importers.

Walks go level by level (one indexed ``UNWIND $ids`` read per level, each file visited once), so a cycle
or a hub costs one visit per file, never one per path; depth and the number of files are bounded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Literal

from ..db import Graph
from ..errors import InvalidInput
from ..jsontypes import JSONObject, Row
from .model import EDGE_KINDS
from .write import CODEMAP_ID, file_id

Direction = Literal["in", "out"]
MAX_DEPTH = 10  # walk --depth
BLAST_MAX_DEPTH = 50  # a blast radius goes until nothing new turns up, at most this deep
MAX_FILES = 5000  # files one walk returns; the rest is cut and said so
CHAIN_MAX_DEPTH = 30
REL = "|".join(EDGE_KINDS)

STATUS_Q = """
MATCH (c:CodeMap {id: $id})
RETURN c.status AS status, c.commit AS commit, c.ref AS ref, c.source AS source, c.built_at AS built_at,
       c.files AS files, c.edges AS edges, c.resolved_ratio AS resolved_ratio, c.coverage AS coverage,
       c.building_commit AS building_commit
"""
FILE_Q = (
    "MATCH (f:File {id: $id}) RETURN f.path AS path, f.in_tree AS in_tree, f.lang AS lang, "
    "f.fan_in AS fan_in, f.fan_out AS fan_out"
)
_STEP = "RETURN a.path AS source, b.path AS target, type(e) AS kind, e.line AS line, e.specifier AS specifier"
OUT_Q = f"UNWIND $ids AS id MATCH (a:File {{id: id}})-[e:{REL}]->(b:File) {_STEP}"
IN_Q = f"UNWIND $ids AS id MATCH (b:File {{id: id}})<-[e:{REL}]-(a:File) {_STEP}"
DECISION_FILES_Q = """
MATCH (d:Decision {id: $id})
MATCH (s:Source) WHERE s.id = d.source_id
WITH d, s
OPTIONAL MATCH (s)<-[:ADDS]-(adder:PR)
WITH d, CASE WHEN adder IS NULL THEN s ELSE adder END AS p
MATCH (p)-[t:TOUCHES]->(f:File)
WHERE t.status <> 'renamed_from'
RETURN DISTINCT f.path AS path, coalesce(f.in_tree, false) AS in_tree, coalesce(f.fan_in, 0) AS fan_in
ORDER BY fan_in DESC, path
"""


@dataclass(frozen=True)
class Step:
    """``source`` imports ``target`` (an edge of the code map)."""

    source: str
    target: str
    kind: str
    line: int
    specifier: str

    def as_dict(self) -> JSONObject:
        return {
            "source": self.source,
            "target": self.target,
            "kind": self.kind,
            "line": self.line,
            "specifier": self.specifier,
        }


@dataclass(frozen=True)
class Reached:
    path: str
    depth: int
    via: Step  # the edge that first reached it (from a file one level closer to the start)

    def as_dict(self) -> JSONObject:
        return {"path": self.path, "depth": self.depth, "via": self.via.as_dict()}


@dataclass(frozen=True)
class FileInfo:
    path: str
    in_tree: bool
    lang: str | None
    fan_in: int
    fan_out: int

    def as_dict(self) -> JSONObject:
        return {
            "path": self.path,
            "in_tree": self.in_tree,
            "lang": self.lang,
            "fan_in": self.fan_in,
            "fan_out": self.fan_out,
        }


@dataclass(frozen=True)
class Neighbours:
    file: FileInfo
    imports: list[Step]
    imported_by: list[Step]
    commit: str

    def as_dict(self) -> JSONObject:
        return {
            "file": self.file.as_dict(),
            "commit": self.commit,
            "imports": [s.as_dict() for s in self.imports],
            "imported_by": [s.as_dict() for s in self.imported_by],
        }


@dataclass(frozen=True)
class Walk:
    """Files reached from ``start`` along imports (``out``) or importers (``in``), each at its least depth."""

    start: str
    direction: Direction
    depth: int  # asked for
    reached_depth: int  # deepest level where a new file turned up
    files: list[Reached]
    complete: bool  # False when MAX_FILES cut the walk or the depth limit stopped it with more to find
    commit: str

    def as_dict(self) -> JSONObject:
        return {
            "start": self.start,
            "direction": self.direction,
            "depth": self.depth,
            "reached_depth": self.reached_depth,
            "complete": self.complete,
            "commit": self.commit,
            "count": len(self.files),
            "files": [r.as_dict() for r in self.files],
        }


@dataclass(frozen=True)
class Chain:
    """The shortest import chain between two files: ``steps`` from the importer down to the imported file."""

    a: str
    b: str
    direction: Literal["a_imports_b", "b_imports_a", "none"]
    steps: list[Step]
    commit: str

    def as_dict(self) -> JSONObject:
        return {
            "a": self.a,
            "b": self.b,
            "direction": self.direction,
            "length": len(self.steps),
            "files": ([self.steps[0].source] + [s.target for s in self.steps]) if self.steps else [],
            "steps": [s.as_dict() for s in self.steps],
            "commit": self.commit,
        }


@dataclass(frozen=True)
class DecisionFile:
    path: str
    in_tree: bool
    fan_in: int
    importers: list[Step] = field(default_factory=list)


@dataclass(frozen=True)
class Status:
    status: str
    commit: str
    ref: str
    source: str
    built_at: str
    files: int
    edges: int
    resolved_ratio: float
    coverage: JSONObject  # the build's Coverage.as_dict(), stored as JSON on the CodeMap node

    def as_dict(self) -> JSONObject:
        return {
            "status": self.status,
            "commit": self.commit,
            "ref": self.ref,
            "source": self.source,
            "built_at": self.built_at,
            "files": self.files,
            "edges": self.edges,
            "resolved_ratio": self.resolved_ratio,
            "coverage": self.coverage,
        }


def status(graph: Graph) -> Status | None:
    """The code map's record, or None when none was ever built for this repository."""
    rows = graph.read(STATUS_Q, {"id": CODEMAP_ID}, name="codemap.status")
    if not rows:
        return None
    r = rows[0]
    return Status(
        r.get("status") or "",
        r.get("commit") or r.get("building_commit") or "",
        r.get("ref") or "",
        r.get("source") or "",
        r.get("built_at") or "",
        int(r.get("files") or 0),
        int(r.get("edges") or 0),
        float(r.get("resolved_ratio") or 0.0),
        json.loads(r["coverage"]) if r.get("coverage") else {},
    )


def require_map(graph: Graph, repo: str) -> Status:
    st = status(graph)
    if st is None:
        raise InvalidInput(f"no code map for {repo}; build one first: codemap build --repo {repo} --git PATH")
    if st.status != "complete":
        raise InvalidInput(
            f"the code map of {repo} is unfinished (a build of {st.commit or 'a commit'} stopped "
            f"midway); run codemap build again"
        )
    return st


def file_info(graph: Graph, path: str, repo: str) -> FileInfo:
    rows = graph.read(FILE_Q, {"id": file_id(_clean(path))}, name="codemap.file")
    if not rows or not rows[0].get("in_tree"):
        raise InvalidInput(
            f"{path!r} is not a source file in the code map of {repo} (paths are relative to the "
            "repository root, e.g. src/app/main.py)"
        )
    r = rows[0]
    return FileInfo(r["path"], True, r.get("lang"), int(r.get("fan_in") or 0), int(r.get("fan_out") or 0))


def neighbours(graph: Graph, repo: str, path: str) -> Neighbours:
    st = require_map(graph, repo)
    info = file_info(graph, path, repo)
    ids = [file_id(info.path)]
    out = _steps(graph.read(OUT_Q, {"ids": ids}, name="codemap.out"))
    inc = _steps(graph.read(IN_Q, {"ids": ids}, name="codemap.in"))
    return Neighbours(
        info, sorted(out, key=lambda s: (s.line, s.target)), sorted(inc, key=lambda s: (s.source, s.line)), st.commit
    )


def walk(graph: Graph, repo: str, path: str, depth: int = 2, direction: Direction = "out") -> Walk:
    if direction not in ("in", "out"):
        raise InvalidInput(f"direction must be 'in' (who imports it) or 'out' (what it imports), not {direction!r}")
    if not 1 <= int(depth) <= MAX_DEPTH:
        raise InvalidInput(f"depth must be between 1 and {MAX_DEPTH}, not {depth}")
    st = require_map(graph, repo)
    start = file_info(graph, path, repo).path
    return _bfs(graph, start, int(depth), direction, st.commit)


def blast_radius(graph: Graph, repo: str, path: str) -> Walk:
    """Every file that imports ``path``, directly or through others, with its depth (1 = imports it itself)."""
    st = require_map(graph, repo)
    start = file_info(graph, path, repo).path
    return _bfs(graph, start, BLAST_MAX_DEPTH, "in", st.commit)


def chain(graph: Graph, repo: str, a: str, b: str) -> Chain:
    st = require_map(graph, repo)
    pa, pb = file_info(graph, a, repo).path, file_info(graph, b, repo).path
    steps = _path(graph, pa, pb)
    if steps is not None:
        return Chain(pa, pb, "a_imports_b", steps, st.commit)
    steps = _path(graph, pb, pa)
    if steps is not None:
        return Chain(pa, pb, "b_imports_a", steps, st.commit)
    return Chain(pa, pb, "none", [], st.commit)


def decision_files(graph: Graph, decision_id: str, limit: int = 30) -> list[DecisionFile]:
    """The files a decision's change touched, each with the files that import it directly (code map)."""
    rows = graph.read(DECISION_FILES_Q, {"id": decision_id}, name="codemap.decision_files")[:limit]
    ids = [file_id(r["path"]) for r in rows if r["in_tree"]]
    by_target: dict[str, list[Step]] = {}
    for s in _steps(graph.read(IN_Q, {"ids": ids}, name="codemap.decision_importers")) if ids else []:
        by_target.setdefault(s.target, []).append(s)
    return [
        DecisionFile(
            r["path"],
            bool(r["in_tree"]),
            int(r["fan_in"]),
            sorted(by_target.get(r["path"], []), key=lambda s: s.source),
        )
        for r in rows
    ]


def _clean(path: str) -> str:
    p = (path or "").strip().removeprefix("./")
    if not p or p.startswith("/") or "\x00" in p:
        raise InvalidInput(f"invalid file path {path!r}; give a path relative to the repository root")
    return p


def _steps(rows: list[Row]) -> list[Step]:
    return [Step(r["source"], r["target"], r["kind"], int(r.get("line") or 0), r.get("specifier") or "") for r in rows]


def _bfs(graph: Graph, start: str, depth: int, direction: Direction, commit: str) -> Walk:
    q = OUT_Q if direction == "out" else IN_Q
    seen = {start}
    frontier = [start]
    found: list[Reached] = []
    level = 0
    complete = True
    while frontier and level < depth:
        level += 1
        steps = _steps(graph.read(q, {"ids": [file_id(p) for p in frontier]}, name=f"codemap.walk_{direction}"))
        nxt: list[str] = []
        for s in sorted(steps, key=lambda s: (s.source, s.target, s.line)):
            other = s.target if direction == "out" else s.source
            if other in seen:
                continue
            if len(found) >= MAX_FILES:
                complete = False
                break
            seen.add(other)
            nxt.append(other)
            found.append(Reached(other, level, s))
        frontier = nxt
    if frontier and level >= depth and complete:
        more = graph.read(q, {"ids": [file_id(p) for p in frontier]}, name=f"codemap.walk_{direction}_more")
        complete = all((r["target"] if direction == "out" else r["source"]) in seen for r in more)
    reached = max((r.depth for r in found), default=0)
    return Walk(start, direction, depth, reached, found, complete, commit)


def _path(graph: Graph, a: str, b: str) -> list[Step] | None:
    """Shortest chain of imports from ``a`` down to ``b`` (breadth first, parents kept), or None."""
    parent: dict[str, Step] = {}
    seen = {a}
    frontier = [a]
    for _ in range(CHAIN_MAX_DEPTH):
        if not frontier:
            return None
        steps = _steps(graph.read(OUT_Q, {"ids": [file_id(p) for p in frontier]}, name="codemap.chain"))
        nxt = []
        for s in sorted(steps, key=lambda s: (s.source, s.target, s.line)):
            if s.target in seen:
                continue
            seen.add(s.target)
            parent[s.target] = s
            nxt.append(s.target)
            if s.target == b:
                out = []
                cur = b
                while cur != a:
                    out.append(parent[cur])
                    cur = parent[cur].source
                return list(reversed(out))
        frontier = nxt
    return None


DECISION_CHOICES_Q = """
MATCH (d:Decision)
WHERE coalesce(d.status, 'active') = 'active'
WITH d
MATCH (s:Source) WHERE s.id = d.source_id
WITH d, s
OPTIONAL MATCH (s)<-[:ADDS]-(adder:PR)
WITH d, CASE WHEN adder IS NULL THEN s ELSE adder END AS p
MATCH (p)-[:TOUCHES]->(f:File)
WHERE f.in_tree = true
RETURN d.id AS id, d.summary AS summary, count(DISTINCT f) AS files, sum(coalesce(f.fan_in, 0)) AS importers
ORDER BY importers DESC, id
LIMIT $limit
"""
FILE_CHOICES_Q = """
MATCH (f:File) WHERE f.in_tree = true AND f.lang <> 'other'
RETURN f.path AS path, coalesce(f.fan_in, 0) AS fan_in
ORDER BY fan_in DESC, path
LIMIT $limit
"""


@dataclass(frozen=True)
class DecisionChoice:
    id: str
    summary: str
    files: int  # its files that are in the code map
    importers: int  # their fan-in, summed


def decision_choices(graph: Graph, limit: int = 500) -> list[DecisionChoice]:
    """Active decisions whose change touched files of the code map, most imported first."""
    rows = graph.read(DECISION_CHOICES_Q, {"limit": int(limit)}, name="codemap.decision_choices")
    return [DecisionChoice(r["id"], r.get("summary") or "", int(r["files"]), int(r["importers"])) for r in rows]


def file_choices(graph: Graph, limit: int = 5000) -> list[tuple[str, int]]:
    """(path, fan-in) of the code map's source files, most imported first."""
    rows = graph.read(FILE_CHOICES_Q, {"limit": int(limit)}, name="codemap.file_choices")
    return [(r["path"], int(r["fan_in"])) for r in rows]

"""Write a code map into the repository's graph: File nodes (``file:<path>``, shared with TOUCHES), the
import edges, and one ``CodeMap`` node that records the tree's commit and the coverage report.

A rebuild replaces only what a code map owns: the four import edge types and the File properties
``in_tree``, ``lang``, ``fan_in``, ``fan_out``. Decisions, claims, corrections, TOUCHES and EDITED stay.
The CodeMap node says ``status = 'building'`` until the last statement, so a crash mid-write is visible
(walks refuse an unfinished map) and the next build replaces whatever was half written.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections import Counter
from typing import Any, TypedDict

from ..db import Graph
from ..errors import ConflictError
from ..schema import ensure_schema
from .analyse import Analysis
from .model import EDGE_KINDS, TreeInfo

BATCH = 2000
STALE_AFTER = dt.timedelta(minutes=15)
CODEMAP_ID = "codemap"
REL = "|".join(EDGE_KINDS)

OLD_FILES_Q = "MATCH (f:File) WHERE f.in_tree = true RETURN f.id AS id ORDER BY id"
DROP_EDGES_Q = f"UNWIND $rows AS id MATCH (f:File {{id: id}})-[e:{REL}]->() DELETE e"
UNSET_Q = (
    "UNWIND $rows AS id MATCH (f:File {id: id}) SET f.in_tree = false, f.lang = NULL, f.fan_in = NULL, f.fan_out = NULL"
)
# A File only the old code map had (no TOUCHES, no EDITED, nothing) goes with it.
DROP_ORPHANS_Q = "UNWIND $rows AS id MATCH (f:File {id: id}) WHERE NOT (f)--() DELETE f"
FILES_Q = (
    "UNWIND $rows AS r MERGE (f:File {id: r.id}) "
    "SET f.path = r.path, f.in_tree = true, f.lang = r.lang, f.fan_in = r.fan_in, f.fan_out = r.fan_out"
)
EDGES_Q = {
    k: f"UNWIND $rows AS r MATCH (a:File {{id: r[0]}}) MATCH (b:File {{id: r[1]}}) "
    f"CREATE (a)-[:{k} {{specifier: r[2], line: r[3]}}]->(b)"
    for k in EDGE_KINDS
}
# One build at a time per repository: taking the CodeMap node is one conditional write. A build that died
# leaves 'building' behind; after STALE_AFTER (or with force) the next build takes over.
START_Q = """
MERGE (c:CodeMap {id: $id})
WITH c
WHERE $force OR c.status IS NULL OR c.status <> 'building' OR c.started_at < $stale
SET c.status = 'building', c.building_commit = $commit, c.started_at = $at, c.build_id = $token
RETURN c.build_id AS token
"""
HOLDER_Q = "MATCH (c:CodeMap {id: $id}) RETURN c.started_at AS at, c.building_commit AS commit"
FINISH_Q = """
MATCH (c:CodeMap {id: $id})
WHERE c.build_id = $token
SET c.status = 'complete', c.commit = $commit, c.ref = $ref, c.source = $source, c.location = $location,
    c.built_at = $at, c.files = $files, c.edges = $edges, c.resolved_ratio = $ratio, c.coverage = $coverage
RETURN c.id AS id
"""


def file_id(path: str) -> str:
    return f"file:{path}"


def write_codemap(graph: Graph, info: TreeInfo, analysis: Analysis, force: bool = False) -> dict[str, int]:
    """Replace the repository's code map with ``analysis``; returns edge counts by kind. Raises ConflictError
    while another build of the same repository is running (``force`` takes over anyway)."""
    ensure_schema(graph)
    at = dt.datetime.now(dt.UTC)
    now = at.isoformat(timespec="seconds")
    stale = (at - STALE_AFTER).isoformat(timespec="seconds")
    token = uuid.uuid4().hex
    taken = graph.query(
        START_Q,
        {"id": CODEMAP_ID, "commit": info.commit, "at": now, "stale": stale, "token": token, "force": force},
        name="codemap.start",
    )
    if not taken:
        holder = graph.read(HOLDER_Q, {"id": CODEMAP_ID}, name="codemap.holder")
        since = holder[0]["at"] if holder else "?"
        raise ConflictError(
            f"another code map build of this repository has been running since {since}; wait for "
            f"it to finish, or if it died, retry after {STALE_AFTER.seconds // 60} minutes "
            "(or pass --force)"
        )
    old = [r["id"] for r in graph.paged(OLD_FILES_Q, name="codemap.old_files")]
    _batched(graph, DROP_EDGES_Q, old, "codemap.drop_edges")
    rows = _file_rows(analysis)
    new_ids = {r["id"] for r in rows}
    gone = [i for i in old if i not in new_ids]
    _batched(graph, UNSET_Q, gone, "codemap.unset_files")
    _batched(graph, DROP_ORPHANS_Q, gone, "codemap.drop_orphans")
    _batched(graph, FILES_Q, rows, "codemap.files")
    counts: dict[str, int] = {}
    for kind in EDGE_KINDS:
        edge_rows = [
            [file_id(e.source), file_id(e.target), e.specifier, e.line] for e in analysis.edges if e.kind == kind
        ]
        _batched(graph, EDGES_Q[kind], edge_rows, f"codemap.edges.{kind}")
        counts[kind] = len(edge_rows)
    cov = analysis.coverage
    done = graph.query(
        FINISH_Q,
        {
            "id": CODEMAP_ID,
            "token": token,
            "commit": info.commit,
            "ref": info.ref or "",
            "source": info.source,
            "location": info.location,
            "at": now,
            "files": len(rows),
            "edges": sum(counts.values()),
            "ratio": cov.resolved_ratio,
            "coverage": json.dumps(cov.as_dict(), sort_keys=True),
        },
        name="codemap.finish",
    )
    if not done:
        raise ConflictError(
            "another code map build took over this repository while this one was writing; "
            "the map is left unfinished for it to complete"
        )
    return counts


class FileRow(TypedDict):
    """One ``File`` node as the UNWIND write takes it."""

    id: str
    path: str
    lang: str
    fan_in: int
    fan_out: int


def _file_rows(analysis: Analysis) -> list[FileRow]:
    """Every parsed file and every edge target, with distinct importers (fan_in) and imported files (fan_out)."""
    pairs = {(e.source, e.target) for e in analysis.edges}
    fan_out = Counter(s for s, _ in pairs)
    fan_in = Counter(t for _, t in pairs)
    paths = sorted(set(analysis.parsed) | {t for _, t in pairs})
    return [
        {
            "id": file_id(p),
            "path": p,
            "lang": analysis.parsed[p].lang if p in analysis.parsed else "other",
            "fan_in": fan_in.get(p, 0),
            "fan_out": fan_out.get(p, 0),
        }
        for p in paths
    ]


def _batched(graph: Graph, cypher: str, rows: list[Any], name: str) -> None:
    if rows:
        graph.write_many(cypher, [{"rows": rows[i : i + BATCH]} for i in range(0, len(rows), BATCH)], name=name)

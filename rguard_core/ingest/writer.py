"""Store a GraphBatch with batched UNWIND statements.

A fresh graph is written with CREATE (nothing to match); an existing one with MERGE on ids, so re-ingest
updates in place. Properties that corrections and the support engine own (``rev``, ``status``, ``holds``,
``label``, ``quarantined``) are set only when a node is created, so re-ingest never undoes a reviewer's work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..db import Graph
from ..jsontypes import Props
from .build import GraphBatch

BATCH = 2000
_ON_CREATE = {
    "Claim": "n.rev = 0, n.status = 'active', n.holds = true",
    "Decision": "n.rev = 0, n.status = 'active', n.holds = true, n.score_factor = 1.0",
    "Action": "n.status = 'active'",
    "Source": "n.quarantined = false, n.rev = 0",
    "Justification": "n.holds = true",
}
_LABEL_ORDER = (
    "Repo",
    "Person",
    "File",
    "Symbol",
    "Source",
    "Fragment",
    "Claim",
    "Decision",
    "Alternative",
    "Justification",
    "Action",
)

Progress = Callable[[str, int, int], None]


def write_batch(
    graph: Graph, batch: GraphBatch, progress: Progress | None = None, fresh: bool = False
) -> dict[str, int]:
    """Write every node, then every edge; returns how many rows each statement kind carried."""
    counts: dict[str, int] = {}
    node_groups = sorted(batch.nodes.items(), key=lambda kv: _order(kv[0]))
    total = sum(len(v) for _, v in node_groups) + sum(len(v) for v in batch.edges.values())
    done = [0]
    for labels, rows in node_groups:
        label_str = ":".join(labels)
        on_create = next((_ON_CREATE[lbl] for lbl in labels if lbl in _ON_CREATE), None)
        if fresh:
            cypher = f"UNWIND $rows AS r CREATE (n:{label_str}) SET n += r.props, n.id = r.id"
            cypher += f", {on_create}" if on_create else ""
        else:
            cypher = f"UNWIND $rows AS r MERGE (n:{label_str} {{id: r.id}})"
            cypher += f" ON CREATE SET {on_create}" if on_create else ""
            cypher += " SET n += r.props"
        items = [{"id": k, "props": _props(v)} for k, v in rows.items()]
        _run(graph, cypher, items, f"write {label_str}", done, total, progress)
        counts[label_str] = len(items)
    for (rel, src_label, dst_label), edge_rows in batch.edges.items():
        has_props = any(edge_rows.values())
        verb = "CREATE" if fresh else "MERGE"
        cypher = (
            f"UNWIND $rows AS r MATCH (a:{src_label} {{id: r[0]}}) MATCH (b:{dst_label} {{id: r[1]}}) "
            f"{verb} (a)-[e:{rel}]->(b)" + (" SET e += r[2]" if has_props else "")
        )
        edge_items: list[list[Any]] = [[s, d, _props(p)] if has_props else [s, d] for (s, d), p in edge_rows.items()]
        _run(graph, cypher, edge_items, f"write {rel}", done, total, progress)
        counts[rel] = len(edge_items)
    return counts


def _run(
    graph: Graph, cypher: str, items: list[Any], name: str, done: list[int], total: int, progress: Progress | None
) -> None:
    batches = [{"rows": items[i : i + BATCH]} for i in range(0, len(items), BATCH)]
    graph.write_many(cypher, batches, name=name)
    done[0] += len(items)
    if progress:
        progress("write graph", done[0], total)


def _order(labels: tuple[str, ...]) -> int:
    return min((_LABEL_ORDER.index(lbl) for lbl in labels if lbl in _LABEL_ORDER), default=len(_LABEL_ORDER))


def _props(p: Props) -> Props:
    # FalkorDB stores no nulls and no nested maps; empty lists are fine.
    return {k: v for k, v in p.items() if v is not None and not isinstance(v, dict)}


def write_increments(graph: Graph, batch: GraphBatch) -> dict[str, int]:
    """An appended batch's derived data, added to what the graph holds: people's latest activity (max), EDITED
    counts (sum), and COLLABORATED weights (+1 for each file a pair of people now both edited, once).

    Reads and writes only the batch's people and files, so appending one PR costs what that PR touched.
    (The full build keeps at most MAX_EDITORS_PER_FILE editors per file; appends do not trim.)"""
    if not batch.incremental:
        return {}
    if batch.active:
        rows = [{"id": k, "at": v} for k, v in batch.active.items()]
        graph.write_many(
            "UNWIND $rows AS r MATCH (p:Person {id: r.id}) "
            "WHERE p.last_active IS NULL OR p.last_active < r.at SET p.last_active = r.at",
            [{"rows": rows[i : i + BATCH]} for i in range(0, len(rows), BATCH)],
            name="append last_active",
        )
    if not batch.edits:
        return {"Person.last_active": len(batch.active)}
    files = sorted({f for _, f in batch.edits})
    before: dict[str, set[str]] = {f: set() for f in files}
    # WITH after the indexed File lookup: the planner must start from the batch's files, not every Person
    for r in graph.read(
        "UNWIND $files AS fid MATCH (f:File {id: fid}) WITH fid, f MATCH (f)<-[:EDITED]-(o:Person) "
        "WHERE o.is_bot = false RETURN fid, collect(o.id) AS eds",
        {"files": files},
        name="append.editors",
    ):
        before[r["fid"]] = set(r["eds"])
    pairs: dict[tuple[str, str], int] = {}
    for f in files:
        new = sorted({p for p, ff in batch.edits if ff == f} - before[f])
        for i, a in enumerate(new):
            for c in [*sorted(before[f]), *new[i + 1 :]]:
                for x, y in ((a, c), (c, a)):
                    pairs[(x, y)] = pairs.get((x, y), 0) + 1
    edit_rows = [[p, f, n, last] for (p, f), (n, last) in batch.edits.items()]
    graph.write_many(
        "UNWIND $rows AS r MATCH (p:Person {id: r[0]}) MATCH (f:File {id: r[1]}) MERGE (p)-[e:EDITED]->(f) "
        "ON CREATE SET e.count = 0 SET e.count = e.count + r[2] "
        "SET e.last_at = CASE WHEN r[3] IS NOT NULL AND (e.last_at IS NULL OR e.last_at < r[3]) THEN r[3] "
        "ELSE e.last_at END",
        [{"rows": edit_rows[i : i + BATCH]} for i in range(0, len(edit_rows), BATCH)],
        name="append EDITED",
    )
    pair_rows = [[a, c, w] for (a, c), w in pairs.items()]
    if pair_rows:
        graph.write_many(
            "UNWIND $rows AS r MATCH (a:Person {id: r[0]}) MATCH (c:Person {id: r[1]}) MERGE (a)-[e:COLLABORATED]->(c) "
            "ON CREATE SET e.weight = 0 SET e.weight = e.weight + r[2]",
            [{"rows": pair_rows[i : i + BATCH]} for i in range(0, len(pair_rows), BATCH)],
            name="append COLLABORATED",
        )
    return {"Person.last_active": len(batch.active), "EDITED+": len(edit_rows), "COLLABORATED+": len(pair_rows)}


def mark_reverted(graph: Graph, batch: GraphBatch) -> int:
    """A reverted change's decision no longer holds as decided: status ``superseded`` with ``reverted_by``
    (the views show it superseded, premise R7 says by what). Reverting a revert reinstates what the first
    revert took back. Links are applied in landing order, so a chain ends in the right state."""
    n = 0
    for rv in batch.reverts:
        rows = graph.read(
            "MATCH (r:Source {id: $r}) RETURN coalesce(r.merged, true) AS merged",
            {"r": rv.source},
            name="revert.merged",
        )
        if not rows or not rows[0]["merged"]:
            continue  # an open or closed-unmerged revert PR reverts nothing yet
        graph.query(
            "MATCH (d:Decision {source_id: $t}) SET d.status = 'superseded', d.reverted_by = $r",
            {"t": rv.target, "r": rv.source},
            name="revert.mark",
        )
        graph.query(
            "MATCH (:Source {id: $t})-[:REVERTS]->(q:Source) MATCH (d:Decision {source_id: q.id}) "
            "WHERE d.reverted_by = $t SET d.status = 'active', d.reverted_by = NULL",
            {"t": rv.target},
            name="revert.reinstate",
        )
        n += 1
    return n

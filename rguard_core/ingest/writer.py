"""Store a GraphBatch with batched UNWIND statements.

A fresh graph is written with CREATE (nothing to match); an existing one with MERGE on ids, so re-ingest
updates in place. Properties that corrections and the support engine own (``rev``, ``status``, ``holds``,
``label``, ``quarantined``) are set only when a node is created, so re-ingest never undoes a reviewer's work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..db import Graph
from .build import GraphBatch

BATCH = 2000
_ON_CREATE = {
    "Claim": "n.rev = 0, n.status = 'active', n.holds = true",
    "Decision": "n.rev = 0, n.status = 'active', n.holds = true, n.score_factor = 1.0",
    "Action": "n.status = 'active'",
    "Source": "n.quarantined = false, n.rev = 0",
    "Justification": "n.holds = true",
}
_LABEL_ORDER = ("Repo", "Person", "File", "Symbol", "Source", "Fragment", "Claim", "Decision", "Alternative",
                "Justification", "Action")

Progress = Callable[[str, int, int], None]


def write_batch(graph: Graph, batch: GraphBatch, progress: Progress | None = None, fresh: bool = False) -> dict[str, int]:
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
        cypher = (f"UNWIND $rows AS r MATCH (a:{src_label} {{id: r[0]}}) MATCH (b:{dst_label} {{id: r[1]}}) "
                  f"{verb} (a)-[e:{rel}]->(b)" + (" SET e += r[2]" if has_props else ""))
        edge_items: list[list[Any]] = [[s, d, _props(p)] if has_props else [s, d] for (s, d), p in edge_rows.items()]
        _run(graph, cypher, edge_items, f"write {rel}", done, total, progress)
        counts[rel] = len(edge_items)
    return counts


def _run(graph: Graph, cypher: str, items: list[Any], name: str, done: list[int], total: int,
         progress: Progress | None) -> None:
    batches = [{"rows": items[i : i + BATCH]} for i in range(0, len(items), BATCH)]
    graph.write_many(cypher, batches, name=name)
    done[0] += len(items)
    if progress:
        progress("write graph", done[0], total)


def _order(labels: tuple[str, ...]) -> int:
    return min((_LABEL_ORDER.index(lbl) for lbl in labels if lbl in _LABEL_ORDER), default=len(_LABEL_ORDER))


def _props(p: dict[str, Any]) -> dict[str, Any]:
    # FalkorDB stores no nulls and no nested maps; empty lists are fine.
    return {k: v for k, v in p.items() if v is not None and not isinstance(v, dict)}

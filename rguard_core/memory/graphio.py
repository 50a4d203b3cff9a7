"""Reading the support structure out of a graph (whole, or one downstream region) into a SupportGraph.

Works on workspace graphs and on repository graphs alike: a claim is an observation when it has a
``source_id`` and a ``quote``; its source is found by id; justifications are PREMISE/JUSTIFIES edges.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..db import Graph
from ..errors import ConflictError
from ..jsontypes import Row
from .model import ActionState, ClaimState, DecisionState, JustState, SupportGraph

STATE_ID = "memory"
ID_WINDOW = 50_000  # internal node ids per page of a whole-graph read


class NeedsFullRecompute(Exception):
    """A node the region depends on has never had its support computed (internal signal)."""


def read_revision(graph: Graph, *, allow_loading: bool = False) -> int | None:
    """The graph's memory revision (bumped by every memory write), or None if support was never computed.

    A workspace still being written by a batched load (or whose load was interrupted) raises ConflictError.
    """
    rows = graph.read(
        "MATCH (m:MemoryState {id: $id}) RETURN m.rev AS rev, m.state AS state",
        {"id": STATE_ID},
        name="memory.revision",
    )
    if not rows:
        return None
    if rows[0]["state"] == "loading" and not allow_loading:
        raise ConflictError(f"{graph.name} is being loaded, or its last load was interrupted; wait, or load it again")
    return int(rows[0]["rev"])


def seeds_of_source(graph: Graph, source_id: str) -> list[str]:
    """The claims that quote a source (through its fragments)."""
    rows = graph.read(
        "MATCH (s:Source {id: $sid})-[:HAS_FRAGMENT]->(:Fragment)<-[:EVIDENCED_BY]-(c:Claim) RETURN DISTINCT c.id AS id",
        {"sid": source_id},
        name="memory.seeds",
    )
    return sorted(r["id"] for r in rows)


def downstream(graph: Graph, seeds: list[str]) -> tuple[set[str], set[str]]:
    """Claims and decisions reachable from the seed claims through PREMISE/JUSTIFIES (seeds included)."""
    claims, decisions = set(seeds), set()
    frontier = list(seeds)
    while frontier:
        rows = graph.read_each(
            "UNWIND $ids AS cid MATCH (:Claim {id: cid})<-[:PREMISE]-(:Justification)-[:JUSTIFIES]->(x) "
            "RETURN DISTINCT x.id AS id, x:Decision AS is_decision",
            frontier,
            name="memory.region.step",
        )
        frontier = []
        for r in rows:
            if r["is_decision"]:
                decisions.add(r["id"])
            elif r["id"] not in claims:
                claims.add(r["id"])
                frontier.append(r["id"])
    return claims, decisions


def read_region(graph: Graph, seeds: list[str]) -> SupportGraph:
    """The region downstream of ``seeds`` with everything needed to recompute it; stored values elsewhere."""
    claim_ids, decision_ids = downstream(graph, seeds)
    sg = SupportGraph()
    for row in _claim_rows(graph, sorted(claim_ids)):
        _add_claim(sg, row)
    for row in _decision_rows(graph, sorted(decision_ids)):
        sg.decisions[row["id"]] = _decision(row)
    _read_justifications(graph, sg, sorted(claim_ids), "Claim")
    _read_justifications(graph, sg, sorted(decision_ids), "Decision")
    region = sg.node_ids()
    external = sorted({p for j in sg.justs.values() for p in j.premises} - region)
    for row in _claim_rows(graph, external):
        if row["holds"] is None and row["status"] != "superseded":
            raise NeedsFullRecompute(row["id"])
        sg.outside[row["id"]] = bool(row["holds"]) and row["status"] != "superseded"
    _read_actions(graph, sg, sorted(decision_ids))
    for node in list(sg.claims.values()) + list(sg.decisions.values()):
        if node.holds is None:
            raise NeedsFullRecompute(node.id)
    return sg


def _claim_rows(graph: Graph, ids: list[str]) -> list[Row]:
    if not ids:
        return []
    return graph.read_each(
        "UNWIND $ids AS cid MATCH (c:Claim {id: cid}) OPTIONAL MATCH (s:Source {id: c.source_id}) "
        "RETURN c.id AS id, c.source_id AS source_id, (c.quote IS NOT NULL AND c.source_id IS NOT NULL) AS obs, "
        "c.status AS status, c.holds AS holds, coalesce(c.rev, 0) AS rev, coalesce(s.quarantined, false) AS quarantined",
        ids,
        name="memory.region.claims",
    )


def _add_claim(sg: SupportGraph, row: Row) -> None:
    sg.claims[row["id"]] = ClaimState(
        row["id"], row["source_id"], bool(row["obs"]), row["status"] == "superseded", row["holds"], int(row["rev"])
    )
    if row["quarantined"] and row["source_id"]:
        sg.quarantined.add(row["source_id"])


def _decision_rows(graph: Graph, ids: list[str]) -> list[Row]:
    if not ids:
        return []
    return graph.read_each(
        "UNWIND $ids AS did MATCH (d:Decision {id: did}) "
        "RETURN d.id AS id, d.holds AS holds, d.label AS label, coalesce(d.rev, 0) AS rev",
        ids,
        name="memory.region.decisions",
    )


def _decision(row: Row) -> DecisionState:
    return DecisionState(row["id"], row["holds"], row["label"], int(row["rev"]))


def _read_justifications(graph: Graph, sg: SupportGraph, ids: list[str], label: str) -> None:
    if not ids:
        return
    # label is one of two literals chosen in code, never user input
    rows = graph.read_each(
        f"UNWIND $ids AS xid MATCH (j:Justification)-[:JUSTIFIES]->(x:{label} {{id: xid}}) "
        "OPTIONAL MATCH (j)-[:PREMISE]->(p:Claim) "
        "RETURN j.id AS id, x.id AS conclusion, j.holds AS holds, collect(DISTINCT p.id) AS premises",
        ids,
        name=f"memory.region.justifications.{label.lower()}",
    )
    for r in rows:
        _merge_just(sg, r["id"], r["conclusion"], r["premises"], r["holds"])


def _merge_just(sg: SupportGraph, jid: str, conclusion: str | None, premises: list[str], holds: Any) -> None:
    j = sg.justs.get(jid)
    conclusions = (conclusion,) if conclusion is not None else ()
    if j is None:
        sg.justs[jid] = JustState(jid, conclusions, tuple(sorted(set(premises))), holds)
    else:
        j.conclusions = tuple(sorted(set(j.conclusions) | set(conclusions)))
        j.premises = tuple(sorted(set(j.premises) | set(premises)))


def _read_actions(graph: Graph, sg: SupportGraph, decision_ids: list[str]) -> None:
    if not decision_ids:
        return
    rows = graph.read_each(
        "UNWIND $ids AS did MATCH (a:Action)-[:IMPLEMENTS]->(:Decision {id: did}) WITH DISTINCT a "
        "MATCH (a)-[:IMPLEMENTS]->(d:Decision) "
        "RETURN a.id AS id, coalesce(a.executed, false) AS executed, a.status AS status, coalesce(a.rev, 0) AS rev, "
        "collect(d.id) AS decisions, collect(coalesce(d.holds, false)) AS holds",
        decision_ids,
        name="memory.region.actions",
    )
    for r in rows:
        sg.actions[r["id"]] = ActionState(
            r["id"], tuple(r["decisions"]), bool(r["executed"]), r["status"], int(r["rev"])
        )
        for did, held in zip(r["decisions"], r["holds"], strict=False):
            if did not in sg.decisions:
                sg.outside[did] = bool(held)


def read_all(graph: Graph) -> SupportGraph:
    """The whole support structure of a graph, read page by page (windows of internal node ids)."""
    sg = SupportGraph()
    for r in _pages(
        graph,
        "Source",
        "OPTIONAL MATCH (n)-[:DERIVED_FROM]->(p:Source) "
        "RETURN n.id AS id, coalesce(n.quarantined, false) AS q, collect(p.id) AS parents",
        "sources",
    ):
        sg.lineage[r["id"]] = tuple(sorted(r["parents"]))
        if r["q"]:
            sg.quarantined.add(r["id"])
    for r in _pages(
        graph,
        "Claim",
        "RETURN n.id AS id, n.source_id AS source_id, "
        "(n.quote IS NOT NULL AND n.source_id IS NOT NULL) AS obs, n.status AS status, n.holds AS holds, "
        "coalesce(n.rev, 0) AS rev, false AS quarantined",
        "claims",
    ):
        _add_claim(sg, r)
    for r in _pages(
        graph,
        "Decision",
        "RETURN n.id AS id, n.holds AS holds, n.label AS label, coalesce(n.rev, 0) AS rev",
        "decisions",
    ):
        sg.decisions[r["id"]] = _decision(r)
    for r in _pages(
        graph,
        "Justification",
        "OPTIONAL MATCH (n)-[:JUSTIFIES]->(x) WHERE x:Claim OR x:Decision "
        "WITH n, collect(DISTINCT x.id) AS xs OPTIONAL MATCH (n)-[:PREMISE]->(p:Claim) "
        "RETURN n.id AS id, n.holds AS holds, xs, collect(DISTINCT p.id) AS ps",
        "justifications",
    ):
        sg.justs[r["id"]] = JustState(r["id"], tuple(sorted(r["xs"])), tuple(sorted(r["ps"])), r["holds"])
    for r in _pages(
        graph,
        "Action",
        "OPTIONAL MATCH (n)-[:IMPLEMENTS]->(d:Decision) "
        "RETURN n.id AS id, coalesce(n.executed, false) AS executed, n.status AS status, "
        "coalesce(n.rev, 0) AS rev, collect(d.id) AS ds",
        "actions",
    ):
        sg.actions[r["id"]] = ActionState(
            r["id"], tuple(sorted(r["ds"])), bool(r["executed"]), r["status"], int(r["rev"])
        )
    return sg


def _pages(graph: Graph, label: str, tail: str, what: str) -> Iterator[Row]:
    """Every node of ``label``, one window of internal node ids at a time; ``tail`` (literal Cypher) reads ``n``.

    An id window is a direct label-and-id scan: no sort, no SKIP, so each page costs only its own rows.
    """
    graph.store.refresh_limits(force=True)  # the window below must sit under today's cap, not connect's
    top = graph.read("MATCH (n) RETURN max(ID(n)) AS top", name="memory.all.top")
    last = top[0]["top"] if top else None
    if last is None:
        return
    window = graph.row_window(ID_WINDOW)  # one row per node: a window below the server's result cap is whole
    for lo in range(0, int(last) + 1, window):
        yield from graph.read(
            f"MATCH (n:{label}) WHERE ID(n) >= $lo AND ID(n) < $hi {tail}",
            {"lo": lo, "hi": lo + window},
            name=f"memory.all.{what}",
        )

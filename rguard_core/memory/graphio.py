"""Reading the support structure out of a graph (whole, or one downstream region) into a SupportGraph.

Works on workspace graphs and on repository graphs alike: a claim is an observation when it has a
``source_id`` and a ``quote``; its source is found by id; justifications are PREMISE/JUSTIFIES edges.
"""

from __future__ import annotations

from typing import Any

from ..db import Graph
from ..errors import ConflictError
from .model import ActionState, ClaimState, DecisionState, JustState, SupportGraph

STATE_ID = "memory"
PAGE = 20_000


class NeedsFullRecompute(Exception):
    """A node the region depends on has never had its support computed (internal signal)."""


def read_revision(graph: Graph, *, allow_loading: bool = False) -> int | None:
    """The graph's memory revision (bumped by every memory write), or None if support was never computed.

    A workspace still being written by a batched load (or whose load was interrupted) raises ConflictError.
    """
    rows = graph.read("MATCH (m:MemoryState {id: $id}) RETURN m.rev AS rev, m.state AS state", {"id": STATE_ID},
                      name="memory.revision")
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
        rows = graph.read(
            "UNWIND $ids AS cid MATCH (:Claim {id: cid})<-[:PREMISE]-(:Justification)-[:JUSTIFIES]->(x) "
            "RETURN DISTINCT x.id AS id, x:Decision AS is_decision",
            {"ids": frontier},
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


def _claim_rows(graph: Graph, ids: list[str]) -> list[dict[str, Any]]:
    if not ids:
        return []
    return graph.read(
        "UNWIND $ids AS cid MATCH (c:Claim {id: cid}) OPTIONAL MATCH (s:Source {id: c.source_id}) "
        "RETURN c.id AS id, c.source_id AS source_id, (c.quote IS NOT NULL AND c.source_id IS NOT NULL) AS obs, "
        "c.status AS status, c.holds AS holds, coalesce(c.rev, 0) AS rev, coalesce(s.quarantined, false) AS quarantined",
        {"ids": ids},
        name="memory.region.claims",
    )


def _add_claim(sg: SupportGraph, row: dict[str, Any]) -> None:
    sg.claims[row["id"]] = ClaimState(
        row["id"], row["source_id"], bool(row["obs"]), row["status"] == "superseded", row["holds"], int(row["rev"])
    )
    if row["quarantined"] and row["source_id"]:
        sg.quarantined.add(row["source_id"])


def _decision_rows(graph: Graph, ids: list[str]) -> list[dict[str, Any]]:
    if not ids:
        return []
    return graph.read(
        "UNWIND $ids AS did MATCH (d:Decision {id: did}) "
        "RETURN d.id AS id, d.holds AS holds, d.label AS label, coalesce(d.rev, 0) AS rev",
        {"ids": ids},
        name="memory.region.decisions",
    )


def _decision(row: dict[str, Any]) -> DecisionState:
    return DecisionState(row["id"], row["holds"], row["label"], int(row["rev"]))


def _read_justifications(graph: Graph, sg: SupportGraph, ids: list[str], label: str) -> None:
    if not ids:
        return
    # label is one of two literals chosen in code, never user input
    rows = graph.read(
        f"UNWIND $ids AS xid MATCH (j:Justification)-[:JUSTIFIES]->(x:{label} {{id: xid}}) "
        "OPTIONAL MATCH (j)-[:PREMISE]->(p:Claim) "
        "RETURN j.id AS id, x.id AS conclusion, j.holds AS holds, collect(DISTINCT p.id) AS premises",
        {"ids": ids},
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
    rows = graph.read(
        "UNWIND $ids AS did MATCH (a:Action)-[:IMPLEMENTS]->(:Decision {id: did}) WITH DISTINCT a "
        "MATCH (a)-[:IMPLEMENTS]->(d:Decision) "
        "RETURN a.id AS id, coalesce(a.executed, false) AS executed, a.status AS status, coalesce(a.rev, 0) AS rev, "
        "collect(d.id) AS decisions, collect(coalesce(d.holds, false)) AS holds",
        {"ids": decision_ids},
        name="memory.region.actions",
    )
    for r in rows:
        sg.actions[r["id"]] = ActionState(r["id"], tuple(r["decisions"]), bool(r["executed"]), r["status"], int(r["rev"]))
        for did, held in zip(r["decisions"], r["holds"], strict=False):
            if did not in sg.decisions:
                sg.outside[did] = bool(held)


def read_all(graph: Graph) -> SupportGraph:
    """The whole support structure of a graph, read page by page."""
    sg = SupportGraph()
    for r in graph.paged(
        "MATCH (s:Source) RETURN s.id AS id, coalesce(s.quarantined, false) AS q ORDER BY id", page_size=PAGE,
        name="memory.all.sources",
    ):
        sg.lineage.setdefault(r["id"], ())
        if r["q"]:
            sg.quarantined.add(r["id"])
    for r in graph.paged(
        "MATCH (s:Source)-[:DERIVED_FROM]->(p:Source) RETURN s.id AS s, p.id AS p ORDER BY s, p", page_size=PAGE,
        name="memory.all.lineage",
    ):
        sg.lineage[r["s"]] = sg.lineage.get(r["s"], ()) + (r["p"],)
    for r in graph.paged(
        "MATCH (c:Claim) RETURN c.id AS id, c.source_id AS source_id, "
        "(c.quote IS NOT NULL AND c.source_id IS NOT NULL) AS obs, c.status AS status, c.holds AS holds, "
        "coalesce(c.rev, 0) AS rev, false AS quarantined ORDER BY id",
        page_size=PAGE,
        name="memory.all.claims",
    ):
        _add_claim(sg, r)
    for r in graph.paged(
        "MATCH (d:Decision) RETURN d.id AS id, d.holds AS holds, d.label AS label, coalesce(d.rev, 0) AS rev ORDER BY id",
        page_size=PAGE,
        name="memory.all.decisions",
    ):
        sg.decisions[r["id"]] = _decision(r)
    _read_all_justifications(graph, sg)
    _read_all_actions(graph, sg)
    return sg


def _read_all_justifications(graph: Graph, sg: SupportGraph) -> None:
    for r in graph.paged(
        "MATCH (j:Justification) OPTIONAL MATCH (j)-[:JUSTIFIES]->(x) WHERE x:Claim OR x:Decision "
        "RETURN j.id AS id, x.id AS x, j.holds AS holds ORDER BY id, x",
        page_size=PAGE,
        name="memory.all.justifications",
    ):
        _merge_just(sg, r["id"], r["x"], [], r["holds"])
    for r in graph.paged(
        "MATCH (j:Justification)-[:PREMISE]->(p:Claim) RETURN j.id AS j, p.id AS p ORDER BY j, p",
        page_size=PAGE,
        name="memory.all.premises",
    ):
        _merge_just(sg, r["j"], None, [r["p"]], None)


def _read_all_actions(graph: Graph, sg: SupportGraph) -> None:
    rows = graph.paged(
        "MATCH (a:Action) OPTIONAL MATCH (a)-[:IMPLEMENTS]->(d:Decision) "
        "RETURN a.id AS id, coalesce(a.executed, false) AS executed, a.status AS status, coalesce(a.rev, 0) AS rev, "
        "d.id AS d ORDER BY id, d",
        page_size=PAGE,
        name="memory.all.actions",
    )
    for r in rows:
        act = sg.actions.get(r["id"])
        if act is None:
            act = sg.actions[r["id"]] = ActionState(r["id"], (), bool(r["executed"]), r["status"], int(r["rev"]))
        if r["d"] is not None:
            act.decisions = act.decisions + (r["d"],)

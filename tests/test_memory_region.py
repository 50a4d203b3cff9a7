"""The engine recomputes only the region downstream of a change: reads, writes and revisions stay local."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from rguard_core.db import Graph, QueryLog, Store
from rguard_core.memory import apply_correction, load_scenario, quarantine_source, recompute, status

CLUSTERS = 300


def clusters(n: int) -> dict[str, Any]:
    """n independent clusters: a source with three observations, a derived claim (2-of-3 by OR of ANDs), a decision."""
    sc: dict[str, Any] = {"sources": [], "claims": [], "justifications": [], "decisions": [], "actions": []}
    for i in range(n):
        text = f"Cluster {i}: alpha {i}. beta {i}. gamma {i}."
        sc["sources"].append({"id": f"s{i}", "kind": "doc", "title": f"S{i}", "text": text})
        for k in ("alpha", "beta", "gamma"):
            sc["claims"].append({"id": f"{k}{i}", "statement": f"{k} {i}", "source": f"s{i}", "quote": f"{k} {i}."})
        sc["claims"].append({"id": f"x{i}", "statement": f"derived {i}"})
        sc["justifications"] += [
            {"conclusion": f"x{i}", "premises": [f"alpha{i}", f"beta{i}"]},
            {"conclusion": f"x{i}", "premises": [f"gamma{i}"]},
            {"conclusion": f"d{i}", "premises": [f"x{i}"]},
        ]
        sc["decisions"].append({"id": f"d{i}", "summary": f"decision {i}"})
        sc["actions"].append({"id": f"a{i}", "summary": f"action {i}", "decision": f"d{i}", "executed": i % 2 == 0})
    return sc


@pytest.fixture(scope="module")
def big(store: Store) -> Iterator[Graph]:
    ws = f"region-{uuid.uuid4().hex[:8]}"
    load_scenario(store, clusters(CLUSTERS), workspace=ws)
    graph = store.workspace_graph(ws)
    yield graph
    graph.delete()


def revs(graph: Graph) -> dict[str, Any]:
    return {
        r["id"]: (r["rev"], r["holds"])
        for r in graph.read("MATCH (n) WHERE n:Claim OR n:Decision RETURN n.id AS id, n.rev AS rev, n.holds AS holds")
    }


def test_quarantine_reads_and_writes_only_its_region(big: Graph) -> None:
    before = revs(big)
    log = QueryLog()
    res = quarantine_source(big.with_log(log), "s7", by="t")
    assert res.report.region == {"claims": 4, "decisions": 1, "justifications": 3}
    assert res.report.fell_decisions == ["d7"] and res.report.labelled == {"d7": "correction"}
    assert max(r.rows for r in log.records) <= 4  # no read returned more than the region
    assert len(log.records) <= 12
    after = revs(big)
    changed = {k for k in before if before[k] != after[k]}
    assert changed == {"alpha7", "beta7", "gamma7", "x7", "d7"}


def test_correction_reads_and_writes_only_its_region(big: Graph) -> None:
    before = revs(big)
    log = QueryLog()
    res = apply_correction(big.with_log(log), "gamma11", "gamma is wrong", "t")
    assert res.report.region["claims"] == 2 and res.report.kept_decisions == ["d11"]
    assert max(r.rows for r in log.records) <= 3
    after = revs(big)
    assert {k for k in before if k in after and before[k] != after[k]} == {"gamma11"}
    assert set(after) - set(before) == {res.replacement}


def test_region_results_agree_with_a_full_recompute(big: Graph) -> None:
    quarantine_source(big, "s20")
    apply_correction(big, "alpha21", "alpha is wrong", "t")
    st = status(big)
    assert recompute(big).changed == 0  # a full recompute from scratch finds nothing to fix
    assert status(big) == st

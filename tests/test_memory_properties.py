"""Property tests: random support graphs (AND/OR, shared premises, cycles, lineage) on the real engine,
compared after every step with the naive oracle in tests/memory_oracle.py."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rguard_core.db import Graph, Store
from rguard_core.memory import (
    apply_correction,
    load_scenario,
    preview_correction,
    quarantine_source,
    retrieve,
    status,
)
from tests.memory_oracle import Oracle

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]


@st.composite
def scenarios(draw: Any) -> dict[str, Any]:
    n_src = draw(st.integers(1, 4))
    sources = []
    for i in range(n_src):
        parents = draw(st.lists(st.sampled_from([f"s{k}" for k in range(i)]), max_size=2, unique=True)) if i else []
        text = f"source {i}: " + " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=3, max_size=6)))
        sources.append({"id": f"s{i}", "kind": "doc", "title": f"S{i}", "text": text, "derived_from": parents})
    n_claims = draw(st.integers(1, 8))
    claims = []
    for i in range(n_claims):
        c: dict[str, Any] = {"id": f"c{i}", "statement": f"claim {i} {draw(st.sampled_from(WORDS))}"}
        if draw(st.booleans()) or i == 0:
            src = draw(st.sampled_from(sources))
            a = draw(st.integers(0, len(src["text"]) - 1))
            b = draw(st.integers(a + 1, len(src["text"])))
            if src["text"][a:b].strip():
                c.update(source=src["id"], quote=src["text"][a:b])
        claims.append(c)
    decisions = [{"id": f"d{i}", "summary": f"decision {i}"} for i in range(draw(st.integers(1, 3)))]
    targets = [c["id"] for c in claims] + [d["id"] for d in decisions]
    justs = []
    for i in range(draw(st.integers(0, 12))):
        premises = draw(
            st.lists(
                st.sampled_from([c["id"] for c in claims]), min_size=0 if i % 7 == 6 else 1, max_size=3, unique=True
            )
        )
        justs.append({"id": f"j{i}", "conclusion": draw(st.sampled_from(targets)), "premises": premises})
    actions = [
        {
            "id": f"a{i}",
            "summary": f"action {i}",
            "decision": draw(st.sampled_from(decisions))["id"],
            "executed": draw(st.booleans()),
        }
        for i in range(draw(st.integers(0, 3)))
    ]
    return {"sources": sources, "claims": claims, "justifications": justs, "decisions": decisions, "actions": actions}


@st.composite
def operations(draw: Any) -> list[tuple[str, int]]:
    return draw(
        st.lists(st.tuples(st.sampled_from(["quarantine", "correct"]), st.integers(0, 7)), min_size=1, max_size=4)
    )


@pytest.fixture(scope="module")
def workspace(store: Store) -> Iterator[tuple[Store, str]]:
    name = f"prop-{uuid.uuid4().hex[:10]}"
    yield store, name
    store.workspace_graph(name).delete()


def _sorted_step(d: dict[str, Any]) -> dict[str, Any]:
    return {
        "fell_claims": sorted(d["fell"]["claims"]),
        "fell_decisions": sorted(d["fell"]["decisions"]),
        "kept": sorted(d["kept"]),
    }


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(sc=scenarios(), ops=operations())
def test_engine_matches_oracle_through_quarantines_and_corrections(
    workspace: tuple[Store, str], sc: dict[str, Any], ops: list[tuple[str, int]]
) -> None:
    store, name = workspace
    load_scenario(store, sc, workspace=name)  # replaces the previous example's graph
    graph: Graph = store.workspace_graph(name)
    oracle = Oracle(sc)
    assert status(graph) == oracle.status()
    for kind, i in ops:
        if kind == "quarantine":
            sid = sc["sources"][i % len(sc["sources"])]["id"]
            if sid in oracle.quarantined:
                assert quarantine_source(graph, sid).already_quarantined
                continue
            res = quarantine_source(graph, sid, reason="test", by="prop").as_dict()
            assert _sorted_step(res) == oracle.quarantine(sid)
        else:
            live = [c for c in sorted(oracle.claim_source) if c not in oracle.superseded]
            cid = live[i % len(live)]
            preview = preview_correction(graph, cid, f"corrected {cid}", "prop")
            res = apply_correction(graph, cid, f"corrected {cid}", "prop", preview=preview).as_dict()
            assert res["status"] == "applied"
            expected = oracle.correct(cid, res["replacement"], res["source"])
            assert _sorted_step(res) == expected
            p = preview.as_dict()
            assert (p["claims_fall"], p["decisions_lose_support"], p["decisions_keep_support"]) == (
                expected["fell_claims"],
                expected["fell_decisions"],
                expected["kept"],
            )
        assert status(graph) == oracle.status()
    # retrieval never returns the text of a claim that does not hold
    holds = oracle.holds()
    found = retrieve(graph, "claim corrected " + " ".join(WORDS), limit=100)
    served = [h for h in found.results if h["kind"] == "claim"]
    assert all(holds[h["id"]] for h in served)
    assert {h["id"] for h in served} == {c for c in oracle.claim_source if holds[c]}

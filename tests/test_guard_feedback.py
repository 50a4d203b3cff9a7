"""Feedback on findings (ack, wrong, override) as Correction nodes that survive re-ingest; provenance premises."""

from __future__ import annotations

import pytest

from rguard_core.db import Store
from rguard_core.errors import ConflictError, InvalidInput, UnknownRepository
from rguard_core.guard import record_feedback, run_guard
from rguard_core.guard.run import MIN_SCORE
from rguard_core.ingest.pipeline import ingest_snapshot
from tests.fixtures.guard.ledger import diff, ingest_ledger

D10 = "decision:pr:10"


def top(store: Store, repo: str, name: str = "rates"):  # type: ignore[no-untyped-def]
    return {f.decision_id: f for f in run_guard(store, repo, diff(name)).findings}


def test_ack_wrong_and_override_survive_reingest(store: Store, tmp_path_factory: pytest.TempPathFactory) -> None:
    repo, root = ingest_ledger(store, tmp_path_factory.mktemp("fb"))
    base = top(store, repo)[D10]
    assert base.label == "contradicts" and base.learned == []

    ack = record_feedback(store, repo, D10, "ack", "bob", "Known; we are changing it on purpose next quarter.")
    assert ack["kind"] == "ack" and ack["correction"].startswith("corr:")
    acked = top(store, repo)[D10]
    assert acked.label == "contradicts" and acked.score == pytest.approx(base.score)
    assert len(acked.learned) == 1 and "acknowledged by bob" in acked.learned[0]

    wrong = record_feedback(store, repo, D10, "wrong", "erin", "This rule does not apply to rate plans.")
    assert wrong["score_factor"] == pytest.approx(0.25)
    cut = top(store, repo)[D10]
    assert cut.label == "contradicts" and cut.score == pytest.approx(base.score * 0.25) and cut.score >= MIN_SCORE
    assert any("marked wrong by erin" in n for n in cut.learned)

    ingest_snapshot(store, root, repo=repo)  # re-ingest: corrections and the cut score stay
    again = top(store, repo)[D10]
    assert again.score == pytest.approx(base.score * 0.25) and len(again.learned) == 2

    text = "Rates of 0 are now rejected at plan creation, so a falsy rate check is safe again."
    ov = record_feedback(store, repo, D10, "override", "alice", text)
    new_id = ov["new_decision"]
    assert new_id.startswith("decision:src:hc:") and ov["status"] == "superseded"
    after = top(store, repo)
    assert D10 not in after
    f = after[new_id]
    assert f.quote == text and f.source["kind"] == "correction" and "superseded_by" in f.hops
    assert f.path[-2:] == [D10, new_id] and f.label in ("related", "contradicts")
    assert any("override by alice" in n and D10 in n for n in f.learned)
    assert {"rule": "R4", "status": "holds", "detail": f"supersedes {D10}"} in f.premises

    ingest_snapshot(store, root, repo=repo)
    graph = store.repo_graph(repo)
    rows = graph.read("MATCH (d:Decision {id: $id}) RETURN d.status AS status, d.score_factor AS sf", {"id": D10})
    assert rows == [{"status": "superseded", "sf": pytest.approx(0.25)}]
    kinds = graph.read("MATCH (c:Correction)-[:ABOUT]->(:Decision {id: $id}) RETURN c.kind AS k ORDER BY k", {"id": D10})
    assert [r["k"] for r in kinds] == ["ack", "override", "wrong"]
    src = graph.read("MATCH (n:Decision {id: $id})-[:DERIVED_FROM]->(s:Source) RETURN s.kind AS kind, s.text AS text, "
                     "n.start AS start, n.end AS end", {"id": new_id})
    assert src[0]["kind"] == "human_correction" and src[0]["text"][src[0]["start"]:src[0]["end"]] == text
    assert new_id in top(store, repo)
    with pytest.raises(ConflictError, match="already superseded"):
        record_feedback(store, repo, D10, "override", "alice", "again")


def test_two_wrongs_drop_a_finding_below_the_threshold(store: Store, tmp_path_factory: pytest.TempPathFactory) -> None:
    repo, _ = ingest_ledger(store, tmp_path_factory.mktemp("fb2"))
    for who in ("bob", "erin"):
        record_feedback(store, repo, D10, "wrong", who, "not a real contradiction")
    assert D10 not in top(store, repo)


def test_feedback_rejects_bad_input(store: Store, tmp_path_factory: pytest.TempPathFactory) -> None:
    repo, _ = ingest_ledger(store, tmp_path_factory.mktemp("fb3"))
    with pytest.raises(InvalidInput, match="kind"):
        record_feedback(store, repo, D10, "like", "bob", "x")
    with pytest.raises(InvalidInput, match="--reason"):
        record_feedback(store, repo, D10, "ack", "bob", "  ")
    with pytest.raises(InvalidInput, match="--by"):
        record_feedback(store, repo, D10, "ack", "bob smith; DROP", "x")
    with pytest.raises(InvalidInput, match="no decision"):
        record_feedback(store, repo, "decision:pr:999", "ack", "bob", "x")
    with pytest.raises(UnknownRepository):
        record_feedback(store, "nobody/none", D10, "ack", "bob", "x")
    graph = store.repo_graph(repo)
    assert graph.read("MATCH (c:Correction) RETURN count(c) AS n") == [{"n": 0}]


def test_provenance_premises_withdrawn_claim_quarantined_source_engine_label(
    store: Store, tmp_path_factory: pytest.TempPathFactory
) -> None:
    repo, _ = ingest_ledger(store, tmp_path_factory.mktemp("prov"))
    graph = store.repo_graph(repo)
    graph.query("MATCH (d:Decision {id: $id})<-[:JUSTIFIES]-(:Justification)-[:PREMISE]->(c:Claim) "
                "WITH c ORDER BY c.id LIMIT 1 SET c.holds = false", {"id": D10})
    graph.query("MATCH (s:Source {id: 'review:pr:10:0'}) SET s.quarantined = true")
    graph.query("MATCH (d:Decision {id: $id}) SET d.label = 'review'", {"id": D10})
    f = top(store, repo)[D10]
    got = {p["rule"]: p["status"] for p in f.premises}
    assert got["P1"] == "stale" and got["P2"] == "broken" and got["P3"] == "stale"
    assert [p["detail"] for p in f.premises if p["rule"] == "P2"] == ["source review:pr:10:0 is quarantined"]

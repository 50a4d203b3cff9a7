"""Feedback on findings (ack, wrong = dismiss, override) written by the memory engine; undo; provenance premises."""

from __future__ import annotations

import pytest

from rguard_core.db import Store
from rguard_core.errors import ConflictError, InvalidInput, UnknownRepository
from rguard_core.guard import GuardReport, record_feedback, run_guard
from rguard_core.guard.feedback import give_feedback
from rguard_core.ingest.pipeline import ingest_snapshot
from rguard_core.memory import recompute, status, undo
from tests.fixtures.guard.ledger import diff, ingest_ledger

D10 = "decision:pr:10"


def guard(store: Store, repo: str, text: str | None = None) -> GuardReport:
    return run_guard(store, repo, text if text is not None else diff("rates"))


def top(store: Store, repo: str, name: str = "rates"):  # type: ignore[no-untyped-def]
    return {f.decision_id: f for f in guard(store, repo, diff(name)).findings}


def test_ack_is_one_per_reviewer_and_survives_reingest(store: Store, tmp_path_factory: pytest.TempPathFactory) -> None:
    repo, root = ingest_ledger(store, tmp_path_factory.mktemp("fb"))
    base = top(store, repo)[D10]
    assert base.label == "contradicts" and base.learned == [] and len(base.lines_key) == 16

    ack = record_feedback(store, repo, D10, "ack", "bob", "Known; we are changing it on purpose next quarter.")
    assert ack["kind"] == "ack" and ack["correction"].startswith("corr:") and ack["recorded"] == "recorded"
    again = record_feedback(store, repo, D10, "ack", "bob", "Said twice.")
    assert again["recorded"] == "already" and again["correction"] == ack["correction"]  # not a pile
    acked = top(store, repo)[D10]
    assert acked.label == "contradicts" and acked.score == pytest.approx(base.score)
    assert len(acked.learned) == 1 and "acknowledged by bob" in acked.learned[0]

    ingest_snapshot(store, root, repo=repo)
    assert len(top(store, repo)[D10].learned) == 1

    undone = undo(store.repo_graph(repo), ack["correction"], "bob", "ack was premature")
    assert undone.status == "reverted" and undone.kind == "ack"
    assert top(store, repo)[D10].learned == []
    graph = store.repo_graph(repo)
    rows = graph.read(
        "MATCH (u:Correction {kind: 'revert'})-[:ABOUT]->(k:Correction {id: $id}) RETURN k.state AS state, u.by AS by",
        {"id": ack["correction"]},
    )
    assert rows == [{"state": "reverted", "by": "bob"}]  # the ack is kept, marked; the undo is its own entry
    assert record_feedback(store, repo, D10, "ack", "bob", "Now on purpose.")["recorded"] == "recorded"


def test_wrong_dismisses_for_those_lines_until_they_change_and_can_be_undone(
    store: Store, tmp_path_factory: pytest.TempPathFactory
) -> None:
    repo, root = ingest_ledger(store, tmp_path_factory.mktemp("dis"))
    before = guard(store, repo)
    assert before.verdict == "warn"
    f = next(x for x in before.findings if x.decision_id == D10)
    with pytest.raises(InvalidInput, match="which lines"):
        give_feedback(store, repo, D10, "wrong", "erin", "not about rate plans")
    res = give_feedback(
        store, repo, D10, "wrong", "erin", "This rule does not apply to rate plans.", lines_key=f.lines_key
    )
    assert res.status == "recorded" and res.lines_key == f.lines_key

    after = guard(store, repo)
    assert D10 not in {x.decision_id for x in after.findings}
    (dis,) = [x for x in after.dismissed if x.decision_id == D10]
    assert dis.dismissed is not None and dis.dismissed.by == "erin" and "rate plans" in dis.dismissed.reason
    assert after.verdict in ("note", "pass")  # the dismissed contradiction no longer warns
    assert after.as_dict()["dismissed"][0]["dismissed"]["by"] == "erin"

    # the same dismissal through the diff instead of the key is the same one (one per reviewer and lines)
    same = give_feedback(store, repo, D10, "wrong", "erin", "again", diff=diff("rates"))
    assert same.status == "already" and same.correction == res.correction

    # other lines: the finding is back
    other = diff("rates").replace("if not rate:", "if not rate or rate < 0:")
    assert D10 in {x.decision_id for x in guard(store, repo, other).findings}

    # survives re-ingest while the decision is unchanged
    ingest_snapshot(store, root, repo=repo)
    assert D10 in {x.decision_id for x in guard(store, repo).dismissed}

    # the decision's text changes: the dismissal no longer applies
    graph = store.repo_graph(repo)
    graph.query("MATCH (d:Decision {id: $id}) SET d.summary = d.summary + ' (amended)'", {"id": D10})
    assert D10 in {x.decision_id for x in guard(store, repo).findings}
    graph.query("MATCH (d:Decision {id: $id}) SET d.summary = replace(d.summary, ' (amended)', '')", {"id": D10})
    assert D10 in {x.decision_id for x in guard(store, repo).dismissed}

    undo(graph, res.correction, "erin", "I was wrong about being wrong")
    back = guard(store, repo)
    assert D10 in {x.decision_id for x in back.findings} and back.verdict == "warn" and not back.dismissed


def test_override_rests_on_the_reviewer_and_survives_recompute_and_reingest(
    store: Store, tmp_path_factory: pytest.TempPathFactory
) -> None:
    repo, root = ingest_ledger(store, tmp_path_factory.mktemp("ov"))
    graph = store.repo_graph(repo)
    text = "Rates of 0 are now rejected at plan creation, so a falsy rate check is safe again."
    ov = record_feedback(store, repo, D10, "override", "alice", text)
    new_id = ov["new_decision"]
    assert new_id.startswith("decision:src:hc:") and ov["status"] == "superseded"
    f = top(store, repo)[new_id]
    assert D10 not in top(store, repo)
    assert f.quote == text and f.source["kind"] == "correction" and "superseded_by" in f.hops
    assert any("override by alice" in n and D10 in n for n in f.learned)

    # the new decision holds through the reviewer's own claim, so a full recompute keeps it
    just = graph.read(
        "MATCH (:Decision {id: $id})<-[:JUSTIFIES]-(:Justification)-[:PREMISE]->(c:Claim) "
        "RETURN c.quote AS q, c.confidence_kind AS k",
        {"id": new_id},
    )
    assert just == [{"q": text, "k": "human_correction"}]
    recompute(graph)
    assert status(graph)["decisions"][new_id]["holds"] is True
    ingest_snapshot(store, root, repo=repo)
    recompute(graph)
    assert status(graph)["decisions"][new_id]["holds"] is True
    assert graph.read("MATCH (d:Decision {id: $id}) RETURN d.status AS s", {"id": D10}) == [{"s": "superseded"}]
    assert new_id in top(store, repo)
    with pytest.raises(ConflictError, match="already superseded"):
        record_feedback(store, repo, D10, "override", "alice", "again")

    # undo: the old decision is back, the reviewer's is withdrawn; both entries are kept
    res = undo(graph, ov["correction"], "alice", "premature")
    assert res.status == "reverted" and new_id in res.report.fell_decisions
    after = top(store, repo)
    assert D10 in after and new_id not in after
    assert graph.read("MATCH (d:Decision {id: $id}) RETURN d.status AS s, d.holds AS h", {"id": new_id}) == [
        {"s": "withdrawn", "h": False}
    ]
    recompute(graph)
    assert status(graph)["decisions"][new_id]["holds"] is False
    kinds = graph.read("MATCH (c:Correction) RETURN c.kind AS k, c.state AS s ORDER BY k")
    assert [(r["k"], r["s"]) for r in kinds] == [("override", "reverted"), ("revert", "applied")]


def test_feedback_rejects_bad_input(store: Store, tmp_path_factory: pytest.TempPathFactory) -> None:
    repo, _ = ingest_ledger(store, tmp_path_factory.mktemp("fb3"))
    with pytest.raises(InvalidInput, match="kind"):
        record_feedback(store, repo, D10, "like", "bob", "x")
    with pytest.raises(InvalidInput, match="reason is required"):
        record_feedback(store, repo, D10, "ack", "bob", "  ")
    with pytest.raises(InvalidInput, match="login") as e:
        record_feedback(store, repo, D10, "ack", "bob smith; DROP", "x")
    assert "--" not in str(e.value)  # page and CLI both show it: no flag names
    with pytest.raises(InvalidInput, match="no decision"):
        record_feedback(store, repo, "decision:pr:999", "ack", "bob", "x")
    with pytest.raises(InvalidInput, match="lines"):
        record_feedback(store, repo, D10, "wrong", "bob", "x", lines_key="not-a-key")
    with pytest.raises(UnknownRepository):
        record_feedback(store, "nobody/none", D10, "ack", "bob", "x")
    graph = store.repo_graph(repo)
    assert graph.read("MATCH (c:Correction) RETURN count(c) AS n") == [{"n": 0}]


def test_provenance_premises_withdrawn_claim_quarantined_source_engine_label(
    store: Store, tmp_path_factory: pytest.TempPathFactory
) -> None:
    repo, _ = ingest_ledger(store, tmp_path_factory.mktemp("prov"))
    graph = store.repo_graph(repo)
    graph.query(
        "MATCH (d:Decision {id: $id})<-[:JUSTIFIES]-(:Justification)-[:PREMISE]->(c:Claim) "
        "WITH c ORDER BY c.id LIMIT 1 SET c.holds = false",
        {"id": D10},
    )
    graph.query("MATCH (s:Source {id: 'review:pr:10:0'}) SET s.quarantined = true")
    graph.query("MATCH (d:Decision {id: $id}) SET d.label = 'review'", {"id": D10})
    f = top(store, repo)[D10]
    got = {p["rule"]: p["status"] for p in f.premises}
    assert got["P1"] == "stale" and got["P2"] == "broken" and got["P3"] == "stale"
    assert [p["detail"] for p in f.premises if p["rule"] == "P2"] == ["source review:pr:10:0 is quarantined"]

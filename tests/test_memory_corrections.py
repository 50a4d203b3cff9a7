"""Claim corrections: preview, apply with revision checks, stale previews, idempotent re-apply."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from rguard_core.db import Graph, Store
from rguard_core.errors import ConflictError, InvalidInput, StaleCorrectionPreview
from rguard_core.memory import apply_correction, load_scenario, preview_correction, quarantine_source, status

SCENARIO: dict[str, Any] = {
    "sources": [
        {
            "id": "memo",
            "kind": "doc",
            "title": "Memo",
            "text": "Supplier A delivers in 5 days. Supplier A is ISO certified.",
        },
        {"id": "audit", "kind": "doc", "title": "Audit", "text": "Audit 2025: Supplier A holds ISO 9001."},
        {"id": "misc", "kind": "doc", "title": "Misc", "text": "The office moves in May."},
    ],
    "claims": [
        {
            "id": "fast",
            "statement": "A delivers in 5 days",
            "source": "memo",
            "quote": "Supplier A delivers in 5 days.",
        },
        {
            "id": "iso-memo",
            "statement": "A is ISO certified",
            "source": "memo",
            "quote": "Supplier A is ISO certified.",
        },
        {"id": "iso-audit", "statement": "A holds ISO 9001", "source": "audit", "quote": "Supplier A holds ISO 9001."},
        {"id": "moves", "statement": "Office moves in May", "source": "misc", "quote": "The office moves in May."},
    ],
    "justifications": [
        {"conclusion": "pick-a", "premises": ["fast"]},
        {"conclusion": "trust-a", "premises": ["iso-memo"]},
        {"conclusion": "trust-a", "premises": ["iso-audit"]},
        {"conclusion": "plan-move", "premises": ["moves"]},
    ],
    "decisions": [
        {"id": "pick-a", "summary": "Pick supplier A"},
        {"id": "trust-a", "summary": "Trust A"},
        {"id": "plan-move", "summary": "Plan the move"},
    ],
    "actions": [{"id": "po", "summary": "PO sent", "decision": "pick-a", "executed": True}],
}


@pytest.fixture
def g(store: Store) -> Iterator[Graph]:
    ws = f"corr-{uuid.uuid4().hex[:8]}"
    load_scenario(store, SCENARIO, workspace=ws)
    graph = store.workspace_graph(ws)
    yield graph
    graph.delete()


def test_preview_writes_nothing_and_apply_matches_it(g: Graph) -> None:
    before = status(g)
    p = preview_correction(g, "fast", "Supplier A delivers in 15 days.", "rita")
    assert status(g) == before
    assert p.as_dict()["claims_fall"] == ["fast"]
    assert p.as_dict()["decisions_lose_support"] == ["pick-a"]
    assert p.as_dict()["actions_compensate"] == ["po"]
    res = apply_correction(g, "fast", "Supplier A delivers in 15 days.", "rita", p.revision)
    assert res.status == "applied"
    assert res.report.fell_decisions == p.report.fell_decisions and res.report.actions == p.report.actions
    st = status(g)
    assert st["decisions"]["pick-a"] == {"holds": False, "label": "compensation"}
    assert st["claims"][res.replacement] == {"holds": True, "sources": 1}
    assert g.read(
        "MATCH (k:Correction {id: $id})-[:ABOUT]->(c:Claim) RETURN k.state AS s, c.id AS c", {"id": res.correction}
    ) == [{"s": "applied", "c": "fast"}]


def test_decision_with_other_support_is_listed_not_flagged(g: Graph) -> None:
    p = preview_correction(g, "iso-memo", "Supplier A's ISO certificate expired.", "rita")
    assert p.report.fell_decisions == [] and p.report.kept_decisions == ["trust-a"] and p.report.labelled == {}
    apply_correction(g, "iso-memo", "Supplier A's ISO certificate expired.", "rita", preview=p)
    assert status(g)["decisions"]["trust-a"] == {"holds": True, "label": None}


def test_stale_when_the_claim_changed_since_the_preview(g: Graph) -> None:
    p = preview_correction(g, "fast", "Supplier A delivers in 9 days.", "rita")
    quarantine_source(g, "memo", reason="outdated")  # the claim itself falls: its revision moves
    with pytest.raises(StaleCorrectionPreview) as err:
        apply_correction(g, "fast", "Supplier A delivers in 9 days.", "rita", preview=p)
    assert "preview again" in str(err.value) and err.value.expected == p.revision
    with pytest.raises(StaleCorrectionPreview):
        apply_correction(g, "fast", "Supplier A delivers in 9 days.", "rita", p.revision)
    assert g.read("MATCH (k:Correction) RETURN count(k) AS n") == [{"n": 0}]


def test_stale_when_the_outcome_changed_but_not_for_unrelated_changes(g: Graph) -> None:
    p = preview_correction(g, "iso-memo", "Supplier A is not certified.", "rita")
    quarantine_source(g, "misc")  # unrelated: the preview's outcome is unchanged
    p2 = preview_correction(g, "iso-memo", "Supplier A is not certified.", "rita")
    assert p2.fingerprint == p.fingerprint
    quarantine_source(g, "audit")  # now trust-a would lose its LAST support: the preview is stale
    with pytest.raises(StaleCorrectionPreview, match="support around claim 'iso-memo'"):
        apply_correction(g, "iso-memo", "Supplier A is not certified.", "rita", preview=p)
    again = preview_correction(g, "iso-memo", "Supplier A is not certified.", "rita")
    assert again.report.fell_decisions == ["trust-a"]
    assert apply_correction(g, "iso-memo", "Supplier A is not certified.", "rita", preview=again).status == "applied"


def test_same_correction_again_is_already_applied(g: Graph) -> None:
    p = preview_correction(g, "fast", "Supplier A delivers in 15 days.", "rita")
    first = apply_correction(g, "fast", "Supplier A delivers in 15 days.", "rita", preview=p)
    nodes = g.read("MATCH (n) RETURN count(n) AS n")
    again = apply_correction(g, "fast", "  Supplier A delivers in 15 days. ", "someone-else", p.revision)
    assert again.status == "already_applied" and again.replacement == first.replacement
    assert again.report.fell_decisions == ["pick-a"] and again.recheck_changed == 0
    assert g.read("MATCH (n) RETURN count(n) AS n") == nodes
    with pytest.raises(ConflictError, match="already corrected"):
        preview_correction(g, "fast", "Supplier A delivers in 20 days.", "rita")
    with pytest.raises(ConflictError):
        apply_correction(g, "fast", "Supplier A delivers in 20 days.", "rita")


def test_replacement_can_itself_be_corrected_and_never_inherits_evidence(g: Graph) -> None:
    one = apply_correction(g, "moves", "The office moves in June.", "ops")
    two = apply_correction(g, one.replacement, "The office moves in July.", "ops")
    rows = g.read(
        "MATCH (c:Claim)-[:EVIDENCED_BY]->(f:Fragment) WHERE c.id IN $ids RETURN c.id AS id, f.source_id AS s",
        {"ids": [one.replacement, two.replacement]},
    )
    assert {r["id"]: r["s"] for r in rows} == {one.replacement: one.source, two.replacement: two.source}
    st = status(g)
    assert st["claims"][one.replacement]["holds"] is False and st["claims"][two.replacement]["holds"] is True


def test_bad_correction_requests_are_clear(g: Graph) -> None:
    with pytest.raises(InvalidInput, match="no claim 'ghost'"):
        preview_correction(g, "ghost", "x", "rita")
    with pytest.raises(InvalidInput, match="corrected statement"):
        apply_correction(g, "fast", "   ", "rita")
    with pytest.raises(InvalidInput, match="name or login"):
        apply_correction(g, "fast", "new", "")
    with pytest.raises(InvalidInput, match="no source 'ghost'"):
        quarantine_source(g, "ghost")

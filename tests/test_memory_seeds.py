"""The three seed scenarios tell the stories the issue asks for, on the real engine."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from rguard_core.db import Graph, Store
from rguard_core.memory import apply_correction, load_scenario, preview_correction, quarantine_source, retrieve, status

SEEDS = Path(__file__).resolve().parent.parent / "seeds" / "memory"


@pytest.fixture
def load(store: Store) -> Iterator:  # type: ignore[type-arg]
    made: list[Graph] = []

    def _load(name: str) -> Graph:
        ws = f"seed-{uuid.uuid4().hex[:8]}"
        load_scenario(store, SEEDS / name, workspace=ws)
        g = store.workspace_graph(ws)
        made.append(g)
        return g

    yield _load
    for g in made:
        g.delete()


def test_forged_invoice_page(load) -> None:  # type: ignore[no-untyped-def]
    g = load("forged_invoice.json")
    assert status(g)["claims"]["inv1002-settled"] == {"holds": True, "sources": 2}
    res = quarantine_source(g, "portal-page", reason="page found forged", by="auditor")
    assert set(res.report.fell_claims) == {"inv1001-paid-portal", "inv1002-paid-portal", "inv1001-settled"}
    st = status(g)
    assert st["claims"]["inv1001-settled"]["holds"] is False  # one invoice falls
    assert st["claims"]["inv1002-settled"] == {"holds": True, "sources": 1}  # one survives on the bank record
    assert st["decisions"]["close-march-billing"] == {"holds": True, "label": "review"}  # billing gets a review
    assert st["decisions"]["release-1001-goods"] == {"holds": False, "label": "compensation"}
    assert st["actions"] == {"ship-1001": {"status": "compensate"}, "stop-dunning": {"status": "active"}}
    assert res.report.labelled == {"close-march-billing": "review", "release-1001-goods": "compensation"}
    texts = str(retrieve(g, "INV-1001 paid portal").as_dict())
    assert "status PAID" not in texts and "The portal shows" not in texts
    incident = g.read(
        "MATCH (i:Incident)-[:ABOUT]->(s:Source {id: 'portal-page'}) RETURN i.reason AS r, s.quarantined AS q"
    )
    assert incident == [{"r": "page found forged", "q": True}]


def test_launch_date_correction_cites_the_reviewer(load) -> None:  # type: ignore[no-untyped-def]
    g = load("launch_date.json")
    text = "The public launch is scheduled for April 11."
    p = preview_correction(g, "launch-in-march", text, "pm-lena")
    assert p.report.fell_decisions == ["book-venue-march-14"]
    assert p.report.kept_decisions == ["start-ad-campaign"]
    assert p.report.held == ["venue-booking"]
    res = apply_correction(g, "launch-in-march", text, "pm-lena", preview=p)
    ev = g.read(
        "MATCH (n:Claim {id: $id})-[:EVIDENCED_BY]->(f:Fragment)<-[:HAS_FRAGMENT]-(s:Source) "
        "RETURN s.kind AS kind, s.text AS text, s.by AS by, f.text AS quote, n.confidence AS conf, "
        "n.confidence_kind AS ck",
        {"id": res.replacement},
    )
    assert ev == [
        {
            "kind": "human_correction",
            "text": text,
            "by": "pm-lena",
            "quote": text,
            "conf": 0.0,
            "ck": "human_correction",
        }
    ]
    old = g.read(
        "MATCH (n:Claim {id: $new})-[:SUPERSEDES]->(o:Claim {id: 'launch-in-march'})-[:EVIDENCED_BY]->(f:Fragment) "
        "RETURN o.status AS status, f.source_id AS src",
        {"new": res.replacement},
    )
    assert old == [{"status": "superseded", "src": "launch-plan-v1"}]  # the old claim and its evidence are kept
    st = status(g)
    assert st["decisions"]["book-venue-march-14"] == {"holds": False, "label": "correction"}
    assert st["decisions"]["start-ad-campaign"] == {"holds": True, "label": None}  # keeps other support: not flagged
    assert st["actions"]["venue-booking"] == {"status": "held"}
    found = retrieve(g, "launch scheduled March April").as_dict()
    assert [h["id"] for h in found["results"]][:1] == [res.replacement]
    assert "March 14" not in str(found["results"])


def test_three_agents_one_email_is_one_source(load) -> None:  # type: ignore[no-untyped-def]
    g = load("bank_account_change.json")
    st = status(g)
    assert st["claims"]["globex-new-iban"] == {"holds": True, "sources": 1}
    for agent in ("intake-says-new-iban", "compliance-says-new-iban", "payments-says-new-iban"):
        assert st["claims"][agent]["sources"] == 1
    # one agent report quarantined: the others still carry the claim, still from that one email
    res = quarantine_source(g, "agent-intake", by="sec")
    assert res.report.fell_decisions == [] and res.report.labelled == {"pay-globex-new-account": "review"}
    assert status(g)["claims"]["globex-new-iban"] == {"holds": True, "sources": 1}

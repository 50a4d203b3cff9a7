"""Quarantine preview with its blast radius and a revision check; lift and revert as new audit entries (CLI too)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rguard_core.commands.main import main
from rguard_core.db import Graph, Store
from rguard_core.errors import ConflictError, InvalidInput, StaleCorrectionPreview
from rguard_core.explore.corrections_lookup import history
from rguard_core.memory import (
    apply_correction,
    lift_quarantine,
    load_scenario,
    preview_correction,
    preview_lift,
    preview_quarantine,
    preview_undo,
    quarantine_source,
    status,
    undo,
)
from rguard_core.memory.recompute import recompute

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "seeds" / "memory" / "forged_invoice.json"


@pytest.fixture
def ws(store: Store) -> Iterator[tuple[str, Graph]]:
    name = f"undo-{uuid.uuid4().hex[:8]}"
    load_scenario(store, str(SEED), workspace=name)
    yield name, store.workspace_graph(name)
    store.workspace_graph(name).delete()


def test_quarantine_preview_shows_the_blast_radius_and_confirm_refuses_a_stale_one(ws: tuple[str, Graph]) -> None:
    _, g = ws
    before = status(g)
    p = preview_quarantine(g, "portal-page")
    assert p.report.fell_claims == ["inv1001-paid-portal", "inv1001-settled", "inv1002-paid-portal"]
    assert p.report.fell_decisions == ["release-1001-goods"] and p.report.compensate == ["ship-1001"]
    assert status(g) == before  # a preview writes nothing
    # another reviewer changes what rests on the source meanwhile: the confirm is refused
    apply_correction(
        g,
        "inv1001-settled",
        "INV-1001 is still open.",
        "r2",
        preview=preview_correction(g, "inv1001-settled", "INV-1001 is still open.", "r2"),
    )
    with pytest.raises(StaleCorrectionPreview):
        quarantine_source(g, "portal-page", "forged", "r1", preview=p)
    assert not g.read("MATCH (s:Source {id: 'portal-page'}) RETURN s.quarantined AS q")[0]["q"]
    fresh = preview_quarantine(g, "portal-page")
    res = quarantine_source(g, "portal-page", "forged", "r1", preview=fresh)
    assert not res.already_quarantined and res.report.fell_decisions == fresh.report.fell_decisions
    with pytest.raises(InvalidInput, match="already quarantined"):
        preview_quarantine(g, "portal-page")


def test_quarantine_with_a_stale_source_revision_is_refused(ws: tuple[str, Graph]) -> None:
    _, g = ws
    rev = preview_quarantine(g, "portal-page").revision
    quarantine_source(g, "portal-page", "forged", "r1", revision=rev)
    lift_quarantine(g, "portal-page", "r1", "false alarm")
    with pytest.raises(StaleCorrectionPreview):  # the source moved on (quarantined, lifted) since that preview
        quarantine_source(g, "portal-page", "forged again", "r2", revision=rev)


def test_lift_restores_what_fell_keeps_the_incident_and_writes_its_own_entry(ws: tuple[str, Graph]) -> None:
    _, g = ws
    before = status(g)
    q = quarantine_source(g, "portal-page", "forged", "al")
    assert status(g)["decisions"]["release-1001-goods"]["holds"] is False
    p = preview_lift(g, "portal-page")
    assert p.target.id == q.incident and p.report.restored_decisions == ["release-1001-goods"]
    assert set(p.report.restored_claims) == set(q.report.fell_claims)
    res = lift_quarantine(g, "portal-page", "bo", "the portal page was genuine", preview=p)
    assert res.status == "reverted" and res.kind == "quarantine" and res.undo.startswith("corr:undo:")
    after = status(g)
    assert after == before  # holds, labels (review, compensation) and action statuses all back
    recompute(g)
    assert status(g) == before
    entries = {e.id: e for e in history(g)}
    assert entries[q.incident].kind == "quarantine" and entries[res.undo].kind == "lift"
    assert entries[res.undo].by == "bo" and entries[res.undo].target == q.incident
    inc = g.read("MATCH (i:Incident {id: $id}) RETURN i.state AS s, i.reverted_by AS r, i.by AS by", {"id": q.incident})
    assert inc == [{"s": "reverted", "r": res.undo, "by": "al"}]
    # a retry of the same undo finds it done; a second lift finds nothing to lift
    assert undo(g, q.incident, "bo").status == "already_reverted"
    with pytest.raises(InvalidInput, match="not quarantined"):
        lift_quarantine(g, "portal-page", "bo")
    # it can be quarantined again, and lifted again
    q2 = quarantine_source(g, "portal-page", "forged after all", "al")
    assert q2.incident != q.incident and q2.report.fell_decisions == ["release-1001-goods"]
    lift_quarantine(g, "portal-page", "bo")
    assert status(g) == before


def test_revert_a_claim_correction(ws: tuple[str, Graph]) -> None:
    _, g = ws
    before = status(g)
    c = apply_correction(
        g,
        "inv1001-settled",
        "INV-1001 is still open.",
        "ana",
        preview=preview_correction(g, "inv1001-settled", "INV-1001 is still open.", "ana"),
    )
    p = preview_undo(g, c.correction)
    assert p.target.kind == "claim" and "inv1001-settled" in p.report.restored_claims
    assert c.replacement in p.report.fell_claims
    with pytest.raises(InvalidInput, match="name"):
        undo(g, c.correction, " ")
    with pytest.raises(StaleCorrectionPreview):
        undo(g, c.correction, "bo", revision=p.revision + 1)
    res = undo(g, c.correction, "bo", "the correction was wrong", preview=p)
    assert res.status == "reverted"
    rows = g.read(
        "MATCH (c:Claim) WHERE c.id IN $ids RETURN c.id AS id, c.status AS s, c.holds AS h ORDER BY id",
        {"ids": ["inv1001-settled", c.replacement]},
    )
    assert {r["id"]: (r["s"], r["h"]) for r in rows} == {
        "inv1001-settled": ("active", True),
        c.replacement: ("superseded", False),
    }
    after = status(g)
    assert after["decisions"] == before["decisions"] and after["actions"] == before["actions"]
    with pytest.raises(ConflictError, match="already undone"):
        preview_undo(g, c.correction)
    with pytest.raises(InvalidInput, match="cannot be undone"):
        undo(g, res.undo, "bo")  # an undo is undone by applying the step again
    again = apply_correction(g, "inv1001-settled", "INV-1001 is still open.", "ana")
    assert again.status == "applied" and again.correction != c.correction and again.replacement != c.replacement
    assert g.read("MATCH (k:Correction {kind: 'claim'}) RETURN k.state AS s ORDER BY s") == [
        {"s": "applied"},
        {"s": "reverted"},
    ]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    code = main(list(argv))
    out, _ = capsys.readouterr()
    return code, json.loads(out) if code == 0 and "--json" in argv else out


def test_cli_quarantine_preview_lift_and_revert(capsys: pytest.CaptureFixture[str], ws: tuple[str, Graph]) -> None:
    name, g = ws
    code, p = run(capsys, "memory", "quarantine", "portal-page", "--workspace", name, "--preview", "--json")
    assert code == 0 and p["fell"]["decisions"] == ["release-1001-goods"] and p["revision"] == 0
    assert not g.read("MATCH (s:Source {id: 'portal-page'}) RETURN s.quarantined AS q")[0]["q"]
    code, q = run(
        capsys,
        "memory",
        "quarantine",
        "portal-page",
        "--workspace",
        name,
        "--by",
        "al",
        "--revision",
        str(p["revision"]),
        "--json",
    )
    assert code == 0 and q["incident"].startswith("inc:")
    code, lp = run(capsys, "memory", "lift", "portal-page", "--workspace", name, "--by", "bo", "--preview", "--json")
    assert code == 0 and lp["restored"]["decisions"] == ["release-1001-goods"] and lp["target"] == q["incident"]
    code, out = run(capsys, "memory", "lift", "portal-page", "--workspace", name, "--by", "bo", "--reason", "genuine")
    assert code == 0 and f"reverted quarantine {q['incident']} on portal-page" in out
    assert "decisions restored: release-1001-goods" in out
    code, c = run(
        capsys,
        "memory",
        "correct",
        "inv1002-settled",
        "--text",
        "Not settled.",
        "--by",
        "ana",
        "--workspace",
        name,
        "--json",
    )
    code, r = run(capsys, "memory", "revert", c["correction"], "--workspace", name, "--by", "bo", "--json")
    assert code == 0 and r["status"] == "reverted" and r["kind"] == "claim" and r["about"] == "inv1002-settled"
    code, _ = run(capsys, "memory", "revert", "corr:nope", "--workspace", name, "--by", "bo")
    assert code == 2

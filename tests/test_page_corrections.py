"""AppTest for the Corrections page on a real memory workspace: selections keyed by id, preview and confirm for
corrections and quarantines, what fell shown after the write, two reviewers at once, lift and undo."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rguard_core.db import Store
from rguard_core.memory import apply_correction, load_scenario, preview_correction, quarantine_source

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "seeds" / "memory" / "forged_invoice.json"


@pytest.fixture
def workspace(store: Store) -> str:
    raw = json.loads(SCENARIO.read_text())
    name = f"pg-{uuid.uuid4().hex[:8]}"
    load_scenario(store, raw, workspace=name)
    return name


def _open(ws: str, node: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("pages/corrections.py").run()
    at.selectbox(key="corr_scope").set_value(f"workspace · {ws}").run()
    if node:
        at.query_params["node"] = node
        at.run()
    return at


def _ids(at: AppTest, frame: int) -> list[str]:
    return list(at.dataframe[frame].value["id"])


def _effects(at: AppTest) -> list[dict[str, str]]:
    return [r for df in at.dataframe if "effect" in df.value.columns for r in df.value.to_dict("records")]


def _texts(at: AppTest) -> str:
    return " ".join(m.value for m in at.markdown) + " ".join(s.value for s in at.subheader)


def test_preview_then_apply_shows_what_fell(store: Store, workspace: str) -> None:
    at = _open(workspace)
    at.text_input(key="corr_query").input("inv1001-paid-portal").run()
    assert not at.exception
    assert "inv1001\\-paid\\-portal" in _texts(at)  # the form names the id it acts on
    at.text_area(key="corr_text").input("The portal page was a forgery; INV-1001 is unpaid.")
    at.text_input(key="corr_by").input("reviewer1")
    at.button(key="corr_preview_btn").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    previewed = {(r["effect"], r["id"]) for r in _effects(at)}
    assert ("claim falls", "inv1001-settled") in previewed
    assert ("decision loses its last support", "release-1001-goods") in previewed
    assert any("The portal shows INV-1001" in r["what"] or "INV-1001 is settled" in r["what"] for r in _effects(at))
    at.button(key="corr_apply_btn").click().run()
    assert not at.exception
    assert any("Applied" in s.value for s in at.success)
    changed = {(r["effect"], r["id"]) for r in _effects(at)}
    assert previewed <= changed  # "What changed" lists everything the preview said would fall
    assert not any("no claim falls" in s.value for s in at.success)
    (row,) = store.workspace_graph(workspace).read("MATCH (c:Claim {id: 'inv1001-paid-portal'}) RETURN c.status AS s")
    assert row["s"] == "superseded"


def test_stale_preview_is_refused_with_a_conflict(store: Store, workspace: str) -> None:
    at = _open(workspace)
    at.text_input(key="corr_query").input("inv1002-paid-bank").run()
    at.text_area(key="corr_text").input("First reviewer's version.")
    at.text_input(key="corr_by").input("r1")
    at.button(key="corr_preview_btn").click().run()
    g = store.workspace_graph(workspace)  # another reviewer corrects the same claim meanwhile
    cid = "inv1002-paid-bank"
    apply_correction(
        g,
        cid,
        "Second reviewer's version.",
        "r2",
        preview=preview_correction(g, cid, "Second reviewer's version.", "r2"),
    )
    at.button(key="corr_apply_btn").click().run()
    assert not at.exception
    assert any("Conflict" in e.value or "already corrected" in e.value for e in at.error), [e.value for e in at.error]


def test_quarantine_previews_its_blast_radius_and_writes_only_on_confirm(store: Store, workspace: str) -> None:
    g = store.workspace_graph(workspace)
    at = _open(workspace)
    at.text_input(key="corr_query").input("portal-page").run()
    at.text_input(key="q_reason").input("forged")
    at.text_input(key="q_by").input("auditor")
    at.button(key="q_preview_btn").click().run()
    assert not at.exception
    radius = {(r["effect"], r["id"]) for r in _effects(at)}
    assert {
        ("claim falls", "inv1001-paid-portal"),
        ("decision loses its last support", "release-1001-goods"),
        ("action needs compensation", "ship-1001"),
    } <= radius
    assert g.read("MATCH (s:Source {id: 'portal-page'}) RETURN s.quarantined AS q") == [{"q": False}]
    assert "Confirm: quarantine portal-page" in at.button(key="q_btn").label
    at.button(key="q_btn").click().run()
    assert not at.exception and any("Quarantined portal-page" in s.value for s in at.success)
    assert radius <= {(r["effect"], r["id"]) for r in _effects(at)}
    assert g.read("MATCH (s:Source {id: 'portal-page'}) RETURN s.quarantined AS q, s.quarantined_by AS by") == [
        {"q": True, "by": "auditor"}
    ]


def test_two_reviewers_a_stale_quarantine_preview_is_refused(store: Store, workspace: str) -> None:
    g = store.workspace_graph(workspace)
    a = _open(workspace)
    a.text_input(key="corr_query").input("portal-page").run()
    a.text_input(key="q_by").input("alice")
    a.button(key="q_preview_btn").click().run()
    b = _open(workspace)  # a second session on the same graph corrects a claim that rests on the source
    b.text_input(key="corr_query").input("inv1001-paid-portal").run()
    b.text_area(key="corr_text").input("Unpaid.")
    b.text_input(key="corr_by").input("bob")
    b.button(key="corr_preview_btn").click().run()
    b.button(key="corr_apply_btn").click().run()
    assert any("Applied" in s.value for s in b.success)
    a.button(key="q_btn").click().run()
    assert not a.exception
    assert any("Conflict" in e.value and "Nothing was written" in e.value for e in a.error), [e.value for e in a.error]
    assert g.read("MATCH (s:Source {id: 'portal-page'}) RETURN s.quarantined AS q") == [{"q": False}]


def test_the_picker_keeps_its_target_when_results_shift(store: Store, workspace: str) -> None:
    g = store.workspace_graph(workspace)
    at = _open(workspace)
    at.text_input(key="corr_query").input("INV-1001").run()
    options = at.selectbox(key="corr_pick").options
    assert len(options) >= 2
    at.selectbox(key="corr_pick").set_value("inv1001-amount").run()
    assert "inv1001\\-amount" in _texts(at)
    # another reviewer's correction adds a claim that matches the same search, ahead of the picked one
    apply_correction(g, "inv1002-paid-bank", "INV-1001 INV-1001 was paid by bank transfer.", "r2")
    at.text_area(key="corr_text").input("INV-1001 is for EUR 8,900.").run()
    assert at.selectbox(key="corr_pick").value == "inv1001-amount"
    assert "inv1001\\-amount" in _texts(at)
    assert at.query_params["node"] == ["inv1001-amount"] or at.query_params["node"] == "inv1001-amount"


def test_a_node_in_the_url_opens_as_the_target(workspace: str) -> None:
    at = _open(workspace, node="ap-ledger")
    assert not at.exception
    assert at.selectbox(key="corr_pick").value == "ap-ledger" and "Quarantine this source" in _texts(at)


def test_lift_and_undo_from_the_page(store: Store, workspace: str) -> None:
    g = store.workspace_graph(workspace)
    inc = quarantine_source(g, "portal-page", "forged", "al").incident
    at = _open(workspace)
    at.text_input(key="corr_query").input("portal-page").run()
    assert "Lift this source" in _texts(at)
    at.text_input(key="lift_by").input("bo")
    at.button(key="lift_preview_btn").click().run()
    assert ("decision restored", "release-1001-goods") in {(r["effect"], r["id"]) for r in _effects(at)}
    at.button(key="lift_btn").click().run()
    assert not at.exception and any("Lifted the quarantine" in s.value for s in at.success)
    assert g.read("MATCH (s:Source {id: 'portal-page'}) RETURN s.quarantined AS q") == [{"q": False}]
    assert g.read("MATCH (i:Incident {id: $id}) RETURN i.state AS s", {"id": inc}) == [{"s": "reverted"}]

    c = apply_correction(g, "inv1002-paid-bank", "No transfer arrived.", "ana")
    at.run()
    at.selectbox(key="undo_pick").set_value(c.correction).run()
    at.text_input(key="undo_by").input("bo")
    at.button(key="undo_preview_btn").click().run()
    assert ("claim restored", "inv1002-paid-bank") in {(r["effect"], r["id"]) for r in _effects(at)}
    at.button(key="undo_btn").click().run()
    assert not at.exception and any("Undone" in s.value for s in at.success), [e.value for e in at.error]
    assert g.read("MATCH (c:Claim {id: 'inv1002-paid-bank'}) RETURN c.status AS s") == [{"s": "active"}]
    states = {r["k"]: r["s"] for r in g.read("MATCH (k:Correction) RETURN k.id AS k, k.state AS s")}
    assert states[c.correction] == "reverted" and len(states) == 3  # correction, lift, revert: all kept


def test_search_with_no_match_says_so(store: Store, workspace: str) -> None:
    at = _open(workspace)
    at.text_input(key="corr_query").input("zzzqqq nothing").run()
    assert not at.exception and any("Nothing matches" in w.value for w in at.warning)


def test_two_tabs_quarantining_one_source_the_second_sees_a_conflict(store: Store, workspace: str) -> None:
    """Both tabs preview the quarantine; the first confirms. The second's confirm is a conflict naming who did it,
    and its picker shows the source as quarantined now (issue 23, item 5)."""
    a, b = _open(workspace), _open(workspace)
    for at, who in ((a, "alice"), (b, "bob")):
        at.text_input(key="corr_query").input("portal-page").run()
        at.text_input(key="q_reason").input("forged")
        at.text_input(key="q_by").input(who)
        at.button(key="q_preview_btn").click().run()
    a.button(key="q_btn").click().run()
    assert any("Quarantined portal-page" in s.value for s in a.success)
    b.button(key="q_btn").click().run()
    assert not b.exception
    errors = [e.value for e in b.error]
    assert any("Conflict" in e and "alice" in e for e in errors), errors
    assert not any("Quarantined portal-page" in s.value for s in b.success)
    assert any("Lift this source" in s.value for s in b.subheader), [s.value for s in b.subheader]

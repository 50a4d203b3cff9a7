"""AppTest for the Corrections page on a real memory workspace: search, preview, apply, stale preview, quarantine."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rguard_core.db import Store
from rguard_core.memory import apply_correction, load_scenario, preview_correction

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "seeds" / "memory" / "forged_invoice.json"


@pytest.fixture
def workspace(store: Store) -> str:
    raw = json.loads(SCENARIO.read_text())
    name = f"pg-{uuid.uuid4().hex[:8]}"
    load_scenario(store, raw, workspace=name)
    return name


def _open(ws: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("pages/corrections.py").run()
    at.selectbox(key="corr_scope").set_value(f"workspace · {ws}").run()
    return at


def _first_claim(store: Store, ws: str) -> tuple[str, str]:
    rows = store.workspace_graph(ws).read("MATCH (c:Claim) WHERE c.holds = true RETURN c.id AS id, c.statement AS s "
                                          "ORDER BY c.id LIMIT 1")
    return rows[0]["id"], rows[0]["s"]


def test_preview_then_apply_a_claim_correction(store: Store, workspace: str) -> None:
    cid, _ = _first_claim(store, workspace)
    at = _open(workspace)
    at.text_input(key="corr_query").input(cid).run()
    assert not at.exception
    at.text_area(key="corr_text").input("The reviewer's corrected statement.")
    at.text_input(key="corr_by").input("reviewer1")
    at.button(key="corr_preview_btn").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("If applied" in m.value for m in at.markdown)
    at.button(key="corr_apply_btn").click().run()
    assert not at.exception
    assert any("Applied" in s.value for s in at.success)
    (row,) = store.workspace_graph(workspace).read("MATCH (c:Claim {id: $id}) RETURN c.status AS s", {"id": cid})
    assert row["s"] == "superseded"
    assert any(e for e in at.dataframe)  # history lists the correction


def test_stale_preview_is_refused_with_a_conflict(store: Store, workspace: str) -> None:
    cid, _ = _first_claim(store, workspace)
    at = _open(workspace)
    at.text_input(key="corr_query").input(cid).run()
    at.text_area(key="corr_text").input("First reviewer's version.")
    at.text_input(key="corr_by").input("r1")
    at.button(key="corr_preview_btn").click().run()
    g = store.workspace_graph(workspace)  # another reviewer corrects the same claim meanwhile
    apply_correction(g, cid, "Second reviewer's version.", "r2", preview=preview_correction(g, cid, "Second reviewer's version.", "r2"))
    at.button(key="corr_apply_btn").click().run()
    assert not at.exception
    assert any("Conflict" in e.value or "already corrected" in e.value for e in at.error), [e.value for e in at.error]


def test_quarantine_a_source_from_the_page(store: Store, workspace: str) -> None:
    sid = store.workspace_graph(workspace).read("MATCH (s:Source) RETURN s.id AS id ORDER BY s.id LIMIT 1")[0]["id"]
    at = _open(workspace)
    at.text_input(key="corr_query").input(sid).run()
    at.text_input(key="q_reason").input("forged")
    at.text_input(key="q_by").input("auditor")
    at.button(key="q_btn").click().run()
    assert not at.exception and any("Quarantined" in s.value for s in at.success)
    (row,) = store.workspace_graph(workspace).read("MATCH (s:Source {id: $id}) RETURN s.quarantined AS q", {"id": sid})
    assert row["q"] is True


def test_search_with_no_match_says_so(store: Store, workspace: str) -> None:
    at = _open(workspace)
    at.text_input(key="corr_query").input("zzzqqq nothing").run()
    assert not at.exception and any("Nothing matches" in w.value for w in at.warning)

"""AppTest for the Guard page on the demo seed: a contradicting diff warns with receipts, a README typo passes,
bad input gets a clear message, feedback is stored."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rguard_core.db import Store
from rguard_core.evaluation.cases import load_cases
from rguard_core.seed import DEMO_REPO, load_demo

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def seeded(store: Store) -> str:
    load_demo(store)
    return DEMO_REPO


def _case(kind: str, label: str) -> str:
    cases = load_cases(ROOT / "eval" / "cases.yaml").cases
    return next(c.diff for c in cases if c.kind == kind and c.label == label)


def _guard(diff: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    at.switch_page("pages/guard.py").run()
    at.text_area(key="guard_diff").input(diff)
    at.button[0].click().run()
    return at


def test_contradicting_revert_warns_with_quote_premises_and_cypher(seeded: str) -> None:
    at = _guard(_case("revert", "contradicts"))
    assert not at.exception, at.exception
    assert any("Warn" in e.value for e in at.error), [e.value for e in at.error]
    text = " ".join(m.value for m in at.markdown)
    assert "CONTRADICTS" in text and "Source:" in text
    assert any("Cypher it ran" in x.label for x in at.expander)


def test_readme_typo_passes_quietly(seeded: str) -> None:
    diff = ("diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n"
            "-# tollgate\n+# Tollgate\n")
    at = _guard(diff)
    assert not at.exception
    assert any("Pass" in s.value for s in at.success) or any("Note" in w.value for w in at.warning)
    assert not any("Warn" in e.value for e in at.error)


def test_bad_input_gets_a_clear_message(seeded: str) -> None:
    at = _guard("this is not a diff at all")
    assert not at.exception
    assert at.error and "diff" in at.error[0].value.lower()


def test_empty_input_asks_for_something(seeded: str) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("pages/guard.py").run()
    at.button[0].click().run()
    assert not at.exception and "nothing to guard" in at.error[0].value


def test_feedback_from_a_card_is_stored(store: Store, seeded: str) -> None:
    at = _guard(_case("revert", "contradicts"))
    at.text_input(key="fb_by_0").input("page-test-reviewer")
    at.text_area(key="fb_reason_0").input("Known; we accept this for now.")
    submit = [b for b in at.button if "Send feedback" in (b.label or "")][0]
    submit.click().run()
    assert not at.exception
    assert any("Recorded ack" in s.value for s in at.success), [s.value for s in at.success]
    rows = store.repo_graph(DEMO_REPO).read("MATCH (c:Correction {kind: 'ack', by: 'page-test-reviewer'}) RETURN count(c) AS n")
    assert rows[0]["n"] >= 1

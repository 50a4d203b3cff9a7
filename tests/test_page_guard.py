"""AppTest for the Guard page on the demo seed: a contradicting diff warns with receipts and names its input, a README
typo passes, one input at a time, bad input gets a clear message, feedback (ack once, dismiss, undo) works."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rguard_core.db import Store
from rguard_core.evaluation.cases import load_cases
from rguard_core.ingest.pipeline import ingest_snapshot
from rguard_core.seed import DEMO_REPO, DEMO_SNAPSHOT, load_demo
from ui.guard_input import read_input

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def seeded(store: Store) -> str:
    load_demo(store)
    return DEMO_REPO


@pytest.fixture
def private(store: Store, tmp_path: Path) -> str:
    """A private copy of the demo repository, for tests that write feedback."""
    owner = f"pg{uuid.uuid4().hex[:10]}"
    shutil.copytree(DEMO_SNAPSHOT / "repos" / "acme" / "tollgate", tmp_path / "repos" / owner / "tollgate")
    ingest_snapshot(store, tmp_path, repo=f"{owner}/tollgate")
    return f"{owner}/tollgate"


def _case(kind: str, label: str) -> str:
    cases = load_cases(ROOT / "eval" / "cases.yaml").cases
    return next(c.diff for c in cases if c.kind == kind and c.label == label)


def _guard(diff: str, repo: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    if repo:
        at.query_params["repo"] = repo  # a link to the repository opens it
    at.run()
    at.switch_page("pages/guard.py").run()
    if repo:
        assert at.session_state["repo"] == repo
    at.text_area(key="guard_diff").input(diff)
    at.button[0].click().run()
    return at


def test_contradicting_revert_warns_with_quote_premises_and_cypher(seeded: str) -> None:
    at = _guard(_case("revert", "contradicts"))
    assert not at.exception, at.exception
    assert any("Warn on the pasted diff" in e.value for e in at.error), [e.value for e in at.error]
    text = " ".join(m.value for m in at.markdown)
    assert "CONTRADICTS" in text and "Source:" in text
    assert any("Cypher it ran" in x.label for x in at.expander)


def test_readme_typo_passes_quietly(seeded: str) -> None:
    diff = (
        "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n"
        "-# tollgate\n+# Tollgate\n"
    )
    at = _guard(diff)
    assert not at.exception
    assert any("Pass" in s.value for s in at.success) or any("Note" in w.value for w in at.warning)
    assert not any("Warn" in e.value for e in at.error)


def test_one_input_at_a_time_and_the_verdict_names_it(seeded: str) -> None:
    at = _guard(_case("revert", "contradicts"))
    assert any("the pasted diff" in e.value for e in at.error)
    at.radio(key="guard_input").set_value("pr").run()
    assert "guard_diff" not in [t.key for t in at.text_area]  # not on the page: it cannot be judged by surprise
    at.text_input(key="guard_pr").input("9")
    at.button[0].click().run()
    assert not at.exception
    verdicts = [x.value for x in [*at.error, *at.warning, *at.success] if x.value.startswith(("Warn", "Note", "Pass"))]
    assert verdicts and "PR #9 as stored" in verdicts[0] and "pasted" not in verdicts[0]
    assert at.query_params["pr"] in ("9", ["9"])
    # read_input ignores the inputs not chosen, whatever they hold
    inp = read_input("paste", seeded, pasted="diff --git a/x b/x\n", upload_bytes=b"other", pr_text="12")
    assert inp.kind == "paste" and inp.pr is None and inp.diff == "diff --git a/x b/x\n"


def test_a_pr_in_the_url_is_guarded_on_reload(seeded: str) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    at.switch_page("pages/guard.py")
    at.query_params["pr"] = "9"
    at.run()
    assert not at.exception
    assert any("PR #9" in x.value for x in [*at.error, *at.warning, *at.success])


def test_bad_input_gets_a_clear_message(seeded: str) -> None:
    at = _guard("this is not a diff at all")
    assert not at.exception
    assert at.error and "diff" in at.error[0].value.lower()


def test_empty_input_asks_for_something(seeded: str) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("pages/guard.py").run()
    at.button[0].click().run()
    assert not at.exception and "nothing to guard" in at.error[0].value


def test_llm_judge_is_disabled_with_the_reason_without_an_endpoint(seeded: str) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("pages/guard.py").run()
    assert at.radio(key="guard_judge").options == ["offline"]
    assert any("LLM judge is unavailable" in c.value and "OPENAI_BASE_URL" in c.value for c in at.caption)


def _send(at: AppTest, did: str, kind: str, reason: str) -> AppTest:
    at.radio(key=f"fb_kind_{did}").set_value(kind)
    at.text_area(key=f"fb_reason_{did}").input(reason)
    next(b for b in at.button if (b.label or "").startswith(f"Send feedback on {did}")).click().run()
    return at


def test_ack_once_dismiss_and_undo_from_the_page(store: Store, private: str) -> None:
    at = _guard(_case("revert", "contradicts"), private)
    assert any("Warn" in e.value for e in at.error)
    did = next(k.removeprefix("fb_kind_") for k in (r.key for r in at.radio) if k and k.startswith("fb_kind_"))
    at.text_input(key="guard_login").input("page-test-reviewer")
    _send(at, did, "ack", "Known; we accept this for now.")
    assert not at.exception
    assert any("Recorded ack" in s.value for s in at.success), [s.value for s in at.success]
    _send(at, did, "ack", "Again.")
    assert any("already gave this ack" in i.value for i in at.info)
    g = store.repo_graph(private)
    assert g.read("MATCH (c:Correction {kind: 'ack'}) RETURN count(c) AS n") == [{"n": 1}]

    contradicting = [k.removeprefix("fb_kind_") for k in (r.key for r in at.radio) if k and k.startswith("fb_kind_")]
    for d in contradicting:
        _send(at, d, "wrong", "Not a real contradiction here.")
    assert not at.exception, at.exception
    assert not any("Warn" in e.value for e in at.error), [e.value for e in at.error]
    assert any("Dismissed by reviewers" in h.value for h in at.subheader)
    assert any("Dismissed by page\\-test\\-reviewer" in c.value for c in at.caption)
    # the verdict says why it passes: not "nothing is touched" but dismissed, and by whom (issue 23, item 3)
    verdict = next(s.value for s in at.success if s.value.startswith("Pass on"))
    assert "dismissed by reviewers (page\\-test\\-reviewer)" in verdict and "no earlier decision" not in verdict

    undo_btn = next(b for b in at.button if (b.label or "").startswith("Undo wrong"))
    undo_btn.click().run()
    assert not at.exception
    assert any("Undid the wrong" in s.value for s in at.success), [e.value for e in at.error]
    assert any("Warn" in e.value for e in at.error) or len(contradicting) > 1
    assert g.read("MATCH (c:Correction {kind: 'revert'}) RETURN count(c) AS n") == [{"n": 1}]


def test_feedback_without_a_login_says_so_in_the_pages_words(private: str) -> None:
    at = _guard(_case("revert", "contradicts"), private)
    did = next(k.removeprefix("fb_kind_") for k in (r.key for r in at.radio) if k and k.startswith("fb_kind_"))
    _send(at, did, "ack", "x")
    assert any("login" in e.value and "--" not in e.value for e in at.error), [e.value for e in at.error]


def test_two_reviewers_dismiss_the_same_finding_and_one_undoes_theirs(store: Store, private: str) -> None:
    diff = _case("revert", "contradicts")
    a, b = _guard(diff, private), _guard(diff, private)  # two sessions on one graph, same verdict on screen
    did = next(k.removeprefix("fb_kind_") for k in (r.key for r in a.radio) if k and k.startswith("fb_kind_"))
    a.text_input(key="guard_login").input("alice")
    b.text_input(key="guard_login").input("bob")
    _send(a, did, "wrong", "Alice: not a contradiction.")
    _send(b, did, "wrong", "Bob: agreed, not one.")  # b's page was stale: its write still lands, nothing lost
    g = store.repo_graph(private)
    rows = g.read("MATCH (c:Correction {kind: 'wrong', state: 'applied'}) RETURN c.by AS by ORDER BY by")
    assert [r["by"] for r in rows] == ["alice", "bob"]
    undo_alice = next(bt for bt in a.button if (bt.label or "") == "Undo wrong by alice")
    undo_alice.click().run()
    assert not a.exception and any("Undid the wrong by alice" in s.value for s in a.success)
    # bob's dismissal still holds for these lines: the finding stays dismissed, now on bob's word
    assert any("Dismissed by bob" in c.value for c in a.caption), [c.value for c in a.caption]


def test_recent_guard_runs_name_the_change_and_open_the_decision(
    store: Store, private: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Overview's "Recent guard runs": which change each run judged, and a click on one opens the decision
    it cited in the decision graph (they were plain text before; issue 23, item 10)."""
    from rguard_core.commands.main import main

    diff = tmp_path / "change.diff"
    diff.write_text(_case("revert", "contradicts"), encoding="utf-8")
    assert main(["guard", "--repo", private, "--diff", str(diff)]) in (0, 3)
    capsys.readouterr()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["repo"] = private
    at.run()
    at.switch_page("pages/home.py").run()
    assert not at.exception, [e.value for e in at.exception]
    run = next(b for b in at.button if (b.key or "").startswith("home_runs_"))
    assert "warn on " in run.label and "\\(cli\\)" in run.label and "tollgate" in run.label
    run.click().run()
    assert at.title[0].value == "Decision graph" and str(at.session_state["dg_focus"]).startswith("decision:")

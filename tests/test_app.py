"""AppTest: the dashboard starts, lists repositories, shows empty states and runs an ingest from the form."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from rguard_core.db import Store

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "snapshot"


def _app() -> AppTest:
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)


def test_app_starts_and_shows_connection_status(store: Store) -> None:
    at = _app().run()
    assert not at.exception
    assert any("FalkorDB" in c.value for c in at.sidebar.caption)


def test_every_page_renders_without_exception(store: Store) -> None:
    at = _app().run()
    for page in (
        "pages/home.py",
        "pages/ingest.py",
        "pages/decision_graph.py",
        "pages/guard.py",
        "pages/corrections.py",
        "pages/eval.py",
    ):
        at.switch_page(page).run()
        assert not at.exception, page


def test_ingest_page_ingests_a_snapshot_and_reports_coverage(store: Store) -> None:
    at = _app().run()
    at.switch_page("pages/ingest.py").run()
    at.radio[0].set_value("Snapshot folder (GitHub REST shapes)")
    at.text_input(key="ingest_target").input(str(FIXTURE))
    at.button[0].click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert any("Coverage report" in s.value for s in at.subheader)
    assert "acme/ledger" in store.list_repos()
    took = next(m.value for m in at.markdown if "took" in m.value)
    assert "{" not in took and " s" in took  # timings in words, not a Python dict (issue 23, item 8)


def test_a_git_clone_gets_a_commit_limit_not_a_pr_limit(store: Store) -> None:
    at = _app().run()
    at.switch_page("pages/ingest.py").run()
    assert [n.label for n in at.number_input] == ["Newest PRs to read"]
    at.radio(key="ingest_source").set_value("Local git clone").run()
    assert not at.exception
    assert [n.label for n in at.number_input] == ["Newest commits to read"]


def test_ingest_page_shows_clear_error_for_missing_folder(store: Store) -> None:
    at = _app().run()
    at.switch_page("pages/ingest.py").run()
    at.radio[0].set_value("Snapshot folder (GitHub REST shapes)")
    at.text_input(key="ingest_target").input("/nonexistent/folder")
    at.button[0].click().run()
    assert not at.exception
    assert any("no such folder" in e.value for e in at.error)


def test_the_picker_follows_a_fresh_ingest_and_a_failed_one_clears_the_report(store: Store) -> None:
    at = _app().run()
    at.switch_page("pages/ingest.py").run()
    at.radio[0].set_value("Snapshot folder (GitHub REST shapes)")
    at.text_input(key="ingest_target").input(str(FIXTURE))
    at.button[0].click().run()
    assert not at.exception and any("Coverage report" in s.value for s in at.subheader)
    # the hand-off to the sidebar picker (AppTest runs a switched-to page without app.py, so the picker itself
    # following it is checked in the browser: tests/e2e/test_untrusted_text.py)
    handed = at.session_state["repo_next"] if "repo_next" in at.session_state else at.session_state["repo"]
    assert handed == "acme/ledger"
    at.text_input(key="ingest_target").input("/nonexistent/folder")
    at.button[0].click().run()
    assert any("no such folder" in e.value for e in at.error)
    assert not any("Coverage report" in s.value for s in at.subheader)  # the earlier run's report is gone


def test_llm_extractor_is_offered_only_with_an_endpoint(store: Store) -> None:
    at = _app().run()
    at.switch_page("pages/ingest.py").run()
    box = at.selectbox(key="ingest_extractor")
    assert box.options == ["offline"] and "OPENAI_BASE_URL" in (box.help or "")


def test_coverage_counts_every_snapshot_file_and_says_what_was_skipped(store: Store, tmp_path: Path) -> None:
    import json
    import shutil

    from rguard_core.ingest.pipeline import ingest_snapshot

    root = tmp_path / "snap"
    shutil.copytree(FIXTURE / "repos" / "acme" / "ledger", root / "repos" / "cov-test" / "ledger")
    issues = root / "repos" / "cov-test" / "ledger" / "issues"
    (issues / "99.json").write_text(
        json.dumps(
            {
                "number": 99,
                "title": "Nobody links me",
                "body": "x",
                "state": "open",
                "user": {"login": "a", "type": "User"},
            }
        )
    )
    (issues / "notes.json").write_text("{}")
    res = ingest_snapshot(store, root)
    problems = res.coverage.problems
    assert "read 6 of 6 PR files and 3 of 4 issue files in the snapshot" in problems
    assert any(p.startswith("skipped issues/99.json: issue #99 is linked from no PR") for p in problems)
    assert "skipped issues/notes.json: not a numbered issue record" in problems
    at = _app().run()
    at.switch_page("pages/ingest.py").run()
    at.radio[0].set_value("Snapshot folder (GitHub REST shapes)")
    at.text_input(key="ingest_target").input(str(root))
    at.button[0].click().run()
    assert not at.exception
    assert any("Read 6 of 6 PR files and 3 of 4 issue files" in c.value and "2 skipped" in c.value for c in at.caption)
    assert any("Skipped files (2)" in e.label for e in at.expander)
    store.repo_graph("cov-test/ledger").delete()


def test_ingest_errors_speak_the_pages_language(store: Store, tmp_path: Path) -> None:
    at = _app().run()
    at.switch_page("pages/ingest.py").run()
    at.radio[0].set_value("Local git clone")
    at.text_input(key="ingest_target").input(str(tmp_path))
    at.button[0].click().run()
    assert not at.exception
    (err,) = [e.value for e in at.error]
    assert "repository name (OWNER/NAME" in err and "--" not in err

"""AppTest: the Eval page runs the guard eval and the memory benchmark, drills into a case, keeps past runs."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rguard_core.db import Store
from rguard_core.ingest.pipeline import ingest_snapshot

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "pages" / "eval.py"
LEDGER = ROOT / "tests" / "fixtures" / "guard" / "github"  # the guard's acme/ledger fixture
LEDGER_CASES = ROOT / "tests" / "fixtures" / "eval" / "ledger_cases.yaml"


@pytest.fixture
def ledger_repo(store: Store, repo_name: str, tmp_path: Path) -> Iterator[str]:
    owner, name = repo_name.split("/")
    shutil.copytree(LEDGER / "repos" / "acme" / "ledger", tmp_path / "snap" / "repos" / owner / name)
    ingest_snapshot(store, tmp_path / "snap")
    yield repo_name
    store.repo_graph(repo_name).delete()


def _cases_for(repo: str, tmp_path: Path) -> Path:
    """The ledger cases file, naming the test's own copy of the repository."""
    text = LEDGER_CASES.read_text()
    out = tmp_path / "cases.yaml"
    out.write_text(
        "\n".join(f"repo: {repo}" if line.startswith("repo:") else line for line in text.splitlines()) + "\n"
    )
    return out


def _page() -> AppTest:
    return AppTest.from_file(str(PAGE), default_timeout=120)


def test_page_without_a_cases_file_explains_and_still_offers_the_memory_benchmark(store: Store, tmp_path: Path) -> None:
    at = _page().run()
    at.text_input(key="eval_cases_path").input(str(tmp_path / "missing.yaml")).run()
    assert not at.exception
    assert any("No cases file" in i.value for i in at.info)
    assert any("Memory" in s.value for s in at.subheader)
    assert any("What the guard cases cover" in m.value for m in at.markdown)


def test_guard_eval_runs_from_the_page_with_drill_down_and_history(
    store: Store, ledger_repo: str, tmp_path: Path
) -> None:
    at = _page().run()
    at.text_input(key="eval_cases_path").input(str(_cases_for(ledger_repo, tmp_path))).run()
    assert any(ledger_repo.replace("-", "\\-") in m.value and "named by the cases file" in m.value for m in at.markdown)
    at.button(key="eval_run_guard").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert any("a pristine graph" in s.value for s in at.success)
    labels = [m.label for m in at.metric]
    assert labels[:4] == ["Recall", "False warnings", "Precision", "Attribution"]
    assert at.metric[0].value.endswith("%")
    pick = at.selectbox(key="eval_case_pick")
    assert "ledger-revert-missing-rate" in pick.options[0]
    pick.set_value("ledger-revert-missing-rate").run()
    assert any("if not rate:" in c.value for c in at.code)  # the case's diff
    assert any("expected: *warn citing #10*" in m.value for m in at.markdown)
    assert any("Treat a missing rate as None, not 0" in m.value for m in at.markdown)  # the finding card
    # a second run shows next to the first in the history table
    at.button(key="eval_run_guard").click().run()
    history = next(d.value for d in at.dataframe if "git_sha" in d.value.columns and "recall" in d.value.columns)
    assert len(history[history["repo"] == ledger_repo]) >= 2
    assert "recall_change" in history.columns


def test_memory_benchmark_runs_both_variants_from_the_page(store: Store) -> None:
    at = _page().run()
    at.number_input(key="eval_seeds").set_value(2).run()
    at.button(key="eval_run_memory").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    tables = [d.value for d in at.dataframe]
    current = next(t for t in tables if "system" in t.columns and "variant" in t.columns)
    assert set(current["variant"]) == {"base", "hidden-mirror"}
    assert set(current["system"]) == {"plain", "delete-cascade", "rguard", "rguard+mirrors"}
    rg_base = current[(current["variant"] == "base") & (current["system"] == "rguard")].iloc[0]
    assert rg_base["poisoned_served"] == 0.0 and rg_base["valid_preserved"] == 1.0
    assert any("mirror detection found" in c.value for c in at.caption)


def test_cases_for_a_repository_that_is_not_ingested_are_refused(store: Store, tmp_path: Path) -> None:
    at = _page().run()
    at.text_input(key="eval_cases_path").input(str(_cases_for("nobody/never-ingested", tmp_path))).run()
    assert not at.exception
    assert any("nobody/never-ingested, which is not ingested" in w.value for w in at.warning)
    assert not [b for b in at.button if b.key == "eval_run_guard"]  # nothing to run, nothing saved


def test_a_graph_reviewers_edited_is_scored_with_that_said(store: Store, ledger_repo: str, tmp_path: Path) -> None:
    from rguard_core.memory import quarantine_source

    quarantine_source(store.repo_graph(ledger_repo), "issue:3", "test", "t")
    at = _page().run()
    at.text_input(key="eval_cases_path").input(str(_cases_for(ledger_repo, tmp_path))).run()
    at.button(key="eval_run_guard").click().run()
    assert not at.exception
    assert any("NOT a pristine graph" in w.value and "1 quarantine in force" in w.value for w in at.warning), [
        w.value for w in at.warning
    ]

"""Every page that shows a repository refuses one whose last ingest did not finish (graph_state.py), as the CLI does."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rguard_core.db import Store
from rguard_core.ingest.pipeline import ingest_snapshot

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "seeds" / "demo" / "github"
REPO = "page-test/half-written"
PAGES = ["pages/home.py", "pages/decision_graph.py", "pages/code_map.py", "pages/guard.py", "pages/corrections.py"]


@pytest.fixture(scope="module")
def half_written(store: Store) -> str:
    graph = store.repo_graph(REPO)
    graph.delete()
    graph.query(
        "CREATE (:Repo {id: 'repo', full_name: $r, ingest_state: 'writing', ingest_source: 'snapshot:x'})", {"r": REPO}
    )
    return REPO


@pytest.mark.parametrize("page", PAGES)
def test_a_half_written_graph_is_refused_on_the_page(half_written: str, page: str) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["repo"] = half_written
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    errors = " ".join(e.value for e in at.error)
    assert "not completely written" in errors and "ingest" in errors, errors


def test_a_complete_graph_is_not_flagged(store: Store) -> None:
    if not store.repo_graph("acme/tollgate").exists():
        ingest_snapshot(store, SEED, repo="acme/tollgate")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["repo"] = "acme/tollgate"
    at.run()
    at.switch_page("pages/decision_graph.py").run()
    assert not any("not completely written" in e.value for e in at.error)

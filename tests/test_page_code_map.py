"""AppTest of the Code map page: the empty state with build commands, status and coverage, a decision's files
with their importers, a file's blast radius and the chain between two files."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rguard_core.codemap import build_from_git
from rguard_core.db import Store
from rguard_core.ingest.pipeline import ingest_git

from .test_codemap_graph import APP
from .test_ingest_git import GitRepo

ROOT = Path(__file__).resolve().parent.parent
PAGE = "pages/code_map.py"


def open_page(repo: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["repo"] = repo
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture(scope="module")
def mapped(store: Store, tmp_path_factory: pytest.TempPathFactory) -> str:
    repo = "page-test/codemap"
    store.repo_graph(repo).delete()
    gr = GitRepo(tmp_path_factory.mktemp("cm") / "clone")
    gr.commit("Initial import", APP)
    gr.commit(
        "Compare tokens in constant time (#3)\n\nWe use hmac.compare_digest because == leaks timing.\n",
        {"app/auth.py": APP["app/auth.py"] + "\nSAFE = True\n"},
    )
    ingest_git(store, gr.root, repo)
    build_from_git(store, repo, gr.root)
    yield repo
    store.repo_graph(repo).delete()


def test_page_without_a_map_says_how_to_build_one(store: Store, tmp_path: Path) -> None:
    repo = "page-test/nomap"
    store.repo_graph(repo).delete()
    gr = GitRepo(tmp_path / "clone")
    gr.commit("Initial import", {"a.py": "import b\n", "b.py": ""})
    ingest_git(store, gr.root, repo)
    try:
        at = open_page(repo)
        assert at.title[0].value == "Code map"
        assert "No code map" in at.info[0].value and "codemap build" in at.code[0].value
    finally:
        store.repo_graph(repo).delete()


def test_status_decision_files_blast_radius_and_chain(mapped: str) -> None:
    at = open_page(mapped)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Import edges"] == "8" and metrics["Internal imports resolved"] == "100.0%"
    at.selectbox(key="cm_decision").set_value("decision:pr:3").run()
    table = next(d.value for d in at.dataframe if "decision's file" in d.value.columns)
    assert set(table["decision's file"]) == {"app/auth.py"} and list(table["imported by"]) == ["app/api.py"]
    at.selectbox(key="cm_file").set_value("app/auth.py").run()
    blast = next(d.value for d in at.dataframe if "depth" in d.value.columns)
    assert list(zip(blast["depth"], blast["file"], strict=True)) == [(1, "app/api.py"), (2, "app/cli.py")]
    at.selectbox(key="cm_chain_a").set_value("app/cli.py").run()
    at.selectbox(key="cm_chain_b").set_value("app/auth.py").run()
    assert not at.exception
    assert any("app/cli.py →" in c.value and "app/auth.py" in c.value for c in at.code)


def test_decision_graph_detail_pane_shows_the_decisions_code(mapped: str) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["repo"] = mapped
    at.run()
    at.switch_page("pages/decision_graph.py").run()
    at.selectbox(key="dg_pick").set_value("decision:pr:3").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(e.label.startswith("Code: this decision's files") for e in at.expander)
    table = next(d.value for d in at.dataframe if "decision's file" in d.value.columns)
    assert list(table["imported by"]) == ["app/api.py"]

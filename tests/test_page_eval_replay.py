"""AppTest: the Eval page's "Replay history" section replays a git history built here, shows the rates, the
per-case table and a drill-down (repository text as text), and keeps the run in eval history."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from rguard_core.db import Store
from rguard_core.evaluation.history import list_runs
from tests.test_ingest_git import GitRepo
from tests.test_replay import _base, _ordinary

PAGE = Path(__file__).resolve().parent.parent / "pages" / "eval.py"


def test_replay_runs_from_the_page(store: Store, tmp_path: Path) -> None:
    gr = GitRepo(tmp_path / "hist")
    decision, _ = _base(gr)
    _ordinary(gr, 2)
    gr.commit(
        "**Bold** <img src=x onerror=alert(1)> helper\n\nAdds a helper.",
        {"app/extra.py": "def extra():\n    return 7\n"},
    )
    gr.git("revert", "--no-edit", decision)
    revert = gr.git("rev-parse", "HEAD").strip()
    before = len(list_runs(store.settings, "replay", limit=1000).runs)
    at = AppTest.from_file(str(PAGE), default_timeout=180).run()
    assert not at.exception
    at.radio(key="replay_kind").set_value("git clone").run()
    at.text_input(key="replay_path_git clone").input(str(gr.root)).run()
    at.number_input(key="replay_ordinary").set_value(5).run()
    at.button(key="replay_run").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    labels = [m.label for m in at.metric]
    assert "Reverts of product code caught" in labels and "Ordinary changes warned" in labels
    assert at.metric[labels.index("Reverts of product code caught")].value == "100.0%"
    at.selectbox(key="replay_case_pick").set_value(f"commit:{revert}").run()
    assert not at.exception, at.exception
    texts = [t.value for t in at.text]
    assert any("reverts commit:" in t for t in texts), texts
    assert any("contradicts" in t for t in texts)
    # a repository title is never rendered as Markdown/HTML
    assert not any("<img" in m.value for m in at.markdown)
    assert len(list_runs(store.settings, "replay", limit=1000).runs) == before + 1

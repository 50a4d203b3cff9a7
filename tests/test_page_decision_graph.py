"""AppTest of the Decision graph page: the overview by directory with its legend, the node picker driving the detail
pane, the search box focusing a node (pr:N, #N, words, files), the list beside the canvas, "why" with receipts and
the refusal, blast radius with titles, the correction hand-off, empty states."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rguard_core.db import Graph, Store
from rguard_core.explore.focus import DEFAULT_HOPS, overview_view
from rguard_core.seed import DEMO_REPO, DEMO_SNAPSHOT, load_demo
from tests.test_views import ledger_copy

ROOT = Path(__file__).resolve().parent.parent
PAGE = "pages/decision_graph.py"


@pytest.fixture(scope="module")
def ledger(store: Store, tmp_path_factory: pytest.TempPathFactory) -> str:
    repo = "page-test/ledger"
    store.repo_graph(repo).delete()
    graph: Graph = ledger_copy(store, tmp_path_factory.mktemp("ledger"), repo)
    yield repo
    graph.delete()


def open_page(repo: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["repo"] = repo
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [w.value for w in at.warning]
    parts += [i.value for i in at.info] + [s.value for s in at.success] + [e.value for e in at.error]
    return "\n".join(str(p) for p in parts)


def html_blocks(at: AppTest) -> str:
    return "\n".join(str(getattr(h, "proto", h)) for h in at.get("html"))


def pick(at: AppTest, node_id: str) -> AppTest:
    at.selectbox(key="dg_pick").set_value(node_id).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_graph_renders_with_legend_and_picker(store: Store, ledger: str) -> None:
    at = open_page(ledger)
    assert at.title[0].value == "Decision graph"
    options = at.selectbox(key="dg_pick").options  # labels: icon, short text, status
    view = overview_view(store, ledger)
    assert len(options) == len([n for n in view.nodes if n.type != "group"])
    assert "◆ Keep unknown prices as None · holds" in options
    legend = html_blocks(at)
    assert all(s in legend for s in ("holds", "fallen", "superseded", "needs review", "held", "quarantined"))
    assert "5 of 5 decision(s) drawn by directory" in texts(at)


def test_picking_a_node_shows_its_receipts(store: Store, ledger: str) -> None:
    at = pick(open_page(ledger), "decision:pr:10")
    body = texts(at)
    assert "Keep unknown prices as None" in body and "Rests on" in body and "Who to ask" in body
    quote = store.repo_graph(ledger).read("MATCH (d:Decision {id: 'decision:pr:10'}) RETURN d.quote AS q")[0]["q"]
    assert f"<mark>{quote}</mark>" in html_blocks(at)
    assert "verified verbatim" in body and "Rejected alternatives" in body
    assert "decision:pr:10" not in body  # the raw id sits only in the copy box
    assert "decision:pr:10" in [c.value for c in at.code]
    link = next(b for b in at.button if "justifies" in b.label and "Unknown prices are billed as free" in b.label)
    link.click().run()  # walking to a linked node makes it the selection
    assert at.session_state["dg_selected"] == "claim:issue:1:0:33"
    assert "Unknown prices are billed as free" in texts(at)


@pytest.mark.parametrize("typed", ["pr:10", "#10", "PR 10", "unknown prices"])
def test_the_search_box_focuses_the_node(store: Store, ledger: str, typed: str) -> None:
    at = open_page(ledger)
    at.text_input(key="dg_find").input(typed).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["dg_focus"] == "decision:pr:10" and at.session_state["dg_selected"] == "decision:pr:10"
    assert "drawn around PR \\#10 · Keep unknown prices as None" in texts(at)  # markdown-escaped
    at.button(key="dg_clear").click().run()
    assert at.session_state["dg_focus"] is None and "drawn by directory" in texts(at)


def test_a_file_search_and_nothing_found(store: Store, ledger: str) -> None:
    at = open_page(ledger)
    at.text_input(key="dg_find").input("pricing").run()
    assert not at.exception and str(at.session_state["dg_focus"]).startswith(("file:", "dir:", "decision:"))
    at.text_input(key="dg_find").input("no such decision anywhere").run()
    assert not at.exception and "Nothing matches" in texts(at)


def test_the_demo_seed_overview_and_list(store: Store) -> None:
    if not DEMO_SNAPSHOT.is_dir():
        pytest.skip(f"demo seed missing at {DEMO_SNAPSHOT}")
    load_demo(store)
    at = open_page(DEMO_REPO)
    view = overview_view(store, DEMO_REPO)
    assert f"{view.decisions_total} of {view.decisions_total} decision(s) drawn by directory" in texts(at)
    table = at.dataframe[0].value
    assert len(table) == view.decisions_total and {"decision", "status", "source", "link"} <= set(table.columns)
    assert not table["decision"].str.startswith("decision:").any()


def test_ask_why_lists_decisions_with_quotes_and_links(store: Store, ledger: str) -> None:
    at = open_page(ledger)
    at.text_input(key="dg_question").input("why do we keep unknown prices as null?")
    next(b for b in at.button if b.label == "Ask").click().run()
    body = texts(at)
    assert "decision(s) found by the words keep, unknown, prices, null" in body
    assert "Keep unknown prices as None" in body and "(https://github.com/acme/ledger/pull/10)" in body
    next(b for b in at.button if b.label == "Show in graph").click().run()
    assert at.session_state["dg_selected"] == "decision:pr:10" and at.session_state["dg_focus"] == "decision:pr:10"


def test_ask_why_declines_to_grade_code(store: Store, ledger: str) -> None:
    at = open_page(ledger)
    at.text_input(key="dg_question").input("grade my code please")
    next(b for b in at.button if b.label == "Ask").click().run()
    assert any("don't grade or review code" in i.value for i in at.info)


def test_blast_radius_and_correction_hand_off(store: Store, ledger: str) -> None:
    at = open_page(ledger)
    at.text_input(key="dg_find").input("issue:1").run()  # a source is reached by search, then drawn as the focus
    assert at.session_state["dg_selected"] == "issue:1"
    at.button(key="dg_blast_btn").click().run()
    body = texts(at)
    assert not at.exception and "Blast radius" in body and "PR \\#10 · Keep unknown prices as None" in body
    assert "decision:pr:10" not in body
    at.button(key="dg_correct").click().run()
    assert at.session_state["correction_target"] == {"repo": ledger, "id": "issue:1", "type": "source"}
    assert at.title[0].value == "Corrections" and not at.exception
    assert at.text_input(key="corr_query").value == "issue:1"  # the Corrections page opens on this source
    assert "Quarantine this source" in [h.value for h in at.subheader]


def test_empty_and_unknown_repositories_render(store: Store, repo_name: str) -> None:
    g = store.repo_graph(repo_name)
    g.query("CREATE (:Repo {id: 'repo', full_name: $r})", {"r": repo_name})
    try:
        at = open_page(repo_name)
        assert "No decisions recorded yet." in texts(at)
    finally:
        g.delete()
    page = AppTest.from_file(str(ROOT / PAGE), default_timeout=60)
    page.session_state["repo"] = "nobody/nothing"
    page.run()
    assert not page.exception and "ingest it first" in texts(page)


def test_the_node_and_the_question_live_in_the_url(store: Store, ledger: str) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["repo"] = ledger
    at.run()
    at.switch_page(PAGE)
    at.query_params["node"] = "decision:pr:10"
    at.query_params["q"] = "why keep unknown prices as None"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["dg_selected"] == "decision:pr:10"
    assert at.text_input(key="dg_question").value == "why keep unknown prices as None"
    assert at.selectbox(key="dg_pick").value == "decision:pr:10"
    assert at.query_params["node"] in ("decision:pr:10", ["decision:pr:10"])


def test_a_shared_link_opens_the_focused_view_and_answers_its_question(store: Store, ledger: str) -> None:
    """A link someone copied from the page opens what they saw: the file in focus, the hops and the status filter,
    and the question answered, not only filled in (issue 23, item 6)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["repo"] = ledger
    at.run()
    at.switch_page(PAGE)
    path = next(f for f in store.repo_graph(ledger).read("MATCH (f:File) RETURN f.path AS p ORDER BY p"))["p"]
    at.query_params["focus"] = f"file:{path}"
    at.query_params["hops"] = "3"
    at.query_params["status"] = "holds,needs review"
    at.query_params["q"] = "why keep unknown prices as None"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["dg_focus"] == f"file:{path}"
    assert at.slider(key="dg_hops").value == 3 and at.multiselect(key="dg_status").value == ["holds", "needs review"]
    assert any("Answer to" in e.label for e in at.expander), [e.label for e in at.expander]  # answered
    assert not at.warning, [w.value for w in at.warning]  # no "default value and Session State" warning
    # and what the page shows goes back into the URL: another hop count replaces the linked one; the default
    # is left out of it
    at.slider(key="dg_hops").set_value(1).run()
    assert at.query_params["hops"] in ("1", ["1"]) and at.query_params["focus"] in (f"file:{path}", [f"file:{path}"])
    at.slider(key="dg_hops").set_value(DEFAULT_HOPS).run()
    assert "hops" not in at.query_params
    at.button(key="dg_clear").click().run()  # the overview: no focus in the URL any more
    assert "focus" not in at.query_params


def test_switching_repository_drops_the_linked_focus(store: Store, ledger: str) -> None:
    """The URL's focus belongs to the repository it was copied from: picking another one starts at its overview
    (the browser test of a 5,000-decision graph waited on a focus left in the URL by a test before it)."""
    load_demo(store)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["repo"] = ledger
    at.run()
    at.switch_page(PAGE)
    at.query_params["focus"] = "decision:pr:10"
    at.run()
    assert at.session_state["dg_focus"] == "decision:pr:10"
    at.session_state["repo"] = DEMO_REPO
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "dg_focus" not in at.session_state or not at.session_state["dg_focus"]
    assert "focus" not in at.query_params

"""Focus + context, labels, the statement filter and the health overview on the real engine: search by number,
words, file and person; k-hop neighbourhoods that grow with k and stay capped; the directory overview and its
grouping threshold; revert edges; id-free labels; the dashboard's figures after a real quarantine and correction."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rguard_core.db import Graph, Store
from rguard_core.errors import InvalidInput, UnknownRepository
from rguard_core.explore.focus import FOCUS_NODES, PER_COLUMN, decision_rows, focus_view, overview_view, search
from rguard_core.explore.labels import labels, short_label, source_of
from rguard_core.explore.repo_overview import repo_health
from rguard_core.ingest.extract.statements import is_statement
from rguard_core.memory import apply_correction, lift_quarantine, quarantine_source
from rguard_core.seed import DEMO_REPO, load_demo
from tests.test_views import ledger_copy

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def ledger(store: Store, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Graph]:
    repo = "focus-test/ledger"
    store.repo_graph(repo).delete()
    graph = ledger_copy(store, tmp_path_factory.mktemp("ledger"), repo)
    yield repo, graph
    graph.delete()


@pytest.mark.parametrize("typed", ["pr:10", "#10", "PR 10", "pull 10", "decision:pr:10"])
def test_numbers_and_ids_find_the_decision_first(store: Store, ledger: tuple[str, Graph], typed: str) -> None:
    hits = search(store, ledger[0], typed)
    assert hits[0].id == "decision:pr:10" and hits[0].label == "Keep unknown prices as None"


def test_words_files_and_people(store: Store, ledger: tuple[str, Graph]) -> None:
    repo, g = ledger
    assert search(store, repo, "unknown prices")[0].id == "decision:pr:10"
    # not every word need match: the decisions matching most of them come first
    assert "decision:pr:10" in [h.id for h in search(store, repo, "unknown prices zebra")]
    path = g.read("MATCH (:PR {number: 10})-[:TOUCHES]->(f:File) RETURN f.path AS p ORDER BY p LIMIT 1")[0]["p"]
    assert f"file:{path}" in [h.id for h in search(store, repo, path)]
    login = g.read("MATCH (p:Person)-[:AUTHORED]->(:PR {number: 10}) RETURN p.login AS l")[0]["l"]
    assert f"person:{login}" in [h.id for h in search(store, repo, f"@{login}")]
    assert search(store, repo, "zebra quantum nothing") == [] and search(store, repo, "  ") == []
    with pytest.raises(InvalidInput):
        search(store, repo, "x" * 201)
    with pytest.raises(UnknownRepository):
        search(store, "nobody/nothing", "x")


def test_more_hops_show_more_and_stay_capped(store: Store, ledger: tuple[str, Graph]) -> None:
    repo, _ = ledger
    sizes = [len(focus_view(store, repo, "decision:pr:10", k).nodes) for k in (1, 2, 3)]
    assert sizes[0] < sizes[1] <= sizes[2] and all(s <= FOCUS_NODES + 1 for s in sizes)
    view = focus_view(store, repo, "decision:pr:10", 1)
    assert view.focus == "decision:pr:10" and view.node("decision:pr:10") is not None
    near = {e.source for e in view.edges if e.target == "decision:pr:10"} | {
        e.target for e in view.edges if e.source == "decision:pr:10"
    }
    assert {n.id for n in view.nodes} == near | {"decision:pr:10"}  # one hop: the focus and its neighbours only
    for k in (1, 2, 3):
        v = focus_view(store, repo, "decision:pr:10", k)
        assert max(sum(n.type == t for n in v.nodes) for t in {n.type for n in v.nodes}) <= PER_COLUMN + 1
    with pytest.raises(InvalidInput):
        focus_view(store, repo, "decision:pr:10", 9)


def test_a_file_or_source_focus_brings_its_decisions(store: Store, ledger: tuple[str, Graph]) -> None:
    repo, g = ledger
    path = g.read("MATCH (:PR {number: 10})-[:TOUCHES]->(f:File) RETURN f.path AS p ORDER BY p LIMIT 1")[0]["p"]
    view = focus_view(store, repo, f"file:{path}", 2)
    assert view.node(f"file:{path}") is not None and view.node("decision:pr:10") is not None
    assert focus_view(store, repo, "issue:1", 2).node("decision:pr:10") is not None
    assert "Nothing" in focus_view(store, repo, "file:no/such/file.py", 2).message


def test_overview_groups_by_directory_and_only_directories_past_the_threshold(
    store: Store, ledger: tuple[str, Graph]
) -> None:
    repo, _ = ledger
    view = overview_view(store, repo)
    groups = [n for n in view.nodes if n.type == "group"]
    decisions = [n for n in view.nodes if n.type == "decision"]
    assert groups and len(decisions) == view.decisions_total == view.decisions_shown
    assert all(e.word == "CONTAINS" and e.source.startswith("dir:") for e in view.edges)
    big = overview_view(store, repo, group_over=2)
    assert all(n.type == "group" for n in big.nodes) and len(big.hidden) == view.decisions_total
    rows = decision_rows(store, repo, big.hidden)
    assert {r.id for r in rows} == set(big.hidden) and all(not r.summary.startswith("decision:") for r in rows)
    assert overview_view(store, repo, ("fallen",)).decisions_total == 0
    with pytest.raises(InvalidInput):
        overview_view(store, repo, ("bogus",))


def test_reverts_are_edges_in_the_view(store: Store) -> None:
    load_demo(store)
    view = focus_view(store, DEMO_REPO, "decision:pr:23", 2)
    assert ("decision:pr:25", "decision:pr:23", "REVERTS") in {(e.source, e.target, e.word) for e in view.edges}


def test_labels_give_titles_sources_and_links(store: Store, ledger: tuple[str, Graph]) -> None:
    repo, g = ledger
    claim = g.read("MATCH (c:Claim {source_id: 'issue:1'}) RETURN c.id AS id LIMIT 1")[0]["id"]
    got = labels(g, ["decision:pr:10", claim, "issue:1", "action:pr:10", "file:x.py", "nope:1"])
    assert got["decision:pr:10"].text() == "PR #10 · Keep unknown prices as None"
    assert got["decision:pr:10"].url and got["decision:pr:10"].url.endswith("/pull/10")
    assert got[claim].where == "Issue #1" and not got[claim].title.startswith("claim:")
    assert got["issue:1"].where == "Issue #1" and got["issue:1"].title
    assert short_label("claim:issue:19:326:392") == "Claim in Issue #19"
    assert short_label("comment:pr:12:3") == "Comment on #12" and source_of("alt:pr:3:1:9") == "pr:3"


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("Hi guys", False),
        ("Thanks a lot for the quick review!", False),
        ("Can we add a timestamp here?", False),
        ("@tom ping", False),
        ("LGTM, merging", False),
        ("Floats cannot hold cents exactly, so totals drift.", True),
        ("The session middleware does not expire cookies.", True),
        ("ok", False),
    ],
)
def test_only_statements_are_claims(text: str, ok: bool) -> None:
    assert is_statement(text) is ok


def test_health_after_a_quarantine_and_a_correction(store: Store, tmp_path: Path, repo_name: str) -> None:
    g = ledger_copy(store, tmp_path, repo_name)
    try:
        quarantine_source(g, "issue:1", "forged", "sec")
        claim = g.read("MATCH (c:Claim) WHERE c.source_id STARTS WITH 'pr:' RETURN c.id AS id ORDER BY id LIMIT 1")[0][
            "id"
        ]
        apply_correction(g, claim, "A corrected statement about prices.", "ana")
        h = repo_health(store, repo_name)
        assert h.counts["quarantined"] == 1 and h.quarantined[0].focus == "issue:1"
        assert "Issue #1" in h.quarantined[0].label and "forged" in h.quarantined[0].label
        assert h.corrections and "ana" in h.corrections[0].label and "claim:" not in h.corrections[0].label
        assert h.quarantines and "Issue #1" in h.quarantines[0].label
        assert h.top_files and h.top_files[0].focus.startswith("file:") and h.age_days is not None
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        at.session_state["repo"] = repo_name
        at.run()
        at.switch_page("pages/home.py").run()
        assert not at.exception, [e.value for e in at.exception]
        assert [m.value for m in at.metric if m.label == "Quarantined sources"] == ["1"]
        button = next(b for b in at.button if "Issue" in b.label and "forged" in b.label)
        button.click().run()
        assert at.title[0].value == "Decision graph" and at.session_state["dg_focus"] == "issue:1"
        lift_quarantine(g, "issue:1", "sec", "checked: genuine")  # lifted: no longer a recent quarantine
        assert repo_health(store, repo_name).quarantines == []
    finally:
        g.delete()


def test_click_to_expand_adds_the_neighbourhood_and_stops_when_full(store: Store, ledger: tuple[str, Graph]) -> None:
    from rguard_core.explore.focus import EXPANDED_NODES, expand

    repo, _ = ledger
    view = focus_view(store, repo, "decision:pr:10", 1)
    before = {n.id for n in view.nodes}
    source = next(n.id for n in view.nodes if n.type == "source")
    assert expand(store, repo, view, source)
    after = {n.id for n in view.nodes}
    assert before <= after  # never loses what was drawn
    assert len({(e.source, e.target, e.word) for e in view.edges}) == len(view.edges)  # no duplicate edges
    assert {n.id for n in focus_view(store, repo, source, 1).nodes} <= after
    view.nodes += [view.nodes[0]] * EXPANDED_NODES  # a canvas already full takes nothing more
    assert not expand(store, repo, view, "decision:pr:10")

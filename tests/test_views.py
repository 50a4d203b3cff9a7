"""The decision graph view and the detail pane, on the real engine: what is shown and hidden, caps, filters,
statuses after real corrections and quarantines, highlight offsets, edge walks and the blast radius."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rguard_core.db import Graph, Store
from rguard_core.errors import InvalidInput, UnknownRepository
from rguard_core.explore.graph_view import (
    EDGE_WORDS,
    MAX_CAP,
    NODE_TYPES,
    STATUSES,
    ViewFilter,
    action_status,
    build_view,
    claim_status,
    decision_status,
)
from rguard_core.explore.node_detail import (
    QuoteSpan,
    SourceText,
    blast_radius,
    node_detail,
)
from rguard_core.ingest.pipeline import ingest_snapshot
from rguard_core.memory import apply_correction, quarantine_source
from rguard_core.memory.graphio import downstream, seeds_of_source

LEDGER = Path(__file__).resolve().parent / "fixtures" / "snapshot" / "repos" / "acme" / "ledger"
PLUMBING = ("frag:", "just:", "person:", "file:", "commit:", "sym:", "alt:", "inc:", "repo")


def ledger_copy(store: Store, tmp: Path, repo: str) -> Graph:
    """The acme/ledger fixture ingested under a private name, so tests may change it."""
    shutil.copytree(LEDGER, tmp / "repos" / repo)
    ingest_snapshot(store, tmp, repo=repo)
    return store.repo_graph(repo)


@pytest.fixture(scope="module")
def ledger(store: Store, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Graph]:
    repo = "views-test/ledger"
    store.repo_graph(repo).delete()
    graph = ledger_copy(store, tmp_path_factory.mktemp("ledger"), repo)
    yield repo, graph
    graph.delete()


@pytest.fixture
def private(store: Store, tmp_path: Path, repo_name: str) -> tuple[str, Graph]:
    graph = ledger_copy(store, tmp_path, repo_name)
    yield repo_name, graph
    graph.delete()


def ids(rows: list[dict]) -> set[str]:
    return {r["id"] for r in rows}


# --- what is shown ------------------------------------------------------------------------------------------------
def test_view_shows_the_product_graph_and_hides_the_plumbing(store: Store, ledger: tuple[str, Graph]) -> None:
    repo, g = ledger
    view = build_view(store, repo)
    shown = {n.id for n in view.nodes}
    assert view.exists and {n.type for n in view.nodes} <= set(NODE_TYPES)
    assert not [i for i in shown if i.startswith(PLUMBING)], "fragments, people, files, commits stay in the database"
    assert {e.word for e in view.edges} <= set(EDGE_WORDS)
    assert all(e.source in shown and e.target in shown for e in view.edges)
    assert ids(g.read("MATCH (d:Decision) RETURN d.id AS id")) <= shown
    justifies = g.read(
        "MATCH (c:Claim)<-[:PREMISE]-(:Justification)-[:JUSTIFIES]->(d:Decision) RETURN c.id AS c, d.id AS d"
    )
    edges = {(e.source, e.target, e.word) for e in view.edges}
    assert justifies and all((r["c"], r["d"], "JUSTIFIES") in edges for r in justifies)
    implements = g.read("MATCH (a:Action)-[:IMPLEMENTS]->(d:Decision) RETURN a.id AS a, d.id AS d")
    assert implements and all((r["a"], r["d"], "IMPLEMENTS") in edges for r in implements)
    alts = g.read("MATCH (a:Alternative)-[:REJECTED_FOR]->(d:Decision) RETURN a.source_id AS s, d.id AS d, a.text AS t")
    rejected = {(e.source, e.target): e.title for e in view.edges if e.word == "REJECTED"}
    for r in alts:
        assert r["t"] in rejected[(r["s"], r["d"])]  # the alternative's words ride on the edge
    claim_sources = g.read("MATCH (c:Claim) RETURN c.id AS c, c.source_id AS s")
    assert all((r["s"], r["c"], "SUPPORTS") in edges for r in claim_sources)
    assert view.decisions_shown == view.decisions_total == len(ids(g.read("MATCH (d:Decision) RETURN d.id AS id")))
    assert not view.capped and not view.message


def test_decisions_come_newest_first(store: Store, ledger: tuple[str, Graph]) -> None:
    repo, g = ledger
    view = build_view(store, repo)
    order = [n for n in view.nodes if n.type == "decision"]
    whens = [n.when or "" for n in order]
    assert whens == sorted(whens, reverse=True)


def test_cap_bounds_the_nodes_and_says_there_is_more(store: Store, ledger: tuple[str, Graph]) -> None:
    repo, _ = ledger
    full = build_view(store, repo)
    for cap in (1, 5, 12, 20):
        view = build_view(store, repo, ViewFilter(cap=cap))
        assert len(view.nodes) <= cap
        assert view.decisions_shown >= 1
        if len(full.nodes) > cap:
            assert view.capped and "show more" in view.message and f"cap {cap}" in view.message
    with pytest.raises(InvalidInput, match="between 1 and"):
        build_view(store, repo, ViewFilter(cap=MAX_CAP + 1))


# --- filters ------------------------------------------------------------------------------------------------------
def decisions_of(view) -> set[str]:  # type: ignore[no-untyped-def]
    return {n.id for n in view.nodes if n.type == "decision"}


def test_file_filter_keeps_decisions_that_reach_the_file(store: Store, ledger: tuple[str, Graph]) -> None:
    repo, g = ledger
    for path in ("pricing", "sessions.py", "docs/adr"):
        want = ids(
            g.read(
                "MATCH (f:File) WHERE f.path CONTAINS $p MATCH (d:Decision)-[:DERIVED_FROM]->(:Source)-[:TOUCHES]->(f) "
                "RETURN DISTINCT d.id AS id UNION MATCH (f:File) WHERE f.path CONTAINS $p "
                "MATCH (d:Decision)<-[:IMPLEMENTS]-(:Action)-[:CHANGES]->(f) RETURN DISTINCT d.id AS id",
                {"p": path},
            )
        )
        view = build_view(store, repo, ViewFilter(file_path=path))
        assert want and decisions_of(view) == want, path
    assert (
        build_view(store, repo, ViewFilter(file_path="no/such/file.py")).message == "No decision matches these filters."
    )


def test_text_date_and_kind_filters(store: Store, ledger: tuple[str, Graph]) -> None:
    repo, g = ledger
    assert decisions_of(build_view(store, repo, ViewFilter(text="UNKNOWN PRICES"))) == {"decision:pr:10"}
    assert decisions_of(build_view(store, repo, ViewFilter(text="decision:pr:11"))) == {"decision:pr:11"}
    dated = g.read(
        "MATCH (d:Decision)-[:DERIVED_FROM]->(s:Source) WITH d, max(coalesce(s.merged_at, s.created_at)) AS w "
        "WHERE substring(w, 0, 10) >= '2025-02-01' AND substring(w, 0, 10) <= '2025-02-28' RETURN d.id AS id"
    )
    feb = build_view(store, repo, ViewFilter(date_from="2025-02-01", date_to="2025-02-28"))
    assert ids(dated) and decisions_of(feb) == ids(dated)
    docs = build_view(store, repo, ViewFilter(source_kinds=("doc",)))
    assert {n.kind for n in docs.nodes if n.type == "source"} == {"doc"}
    with_doc = ids(
        g.read(
            "MATCH (d:Decision)-[:DERIVED_FROM]->(:Doc) RETURN d.id AS id UNION MATCH (d:Decision)"
            "<-[:JUSTIFIES]-(:Justification)-[:PREMISE]->(c:Claim) MATCH (s:Doc {id: c.source_id}) "
            "RETURN d.id AS id"
        )
    )
    assert decisions_of(docs) == with_doc
    none = build_view(store, repo, ViewFilter(text="unknown prices", date_from="2030-01-01"))
    assert not none.nodes and none.message == "No decision matches these filters."


@pytest.mark.parametrize(
    "flt, problem",
    [
        (ViewFilter(date_from="2025/01/01"), "look like"),
        (ViewFilter(date_from="2025-03-01", date_to="2025-01-01"), "empty"),
        (ViewFilter(statuses=("great",)), "unknown decision status"),
        (ViewFilter(source_kinds=("tweet",)), "unknown source kind"),
        (ViewFilter(text="x" * 500), "longer than"),
    ],
)
def test_malformed_filters_get_specific_errors(
    store: Store, ledger: tuple[str, Graph], flt: ViewFilter, problem: str
) -> None:
    with pytest.raises(InvalidInput, match=problem):
        build_view(store, ledger[0], flt)


def test_unknown_and_empty_repositories_render_empty(store: Store, repo_name: str) -> None:
    unknown = build_view(store, repo_name)
    assert not unknown.exists and not unknown.nodes and "ingest it first" in unknown.message
    g = store.repo_graph(repo_name)
    g.query("CREATE (:Repo {id: 'repo', full_name: $r})", {"r": repo_name})
    try:
        empty = build_view(store, repo_name)
        assert empty.exists and not empty.nodes and empty.message == "No decisions recorded yet."
    finally:
        g.delete()


# --- statuses -----------------------------------------------------------------------------------------------------
def test_statuses_after_a_real_quarantine_and_correction(store: Store, private: tuple[str, Graph]) -> None:
    repo, g = private
    quarantine_source(g, "issue:2", "forged", "sec")
    res = apply_correction(g, "claim:pr:10:39:132", "Unknown cost is stored as NULL.", "ana")
    view = build_view(store, repo)
    status = {n.id: n.status for n in view.nodes}
    assert status["issue:2"] == "quarantined"
    assert all(status[c] == "fallen" for c in ids(g.read("MATCH (c:Claim {source_id: 'issue:2'}) RETURN c.id AS id")))
    assert status["claim:pr:10:39:132"] == "superseded"
    stored = g.read("MATCH (d:Decision {id: 'decision:pr:11'}) RETURN d.holds AS h, d.label AS l, d.status AS s")[0]
    # #14 reverts #11 ("Reverts #11."): a reverted decision shows as superseded whatever its support says
    assert stored["s"] == "superseded" and stored["l"] == "review"
    assert status["decision:pr:11"] == decision_status(stored["s"], stored["h"], stored["l"]) == "superseded"
    edges = {(e.source, e.target, e.word) for e in view.edges}
    assert (res.replacement, "claim:pr:10:39:132", "SUPERSEDES") in edges
    assert (res.correction, "claim:pr:10:39:132", "CORRECTS") in edges
    assert (res.source, res.replacement, "SUPPORTS") in edges
    assert {n.kind for n in view.nodes if n.id == res.source} == {"human_correction"}
    # the status filter runs in Cypher and must agree with the Python status
    for st in ("needs review", "holds"):
        by_filter = decisions_of(build_view(store, repo, ViewFilter(statuses=(st,))))
        assert by_filter == {n.id for n in view.nodes if n.type == "decision" and n.status == st}


def test_status_rules() -> None:
    assert decision_status("superseded", True, None) == "superseded"
    assert decision_status("active", True, None, newer=1) == "superseded"
    assert decision_status("active", False, "correction") == "fallen"
    # it fell once (with an executed action) and holds again: the engine's label asks for review, it is not
    # fallen (graph_view.decision_status; the Corrections page says the same)
    assert decision_status("active", True, "compensation") == "needs review"
    assert decision_status("active", True, "review") == "needs review"
    assert decision_status(None, None, None) == "holds"
    assert claim_status("superseded", True) == "superseded" and claim_status("active", False) == "fallen"
    assert action_status("held") == "held" and action_status("compensate") == "needs review"
    assert action_status("active") == "holds"
    assert {decision_status(*a) for a in [("superseded", 1, None), ("a", False, None), ("a", 1, "review")]} <= set(
        STATUSES
    )


# --- detail pane --------------------------------------------------------------------------------------------------
def test_highlight_is_exactly_the_stored_quote_at_its_offsets(store: Store, ledger: tuple[str, Graph]) -> None:
    repo, g = ledger
    rows = g.read(
        "MATCH (x) WHERE x:Claim OR x:Decision MATCH (s:Source {id: x.source_id}) "
        "RETURN x.id AS id, x.quote AS quote, x.start AS start, x.end AS end, s.text AS text"
    )
    assert len(rows) >= 15
    for r in rows:
        d = node_detail(store, repo, r["id"])
        assert d.evidence is not None and d.evidence.text == r["text"]
        marked = [t for t, hl in d.evidence.pieces() if hl]
        assert marked == [r["quote"]] == [r["text"][r["start"] : r["end"]]], r["id"]
        assert "".join(t for t, _ in d.evidence.pieces()) == r["text"]


def test_a_quote_that_moved_is_not_highlighted(store: Store, private: tuple[str, Graph]) -> None:
    repo, g = private
    g.query("MATCH (s:Source {id: 'pr:10'}) SET s.text = 'Edited: ' + s.text")
    d = node_detail(store, repo, "decision:pr:10")
    assert d.evidence is not None and not d.evidence.spans[0].verified
    assert not [t for t, hl in d.evidence.pieces() if hl]


def test_detail_walks_stored_edges(store: Store, ledger: tuple[str, Graph]) -> None:
    repo, g = ledger
    d = node_detail(store, repo, "decision:pr:10")
    claims = ids(
        g.read(
            "MATCH (:Decision {id: 'decision:pr:10'})<-[:JUSTIFIES]-(:Justification)-[:PREMISE]->(c:Claim) "
            "RETURN c.id AS id"
        )
    )
    assert {x.id for x in d.rests_on if x.relation == "JUSTIFIES"} == claims
    assert "pr:10" in {x.id for x in d.rests_on if x.relation == "SUPPORTS"}
    assert {x.id for x in d.rested_on_by} == ids(
        g.read("MATCH (a:Action)-[:IMPLEMENTS]->(:Decision {id: 'decision:pr:10'}) RETURN a.id AS id")
    )
    alts = g.read("MATCH (a:Alternative)-[:REJECTED_FOR]->(:Decision {id: 'decision:pr:10'}) RETURN a.quote AS q")
    assert sorted(a.quote for a in d.alternatives) == sorted(r["q"] for r in alts) and all(
        a.verified for a in d.alternatives
    )
    author = g.read("MATCH (p:Person)-[:AUTHORED]->(:PR {id: 'pr:10'}) RETURN p.login AS login")[0]["login"]
    assert d.who_to_ask[0].login == author and "PR #10" in d.who_to_ask[0].reason
    assert d.files == sorted(
        r["p"] for r in g.read("MATCH (:PR {id: 'pr:10'})-[:TOUCHES]->(f:File) RETURN f.path AS p")
    )
    c = node_detail(store, repo, "claim:issue:1:0:33")
    assert [x.id for x in c.rests_on] == ["issue:1"] and "decision:pr:10" in {x.id for x in c.rested_on_by}
    s = node_detail(store, repo, "issue:1")
    assert {x.id for x in s.rested_on_by} >= ids(g.read("MATCH (c:Claim {source_id: 'issue:1'}) RETURN c.id AS id"))
    assert len([t for t, hl in s.evidence.pieces() if hl]) == len(s.evidence.spans) >= 2  # type: ignore[union-attr]
    a = node_detail(store, repo, "action:pr:10")
    assert [x.id for x in a.rests_on] == ["decision:pr:10"] and a.facts["executed"] is True


def test_detail_errors_are_specific(store: Store, ledger: tuple[str, Graph], repo_name: str) -> None:
    with pytest.raises(InvalidInput, match="no source, claim, decision"):
        node_detail(store, ledger[0], "decision:pr:999")
    with pytest.raises(UnknownRepository):
        node_detail(store, repo_name, "decision:pr:10")


def test_pieces_merge_overlapping_spans() -> None:
    st = SourceText(
        "s",
        "pr",
        "PR #1",
        None,
        "abcdefghij",
        [QuoteSpan(2, 5, "cde", True), QuoteSpan(4, 7, "efg", True), QuoteSpan(8, 9, "x", False)],
    )
    assert st.pieces() == [("ab", False), ("cde", True), ("fg", True), ("hij", False)]


# --- blast radius -------------------------------------------------------------------------------------------------
def test_blast_radius_is_the_correction_previews_walk(store: Store, ledger: tuple[str, Graph]) -> None:
    repo, g = ledger
    b = blast_radius(store, repo, "issue:1")
    assert b.seeds == seeds_of_source(g, "issue:1") and b.seeds
    claims, decisions = downstream(g, b.seeds)
    assert (set(b.claims), set(b.decisions)) == (claims, decisions)
    assert "decision:pr:10" in b.decisions and "action:pr:10" in b.actions
    c = blast_radius(store, repo, "claim:issue:2:0:26")
    assert c.seeds == ["claim:issue:2:0:26"] and "decision:pr:11" in c.decisions
    with pytest.raises(InvalidInput, match="source or a claim"):
        blast_radius(store, repo, "decision:pr:10")

"""Ingest on the real engine: the graph a snapshot becomes, the evidence rule, idempotent re-ingest."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rguard_core.commands.main import main
from rguard_core.db import Store
from rguard_core.errors import InvalidInput, SnapshotError
from rguard_core.evidence import anchor
from rguard_core.explore.graph_export import export_graph
from rguard_core.ingest.extract.base import Candidate, Proposal, SourceDoc
from rguard_core.ingest.pipeline import ingest_snapshot
from rguard_core.ingest.request import IngestRequest, run_ingest

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "snapshot"


@pytest.fixture
def ledger(store: Store, tmp_path: Path, repo_name: str) -> str:
    """The fixture snapshot copied under a unique repository name, ingested."""
    owner, name = repo_name.split("/")
    dst = tmp_path / "snap" / "repos" / owner / name
    shutil.copytree(FIXTURE / "repos" / "acme" / "ledger", dst)
    ingest_snapshot(store, tmp_path / "snap")
    return repo_name


def _ids(store: Store, repo: str, cypher: str) -> set[str]:
    return {r["id"] for r in store.repo_graph(repo).read(cypher)}


def test_snapshot_becomes_sources_decisions_claims_actions(store: Store, ledger: str) -> None:
    g = store.repo_graph(ledger)
    decisions = _ids(store, ledger, "MATCH (d:Decision) RETURN d.id AS id")
    assert {"decision:pr:10", "decision:pr:11", "decision:doc:docs/adr/0001-deny-by-default.md"} <= decisions
    assert "decision:pr:13" not in decisions, "a dependabot bump is not a decision"
    assert "decision:pr:15" not in decisions, "an unmerged PR is not a decision"
    (row,) = g.read("MATCH (d:Decision {id: 'decision:pr:10'}) RETURN d.quote AS q")
    assert row["q"] == "Unknown cost stays None and is never coerced to 0, because 0 means free and would under-bill."
    premises = _ids(
        store,
        ledger,
        "MATCH (:Decision {id: 'decision:pr:10'})<-[:JUSTIFIES]-(:Justification)"
        "-[:PREMISE]->(c:Claim) RETURN c.source_id AS id",
    )
    assert "issue:1" in premises, "the fixed issue's problem statement backs the decision"
    alts = g.read("MATCH (a:Alternative)-[:REJECTED_FOR]->(:Decision {id: 'decision:pr:10'}) RETURN a.quote AS q")
    assert any("Instead of returning 0" in a["q"] for a in alts)
    assert g.read("MATCH (:Action {id: 'action:pr:10'})-[:CHANGES]->(f:File) RETURN f.path AS p") == [
        {"p": "ledger/pricing.py"}
    ]


def test_rule_based_edges(store: Store, ledger: str) -> None:
    g = store.repo_graph(ledger)

    def edges(rel: str) -> set[tuple[str, str]]:
        return {(r["a"], r["b"]) for r in g.read(f"MATCH (a)-[:{rel}]->(b) RETURN a.id AS a, b.id AS b")}

    assert ("pr:10", "issue:1") in edges("FIXES") and ("pr:12", "issue:3") in edges("FIXES")
    assert ("pr:11", "issue:2") in edges("REFERENCES")
    assert ("pr:14", "pr:11") in edges("REVERTS")
    assert ("pr:15", "pr:10") in edges("DEPENDS_ON")
    assert ("pr:12", "doc:docs/adr/0001-deny-by-default.md") in edges("ADDS")
    (tp,) = g.read("MATCH (:PR {number: 10})-[t:TOUCHES]->(:File {path: 'ledger/pricing.py'}) RETURN t.patch AS p")
    assert "+    return row.price if row.price is not None else None" in tp["p"]
    bots = g.read("MATCH (p:Person) WHERE p.is_bot RETURN p.login AS l")
    assert bots == [{"l": "dependabot[bot]"}]
    collab = edges("COLLABORATED")
    assert all("dependabot" not in a + b for a, b in collab)
    (doc,) = g.read("MATCH (d:Doc) RETURN d.status AS s")
    assert doc["s"] == "accepted"


def test_every_quote_is_verbatim_with_offsets(store: Store, ledger: str) -> None:
    rows = store.repo_graph(ledger).read(
        "MATCH (x)-[:EVIDENCED_BY]->(f:Fragment)<-[:HAS_FRAGMENT]-(s:Source) "
        "RETURN x.quote AS q, x.start AS a, x.end AS b, s.text AS t, f.text AS ft"
    )
    assert len(rows) >= 10
    for r in rows:
        assert r["t"][r["a"] : r["b"]] == r["q"] == r["ft"]


class _Paraphraser:
    """An extractor that proposes one verbatim and one paraphrased quote per source."""

    name = "paraphraser"

    def extract(self, doc: SourceDoc) -> Proposal:
        real = doc.text.split("\n", 1)[0]
        fake = Candidate(quote="prices are never zero", summary="paraphrase")
        if doc.role == "decision":
            return Proposal(decision=Candidate(real, real), claims=[fake, Candidate(real, real)])
        return Proposal(claims=[fake])


def test_non_verbatim_quotes_are_dropped_and_counted(store: Store, tmp_path: Path, repo_name: str) -> None:
    owner, name = repo_name.split("/")
    shutil.copytree(FIXTURE / "repos" / "acme" / "ledger", tmp_path / "s" / "repos" / owner / name)
    res = ingest_snapshot(store, tmp_path / "s", extractor=_Paraphraser())
    assert res.coverage.quotes_rejected.get("not_verbatim", 0) >= 3
    quotes = {r["q"] for r in store.repo_graph(repo_name).read("MATCH (c:Claim) RETURN c.quote AS q")}
    assert "prices are never zero" not in quotes and quotes


def test_reingest_is_idempotent_and_keeps_corrections(store: Store, ledger: str, tmp_path: Path) -> None:
    g = store.repo_graph(ledger)
    g.query(
        "MATCH (d:Decision {id: 'decision:pr:10'}) SET d.rev = 3, d.label = 'review' "
        "CREATE (:Correction {id: 'corr:test', kind: 'ack'})-[:ABOUT]->(d)"
    )
    before = export_graph(store, ledger)
    owner, name = ledger.split("/")
    shutil.copytree(FIXTURE / "repos" / "acme" / "ledger", tmp_path / "again" / "repos" / owner / name)
    ingest_snapshot(store, tmp_path / "again")
    after = export_graph(store, ledger)

    def canon(x: dict) -> tuple:  # type: ignore[type-arg]
        skip = {"ingested_at", "ingest_source"}
        nodes = sorted(
            json.dumps({k: v for k, v in n["props"].items() if k not in skip}, sort_keys=True) for n in x["nodes"]
        )
        edges = sorted(json.dumps(e, sort_keys=True) for e in x["edges"])
        return nodes, edges

    assert canon(before) == canon(after)
    (d,) = g.read("MATCH (d:Decision {id: 'decision:pr:10'}) RETURN d.rev AS rev, d.label AS label")
    assert d == {"rev": 3, "label": "review"}


def test_export_carries_quotes_in_props(store: Store, ledger: str) -> None:
    data = export_graph(store, ledger)
    quoted = [n for n in data["nodes"] if {"Decision", "Claim", "Alternative"} & set(n["labels"])]
    assert quoted and all(isinstance(n["props"]["quote"], str) and n["props"]["quote"] for n in quoted)
    assert {"src", "dst", "type", "props"} <= set(data["edges"][0])


def test_bad_requests_fail_clearly_and_write_nothing(store: Store, tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="no such folder"):
        run_ingest(store, IngestRequest("snapshot", str(tmp_path / "missing")))
    (tmp_path / "empty").mkdir()
    with pytest.raises(SnapshotError, match="not a snapshot folder"):
        run_ingest(store, IngestRequest("snapshot", str(tmp_path / "empty")))
    with pytest.raises(InvalidInput, match="unknown source"):
        run_ingest(store, IngestRequest("svn", "x"))
    with pytest.raises(InvalidInput, match="needs --repo"):
        run_ingest(store, IngestRequest("git", str(tmp_path)))


def test_cli_ingest_and_export(
    store: Store, tmp_path: Path, repo_name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    owner, name = repo_name.split("/")
    shutil.copytree(FIXTURE / "repos" / "acme" / "ledger", tmp_path / "c" / "repos" / owner / name)
    assert main(["ingest", "snapshot", str(tmp_path / "c"), "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["repo"] == repo_name and out["coverage"]["decisions"] >= 3
    assert main(["export", "--repo", repo_name, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert any(n["id"] == "decision:pr:10" for n in data["nodes"])
    assert main(["export", "--repo", "nobody/none"]) == 2
    assert "ingest it first" in capsys.readouterr().err


def test_anchor_rejects_paraphrase_and_empty() -> None:
    assert anchor("s", "abc def", "def").start == 4  # type: ignore[union-attr]
    assert anchor("s", "abc def", "xyz").reason == "not_verbatim"  # type: ignore[union-attr]
    assert anchor("s", "abc def", "  ").reason == "empty"  # type: ignore[union-attr]


def test_pr_url_ingests_that_prs_file_history_then_the_pr(store: Store) -> None:
    from tests.github_server import GitHubServer

    root = Path(__file__).resolve().parent / "fixtures" / "github"
    with GitHubServer(root) as gh:
        res = run_ingest(store, IngestRequest("github", "https://github.com/acme/widgets/pull/24", api_url=gh.url))
    assert res.repo == "acme/widgets"
    prs = {r["n"] for r in store.repo_graph("acme/widgets").read("MATCH (p:PR) RETURN p.number AS n")}
    # #24 touches widgets/cache.py and widgets/api.py; #21 touched the same files before it; the rest did not
    assert prs == {21, 24}
    assert res.coverage.decisions >= 1


def test_github_ingest_of_an_unknown_repo_writes_nothing(store: Store) -> None:
    from rguard_core.errors import RepoNotFound
    from tests.github_server import GitHubServer

    root = Path(__file__).resolve().parent / "fixtures" / "github"
    with GitHubServer(root) as gh, pytest.raises(RepoNotFound, match="nothing was written"):
        run_ingest(store, IngestRequest("github", "acme/nothing-here", api_url=gh.url))
    assert "acme/nothing-here" not in store.list_repos()

"""Incremental ingest: appending a range of history gives the graph a full ingest of it gives (same sources,
decisions, support, reverts, EDITED counts and COLLABORATED weights), for git ranges and snapshot windows."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest

from rguard_core.commands.main import main
from rguard_core.db import Graph, Store
from rguard_core.errors import GitSourceError, InvalidInput
from rguard_core.ingest.pipeline import ingest_git, ingest_snapshot
from tests.conftest import realdata_or_skip
from tests.test_ingest_git import GitRepo

ALICE = ("Alice Doe", "alice@example.com")
BOB = ("Bob Roe", "bob@example.com")
CARA = ("Cara Poe", "cara@example.com")


def _history(gr: GitRepo) -> dict[str, str]:
    shas = {}
    shas["init"] = gr.commit(
        "Initial layout", {"app/core.py": "VALUE = 1\n", "app/io.py": "def read():\n    return 1\n"}
    )
    gr.git("commit", "-q", "--allow-empty", "-m", "noop", author=BOB)
    shas["a"] = gr.commit(
        "Use a bounded queue (#3)\n\nWe use a bounded queue because an unbounded one leaks memory.",
        {"app/queue.py": "QUEUE_MAX = 100\n"},
    )
    gr.write("app/io.py", "def read():\n    return 2\n")
    gr.git("add", "-A")
    gr.git("commit", "-q", "-m", "Read twice as much (#4)\n\nThis change makes reads return 2, see #3.", author=BOB)
    shas["mid"] = gr.git("rev-parse", "HEAD").strip()
    gr.write("app/core.py", "VALUE = 2\n")
    gr.git("add", "-A")
    gr.git("commit", "-q", "-m", "Value two (#5)\n\nWe now use two as the value because one was wrong.", author=CARA)
    gr.git("revert", "--no-edit", shas["a"], author=BOB)  # a revert of a change the graph already holds
    gr.write("app/io.py", "def read():\n    return 3\n")
    gr.git("add", "-A")
    gr.git("commit", "-q", "-m", "Read three (#7)\n\nThis change makes reads return 3.", author=ALICE)
    shas["head"] = gr.git("rev-parse", "HEAD").strip()
    return shas


def _state(g: Graph) -> dict[str, Any]:
    def rows(q: str) -> list[tuple[Any, ...]]:
        return sorted(tuple(r.values()) for r in g.read(q))

    return {
        "sources": rows("MATCH (s:Source) RETURN s.id AS id"),
        "decisions": rows("MATCH (d:Decision) RETURN d.id AS id, d.holds AS h, d.status AS s, d.reverted_by AS r"),
        "claims": rows("MATCH (c:Claim) RETURN c.id AS id, c.holds AS h"),
        "reverts": rows("MATCH (a:Source)-[:REVERTS]->(b:Source) RETURN a.id AS a, b.id AS b"),
        "edited": rows(
            "MATCH (p:Person)-[e:EDITED]->(f:File) RETURN p.id AS p, f.id AS f, e.count AS n, e.last_at AS t"
        ),
        "collab": rows("MATCH (a:Person)-[e:COLLABORATED]->(b:Person) RETURN a.id AS a, b.id AS b, e.weight AS w"),
        "people": rows("MATCH (p:Person) RETURN p.id AS id, p.last_active AS t"),
        "touches": rows("MATCH (s:Source)-[t:TOUCHES]->(f:File) RETURN s.id AS s, f.id AS f"),
        "justifications": rows("MATCH (j:Justification)-[:JUSTIFIES]->(d:Decision) RETURN j.id AS j, d.id AS d"),
    }


def _repo() -> str:
    return f"inc-{uuid.uuid4().hex[:8]}/demo"


def test_git_append_equals_full_ingest(store: Store, tmp_path: Path) -> None:
    gr = GitRepo(tmp_path / "r")
    shas = _history(gr)
    full, inc = _repo(), _repo()
    ingest_git(store, gr.root, full)
    ingest_git(store, gr.root, inc, until=shas["mid"])
    res = ingest_git(store, gr.root, inc, since=shas["mid"])
    assert res.coverage.commits == 3
    try:
        a, b = _state(store.repo_graph(full)), _state(store.repo_graph(inc))
        for key in a:
            assert a[key] == b[key], key
        # the revert landed in the append: the reverted decision (already in the graph) no longer holds as decided
        dec = {r[0]: r for r in b["decisions"]}
        assert dec["decision:pr:3"][2] == "superseded" and dec["decision:pr:3"][3].startswith("commit:")
        assert any(w == 1 for _, _, w in b["collab"])  # Alice and Cara both edited app/core.py
    finally:
        store.repo_graph(full).delete()
        store.repo_graph(inc).delete()


def test_git_append_is_idempotent_and_checks_revisions(store: Store, tmp_path: Path) -> None:
    gr = GitRepo(tmp_path / "r")
    shas = _history(gr)
    repo = _repo()
    ingest_git(store, gr.root, repo, until=shas["mid"])
    ingest_git(store, gr.root, repo, since=shas["mid"])
    try:
        once = _state(store.repo_graph(repo))
        with pytest.raises(GitSourceError, match="--since 'nope' is not a commit"):
            ingest_git(store, gr.root, repo, since="nope")
        with pytest.raises(InvalidInput, match="--since needs a revision"):
            ingest_git(store, gr.root, repo, since="--all")
        assert _state(store.repo_graph(repo)) == once  # nothing written by the failed appends
        # CLI
        assert main(["ingest", "git", str(gr.root), "--repo", repo, "--since", shas["head"], "--quiet"]) == 0
        state = _state(store.repo_graph(repo))
        assert state["sources"] == once["sources"]
    finally:
        store.repo_graph(repo).delete()


def _snapshot_copy(tmp_path: Path, owner: str) -> tuple[Path, str]:
    """The starlette snapshot under a unique owner, so its graph is this test's alone."""
    src = realdata_or_skip() / "github" / "repos" / "Kludex" / "starlette"
    dst = tmp_path / "snap" / "repos" / owner / "starlette"
    shutil.copytree(src, dst)
    return tmp_path / "snap", f"{owner}/starlette"


def test_snapshot_window_append_equals_full_ingest(store: Store, tmp_path: Path) -> None:
    root_full, full = _snapshot_copy(tmp_path / "a", f"full-{uuid.uuid4().hex[:6]}")
    root_inc, inc = _snapshot_copy(tmp_path / "b", f"inc-{uuid.uuid4().hex[:6]}")
    try:
        ingest_snapshot(store, root_full)
        ingest_snapshot(store, root_inc, merged_before="2023-01-01")
        res = ingest_snapshot(store, root_inc, merged_after="2023-01-01")
        assert 0 < res.coverage.pulls < 50
        a, b = _state(store.repo_graph(full)), _state(store.repo_graph(inc))
        for key in ("decisions", "reverts", "edited", "collab", "people", "justifications"):
            assert a[key] == b[key], key
        assert a["sources"] == b["sources"]
    finally:
        store.repo_graph(full).delete()
        store.repo_graph(inc).delete()


def test_snapshot_cli_window_and_bad_bounds(store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, repo = _snapshot_copy(tmp_path, f"cli-{uuid.uuid4().hex[:6]}")
    try:
        assert main(["ingest", "snapshot", str(root), "--until-pr", "2435", "--quiet", "--json"]) == 0
        capsys.readouterr()
        g = store.repo_graph(repo)
        assert not g.read("MATCH (p:PR {number: 2649}) RETURN p.id AS id")
        assert g.read("MATCH (d:Decision {source_id: 'pr:2435'}) RETURN d.status AS s") == [{"s": "active"}]
        assert main(["ingest", "snapshot", str(root), "--since-pr", "2435", "--quiet"]) == 0
        capsys.readouterr()
        # "This reverts #2435." in #2649's body: the decision no longer shows as holding
        row = g.read("MATCH (d:Decision {source_id: 'pr:2435'}) RETURN d.status AS s, d.reverted_by AS r")
        assert row == [{"s": "superseded", "r": "pr:2649"}]
        assert main(["ingest", "snapshot", str(root), "--since-pr", "999999", "--quiet"]) == 2
        assert "no pull request #999999" in capsys.readouterr().err
        assert main(["ingest", "snapshot", str(root), "--merged-after", "yesterday", "--quiet"]) == 2
        assert "needs a date" in capsys.readouterr().err
    finally:
        store.repo_graph(repo).delete()


def test_revert_chain_at_ingest_and_in_premises(store: Store, tmp_path: Path) -> None:
    """A, then B reverting A, then C reverting B: A stands again, B is reverted; appended one by one too."""
    from rguard_core.guard import premises

    gr = GitRepo(tmp_path / "chain")
    gr.commit("Initial layout", {"app/core.py": "VALUE = 1\n"})
    a = gr.commit("Use two as the value\n\nWe use two because one overflowed.", {"app/core.py": "VALUE = 2\n"})
    gr.git("revert", "--no-edit", a)
    b = gr.git("rev-parse", "HEAD").strip()
    gr.git("revert", "--no-edit", b)
    c = gr.git("rev-parse", "HEAD").strip()
    r7 = next(r for r in premises.RULES if r.id == "R7")
    for how in ("full", "append"):
        repo = _repo()
        if how == "full":
            ingest_git(store, gr.root, repo)
        else:
            ingest_git(store, gr.root, repo, until=a)
            ingest_git(store, gr.root, repo, since=a, until=b)
            ingest_git(store, gr.root, repo, since=b)
        g = store.repo_graph(repo)
        try:
            st = {
                r["s"]: (r["status"], r["by"])
                for r in g.read("MATCH (d:Decision) RETURN d.source_id AS s, d.status AS status, d.reverted_by AS by")
            }
            assert st[f"commit:{a}"] == ("active", None), how
            assert st[f"commit:{b}"] == ("superseded", f"commit:{c}"), how
            fired = {d for d, _ in premises.run_rule(g, r7, [f"decision:commit:{a}", f"decision:commit:{b}"], 365)}
            assert fired == {f"decision:commit:{b}"}, how
        finally:
            g.delete()


def _decisions(g: Graph) -> set[str]:
    return {r["id"] for r in g.read("MATCH (d:Decision) RETURN d.id AS id")}


def test_github_since_auto_reads_only_what_changed(store: Store, tmp_path: Path) -> None:
    """`ingest github --since auto` against the local REST server: a first run with no graph is a full ingest; a
    run where nothing changed costs two requests (the repository, and the listing: a 304 once its ETag is known);
    three PRs merged
    since are appended with a fraction of the full run's requests, and the graph equals a full ingest's."""
    from rguard_core.ingest.pipeline import ingest_github
    from rguard_core.seed import DEMO_SNAPSHOT
    from tests.github_server import GitHubServer

    owner = f"gh{uuid.uuid4().hex[:10]}"
    root = tmp_path / "snap"
    dest = root / "repos" / owner / "tollgate"
    shutil.copytree(DEMO_SNAPSHOT / "repos" / "acme" / "tollgate", dest)
    aside = tmp_path / "aside"
    aside.mkdir()
    later = (59, 60, 61)  # the three last merged PRs: "merged since" the first run
    for n in later:
        for p in (dest / "pulls").glob(f"{n}*"):
            shutil.move(str(p), aside / p.name)
    repo = f"{owner}/tollgate"
    graph = store.repo_graph(repo)
    try:
        with GitHubServer(root) as gh:
            first = ingest_github(store, repo, api_url=gh.url, token="t", since="auto")
            assert first.requests and first.requests > 20 and not first.not_modified
            before = _decisions(graph)
            assert not {f"decision:pr:{n}" for n in later} & before

            # the first incremental run lists by update (stops at once: nothing newer) and keeps that page's ETag
            quiet = ingest_github(store, repo, api_url=gh.url, token="t", since="auto")
            assert quiet.requests == 2 and not quiet.not_modified
            same = ingest_github(store, repo, api_url=gh.url, token="t", since="auto")
            assert same.not_modified and same.requests == 2
            assert gh.log[-1].headers.get("if-none-match")
            assert [r.status for r in gh.log[-1:]] == [304]
            assert _decisions(graph) == before

            for p in aside.iterdir():
                shutil.move(str(p), dest / "pulls" / p.name)
            for i, n in enumerate(later):  # they land now: merged (and so updated) after everything listed so far
                f = dest / "pulls" / f"{n}.json"
                raw = json.loads(f.read_text(encoding="utf-8"))
                raw.update(merged_at=f"2026-11-0{i + 1}T10:00:00Z", updated_at=f"2026-11-0{i + 1}T10:00:00Z")
                raw["closed_at"] = raw["merged_at"]
                f.write_text(json.dumps(raw), encoding="utf-8")
            grown = ingest_github(store, repo, api_url=gh.url, token="t", since="auto")
            assert not grown.not_modified and grown.requests < first.requests / 3
            assert {f"decision:pr:{n}" for n in later} <= _decisions(graph)
            listed = [r for r in gh.log if r.path.endswith("/pulls")]
            assert listed[-1].query.get("sort") == "updated"
            after = _decisions(graph)
    finally:
        graph.delete()

    whole = f"{owner}w/tollgate"
    shutil.copytree(dest, root / "repos" / f"{owner}w" / "tollgate")
    try:
        ingest_snapshot(store, root, repo=whole)
        assert _decisions(store.repo_graph(whole)) == after  # the appended graph holds what a full ingest does
    finally:
        store.repo_graph(whole).delete()


def test_github_since_refuses_a_bad_date(store: Store) -> None:
    from rguard_core.ingest.pipeline import ingest_github

    with pytest.raises(InvalidInput, match="--since needs a date"):
        ingest_github(store, "acme/nothing", api_url="http://127.0.0.1:9", token="t", since="last tuesday")

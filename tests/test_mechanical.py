"""Mechanical changes are sources, not decisions (ingest/mechanical.py); every decision says why it was
extracted; the extraction precision on the labelled starlette data; reverts at ingest in every form."""

from __future__ import annotations

import json

import pytest

from rguard_core.ingest.build import build_graph
from rguard_core.ingest.collect import collect_history
from rguard_core.ingest.extract.offline import OfflineExtractor
from rguard_core.ingest.mechanical import mechanical_rule
from rguard_core.ingest.model import Commit, FileChange, PullRequest, RepoHistory
from rguard_core.ingest.rest import SnapshotSource
from tests.conftest import realdata_or_skip


def fc(path: str, patch: str = "@@ -1 +1 @@\n-a = 1\n+a = 2\n") -> FileChange:
    return FileChange(path=path, patch=patch)


@pytest.mark.parametrize(
    ("title", "files", "bot", "rule"),
    [
        ("Release 1.4.0", [fc("pyproject.toml")], False, "M1"),
        ("0.38.2", [fc("starlette/__init__.py")], False, "M1"),
        (
            "Tidy",
            [
                fc("pkg/__init__.py", '@@ -1 +1 @@\n-__version__ = "1.2.3"\n+__version__ = "1.2.4"\n'),
                fc("CHANGELOG.md", "@@ -1 +1,2 @@\n+## 1.2.4\n"),
            ],
            False,
            "M1",
        ),
        ("Bump mkdocs-material from 9.1.17 to 9.4.7", [fc("requirements.txt")], False, "M2"),
        ("chore(deps): update actions/checkout", [fc(".github/workflows/ci.yml")], False, "M2"),
        ("Sync", [fc("requirements-dev.txt"), fc("poetry.lock")], False, "M2"),
        ("Refresh", [fc("poetry.lock"), fc("web/package-lock.json")], False, "M5"),
        ("Fix typo in docs", [fc("docs/index.md")], False, "M3"),
        ("Fix typo", [fc("app/x.py")], False, "M3"),
        ("Update README", [fc("README.md")], False, "M3"),
        ("Run black", [fc("app/x.py")], False, "M4"),
        ("Tidy up", [fc("app/x.py", "@@ -1 +1 @@\n-x=foo( 1,2 )\n+x = foo(1, 2)\n")], False, "M4"),
        ("Cache pip in CI", [fc(".github/workflows/test.yml"), fc(".pre-commit-config.yaml")], False, "M6"),
        ("Add thing", [fc("app/x.py")], True, "M7"),
    ],
)
def test_mechanical_rules(title: str, files: list[FileChange], bot: bool, rule: str) -> None:
    assert mechanical_rule(title, files, bot) == rule


@pytest.mark.parametrize(
    ("title", "files"),
    [
        ("Use hmac.compare_digest for tokens", [fc("app/auth.py")]),
        ("Fix typo that broke session expiry", [fc("app/session.py", "@@ -1,20 +1,20 @@\n" + "-x\n+y\n" * 15)]),
        ("Reject absolute paths in StaticFiles", [fc("starlette/staticfiles.py"), fc("tests/test_static.py")]),
        ("Version the API under /v2", [fc("app/routes.py")]),
    ],
)
def test_decisions_are_not_mechanical(title: str, files: list[FileChange]) -> None:
    assert mechanical_rule(title, files) is None


def test_mechanical_commits_and_prs_stay_sources_and_reverts_of_bumps_too() -> None:
    h = RepoHistory(repo="o/r")
    h.person("alice")
    h.person("dependabot[bot]")
    h.pulls = [
        PullRequest(
            1,
            "Bump requests from 2.0 to 2.1",
            "Bumps requests.",
            "dependabot[bot]",
            "closed",
            True,
            merged_at="2024-01-01T00:00:00Z",
            files=[fc("requirements.txt")],
        ),
        PullRequest(
            2,
            "Keep sessions server side",
            "We decided to keep sessions server side because cookies leak.",
            "alice",
            "closed",
            True,
            merged_at="2024-01-02T00:00:00Z",
            files=[fc("app/s.py")],
        ),
        PullRequest(
            3,
            "Go back to the old requests",
            "Reverts #1: it broke uploads.",
            "alice",
            "closed",
            True,
            merged_at="2024-01-03T00:00:00Z",
            files=[fc("setup.cfg")],
        ),
    ]
    h.commits = [Commit("c" * 40, "Fix typo in README\n", "alice", "2024-01-04T00:00:00Z", files=[fc("README.md")])]
    b, _ = build_graph(h, OfflineExtractor())
    decisions = {k: v for lbl, rows in b.nodes.items() if "Decision" in lbl for k, v in rows.items()}
    assert set(decisions) == {"decision:pr:2"}
    assert decisions["decision:pr:2"]["extracted_because"].startswith("cue words:")
    prs = b.nodes[("Source", "PR")]
    assert prs["pr:1"]["mechanical"] == "M7" and prs["pr:3"]["mechanical"] == "M8"
    assert b.nodes[("Source", "Commit")][f"commit:{'c' * 40}"]["mechanical"] == "M3"
    assert (("pr:3", "pr:1")) in b.edges[("REVERTS", "Source", "Source")]


PRECISION_MIN = 0.95


def test_extraction_precision_on_labelled_starlette() -> None:
    """Labels: provenance/starlette.json's role per PR. decision/reverted/revert PRs state a decision (or the
    undoing of one); noise-* PRs (releases, typo fixes, dependabot) do not. Precision = extracted decisions
    whose PR states one / extracted decisions."""
    root = realdata_or_skip()
    roles = {
        int(n): p["role"] for n, p in json.loads((root / "provenance" / "starlette.json").read_text())["pulls"].items()
    }
    hist = collect_history(SnapshotSource(root / "github"), max_prs=10_000)
    b, _ = build_graph(hist, OfflineExtractor())
    decisions = {v["source_id"]: v for lbl, rows in b.nodes.items() if "Decision" in lbl for v in rows.values()}
    extracted = {int(s[3:]) for s in decisions if s.startswith("pr:")}
    stating = {n for n, r in roles.items() if r in ("decision", "reverted", "revert")}
    noise = {n for n, r in roles.items() if r.startswith("noise")}
    precision = len(extracted & stating) / len(extracted)
    print(
        f"\nstarlette extraction: {len(extracted)} decisions, precision {precision:.2f}, "
        f"{len({n for n, r in roles.items() if r == 'decision'} & extracted)}/30 decision PRs, "
        f"noise kept as sources {len(noise - extracted)}/{len(noise)}"
    )
    assert precision >= PRECISION_MIN
    assert not noise & extracted
    assert {n for n, r in roles.items() if r == "decision"} <= extracted
    assert all(d.get("extracted_because") for d in decisions.values())


def test_reverted_decisions_do_not_hold_at_ingest(store, repo_name) -> None:  # type: ignore[no-untyped-def]
    """Every revert form on the starlette data: the reverted PR's decision shows as superseded, not holds."""
    from rguard_core.explore.graph_view import decision_status
    from rguard_core.ingest.pipeline import ingest_history

    root = realdata_or_skip()
    hist = collect_history(SnapshotSource(root / "github"), max_prs=10_000)
    hist.repo = repo_name
    ingest_history(store, hist, OfflineExtractor(), "test")
    g = store.repo_graph(repo_name)
    try:
        rows = {
            r["s"]: r
            for r in g.read(
                "MATCH (d:Decision) RETURN d.source_id AS s, d.status AS status, "
                "d.holds AS holds, d.label AS label, d.reverted_by AS by"
            )
        }
        # 2435 by "This reverts #2435.", 1377 by 'Revert "<title>"', 2377 by its sha, 1147 by a pull URL
        for target, by in (
            ("pr:2435", "pr:2649"),
            ("pr:1377", "pr:1681"),
            ("pr:2377", "pr:2525"),
            ("pr:1147", "pr:1512"),
            ("pr:3025", "pr:3044"),
        ):
            r = rows[target]
            assert r["by"] == by, target
            assert decision_status(r["status"], r["holds"], r["label"]) == "superseded", target
        assert decision_status(rows["pr:2671"]["status"], rows["pr:2671"]["holds"], rows["pr:2671"]["label"]) == "holds"
        forms = {
            tuple(r.values()) for r in g.read("MATCH (a:Source)-[e:REVERTS]->(b:Source) RETURN a.id, b.id, e.form")
        }
        assert ("pr:2649", "pr:2435", "number") in forms or ("pr:2649", "pr:2435", "title") in forms
        assert ("pr:2525", "pr:2377", "sha") in forms
        # and a why answer never leads with the reverted decision
        from rguard_core.explore.why import why

        ans = why(store, repo_name, "why ASGI pathsend support")
        got = [(d.receipt.id, d.receipt.status) for d in ans.decisions]
        assert ("decision:pr:2435", "superseded") in got and got[0][1] == "holds", got
    finally:
        g.delete()

"""Guard hop ``import``: a diff to a file next to a decision's file, through a proven import edge."""

from __future__ import annotations

from pathlib import Path

import pytest

from rguard_core.codemap import build_from_git
from rguard_core.db import Store
from rguard_core.guard import run_guard
from rguard_core.guard.import_hop import IMPORT_MAX_SCORE
from rguard_core.ingest.pipeline import ingest_git

from .test_ingest_git import GitRepo

OLD_AUTH = "def check(token, secret):\n    return token == secret\n"
NEW_AUTH = (
    "import hmac\n\n\ndef check(token, secret):\n"
    "    # constant time: == leaks how many leading characters matched\n"
    "    return hmac.compare_digest(token.encode(), secret.encode())\n"
)
API = (
    "from .auth import check\n\nSECRET = 'k'\n\n\ndef handle(req):\n    if not check(req.token, SECRET):\n"
    "        raise PermissionError('bad token')\n    return 'ok'\n"
)


def diff(path: str, old: list[str], new: list[str], ctx_before: list[str], start: int) -> str:
    body = [f" {x}" for x in ctx_before] + [f"-{x}" for x in old] + [f"+{x}" for x in new]
    n_old = len(ctx_before) + len(old)
    n_new = len(ctx_before) + len(new)
    return (
        f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -{start},{n_old} +{start},{n_new} @@\n"
        + "\n".join(body)
        + "\n"
    )


@pytest.fixture
def repo(store: Store, tmp_path: Path, repo_name: str) -> str:
    gr = GitRepo(tmp_path / "clone")
    gr.commit(
        "Initial import",
        {
            "app/__init__.py": "",
            "app/auth.py": OLD_AUTH,
            "app/api.py": API,
            "app/report.py": "def total(rows):\n    return sum(r.amount for r in rows)\n",
        },
    )
    gr.commit(
        "Compare tokens in constant time (#7)\n\nWe compare tokens with hmac.compare_digest because a plain "
        "== comparison leaks timing information to an attacker.\n",
        {"app/auth.py": NEW_AUTH},
    )
    ingest_git(store, gr.root, repo_name)
    build_from_git(store, repo_name, gr.root)
    return repo_name


UNDO = diff(
    "app/api.py", ["    if not check(req.token, SECRET):"], ["    if req.token != SECRET:"], ["def handle(req):"], 6
)
BENIGN = diff(
    "app/api.py",
    ["    return 'ok'"],
    ["    return 'accepted'"],
    ["    if not check(req.token, SECRET):", "        raise PermissionError('bad token')"],
    7,
)


def _by_hop(report: object, hop: str) -> list[object]:
    # the fixture's "Initial import" commit is a decision on every file (touches); PR #7's is on auth.py only
    return [f for f in report.findings if hop in f.hops and f.decision_id == "decision:pr:7"]  # type: ignore[attr-defined]


def test_diff_next_to_a_decision_reaches_it_through_the_import(store: Store, repo: str) -> None:
    report = run_guard(store, repo, UNDO)
    found = _by_hop(report, "import")
    assert found, [f.as_dict() for f in report.findings]
    f = found[0]
    assert f.decision_id == "decision:pr:7"
    assert f.path[:2] == ["file:app/api.py", "file:app/auth.py"]  # the import chain, diff file first
    assert "app/api.py - app/auth.py" in f.reason
    assert f.hops == ["import"] and f.label == "related" and f.score <= IMPORT_MAX_SCORE
    assert "I1" in f.reason and "`check`" in f.reason
    assert any(q["name"] == "candidates.import" for q in report.cypher)


def test_import_only_findings_are_at_most_a_note_unless_the_judge_finds_it(store: Store, repo: str) -> None:
    # the diff changes a literal next to the decided call, using none of the decision's names: dropped
    assert not _by_hop(run_guard(store, repo, BENIGN), "import")


def test_files_without_an_import_edge_to_the_decision_get_nothing(store: Store, repo: str) -> None:
    far = diff(
        "app/report.py",
        ["    return sum(r.amount for r in rows)"],
        ["    return sum(r.amount for r in rows) or 0"],
        ["def total(rows):"],
        1,
    )
    assert not _by_hop(run_guard(store, repo, far), "import")


def test_cap_keeps_the_judges_contradiction_and_caps_the_rest() -> None:
    from rguard_core.guard.diffparse import parse_diff
    from rguard_core.guard.import_hop import cap
    from rguard_core.guard.judge_offline import diff_change_sets
    from rguard_core.guard.model import Candidate, DecisionInfo, Judgement

    info = DecisionInfo(
        "decision:pr:1",
        "s",
        "q",
        "pr:1",
        "pr",
        1,
        None,
        "u",
        "t",
        "active",
        1.0,
        patches={
            "b.py": "@@ -1,2 +1,2 @@\n def verify(token):\n-    return token == KEY\n"
            "+    return hmac.compare_digest(token, KEY)\n"
        },
    )
    sets = diff_change_sets(
        parse_diff(diff("a.py", ["    ok = verify(t)"], ["    ok = t == KEY"], ["def f(t):"], 1)).files
    )
    path = ["file:a.py", "file:b.py", "pr:1", "decision:pr:1"]
    only = Candidate("decision:pr:1", ["import"], path, ["a.py"])
    both = Candidate("decision:pr:1", ["touches", "import"], path, ["a.py"])
    c = cap(only, Judgement("contradicts", 0.8, "undoes it"), sets, info)
    assert c.label == "contradicts" and c.score == 0.8 and "a.py - b.py" in c.reason
    lone = cap(only, Judgement("contradicts", 0.8, "a negated line"), {}, info)  # no name crosses the import
    assert lone.label == "related" and lone.score == IMPORT_MAX_SCORE and "not a warning" in lone.reason
    r = cap(only, Judgement("related", 0.5, "overlap"), sets, info)  # `verify` is defined by the decision's hunk
    assert r.label == "related" and r.score == IMPORT_MAX_SCORE and "`verify`" in r.reason
    assert cap(only, Judgement("related", 0.5, "overlap"), {}, info).label == "unrelated"  # nothing shared: dropped
    assert cap(both, Judgement("related", 0.5, "overlap"), {}, info).score == 0.5  # another hop reached it too

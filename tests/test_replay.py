"""eval replay on histories built here with real git: reverts in each form, partial reverts, a revert of a
revert, cherry-picks, renames, a squash holding branch-internal reverts; and on this project's own clone."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from rguard_core.commands.main import main
from rguard_core.db import Store
from rguard_core.evaluation.history import list_runs
from rguard_core.evaluation.replay import find_reverts, git_steps, plan_cases, run_replay
from tests.conftest import ROOT
from tests.test_ingest_git import GitRepo

AUTH = '''import hmac


def check_token(token, expected):
    """Compare a request token with the stored one."""
    if not token:
        return False
    return token == expected


def token_header(headers):
    return headers.get("X-Token", "")
'''

LIMITS = """MAX_UPLOAD_MB = 10
RETRY_DELAYS = [1, 2, 4]


def upload_allowed(size_mb, user):
    if user.is_admin:
        return True
    return size_mb <= MAX_UPLOAD_MB


def retry_delays():
    return list(RETRY_DELAYS)
"""


def _ordinary(gr: GitRepo, n: int, start: int = 0) -> list[str]:
    """``n`` unrelated feature commits, each adding its own module."""
    out = []
    for i in range(start, start + n):
        body = f"def feature_{i}(x):\n    total_{i} = x * {i + 2}\n    return total_{i} + {i}\n"
        out.append(gr.commit(f"Add feature {i}\n\nFeature {i} computes its own total.", {f"app/feature_{i}.py": body}))
    return out


def _base(gr: GitRepo) -> tuple[str, str]:
    gr.commit("Initial layout", {"app/auth.py": AUTH, "app/limits.py": LIMITS, "README.md": "demo\n"})
    decision = gr.commit(
        "Compare tokens with hmac.compare_digest\n\nWe use hmac.compare_digest instead of == because a plain "
        "comparison leaks timing.",
        {"app/auth.py": AUTH.replace("return token == expected", "return hmac.compare_digest(token, expected)")},
    )
    limits = gr.commit(
        "Uploads are capped at 25 MB for everyone\n\nAdmins no longer bypass the upload cap, because a stolen "
        "admin session could fill the disk.",
        {
            "app/limits.py": LIMITS.replace("MAX_UPLOAD_MB = 10", "MAX_UPLOAD_MB = 25").replace(
                "    if user.is_admin:\n        return True\n", ""
            )
        },
    )
    return decision, limits


def test_reverts_in_every_form_are_found_and_caught(store: Store, tmp_path: Path) -> None:
    gr = GitRepo(tmp_path / "forms")
    decision, limits = _base(gr)
    _ordinary(gr, 4)
    gr.git("revert", "--no-edit", decision)  # git's own form: Revert "<title>" + This reverts commit <sha>
    git_revert = gr.git("rev-parse", "HEAD").strip()
    _ordinary(gr, 3, start=10)
    # a hand-made partial revert naming the change by title only: the admin bypass comes back, the cap stays
    gr.commit(
        'Revert "Uploads are capped at 25 MB for everyone"\n\nAdmins need big uploads again.',
        {"app/limits.py": LIMITS.replace("MAX_UPLOAD_MB = 10", "MAX_UPLOAD_MB = 25")},
    )
    partial = gr.git("rev-parse", "HEAD").strip()
    hist, steps = git_steps(gr.root)
    reverts = find_reverts(steps)
    assert reverts[f"commit:{git_revert}"].target == f"commit:{decision}"
    assert reverts[f"commit:{git_revert}"].form == "sha"
    assert reverts[f"commit:{partial}"].target == f"commit:{limits}"
    assert reverts[f"commit:{partial}"].form == "title"
    assert len(reverts) == 2

    res = run_replay(store, git=gr.root, reverts=10, ordinary=5, seed=1)
    m = res.metrics
    assert m["counts"] == {"revert": 2, "revert_code": 2, "ordinary": 5, "errors": 0}
    by_id = {c.id: c for c in res.cases}
    exact = by_id[f"commit:{git_revert}"]
    assert exact.caught, exact
    assert f"decision:commit:{decision}" in exact.cited
    assert exact.rules  # which rule fired is recorded
    assert by_id[f"commit:{partial}"].caught, by_id[f"commit:{partial}"]
    assert m["catch_rate"] == 1.0
    ordinary = [c for c in res.cases if c.kind == "ordinary"]
    assert all(not c.warned for c in ordinary), [c.as_dict() for c in ordinary if c.warned]
    assert m["ordinary_warn_rate"] == 0.0
    assert all(c.guard_ms > 0 for c in res.cases)
    # the scratch graph is gone afterwards
    assert not any(r.startswith("replay/") for r in store.list_repos())


def test_no_leak_each_case_sees_only_earlier_changes(store: Store, tmp_path: Path) -> None:
    gr = GitRepo(tmp_path / "leak")
    decision, _ = _base(gr)
    gr.git("revert", "--no-edit", decision)
    revert = gr.git("rev-parse", "HEAD").strip()
    _ordinary(gr, 2)
    res = run_replay(store, git=gr.root, reverts=5, ordinary=0, keep_graph=True)
    case = next(c for c in res.cases if c.id == f"commit:{revert}")
    assert case.caught
    # the revert itself never was in the graph it was guarded against, so its decision was still standing:
    # no REVERTS edge to itself, no "reverted by" premise
    assert not any("reverted by" in json.dumps(f) for f in case.findings)
    for name in store.list_repos():
        if name.startswith("replay/"):
            store.repo_graph(name).delete()


def test_revert_of_a_revert_and_cherry_picks(store: Store, tmp_path: Path) -> None:
    gr = GitRepo(tmp_path / "chain")
    decision, _ = _base(gr)
    _ordinary(gr, 2)
    gr.git("revert", "--no-edit", decision)
    first = gr.git("rev-parse", "HEAD").strip()
    _ordinary(gr, 2, start=5)
    gr.git("revert", "--no-edit", first)  # Revert "Revert "…"" (Reapply in newer git): re-does the decision
    second = gr.git("rev-parse", "HEAD").strip()
    # a fix made on a release branch and cherry-picked with -x: an ordinary change, not a revert
    gr.git("checkout", "-q", "-b", "release")
    fix = gr.commit(
        "Log token header reads\n\nToken header reads are logged for audits.",
        {"app/audit.py": "def audit(h):\n    return h.get('X-Token-Audit')\n"},
    )
    gr.git("checkout", "-q", "main")
    gr.git("cherry-pick", "-x", fix)
    picked = gr.git("rev-parse", "HEAD").strip()
    _, steps = git_steps(gr.root)
    reverts = find_reverts(steps)
    assert reverts[f"commit:{first}"].target == f"commit:{decision}"
    assert reverts[f"commit:{second}"].target == f"commit:{first}"
    assert f"commit:{picked}" not in reverts
    assert f"commit:{fix}" not in {s.id for s in steps}  # the release branch is not mainline
    res = run_replay(store, git=gr.root, reverts=5, ordinary=10, seed=3)
    by_id = {c.id: c for c in res.cases}
    assert by_id[f"commit:{first}"].caught
    # the revert of the revert undoes the first revert's change: caught citing that revert
    assert by_id[f"commit:{second}"].caught, by_id[f"commit:{second}"]
    assert by_id[f"commit:{picked}"].kind == "ordinary" and not by_id[f"commit:{picked}"].warned
    # the decision and the first revert are reverted, so neither is an ordinary case
    assert f"commit:{decision}" not in by_id or by_id[f"commit:{decision}"].kind != "ordinary"


def test_rename_then_revert(store: Store, tmp_path: Path) -> None:
    gr = GitRepo(tmp_path / "rename")
    gr.commit("Initial layout", {"app/auth.py": AUTH})
    gr.git("mv", "app/auth.py", "app/tokens.py")
    gr.write("app/tokens.py", AUTH.replace("return token == expected", "return hmac.compare_digest(token, expected)"))
    gr.git("add", "-A")
    gr.git(
        "commit",
        "-q",
        "-m",
        "Move token checks to tokens.py and compare with hmac.compare_digest\n\n"
        "We use hmac.compare_digest because == leaks timing.",
    )
    moved = gr.git("rev-parse", "HEAD").strip()
    _ordinary(gr, 2)
    gr.git("revert", "--no-edit", moved)
    revert = gr.git("rev-parse", "HEAD").strip()
    _, steps = git_steps(gr.root)
    step = next(s for s in steps if s.id == f"commit:{revert}")
    assert any(f.previous_path == "app/tokens.py" and f.path == "app/auth.py" for f in step.files)
    res = run_replay(store, git=gr.root, reverts=5, ordinary=0)
    assert res.cases[0].id == f"commit:{revert}" and res.cases[0].caught, res.cases[0]


def test_revert_of_a_change_whose_file_was_renamed_since(store: Store, tmp_path: Path) -> None:
    """The decision edits app/auth.py, a later commit renames it, then the decision is reverted: the revert's diff
    names only the new path, and REV1-3 follow the rename to the decision's patch on the old one."""
    gr = GitRepo(tmp_path / "renamed-since")
    decision, _ = _base(gr)
    _ordinary(gr, 2)
    gr.git("mv", "app/auth.py", "app/tokens.py")
    gr.git("commit", "-q", "-m", "Rename auth.py to tokens.py")
    _ordinary(gr, 1, start=2)
    gr.git("revert", "--no-edit", decision)
    revert = gr.git("rev-parse", "HEAD").strip()
    _, steps = git_steps(gr.root)
    step = next(s for s in steps if s.id == f"commit:{revert}")
    assert [f.path for f in step.files] == ["app/tokens.py"]
    res = run_replay(store, git=gr.root, reverts=5, ordinary=0)
    case = next(c for c in res.cases if c.id == f"commit:{revert}")
    assert case.caught and {"REV1", "REV2", "REV3"} & set(case.rules), case


def test_a_revert_that_also_renames_the_file(store: Store, tmp_path: Path) -> None:
    """One commit reverts the decision and moves the file: the diff is a rename with the reverted hunk."""
    gr = GitRepo(tmp_path / "revert-and-rename")
    decision, _ = _base(gr)
    _ordinary(gr, 2)
    gr.git("mv", "app/auth.py", "app/tokens.py")
    gr.write("app/tokens.py", AUTH)
    gr.git("add", "-A")
    gr.git("commit", "-q", "-m", f"Move auth to tokens.py\n\nThis reverts commit {decision}.")
    revert = gr.git("rev-parse", "HEAD").strip()
    res = run_replay(store, git=gr.root, reverts=5, ordinary=0)
    case = next(c for c in res.cases if c.id == f"commit:{revert}")
    assert case.caught and {"REV1", "REV2", "REV3"} & set(case.rules), case


def test_squash_with_branch_internal_reverts_is_not_a_revert(store: Store, tmp_path: Path) -> None:
    gr = GitRepo(tmp_path / "squash")
    decision, _ = _base(gr)
    gr.git("checkout", "-q", "-b", "feature")
    b1 = gr.commit("Try a cache for token lookups", {"app/cache.py": "CACHE = {}\n"})
    gr.git("revert", "--no-edit", b1)
    gr.commit("Add token audit", {"app/audit.py": "def audit(h):\n    return h.get('X-Audit')\n"})
    gr.git("checkout", "-q", "main")
    gr.git("merge", "--squash", "-q", "feature")
    body = (
        f'Token audit (#12)\n\n* Try a cache for token lookups\n\n* Revert "Try a cache for token lookups"\n\n'
        f"This reverts commit {b1}.\n\n* Add token audit\n"
    )
    squash = gr.commit(body)
    _ordinary(gr, 2)
    _, steps = git_steps(gr.root)
    assert "pr:12" in {s.id for s in steps}
    reverts = find_reverts(steps)
    assert "pr:12" not in reverts  # its "This reverts commit" names a branch commit, not mainline history
    assert f"commit:{b1}" not in {s.id for s in steps}
    plan = plan_cases(steps, 10, 10, seed=0)
    assert plan.cases.get("pr:12") == "ordinary"
    res = run_replay(store, git=gr.root, reverts=10, ordinary=10)
    case = next(c for c in res.cases if c.id == "pr:12")
    assert case.kind == "ordinary" and not case.warned
    assert squash and decision


def test_cli_json_and_history(store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gr = GitRepo(tmp_path / "cli")
    decision, _ = _base(gr)
    _ordinary(gr, 2)
    gr.git("revert", "--no-edit", decision)
    assert (
        main(["eval", "replay", "--git", str(gr.root), "--reverts", "3", "--ordinary", "2", "--seed", "5", "--json"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["seed"] == 5 and out["metrics"]["counts"]["revert"] == 1
    assert out["metrics"]["catch_rate"] == 1.0
    assert {c["kind"] for c in out["cases"]} == {"revert", "ordinary"}
    runs = list_runs(store.settings, "replay", limit=5).runs
    assert runs and runs[0]["source"] == f"git:{gr.root}" and runs[0]["metrics"]["caught"] == 1
    assert main(["eval", "history", "--kind", "replay"]) == 0
    assert "catch 100.0%" in capsys.readouterr().out


def test_cli_rejects_bad_input(data_dir: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["eval", "replay", "--git", str(tmp_path / "nope"), "--no-save"]) == 2
    assert "does not exist" in capsys.readouterr().err
    gr = GitRepo(tmp_path / "neg")
    gr.commit("one", {"a.py": "x = 1\n"})
    assert main(["eval", "replay", "--git", str(gr.root), "--reverts", "-1", "--no-save"]) == 2


def test_replay_on_this_projects_own_clone(store: Store) -> None:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--is-inside-work-tree"], capture_output=True)
    if done.returncode != 0 or done.stdout.strip() != b"true":
        pytest.skip(f"{ROOT} is not a git checkout")
    count = int(
        subprocess.run(
            ["git", "-C", str(ROOT), "rev-list", "--first-parent", "--count", "HEAD"], capture_output=True, check=True
        ).stdout
    )
    # the newest 60 mainline commits: the test stays bounded as this history grows (the whole clone is README figures)
    res = run_replay(store, git=ROOT, reverts=20, ordinary=10, seed=7, max_commits=60)
    m = res.metrics
    assert m["steps"] == min(count, 60)
    assert m["counts"]["errors"] == 0
    assert m["counts"]["ordinary"] == min(10, m["eligible"]["ordinary"])
    assert m["ordinary_warn_rate"] is not None
    assert all(c.verdict in ("warn", "note", "pass") for c in res.cases)


def test_replay_starlette_snapshot_pr_by_pr(store: Store) -> None:
    """The issue's real-data yardstick: every revert of product code caught, ordinary PRs warned <= 10 %."""
    from tests.conftest import realdata_or_skip

    root = realdata_or_skip()
    res = run_replay(store, snapshot=root / "github", reverts=20, ordinary=50, seed=7)
    m = res.metrics
    print(
        f"\nstarlette replay: code reverts {m['caught_code']}/{m['counts']['revert_code']}, all reverts "
        f"{m['caught']}/{m['counts']['revert']}, ordinary warned {m['ordinary_warned']}/{m['counts']['ordinary']}"
    )
    assert m["steps"] == 50 and m["reverts_found"] == 7
    assert m["revert_forms"] == {"number": 2, "title": 4, "sha": 1}
    assert m["counts"]["revert_code"] >= 4 and m["catch_rate"] >= 0.9
    assert m["ordinary_warn_rate"] <= 0.10
    steps = [c.position for c in res.cases]
    assert steps == sorted(steps)  # guarded in merge order


def test_generated_history_bench_builds_every_revert_form(store: Store, tmp_path: Path) -> None:
    from bench.replay_history import build

    made = build(tmp_path / "gen", 400, 6)
    assert made == {"commits": 400, "reverts": 6}
    res = run_replay(store, git=tmp_path / "gen", reverts=6, ordinary=5, seed=1)
    m = res.metrics
    assert m["steps"] == 400 and m["reverts_found"] == 6
    assert set(m["revert_forms"]) <= {"sha", "title", "number"} and len(m["revert_forms"]) >= 2
    assert m["caught"] == m["counts"]["revert"] == 6


def test_merge_workflow_revert_by_githubs_branch_name(store: Store, tmp_path: Path) -> None:
    """Merge commits: PR #5 merged with --no-ff, then GitHub's Revert button's branch revert-5-… merged as #6."""
    gr = GitRepo(tmp_path / "merges")
    gr.commit("Initial layout", {"app/auth.py": AUTH})
    gr.git("checkout", "-q", "-b", "feature")
    gr.commit(
        "compare digest",
        {"app/auth.py": AUTH.replace("return token == expected", "return hmac.compare_digest(token, expected)")},
    )
    gr.git("checkout", "-q", "main")
    gr.git(
        "merge",
        "-q",
        "--no-ff",
        "feature",
        "-m",
        "Merge pull request #5 from me/feature\n\nCompare tokens with hmac.compare_digest\n\n"
        "We use hmac.compare_digest because == leaks timing.",
    )
    merge5 = gr.git("rev-parse", "HEAD").strip()
    _ordinary(gr, 2)
    gr.git("checkout", "-q", "-b", "revert-5-feature")
    gr.git("revert", "--no-edit", "-m", "1", merge5)
    gr.git("checkout", "-q", "main")
    gr.git(
        "merge",
        "-q",
        "--no-ff",
        "revert-5-feature",
        "-m",
        "Merge pull request #6 from me/revert-5-feature\n\nUndo the token change\n\nIt broke old clients.",
    )
    _, steps = git_steps(gr.root)
    reverts = find_reverts(steps)
    assert reverts["pr:6"].target == "pr:5" and reverts["pr:6"].form == "branch"
    res = run_replay(store, git=gr.root, reverts=5, ordinary=0)
    assert res.cases[0].id == "pr:6" and res.cases[0].caught, res.cases[0]


def test_a_case_the_guard_fails_on_is_counted_not_fatal(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rguard_core.guard.run as guard_run

    gr = GitRepo(tmp_path / "err")
    decision, _ = _base(gr)
    _ordinary(gr, 3)
    gr.git("revert", "--no-edit", decision)
    real = guard_run.run_guard

    def flaky(store_: Store, repo: str, diff: str, **kw: object):  # type: ignore[no-untyped-def]
        if "feature_1" in diff:
            raise KeyError("boom")
        return real(store_, repo, diff, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(guard_run, "run_guard", flaky)
    res = run_replay(store, git=gr.root, reverts=5, ordinary=5)
    bad = [c for c in res.cases if c.verdict == "error"]
    assert len(bad) == 1 and bad[0].error == "KeyError: 'boom'"
    assert res.metrics["counts"]["errors"] == 1 and res.metrics["catch_rate"] == 1.0


def test_revert_of_a_commit_a_merge_brought_in(store: Store, tmp_path: Path) -> None:
    """Merge workflow: `git revert <branch commit>` on main reverts the PR whose merge brought that commit in."""
    gr = GitRepo(tmp_path / "branchrevert")
    gr.commit("Initial layout", {"app/auth.py": AUTH, "app/limits.py": LIMITS})
    gr.git("checkout", "-q", "-b", "feature")
    inner = gr.commit(
        "compare digest",
        {"app/auth.py": AUTH.replace("return token == expected", "return hmac.compare_digest(token, expected)")},
    )
    gr.commit("cap uploads", {"app/limits.py": LIMITS.replace("MAX_UPLOAD_MB = 10", "MAX_UPLOAD_MB = 25")})
    gr.git("checkout", "-q", "main")
    gr.git(
        "merge",
        "-q",
        "--no-ff",
        "feature",
        "-m",
        "Merge pull request #8 from me/feature\n\nHarden tokens\n\nWe use hmac.compare_digest because == leaks timing.",
    )
    _ordinary(gr, 2)
    gr.git("revert", "--no-edit", inner)
    revert = gr.git("rev-parse", "HEAD").strip()
    _, steps = git_steps(gr.root)
    assert f"commit:{inner}" not in {s.id for s in steps}
    rv = find_reverts(steps)[f"commit:{revert}"]
    assert rv.target == "pr:8" and rv.form == "sha"
    res = run_replay(store, git=gr.root, reverts=5, ordinary=0)
    assert res.cases[0].caught, res.cases[0]


def test_a_branch_merge_cites_the_commit_that_wrote_the_lines(store: Store, tmp_path: Path) -> None:
    """``Merge branch '2.0.x'`` names no PR: the fix made on the branch is the decision, and a later change on main
    that undoes it is found citing that fix, not the merge (lineage through the merge)."""
    gr = GitRepo(tmp_path / "maint")
    gr.commit("Initial layout", {"app/auth.py": AUTH, "app/limits.py": LIMITS})
    gr.git("checkout", "-q", "-b", "2.0.x")
    fix = gr.commit(
        "Compare tokens with hmac.compare_digest\n\nWe use hmac.compare_digest instead of == because a plain "
        "comparison leaks timing.",
        {"app/auth.py": AUTH.replace("return token == expected", "return hmac.compare_digest(token, expected)")},
    )
    gr.git("checkout", "-q", "main")
    _ordinary(gr, 2)
    gr.git("merge", "-q", "--no-ff", "2.0.x", "-m", "Merge branch '2.0.x'")
    merge = gr.git("rev-parse", "HEAD").strip()
    _ordinary(gr, 2, start=2)
    undo = gr.commit("Simplify the token check", {"app/auth.py": AUTH})
    _, steps = git_steps(gr.root)
    ids = [s.id for s in steps]
    assert f"commit:{fix}" not in ids and f"commit:{merge}" in ids  # the fix lands with its merge
    (step,) = [s for s in steps if s.id == f"commit:{merge}"]
    assert [c.sha for c in step.branch] == [fix]
    res = run_replay(store, git=gr.root, reverts=0, ordinary=10, seed=1)
    (case,) = [c for c in res.cases if c.id == f"commit:{undo}"]
    assert case.verdict == "warn" and case.cited == (f"decision:commit:{fix}",), case
    assert not any(f"decision:commit:{merge}" in c.cited for c in res.cases)


def test_a_fix_re_applied_as_its_revert_said_is_not_warned(store: Store, tmp_path: Path) -> None:
    """S16 on the real store: the revert's own text ("landed on main accidentally … will be re-applied") is read
    from the graph, and the change that puts the fix back is at most related, quoting those words."""
    gr = GitRepo(tmp_path / "provisional")
    gr.commit("Initial layout", {"app/auth.py": AUTH, "app/limits.py": LIMITS})
    fix = gr.commit(
        "Compare tokens with hmac.compare_digest\n\nWe use hmac.compare_digest instead of == because a plain "
        "comparison leaks timing.",
        {"app/auth.py": AUTH.replace("return token == expected", "return hmac.compare_digest(token, expected)")},
    )
    _ordinary(gr, 2)
    gr.git("revert", "--no-edit", fix)
    gr.git(
        "commit",
        "-q",
        "--amend",
        "-m",
        'Revert "Compare tokens with hmac.compare_digest"\n\nThis reverts commit '
        f"{fix}.\n\nThat commit landed on main accidentally. The work will be re-applied via PR.",
    )
    _ordinary(gr, 2, start=2)
    again = gr.commit(
        "Compare tokens in constant time (#12)",
        {"app/auth.py": AUTH.replace("return token == expected", "return hmac.compare_digest(token, expected)")},
    )
    res = run_replay(store, git=gr.root, reverts=0, ordinary=10, seed=1)
    (case,) = [c for c in res.cases if c.id in (f"commit:{again}", "pr:12")]
    assert case.verdict != "warn", case
    said = [f for f in case.findings if "S16" in [str(r) for r in (f.get("rules") or [])]]
    assert said and "landed on main accidentally" in str(said[0].get("reason")), case.findings

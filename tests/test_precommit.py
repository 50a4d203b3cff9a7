"""The pre-commit hook on a real git repository in tmp_path, through the CLI and through pre-commit itself."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rguard_core.commands.main import main
from rguard_core.db import Store
from rguard_core.precommit import _REMOTE
from tests.agents_seed import CASE, load_seed
from tests.conftest import ROOT
from tests.fixtures.guard.seed_cases import TREE


@pytest.fixture(scope="module")
def seed(store: Store) -> str:
    return load_seed(store)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A git repository holding the seed's tree, committed once."""
    repo = tmp_path / "tollgate"
    shutil.copytree(TREE, repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "dev@example.com")
    git(repo, "config", "user.name", "Dev")
    git(repo, "config", "commit.gpgsign", "false")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "seed tree")
    return repo


def stage_case(repo: Path, case_id: str) -> None:
    _, _, _, path, old, new = CASE[case_id]
    f = repo / path
    f.write_text(f.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    git(repo, "add", path)


def run(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    monkeypatch.chdir(repo / "tollgate")  # anywhere inside the working tree
    rc = main(["precommit", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_staged_contradiction_warns_one_line_with_quote_and_link(
    seed: str, work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stage_case(work, "cost-default-zero")
    (work / "tollgate" / "clock.py").write_text("# not staged: the hook must not see this\n", encoding="utf-8")
    rc, out, _ = run(work, monkeypatch, capsys, "--repo", seed, "--fail-on-warn")
    assert rc == 3
    head, *lines = out.strip().splitlines()
    assert head.startswith(f"rguard: warn on the staged change against {seed} (--repo), 1 finding(s)")
    assert lines == [
        'WARN tollgate/pricing.py: contradicts decision:pr:20 "Unknown cost stays None and is never '
        'coerced to 0, because 0 means free and would under-bill." '
        "https://github.com/acme/tollgate/pull/20"
    ]
    rc, _, _ = run(work, monkeypatch, capsys, "--repo", seed)
    assert rc == 0  # warns without blocking unless --fail-on-warn


def test_benign_and_empty_stages_pass(
    seed: str, work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, _, err = run(work, monkeypatch, capsys, "--repo", seed, "--fail-on-warn")
    assert rc == 0 and "nothing staged" in err
    stage_case(work, "readme-typo")
    rc, out, _ = run(work, monkeypatch, capsys, "--repo", seed, "--fail-on-warn")
    assert rc == 0 and out.startswith("rguard: pass") and len(out.strip().splitlines()) == 1


def test_repo_from_config_file_then_git_remote(
    seed: str, work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stage_case(work, "hmac-eq")
    rc, _, err = run(work, monkeypatch, capsys, "--strict")
    assert rc == 2 and "pass --repo OWNER/NAME" in err and ".rguard.yaml" in err
    git(work, "remote", "add", "origin", "git@github.com:acme/tollgate.git")
    rc, out, _ = run(work, monkeypatch, capsys, "--fail-on-warn")
    assert rc == 3 and "(git remote origin)" in out and "decision:pr:9" in out
    (work / ".rguard.yaml").write_text("repo: nobody/nothing\n", encoding="utf-8")
    rc, _, err = run(work, monkeypatch, capsys, "--strict")
    assert rc == 2 and "no graph for repository 'nobody/nothing'" in err
    (work / ".rguard.yaml").write_text(f"repo: {seed}\n", encoding="utf-8")
    rc, out, _ = run(work, monkeypatch, capsys, "--fail-on-warn")
    assert rc == 3 and "(.rguard.yaml)" in out


@pytest.mark.parametrize(
    "url,repo",
    [
        ("https://github.com/acme/tollgate.git", "acme/tollgate"),
        ("git@github.com:acme/tollgate.git", "acme/tollgate"),
        ("ssh://git@github.com/acme/tollgate", "acme/tollgate"),
        ("https://github.com/a-b/c.d/", "a-b/c.d"),
    ],
)
def test_remote_urls(url: str, repo: str) -> None:
    m = _REMOTE.search(url)
    assert m and f"{m['owner']}/{m['name']}" == repo


def test_outside_a_git_repository_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["precommit", "--repo", "acme/tollgate", "--strict"]) == 2
    assert "git rev-parse --show-toplevel failed" in capsys.readouterr().err
    assert main(["precommit", "--repo", "acme/tollgate"]) == 0  # fails open: the commit is not blocked
    err = capsys.readouterr().err
    assert err.startswith("rguard: commit not checked: git rev-parse") and len(err.strip().splitlines()) == 1


@pytest.mark.db  # it asks the store whether the graph is there: the engine starts
def test_a_missing_graph_lets_the_commit_through_with_the_next_step(
    work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stage_case(work, "idle-8h")
    monkeypatch.chdir(work)
    assert main(["precommit", "--repo", "nobody/nothing", "--fail-on-warn"]) == 0
    err = capsys.readouterr().err.strip()
    assert "commit not checked" in err and "rguard ingest git ." in err and len(err.splitlines()) == 1
    assert main(["precommit", "--repo", "nobody/nothing", "--strict"]) == 2


def test_hook_runs_under_pre_commit(seed: str, work: Path, data_dir: Path, tmp_path: Path) -> None:
    """The .pre-commit-hooks.yaml entry, run by pre-commit itself (try-repo) in the tmp repository."""
    pre_commit = shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    if pre_commit is None:
        pytest.skip("pre-commit is not installed in this environment")
    stage_case(work, "idle-8h")
    env = {k: v for k, v in os.environ.items() if k != "FALKORDB_URL"}
    env.update(
        {
            "RGUARD_DATA_DIR": str(data_dir),
            "PYTHONPATH": str(ROOT),
            "PRE_COMMIT_HOME": str(tmp_path / "pc"),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        }
    )
    (work / ".rguard.yaml").write_text(f"repo: {seed}\n", encoding="utf-8")
    git(work, "add", ".rguard.yaml")
    # the hook repository: this checkout's .pre-commit-hooks.yaml, committed (try-repo reads committed files)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    shutil.copy(ROOT / ".pre-commit-hooks.yaml", hooks)  # the language: system hook needs only this file
    git(hooks, "init", "-q", "-b", "main")
    git(hooks, "add", "-A")
    git(hooks, "-c", "user.email=a@b.c", "-c", "user.name=n", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "h")
    res = subprocess.run(
        [pre_commit, "try-repo", str(hooks), "rguard-system", "--verbose"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    out = res.stdout + res.stderr
    assert res.returncode == 0, out  # warns, does not block by default
    assert "WARN tollgate/sessions.py: contradicts decision:pr:17" in out
    assert "https://github.com/acme/tollgate/pull/17" in out


@pytest.mark.slow
def test_python_hook_installs_itself_from_the_repository(seed: str, work: Path, data_dir: Path, tmp_path: Path) -> None:
    """The `language: python` hook as a team adds it by repository URL: pre-commit builds RGuard from this
    checkout into its own environment; nothing of ours is on PATH."""
    pre_commit = shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    if pre_commit is None:
        pytest.skip("pre-commit is not installed in this environment")
    stage_case(work, "idle-8h")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FALKORDB_URL", "PYTHON", "VIRTUAL_ENV"))}
    env.update(
        RGUARD_DATA_DIR=str(data_dir),
        PRE_COMMIT_HOME=str(tmp_path / "pc"),
        PATH=os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p),
    )
    (work / ".rguard.yaml").write_text(f"repo: {seed}\n", encoding="utf-8")
    git(work, "add", ".rguard.yaml")
    res = subprocess.run(
        [pre_commit, "try-repo", str(ROOT), "rguard", "--verbose"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert "WARN tollgate/sessions.py: contradicts decision:pr:17" in out

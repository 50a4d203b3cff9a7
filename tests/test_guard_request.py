"""GuardRequest: one diff input limit for every surface, and pull requests named by number or URL.

The surface tests lower the ONE limit (``guard.request.MAX_DIFF_BYTES``) to just under a real diff and check
that the CLI, the MCP server, the Guard page, the pre-commit hook and the Action each refuse it, in their own
words, and accept it at the limit: one constant moves all five.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from streamlit.testing.v1 import AppTest

from rguard_core.commands.main import main
from rguard_core.db import Store
from rguard_core.errors import DiffParseError, DiffTooLarge, InvalidInput, InvalidRepoName
from rguard_core.guard import GuardRequest, request
from rguard_core.guard.diffparse import PARSE_BUDGET_CHARS
from rguard_core.mcp_server import ServerConfig, build_server
from tests.agents_seed import CASE, load_seed, seed_diff
from tests.conftest import ROOT
from tests.fixtures.guard.seed_cases import TREE
from tests.github_action_server import GitHubActionServer, PullState, RepoState

DIFF = seed_diff("cost-default-zero")  # contradicts decision:pr:20 of the demo seed
assert DIFF.endswith("\n")  # DIFF[:-1] is one byte shorter and still the same change
SIZE = len(DIFF.encode("utf-8"))


@pytest.fixture(scope="module")
def seed(store: Store) -> str:
    return load_seed(store)


@pytest.fixture
def lowered(monkeypatch: pytest.MonkeyPatch) -> int:
    """The input limit one byte under DIFF."""
    monkeypatch.setattr(request, "MAX_DIFF_BYTES", SIZE - 1)
    return SIZE - 1


# ---- the request itself (no database) -----------------------------------------------------------------------


def test_the_input_limit_is_far_above_the_parse_budget() -> None:
    """Two different bounds: the limit refuses, the budget reads the first files and lists the rest."""
    assert request.MAX_DIFF_BYTES == 64 * 1024 * 1024 > PARSE_BUDGET_CHARS


def test_a_request_checks_repo_judge_diff_and_limit(lowered: int) -> None:
    req = GuardRequest(" acme/tollgate ", DIFF[:-1], judge="llm")  # at the limit
    assert req.repo == "acme/tollgate" and req.diff == DIFF[:-1]
    with pytest.raises(DiffTooLarge, match=f"{SIZE:,} bytes, over {lowered:,} bytes"):
        GuardRequest("acme/tollgate", DIFF)
    with pytest.raises(DiffTooLarge):
        GuardRequest("acme/tollgate", DIFF.encode())  # type: ignore[arg-type]  # bytes count the same
    assert isinstance(DiffTooLarge("d", 1), DiffParseError)  # the CLI's exit 2 for bad diffs
    with pytest.raises(InvalidInput, match="unknown judge"):
        GuardRequest("acme/tollgate", "x", judge="oracle")
    with pytest.raises(InvalidRepoName):
        GuardRequest("not a repo", "x")
    with pytest.raises(DiffParseError, match="must be text"):
        GuardRequest("acme/tollgate", 12)  # type: ignore[arg-type]


def test_multibyte_text_is_measured_in_utf8_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(request, "MAX_DIFF_BYTES", 10)
    assert request.text_size("é" * 4) == 8  # 4 characters, 8 bytes
    GuardRequest("a/b", "é" * 5)  # 10 bytes: at the limit
    with pytest.raises(DiffTooLarge):
        GuardRequest("a/b", "é" * 6)


@pytest.mark.parametrize(
    ("given", "number"),
    [
        (12, 12),
        ("12", 12),
        (" #12 ", 12),
        ("https://github.com/acme/tollgate/pull/12", 12),
        ("https://github.com/ACME/Tollgate/pull/12/files", 12),
        ("https://ghe.example:8443/acme/tollgate/pull/12#discussion_r1", 12),
    ],
)
def test_a_pull_request_is_a_number_or_its_url(given: int | str, number: int) -> None:
    assert GuardRequest.of("acme/tollgate", None, given).pr == number


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ("https://github.com/other/repo/pull/3", "belongs to other/repo, not acme/tollgate"),
        ("https://github.com/acme/tollgate/issues/3", "not a pull request URL"),
        ("twelve", "not a pull request URL"),
        (0, "at least 1"),
        (True, "a number or its URL"),
    ],
)
def test_other_pull_request_references_are_refused(given: Any, words: str) -> None:
    with pytest.raises(InvalidInput, match=words):
        GuardRequest.of("acme/tollgate", None, given)


# ---- every surface refuses over the one limit -------------------------------------------------------------


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_refuses_a_diff_over_the_limit_and_guards_one_at_it(
    seed: str, lowered: int, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    over = tmp_path / "over.diff"
    over.write_text(DIFF, encoding="utf-8")
    code, _, err = _cli(["guard", "--repo", seed, "--diff", str(over)], capsys)
    assert code == 2
    assert err.startswith(f"error: --diff {over}: the diff is over {lowered:,} bytes (the guard's input limit)")
    assert len(err.strip().splitlines()) == 1
    monkeypatch.setattr(request, "MAX_DIFF_BYTES", SIZE)
    code, out, _ = _cli(["guard", "--repo", seed, "--diff", str(over), "--fail-on-warn"], capsys)
    assert code == 3 and "decision:pr:20" in out


def test_cli_guards_a_stored_pr_named_by_its_url(seed: str, capsys: pytest.CaptureFixture[str]) -> None:
    by_number = _cli(["guard", "--repo", seed, "--pr", "20", "--json"], capsys)
    by_url = _cli(["guard", "--repo", seed, "--pr", "https://github.com/acme/tollgate/pull/20", "--json"], capsys)
    assert by_number[0] == by_url[0] == 0
    assert by_number[1].split('"cypher"')[0] == by_url[1].split('"cypher"')[0]
    code, _, err = _cli(["guard", "--repo", seed, "--pr", "https://github.com/other/repo/pull/20"], capsys)
    assert code == 2 and "belongs to other/repo" in err


def test_mcp_guard_diff_refuses_a_diff_over_the_limit(seed: str, lowered: int, store: Store) -> None:
    server = build_server(ServerConfig(settings=store.settings), store)

    async def go() -> tuple[Any, Any]:
        async with Client(server) as c:
            over = await c.call_tool("guard_diff", {"repo": seed, "diff": DIFF})
            under = await c.call_tool("guard_diff", {"repo": seed, "diff": DIFF[:-1]})  # at the limit
            return over, under

    over, under = asyncio.run(go())
    assert over.is_error
    text = " ".join(getattr(c, "text", "") for c in over.content)
    assert f"the diff is {SIZE:,} bytes, over {lowered:,} bytes (the guard's input limit)" in text
    assert not under.is_error and under.structured_content["verdict"] == "warn"


def test_guard_page_refuses_a_pasted_diff_over_the_limit(seed: str, lowered: int) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.run()
    at.switch_page("pages/guard.py").run()
    at.text_area(key="guard_diff").input(DIFF)
    at.button[0].click().run()
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert any(f"the pasted diff is {SIZE:,} bytes, over {lowered:,} bytes" in e for e in errors), errors
    assert "guard_run" not in at.session_state


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_precommit_refuses_a_staged_diff_over_the_limit(
    seed: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "tollgate"
    shutil.copytree(TREE, work)
    _git(work, "init", "-q", "-b", "main")
    _git(work, "-c", "user.email=d@example.com", "-c", "user.name=D", "add", "-A")
    _git(
        work, "-c", "user.email=d@example.com", "-c", "user.name=D", "-c", "commit.gpgsign=false", "commit", "-qm", "s"
    )
    _, _, _, path, old, new = CASE["cost-default-zero"]
    (work / path).write_text((work / path).read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    _git(work, "add", path)
    staged = subprocess.run(["git", "diff", "--cached"], cwd=work, check=True, capture_output=True).stdout
    monkeypatch.setattr(request, "MAX_DIFF_BYTES", len(staged) - 1)
    monkeypatch.chdir(work)
    code, _, err = _cli(["precommit", "--repo", seed, "--fail-on-warn"], capsys)
    assert code == 2
    assert "the staged diff is" in err and "--no-verify" in err
    monkeypatch.setattr(request, "MAX_DIFF_BYTES", len(staged) + 100)  # git's own diff options add a little
    code, _, _ = _cli(["precommit", "--repo", seed, "--fail-on-warn"], capsys)
    assert code == 3


def test_precommit_stops_reading_git_past_the_limit(tmp_path: Path) -> None:
    """An oversized staged diff is refused without being held whole: git is stopped a chunk past the limit."""
    from rguard_core.precommit import git_bytes

    _git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "big.txt").write_text("".join(f"line {i} of a vendored file\n" for i in range(200_000)))
    _git(tmp_path, "add", "big.txt")
    whole = git_bytes(tmp_path, "diff", "--cached")
    assert len(whole) > 4_000_000
    part = git_bytes(tmp_path, "diff", "--cached", limit=100_000)
    assert 100_000 < len(part) <= 100_000 + (1 << 16) and whole.startswith(part)
    with pytest.raises(InvalidInput, match="failed"):
        git_bytes(tmp_path, "log", "--no-such-option")


def test_action_refuses_a_pull_request_diff_over_the_limit(
    seed: str, lowered: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    state = RepoState("acme/tollgate", "ghs_t", permissions={})
    state.pulls[77] = PullState(77, "0" * 40, DIFF)
    with GitHubActionServer(state) as server:
        monkeypatch.setenv("GITHUB_API_URL", server.url)
        monkeypatch.setenv("GITHUB_TOKEN", "ghs_t")
        monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
        code, _, err = _cli(["action", "--repo", seed, "--github-repo", "acme/tollgate", "--pr", "77"], capsys)
    assert code == 2
    assert f"pull request #77's diff is {SIZE:,} bytes, over {lowered:,} bytes" in err
    assert "split the pull request" in err
    assert not state.comments.get(77)  # refused before anything was written

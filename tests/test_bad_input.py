"""Bad input through the CLI and the API: a padded diff cannot pass the gate, a half-written graph is never served,
no traceback reaches a user, FalkorDB's own words and Cypher stay in the log, a hanging LLM fails in bounded time.

Each refusal exits 2 with one line saying what to fix, and leaves the graph as it was."""

from __future__ import annotations

import dataclasses
import io
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from rguard_core import cli_errors
from rguard_core.commands.main import main
from rguard_core.config import Settings
from rguard_core.db import Store
from rguard_core.errors import DiffParseError, IncompleteGraph, LLMError
from rguard_core.explore.graph_export import export_graph
from rguard_core.guard import run_guard
from rguard_core.guard.diffparse import PARSE_BUDGET_CHARS, PARSE_BUDGET_FILES, parse_diff
from rguard_core.guard.request import MAX_DIFF_BYTES
from rguard_core.llm import LLMClient
from tests import openai_server as _server
from tests.fixtures.guard.ledger import diff, ingest_ledger
from tests.openai_server import HANG, TRICKLE, OpenAIServer

openai_server = _server.openai_server


@pytest.fixture(scope="module")
def ledger(store: Store, tmp_path_factory: pytest.TempPathFactory) -> str:
    repo, _ = ingest_ledger(store, tmp_path_factory.mktemp("bad"))
    return repo


def run(argv: list[str], capsys: pytest.CaptureFixture[str], stdin: str | None = None) -> tuple[int, str, str]:
    old = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8")), encoding="utf-8")
    try:
        code = main(argv)
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str, *words: str) -> str:
    lines = [ln for ln in err.strip().splitlines() if not ln.startswith("note: ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    for w in words:
        assert w in lines[0], f"{w!r} not in {lines[0]!r}"
    return lines[0]


def trivial(i: int) -> str:
    return (
        f"diff --git a/pad/f{i}.txt b/pad/f{i}.txt\n--- a/pad/f{i}.txt\n+++ b/pad/f{i}.txt\n"
        f"@@ -1 +1 @@\n-old {i}\n+new {i}\n"
    )


# ---- the CI gate ------------------------------------------------------------------------------------------------


def test_a_warning_padded_with_300_trivial_files_still_fails_the_gate(
    ledger: str, capsys: pytest.CaptureFixture[str]
) -> None:
    warn = diff("money")
    code, out, _ = run(["guard", "--repo", ledger, "--diff", "-", "--json", "--fail-on-warn"], capsys, stdin=warn)
    assert code == 3 and json.loads(out)["verdict"] == "warn"
    padded = "".join(trivial(i) for i in range(PARSE_BUDGET_FILES)) + warn
    code, out, err = run(["guard", "--repo", ledger, "--diff", "-", "--json", "--fail-on-warn"], capsys, stdin=padded)
    data = json.loads(out)
    assert code == 3, err
    assert data["verdict"] in ("note", "warn") and data["skipped_files"] == ["billing/money.py"]
    assert any(f"only the first {PARSE_BUDGET_FILES}" in n for n in data["notes"])
    assert "1 file(s) were not checked" in err
    code, out, _ = run(["guard", "--repo", ledger, "--diff", "-", "--json"], capsys, stdin=padded)
    assert code == 0 and json.loads(out)["verdict"] == "note", "without the gate flag: reported, not failed"


def test_a_single_5mb_file_is_not_read_as_a_pass(ledger: str, capsys: pytest.CaptureFixture[str]) -> None:
    body = "".join(f"+    value_{i} = compute({i})\n" for i in range(200_000))
    big = (
        "diff --git a/billing/money.py b/billing/money.py\n--- a/billing/money.py\n+++ b/billing/money.py\n"
        f"@@ -1,3 +1,{200_002} @@\n-from decimal import Decimal\n def parse_amount(value):\n"
        f"-    return Decimal(str(value))\n+    return float(value)\n{body}"
    )
    assert len(big) > 5_000_000 > PARSE_BUDGET_CHARS
    code, out, err = run(["guard", "--repo", ledger, "--diff", "-", "--json", "--fail-on-warn"], capsys, stdin=big)
    data = json.loads(out)
    assert code == 3 and data["verdict"] != "pass" and data["skipped_files"] == ["billing/money.py"], err
    assert any("larger than" in n for n in data["notes"])


def test_a_huge_single_line_is_noted(ledger: str) -> None:
    line = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = '" + "y" * 2_000_000 + "'\n"
    report = run_guard(ledger_store(), ledger, line)
    assert report.verdict == "note" and report.skipped_files == ["a.py"]


def ledger_store() -> Store:
    from rguard_core.db import open_store

    return open_store()


def test_cr_only_line_endings_read_the_same(ledger: str) -> None:
    warn = diff("money")
    assert run_guard(ledger_store(), ledger, warn.replace("\n", "\r")).verdict == "warn"
    assert run_guard(ledger_store(), ledger, warn.replace("\n", "\r\n")).verdict == "warn"
    assert any("CR only" in n for n in parse_diff(warn.replace("\n", "\r")).notes)


@pytest.mark.parametrize(
    "text",
    [
        "diff --git a/logo.png b/logo.png\nindex 1..2 100644\nBinary files a/logo.png and b/logo.png differ\n",
        "diff --git a/logo.png b/logo.png\nindex 1..2 100644\nGIT binary patch\nliteral 5\nMcmZ?wbaG<=00C0~0RR91\n\n",
        "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n",
        "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n",
    ],
    ids=["binary", "git binary patch", "mode only", "headers only"],
)
def test_diffs_without_hunks_pass_cleanly(ledger: str, text: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["guard", "--repo", ledger, "--diff", "-", "--json", "--fail-on-warn"], capsys, stdin=text)
    assert code == 0 and json.loads(out)["verdict"] == "pass" and "Traceback" not in err


@pytest.mark.parametrize(
    "text, words",
    [
        ("diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n*a\n*b\n", ["malformed unified diff"]),
        ("just prose\n", ["not a unified diff"]),
        ("\x00\x00\x00", ["not a unified diff"]),
        ("", ["empty"]),
    ],
)
def test_bad_diffs_exit_2(ledger: str, capsys: pytest.CaptureFixture[str], text: str, words: list[str]) -> None:
    code, _, err = run(["guard", "--repo", ledger, "--diff", "-", "--fail-on-warn"], capsys, stdin=text)
    assert code == 2
    one_error_line(err, *words)


def test_a_diff_over_the_input_limit_is_refused(
    ledger: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = tmp_path / "huge.diff"
    with huge.open("wb") as fh:  # sparse: over the limit without writing it
        fh.write(diff("money").encode())
        fh.truncate(MAX_DIFF_BYTES + 10)
    code, _, err = run(["guard", "--repo", ledger, "--diff", str(huge), "--fail-on-warn"], capsys)
    assert code == 2
    one_error_line(err, "over 67,108,864 bytes", "in parts")
    code, _, err = run(["guard", "--repo", ledger, "--diff", str(tmp_path)], capsys)
    assert code == 2
    one_error_line(err, "is not a regular file")
    code, _, err = run(["guard", "--repo", ledger, "--diff", str(tmp_path / "missing.diff")], capsys)
    assert code == 2
    one_error_line(err, "no such file")


def test_wrong_types_through_the_api_are_typed_errors(ledger: str) -> None:
    with pytest.raises(DiffParseError, match="text"):
        parse_diff(12345)  # type: ignore[arg-type]


# ---- half-written graphs ----------------------------------------------------------------------------------------


def _state(store: Store, repo: str, state: str) -> None:
    store.repo_graph(repo).query("MATCH (r:Repo {id: 'repo'}) SET r.ingest_state = $s", {"s": state})


def _fingerprint(store: Store, repo: str) -> list[Any]:
    g = store.repo_graph(repo)
    return g.read("MATCH (n) RETURN labels(n) AS l, properties(n) AS p ORDER BY n.id") + g.read(
        "MATCH (a)-[e]->(b) RETURN a.id AS a, type(e) AS t, b.id AS b, properties(e) AS p ORDER BY a, t, b"
    )


def test_every_path_refuses_a_half_written_graph(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, root = ingest_ledger(store, tmp_path)
    g = store.repo_graph(repo)
    claim = g.read("MATCH (c:Claim) RETURN c.id AS id LIMIT 1")[0]["id"]
    decision = g.read("MATCH (d:Decision) RETURN d.id AS id LIMIT 1")[0]["id"]
    _state(store, repo, "writing")
    before = _fingerprint(store, repo)
    commands = [
        ["guard", "--repo", repo, "--diff", "-", "--fail-on-warn"],
        ["why", "--repo", repo, "why do we parse amounts as Decimal?"],
        ["export", "--repo", repo, "--json"],
        ["memory", "status", "--repo", repo, "--json"],
        ["memory", "retrieve", "money", "--repo", repo, "--json"],
        ["memory", "correct", claim, "--text", "amounts are floats", "--by", "eve", "--repo", repo, "--json"],
        ["memory", "quarantine", "pr:10", "--repo", repo, "--json"],
        ["memory", "recompute", "--repo", repo],
        ["feedback", "--repo", repo, "--decision", decision, "--kind", "ack", "--by", "eve", "--reason", "ok"],
        ["who-knows", "--repo", repo, "billing/money.py", "--json"],
        ["premises", "--repo", repo, decision, "--json"],
        [
            "ingest",
            "snapshot",
            str(root),
            "--repo",
            repo,
            "--since-pr",
            "10",
            "--quiet",
        ],  # an append would mark it whole
    ]
    for argv in commands:
        code, out, err = run(argv, capsys, stdin=diff("money"))
        assert code == 2, f"{argv[:2]}: exit {code}"
        one_error_line(err, "not completely written", "run the ingest again")
        assert out == ""
    from rguard_core.memory import apply_correction, quarantine_source

    with pytest.raises(IncompleteGraph):
        quarantine_source(g, "pr:10")
    with pytest.raises(IncompleteGraph):
        apply_correction(g, claim, "amounts are floats", "eve")
    assert _fingerprint(store, repo) == before, "nothing was written on the half graph"
    assert main(["ingest", "snapshot", str(root), "--repo", repo, "--quiet"]) == 0
    capsys.readouterr()
    assert run_guard(store, repo, diff("money")).verdict == "warn", "a completed re-ingest serves it again"


def test_a_crash_mid_write_leaves_a_graph_that_is_refused(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from rguard_core.ingest import pipeline

    repo, root = ingest_ledger(store, tmp_path)
    real = pipeline.write_batch

    def dies_half_way(graph: Any, batch: Any, progress: Any = None, fresh: bool = False) -> dict[str, int]:
        graph.query("MATCH (d:Decision) WITH d LIMIT 1 SET d.summary = 'half written'")
        raise KeyboardInterrupt  # a kill at this point

    monkeypatch.setattr(pipeline, "write_batch", dies_half_way)
    assert main(["ingest", "snapshot", str(root), "--repo", repo, "--quiet"]) == 130
    capsys.readouterr()
    code, _, err = run(["why", "--repo", repo, "why float?"], capsys)
    assert code == 2
    one_error_line(err, "not completely written", f"python -m rguard_core ingest snapshot {root} --repo {repo}")
    monkeypatch.setattr(pipeline, "write_batch", real)
    assert main(["ingest", "snapshot", str(root), "--repo", repo, "--quiet"]) == 0


# ---- arguments and settings -------------------------------------------------------------------------------------


def test_argument_that_is_not_utf8(capsys: pytest.CaptureFixture[str]) -> None:
    bad = b"caf\xe9".decode("utf-8", "surrogateescape")  # what Python makes of a Latin-1 argv
    code, _, err = run(["memory", "correct", "c1", "--text", bad, "--by", "eve", "--workspace", "w"], capsys)
    assert code == 2
    one_error_line(err, "--text is not valid UTF-8")
    code, _, err = run(["ingest", "snapshot", f"/tmp/{bad}", "--quiet"], capsys)
    assert code == 2
    one_error_line(err, "the path argument is not valid UTF-8")


@pytest.mark.parametrize("url", ["api.github.com", "ftp://example.com", "https://"])
def test_github_api_url_without_scheme(data_dir: Path, capsys: pytest.CaptureFixture[str], url: str) -> None:
    code, _, err = run(["ingest", "github", "acme/x", "--api-url", url, "--quiet"], capsys)
    assert code == 2
    one_error_line(err, repr(url), "GITHUB_API_URL", "https://api.github.com")


def test_record_pointing_at_a_file(data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    code, _, err = run(["ingest", "github", "acme/x", "--api-url", "http://127.0.0.1:9", "--record", str(f)], capsys)
    assert code == 2
    one_error_line(err, f"--record {f} is a file", "folder")


def test_a_negative_limit_gets_an_answer_without_cypher(ledger: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["memory", "retrieve", "money", "--repo", ledger, "--limit", "-1"], capsys)
    assert code == 2
    line = one_error_line(err)
    assert "MATCH" not in line and "non-negative" not in line and "positive number" in line, line
    assert "details in" in line and str(cli_errors.log_path().resolve()) in line


def test_store_errors_are_mapped_to_what_to_do() -> None:
    from rguard_core.errors import QueryFailed

    e = QueryFailed("g", "MATCH (n) RETURN n", {}, "Failed to parse query parameter 't' value")
    assert "MATCH" not in cli_errors.user_message(e) and "NUL" in cli_errors.user_message(e)
    e = QueryFailed(
        "g",
        "MATCH (n) RETURN n",
        {},
        "errMsg: Invalid input 'X'\nline: 1, column: 7, offset: 6 errCtx: MATCH (n) RETURN n errCtxOffset: 6",
    )
    msg = cli_errors.user_message(e)
    assert "\n" not in msg and "MATCH" not in msg and "refused" in msg and "Invalid input 'X'" in msg, msg


def test_an_unexpected_error_is_one_line_and_a_logged_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from rguard_core.commands import repos

    def broken(args: Any) -> int:
        raise ValueError("something nobody expected")

    monkeypatch.setattr(repos, "run", broken)
    code, _, err = run(["repos"], capsys)
    assert code == 2
    line = one_error_line(err, "internal error (ValueError: something nobody expected)", "please report it")
    log = cli_errors.log_path()
    assert str(log.resolve()) in line
    text = log.read_text(encoding="utf-8")
    assert "Traceback" in text and "something nobody expected" in text and "rguard repos" in text


# ---- the LLM endpoint -------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("reply", [HANG, TRICKLE])
def test_a_hanging_llm_endpoint_fails_within_the_deadline(openai_server: OpenAIServer, reply: str) -> None:
    openai_server.respond_with(lambda req: reply)
    client = LLMClient(
        Settings.from_env({}), base_url=openai_server.base_url, timeout_s=60, max_retries=2, deadline_s=1.5
    )
    t0 = time.perf_counter()
    with pytest.raises(LLMError, match=r"timed out.*1\.5 s.*RGUARD_LLM_TIMEOUT_S"):
        client.complete_json("s", "u", lambda d: d)
    took = time.perf_counter() - t0
    assert 1.4 < took < 10, f"{took:.1f} s (the bound is 1.5 s; slack for a loaded machine)"


def test_the_llm_judge_on_a_hanging_endpoint_exits_2_within_the_bound(
    store: Store, ledger: str, settings: Settings, openai_server: OpenAIServer
) -> None:
    openai_server.respond_with(lambda req: HANG)
    s = dataclasses.replace(settings, openai_base_url=openai_server.base_url, openai_api_key="k", llm_timeout_s=1)
    t0 = time.perf_counter()
    with pytest.raises(LLMError, match="RGUARD_LLM_TIMEOUT_S"):
        run_guard(store, ledger, diff("money"), judge="llm", settings=s)
    assert time.perf_counter() - t0 < 10  # the bound is 1 s; before the deadline this took 60 s x 3 tries


def test_the_llm_deadline_is_a_setting() -> None:
    assert Settings.from_env({}).llm_timeout_s == 60
    assert Settings.from_env({"RGUARD_LLM_TIMEOUT_S": "5"}).llm_timeout_s == 5
    from rguard_core.errors import ConfigError

    with pytest.raises(ConfigError, match="RGUARD_LLM_TIMEOUT_S"):
        Settings.from_env({"RGUARD_LLM_TIMEOUT_S": "soon"})


def test_export_of_a_clean_graph_still_works(store: Store, ledger: str) -> None:
    assert export_graph(store, ledger)["nodes"]


# ---- the GitHub source checks the same shapes -------------------------------------------------------------------


@pytest.mark.parametrize(
    "rel, change, words",
    [
        ("pulls/10.json", lambda pr: {**pr, "body": 12345}, ["/pulls", "'body'"]),
        ("pulls/10/files.json", lambda fs: [{**fs[0], "additions": "many"}], ["/pulls/10/files", "'additions'"]),
        (
            "pulls/10/files.json",
            lambda fs: [{**fs[0], "filename": "/etc/passwd"}],
            ["/pulls/10/files", "relative path"],
        ),
        ("issues/1.json", lambda i: {**i, "user": "someone"}, ["/issues/1", "'user'"]),
    ],
    ids=["body", "additions", "absolute filename", "user"],
)
def test_github_answers_of_the_wrong_shape_exit_2_and_write_nothing(
    store: Store,
    tmp_path: Path,
    repo_name: str,
    capsys: pytest.CaptureFixture[str],
    rel: str,
    change: Any,
    words: list[str],
) -> None:
    import shutil

    from tests.github_server import GitHubServer

    src = Path(__file__).resolve().parent / "fixtures" / "snapshot" / "repos" / "acme" / "ledger"
    d = tmp_path / "gh" / "repos" / repo_name
    shutil.copytree(src, d)
    (d / rel).write_text(json.dumps(change(json.loads((d / rel).read_text()))))
    with GitHubServer(tmp_path / "gh") as gh:
        code, out, err = run(["ingest", "github", repo_name, "--api-url", gh.url, "--quiet"], capsys)
    assert code == 2
    one_error_line(err, *words, "nothing was written")
    assert not store.repo_graph(repo_name).exists()


@pytest.mark.parametrize(
    "fields, words",
    [
        ({"target": 42}, "target must be text"),
        ({"max_prs": "5"}, "max_prs must be a whole number"),
        ({"repo": ["a/b"]}, "repo must be text or None"),
        ({"record_dir": 3}, "record_dir must be a folder path"),
    ],
)
def test_wrong_types_in_an_ingest_request(store: Store, fields: dict[str, Any], words: str) -> None:
    from rguard_core.errors import InvalidInput
    from rguard_core.ingest.request import IngestRequest, run_ingest

    req = dataclasses.replace(IngestRequest("snapshot", "/nonexistent"), **fields)
    with pytest.raises(InvalidInput, match=words):
        run_ingest(store, req)


def test_a_warning_behind_one_oversized_file_still_fails_the_gate(
    ledger: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pad = (
        "diff --git a/pad/big.txt b/pad/big.txt\n--- a/pad/big.txt\n+++ b/pad/big.txt\n@@ -1 +1,40001 @@\n-x\n"
        + "+"
        + "z" * 40
        + "\n" * 1
        + ("+" + "z" * 40 + "\n") * 40_000
    )
    assert len(pad) > PARSE_BUDGET_CHARS
    code, out, _ = run(
        ["guard", "--repo", ledger, "--diff", "-", "--json", "--fail-on-warn"], capsys, stdin=pad + diff("money")
    )
    data = json.loads(out)
    assert code == 3 and data["verdict"] != "pass"
    assert data["skipped_files"] == ["pad/big.txt", "billing/money.py"]


def test_a_garbage_database_file_is_called_corrupt(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "data" / "falkordb.db"
    db.parent.mkdir()
    db.write_bytes(b"\x00garbage, not a database\xff" * 100)
    monkeypatch.setenv("RGUARD_DATA_DIR", str(db.parent))
    code, _, err = run(["repos"], capsys)
    assert code == 2
    one_error_line(err, f"database file is corrupt at {db}", "move the file away", "Server log")
    assert "connection refused" not in err.lower()

"""The LLM judge against a local OpenAI-protocol server, and the guard/feedback CLI contract."""

from __future__ import annotations

import dataclasses
import io
import json
import sys
from typing import Any

import pytest

from rguard_core.commands.main import main
from rguard_core.config import Settings
from rguard_core.db import Store
from rguard_core.errors import LLMError
from rguard_core.guard import run_guard
from tests import openai_server as _server
from tests.fixtures.guard.ledger import DIFFS, diff, ingest_ledger
from tests.openai_server import OpenAIServer

openai_server = _server.openai_server
FAST_RETRY = {"retry-after-ms": "5"}


@pytest.fixture(scope="module")
def ledger(store: Store, tmp_path_factory: pytest.TempPathFactory) -> str:
    repo, _ = ingest_ledger(store, tmp_path_factory.mktemp("llm"))
    return repo


def llm_settings(settings: Settings, srv: OpenAIServer) -> Settings:
    return dataclasses.replace(settings, openai_base_url=srv.base_url, openai_api_key="test", llm_model="judge-model")


def label_everything(label: str, confidence: float) -> Any:
    def script(request: dict[str, Any]) -> str:
        ids = [
            line.split('"decision_id": "')[1].split('"')[0]
            for line in request["messages"][1]["content"].splitlines()
            if '"decision_id": "' in line
        ]
        return json.dumps(
            {"labels": [{"decision_id": i, "label": label, "confidence": confidence, "reason": "test"} for i in ids]}
        )

    return script


def test_llm_judge_labels_only_what_the_graph_returned(
    store: Store, ledger: str, settings: Settings, openai_server: OpenAIServer
) -> None:
    openai_server.respond_with(label_everything("contradicts", 0.9))
    report = run_guard(store, ledger, diff("deliver"), judge="llm", settings=llm_settings(settings, openai_server))
    assert report.verdict == "warn"
    by = {f.decision_id: f for f in report.findings}
    assert by["decision:pr:14"].label == "contradicts" and by["decision:pr:14"].score == pytest.approx(0.9)
    assert by["decision:pr:13"].label == "related"  # reverted (R7): not warned on, whatever the model says
    sent = openai_server.requests[0]["messages"][1]["content"]
    assert "Retry webhook delivery with exponential backoff" in sent  # the verbatim quote
    assert "+        sleep(backoff_seconds)" in sent  # the diff's hunk
    assert openai_server.requests[0]["model"] == "judge-model"


def test_llm_unrelated_labels_drop_findings(
    store: Store, ledger: str, settings: Settings, openai_server: OpenAIServer
) -> None:
    openai_server.respond_with(label_everything("unrelated", 0.8))
    report = run_guard(store, ledger, diff("rates"), judge="llm", settings=llm_settings(settings, openai_server))
    assert report.verdict == "pass" and report.findings == []


@pytest.mark.parametrize(
    "reply",
    [
        json.dumps(
            {"labels": [{"decision_id": "decision:pr:4242", "label": "contradicts", "confidence": 1, "reason": ""}]}
        ),
        json.dumps({"labels": []}),
        json.dumps({"verdict": "looks fine"}),
        json.dumps({"labels": [{"decision_id": "decision:pr:10", "label": "maybe", "confidence": 1, "reason": ""}]}),
    ],
)
def test_llm_answers_that_break_the_contract_fail_the_request(
    store: Store, ledger: str, settings: Settings, openai_server: OpenAIServer, reply: str
) -> None:
    openai_server.reply(reply)
    with pytest.raises(LLMError, match="wrong shape"):
        run_guard(store, ledger, diff("rates"), judge="llm", settings=llm_settings(settings, openai_server))


def test_failing_llm_endpoint_fails_the_request_no_fallback(
    store: Store, ledger: str, settings: Settings, openai_server: OpenAIServer
) -> None:
    openai_server.respond_with(lambda _: (500, {"error": {"message": "boom", "type": "server_error"}}, FAST_RETRY))
    with pytest.raises(LLMError, match="500"):
        run_guard(store, ledger, diff("rates"), judge="llm", settings=llm_settings(settings, openai_server))


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str], stdin: str | None = None) -> tuple[int, str, str]:
    old = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()))
    try:
        code = main(argv)
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_guard_json_contract_and_fail_on_warn(
    store: Store, ledger: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(["guard", "--repo", ledger, "--diff", str(DIFFS / "money.diff"), "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"repo", "verdict", "findings", "dismissed", "cypher", "timings_ms", "notes", "skipped_files"}
    assert data["notes"] == [] and data["skipped_files"] == []
    assert data["repo"] == ledger and data["verdict"] == "warn"
    keys = {
        "decision_id",
        "summary",
        "quote",
        "source_url",
        "source",
        "label",
        "score",
        "hops",
        "path",
        "premises",
        "alternatives",
        "experts",
        "bus_factor",
        "learned",
        "lines_key",
        "rules",
    }  # lines_key: what a dismissal is about
    for f in data["findings"]:
        assert set(f) == keys and set(f["source"]) == {"kind", "number", "path"}
        assert f["label"] in ("contradicts", "related") and isinstance(f["score"], float)
        assert all(set(p) == {"rule", "status", "detail"} for p in f["premises"])
        assert all(set(e) == {"login", "score"} for e in f["experts"])
    assert all(set(q) == {"name", "query", "ms", "rows"} for q in data["cypher"])
    assert set(data["timings_ms"]) == {"parse", "graph", "judge", "total"}
    code, _, _ = run_cli(
        ["guard", "--repo", ledger, "--diff", "-", "--json", "--fail-on-warn"], capsys, stdin=diff("money")
    )
    assert code == 3
    code, out, _ = run_cli(
        ["guard", "--repo", ledger, "--diff", "-", "--json", "--fail-on-warn"], capsys, stdin=diff("readme")
    )
    assert code == 0 and json.loads(out)["verdict"] == "pass"


@pytest.mark.parametrize(
    "argv, stdin, message",
    [
        (["--diff", "-"], "", "empty"),
        (["--diff", "-"], "not a diff at all", "not a unified diff"),
        (["--diff", "/no/such/file.diff"], None, "no such file"),
        ([], None, "--diff"),
    ],
)
def test_cli_bad_input_is_a_clear_error(
    store: Store, ledger: str, capsys: pytest.CaptureFixture[str], argv: list[str], stdin: str | None, message: str
) -> None:
    code, out, err = run_cli(["guard", "--repo", ledger, *argv], capsys, stdin=stdin)
    assert code == 2 and out == "" and message in err and "Traceback" not in err


def test_cli_unknown_repo_and_feedback(store: Store, ledger: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["guard", "--repo", "nobody/nothing", "--diff", str(DIFFS / "rates.diff")], capsys)
    assert code == 2 and "no graph for repository" in err
    code, out, _ = run_cli(
        [
            "feedback",
            "--repo",
            ledger,
            "--decision",
            "decision:pr:11",
            "--kind",
            "ack",
            "--by",
            "bob",
            "--reason",
            "intended",
            "--json",
        ],
        capsys,
    )
    assert code == 0 and json.loads(out)["kind"] == "ack"
    code, out, _ = run_cli(["guard", "--repo", ledger, "--diff", str(DIFFS / "invoice.diff")], capsys)
    assert code == 0 and "learned: acknowledged by bob" in out

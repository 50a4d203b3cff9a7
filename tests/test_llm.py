"""LLM client and extractor, through the real openai package against a local chat-completions server."""

from __future__ import annotations

import json
import socket
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rguard_core.config import Settings
from rguard_core.errors import ConfigError, LLMError
from rguard_core.evidence import RejectedQuote, Span, anchor
from rguard_core.ingest.extract.base import SourceDoc
from rguard_core.ingest.extract.llm import MAX_SOURCE_CHARS, LLMExtractor, parse_proposal, user_prompt
from rguard_core.llm import LLMClient, parse_json_content
from tests import openai_server as _server
from tests.openai_server import RESET, OpenAIServer

openai_server = _server.openai_server  # the fixture, visible to pytest in this module

PR_TEXT = (
    "Switch the cache from Memcached to Redis.\n\n"
    "We keep losing sessions when a Memcached node restarts, because nothing is persisted.\n"
    "Redis gives us persistence and pub/sub for invalidation.\n"
    "We considered sticky sessions, but rejected them since they break rolling deploys."
)
DOC = SourceDoc(id="pr:12", kind="pr", text=PR_TEXT, role="decision", title="Use Redis for the cache")
GOOD: dict[str, Any] = {
    "decision": {"quote": "Switch the cache from Memcached to Redis.", "summary": "Use Redis as the cache"},
    "alternatives": [{"quote": "We considered sticky sessions", "summary": "Sticky sessions"}],
    "claims": [
        {
            "quote": "We keep losing sessions when a Memcached node restarts",
            "summary": "Sessions lost",
            "kind": "problem",
        },
        {
            "quote": "Redis gives us persistence and pub/sub for invalidation.",
            "summary": "Redis persists",
            "kind": "Reason",
        },
    ],
}
FAST_RETRY = {"retry-after-ms": "5"}  # OpenAI's own header; keeps the client's retry backoff short in tests


def client_for(srv: OpenAIServer, **kw: Any) -> LLMClient:
    kw.setdefault("timeout_s", 5)
    kw.setdefault("max_retries", 0)
    return LLMClient(Settings.from_env({}), base_url=srv.base_url, model="test-model", **kw)


def test_good_extraction_gives_verbatim_candidates(openai_server: OpenAIServer) -> None:
    openai_server.reply(json.dumps(GOOD))
    client = client_for(openai_server)
    prop = LLMExtractor(client).extract(DOC)
    assert prop.decision is not None and prop.decision.quote == GOOD["decision"]["quote"]
    assert prop.why == "llm"  # stored as Decision.extracted_because
    assert [a.summary for a in prop.alternatives] == ["Sticky sessions"]
    assert [(c.kind, c.summary) for c in prop.claims] == [("problem", "Sessions lost"), ("reason", "Redis persists")]
    for cand in [prop.decision, *prop.alternatives, *prop.claims]:
        span = anchor(DOC.id, DOC.text, cand.quote)
        assert isinstance(span, Span) and DOC.text[span.start : span.end] == cand.quote
    (req,) = openai_server.requests
    assert req["model"] == "test-model" and req["temperature"] == 0
    assert req["response_format"] == {"type": "json_object"}
    assert [m["role"] for m in req["messages"]] == ["system", "user"]
    assert PR_TEXT in req["messages"][1]["content"] and "pr:12" in req["messages"][1]["content"]
    assert "exactly" in req["messages"][0]["content"]
    assert [c.ok for c in client.calls] == [True] and client.calls[0].model == "test-model"
    assert client.calls[0].ms > 0 and client.total_ms() == client.calls[0].ms


def test_paraphrased_quote_is_returned_then_rejected_by_anchor(openai_server: OpenAIServer) -> None:
    answer: dict[str, Any] = {
        "decision": {"quote": "Move the cache from Memcached over to Redis.", "summary": "Redis"},
        "claims": [],
    }
    openai_server.reply(json.dumps(answer))
    prop = LLMExtractor(client_for(openai_server)).extract(DOC)
    assert prop.decision is not None and prop.decision.quote == answer["decision"]["quote"]  # untouched
    rejected = anchor(DOC.id, DOC.text, prop.decision.quote)
    assert isinstance(rejected, RejectedQuote) and rejected.reason == "not_verbatim"


def test_garbage_content_raises_after_one_retry(openai_server: OpenAIServer) -> None:
    openai_server.respond_with(lambda req: "I think the decision was to use Redis.")
    client = client_for(openai_server)
    with pytest.raises(LLMError, match=r"not JSON after 2 attempts.*I think the decision"):
        LLMExtractor(client).extract(DOC)
    assert len(openai_server.requests) == 2
    assert [c.ok for c in client.calls] == [False, False]


def test_invalid_json_then_valid_json_succeeds(openai_server: OpenAIServer) -> None:
    openai_server.reply('{"decision": ', json.dumps(GOOD))
    client = client_for(openai_server)
    prop = LLMExtractor(client).extract(DOC)
    assert prop.decision is not None and len(prop.claims) == 2
    assert [c.ok for c in client.calls] == [False, True]


@pytest.mark.parametrize(
    ("answer", "needle"),
    [
        ([GOOD], "expected a JSON object"),
        ({"result": "Redis"}, "none of the keys"),
        ({"claims": {"quote": "x"}}, "claims must be a list"),
        ({"claims": [{"quote": 3, "summary": "s", "kind": "fact"}]}, r"claims\[0\].quote must be a string"),
        ({"claims": [{"quote": "q", "summary": "s", "kind": "opinion"}]}, r"claims\[0\].kind must be one of"),
        ({"claims": ["just a string"]}, r"claims\[0\] must be an object"),
        ({"decision": "Redis", "claims": []}, "decision must be an object"),
        ({"alternatives": [{"quote": "q", "summary": ["s"]}]}, r"alternatives\[0\].summary must be a string"),
        (
            {"claims": [{"quote": "q", "summary": "s" * 1001, "kind": "fact"}]},
            r"claims\[0\].summary is 1001 characters; at most 1000",
        ),
    ],
)
def test_wrong_shape_raises_without_retry(openai_server: OpenAIServer, answer: Any, needle: str) -> None:
    openai_server.respond_with(lambda req: json.dumps(answer))
    with pytest.raises(LLMError, match=rf"wrong shape: {needle}"):
        LLMExtractor(client_for(openai_server)).extract(DOC)
    assert len(openai_server.requests) == 1


def test_http_500_raises_after_retries(openai_server: OpenAIServer) -> None:
    openai_server.respond_with(lambda req: (500, {"error": {"message": "model overloaded"}}, FAST_RETRY))
    client = client_for(openai_server, max_retries=2)
    with pytest.raises(LLMError, match=r"HTTP 500.*model overloaded"):
        LLMExtractor(client).extract(DOC)
    assert len(openai_server.requests) == 3  # the first try and two retries
    assert [c.ok for c in client.calls] == [False]


def test_http_401_is_reported_with_status(openai_server: OpenAIServer) -> None:
    openai_server.reply((401, {"error": {"message": "Incorrect API key provided"}}))
    with pytest.raises(LLMError, match=r"HTTP 401.*Incorrect API key"):
        client_for(openai_server, max_retries=2).complete_json("s", "u", lambda d: d)
    assert len(openai_server.requests) == 1  # 4xx other than 408/409/429 is not retried


def test_dropped_connection_raises_after_retry(openai_server: OpenAIServer) -> None:
    openai_server.reply(RESET, RESET)
    with pytest.raises(LLMError, match="cannot reach LLM endpoint"):
        client_for(openai_server, max_retries=1).complete_json("s", "u", lambda d: d)
    assert len(openai_server.requests) == 2


def test_endpoint_down_raises() -> None:
    with socket.socket() as s:  # a port that was free a moment ago and now has no listener
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = LLMClient(Settings.from_env({}), base_url=f"http://127.0.0.1:{port}/v1", timeout_s=2, max_retries=0)
    with pytest.raises(LLMError, match=rf"cannot reach LLM endpoint http://127.0.0.1:{port}/v1"):
        LLMExtractor(client).extract(DOC)
    assert [c.ok for c in client.calls] == [False]


def test_slow_endpoint_times_out(openai_server: OpenAIServer) -> None:
    def slow(req: dict[str, Any]) -> str:
        time.sleep(1.5)
        return json.dumps(GOOD)

    openai_server.respond_with(slow)
    started = time.perf_counter()
    with pytest.raises(LLMError, match="timed out"):
        client_for(openai_server, timeout_s=0.4).complete_json("s", "u", lambda d: d)
    assert time.perf_counter() - started < 1.4


def test_missing_config_raises_config_error() -> None:
    with pytest.raises(ConfigError, match="OPENAI_BASE_URL.*OPENAI_API_KEY"):
        LLMClient(Settings.from_env({}))


def test_config_comes_from_settings(openai_server: OpenAIServer) -> None:
    env = {"OPENAI_BASE_URL": openai_server.base_url, "RGUARD_LLM_MODEL": "my-model"}
    openai_server.reply('{"ok": true}')
    client = LLMClient(Settings.from_env(env), max_retries=0)
    assert client.complete_json("s", "u", lambda d: d["ok"]) is True
    assert openai_server.requests[0]["model"] == "my-model"
    key_only = LLMClient(Settings.from_env({"OPENAI_API_KEY": "sk-test"}))
    assert key_only.base_url == "https://api.openai.com/v1" and key_only.model == "gpt-4o-mini"


def test_path_without_v1_prefix(openai_server: OpenAIServer) -> None:
    openai_server.reply('{"n": 1}')
    client = LLMClient(Settings.from_env({}), base_url=openai_server.base_url.removesuffix("/v1"), max_retries=0)
    assert client.complete_json("s", "u", lambda d: d["n"]) == 1


def test_fenced_json_reply_is_accepted(openai_server: OpenAIServer) -> None:
    openai_server.reply("Here you go:\n```json\n" + json.dumps(GOOD, indent=2) + "\n```\n")
    prop = LLMExtractor(client_for(openai_server)).extract(DOC)
    assert prop.decision is not None and prop.decision.summary == "Use Redis as the cache"
    assert len(openai_server.requests) == 1


def test_empty_content_is_an_error(openai_server: OpenAIServer) -> None:
    openai_server.respond_with(lambda req: "   ")
    with pytest.raises(LLMError, match="empty content"):
        client_for(openai_server).complete_json("s", "u", lambda d: d)


def test_role_claims_drops_decisions_keeps_alternatives(openai_server: OpenAIServer) -> None:
    openai_server.reply(json.dumps(GOOD))
    doc = SourceDoc(id="comment:pr:7:0", kind="comment", text=PR_TEXT, role="claims")
    prop = LLMExtractor(client_for(openai_server)).extract(doc)
    assert prop.decision is None  # a review comment never contributes a decision, whatever the model says
    assert len(prop.alternatives) == len(GOOD["alternatives"])  # but it may reject an alternative
    assert [c.kind for c in prop.claims] == ["problem", "reason"]
    assert '"decision" must be null' in openai_server.requests[0]["messages"][0]["content"]


def test_long_source_is_truncated_in_prompt(openai_server: OpenAIServer) -> None:
    tail = "TAIL-MARKER the very end"
    text = PR_TEXT + "\n" + ("filler line of discussion. " * 600) + tail
    assert len(text) > MAX_SOURCE_CHARS
    doc = SourceDoc(id="pr:99", kind="pr", text=text, role="decision")
    openai_server.reply(json.dumps(GOOD))
    prop = LLMExtractor(client_for(openai_server)).extract(doc)
    sent = openai_server.requests[0]["messages"][1]["content"]
    assert tail not in sent and text[:MAX_SOURCE_CHARS] in sent
    assert f"first {MAX_SOURCE_CHARS} of {len(text)} characters" in sent
    assert prop.decision is not None and isinstance(anchor(doc.id, doc.text, prop.decision.quote), Span)


def test_user_prompt_keeps_short_text_whole() -> None:
    assert PR_TEXT in user_prompt(DOC) and "first " not in user_prompt(DOC)


def test_parse_json_content_variants() -> None:
    assert parse_json_content(' {"a": 1} ') == {"a": 1}
    assert parse_json_content('```\n{"a": 2}\n```') == {"a": 2}
    for bad in ["", "```json\n{nope}\n```", "I think so"]:
        with pytest.raises(LLMError):
            parse_json_content(bad)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["decision", "alternatives", "claims", "quote", "summary", "kind", "x"]), inner, max_size=4
        )
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(data=JSON, role=st.sampled_from(["decision", "claims"]))
def test_parse_proposal_accepts_or_raises_value_error(data: Any, role: Any) -> None:
    try:
        prop = parse_proposal(data, role)
    except ValueError:
        return
    for cand in [*([prop.decision] if prop.decision else []), *prop.alternatives, *prop.claims]:
        assert isinstance(cand.quote, str) and isinstance(cand.summary, str)
    assert all(c.kind in ("problem", "reason", "rationale", "fact") for c in prop.claims)
    if role == "claims":
        assert prop.decision is None


def test_validator_key_error_is_a_wrong_shape(openai_server: OpenAIServer) -> None:
    openai_server.reply('{"other": 1}')
    with pytest.raises(LLMError, match="wrong shape: 'ok'"):
        client_for(openai_server).complete_json("s", "u", lambda d: d["ok"])

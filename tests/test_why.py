"""'Why' answers with receipts on the real engine: sentence search, the stop-word fallback, punctuation that
must never become fulltext syntax, withheld claims, the refusal, and the allowed-ids rule enforced against a
local OpenAI-protocol server that tries to cite what it never retrieved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rguard_core.commands.main import main
from rguard_core.db import Graph, Store
from rguard_core.errors import InvalidInput, LLMError, UnknownRepository
from rguard_core.explore.why import NO_ANSWER, REFUSAL, content_words, fulltext_query, is_review_request, tokens, why
from rguard_core.llm import LLMClient
from rguard_core.memory import quarantine_source
from tests import openai_server as _server
from tests.openai_server import OpenAIServer
from tests.test_views import ledger_copy

openai_server = _server.openai_server


@pytest.fixture(scope="module")
def ledger(store: Store, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Graph]:
    repo = "why-test/ledger"
    store.repo_graph(repo).delete()
    graph = ledger_copy(store, tmp_path_factory.mktemp("ledger"), repo)
    yield repo, graph
    graph.delete()


def client(srv: OpenAIServer) -> LLMClient:
    return LLMClient(base_url=srv.base_url, api_key="test", model="test-model", max_retries=0, timeout_s=10)


def receipts_are_verbatim(g: Graph, ans) -> None:  # type: ignore[no-untyped-def]
    for r in [d.receipt for d in ans.decisions] + [c for d in ans.decisions for c in d.because]:
        text = g.read("MATCH (s:Source {id: $id}) RETURN s.text AS t", {"id": r.source_id})[0]["t"]
        assert text[r.start : r.end] == r.quote and r.quote


def test_content_words_are_searched_with_prefixes(store: Store, ledger: tuple[str, Graph]) -> None:
    repo, g = ledger
    ans = why(store, repo, "deny by default")
    assert ans.kind == "answer" and ans.mode == "words" and ans.query == "deny|default"
    assert ans.decisions[0].receipt.id in {"decision:pr:12", "decision:doc:docs/adr/0001-deny-by-default.md"}
    receipts_are_verbatim(g, ans)


def test_the_decision_comes_with_its_reasons_never_its_own_title(store: Store, ledger: tuple[str, Graph]) -> None:
    repo, g = ledger
    ans = why(store, repo, "why do we keep unknown prices as null?")
    assert ans.query == "keep|unknown|prices|null"  # 'why do we … as' dropped, '?' gone
    top = ans.decisions[0]
    assert top.receipt.id == "decision:pr:10" and top.receipt.url and top.receipt.url.startswith("https://")
    justifying = {
        r["id"]
        for r in g.read(
            "MATCH (c:Claim)<-[:PREMISE]-(:Justification)-[:JUSTIFIES]->"
            "(:Decision {id: 'decision:pr:10'}) RETURN c.id AS id"
        )
    }
    assert top.because and {c.id for c in top.because} <= justifying
    for d in ans.decisions:
        assert all(c.quote not in (d.receipt.text, d.receipt.quote) for c in d.because)
        assert all(not c.quote.rstrip().endswith("?") for c in d.because)
    receipts_are_verbatim(g, ans)
    assert set(ans.allowed) == {d.receipt.id for d in ans.decisions} | {c.id for d in ans.decisions for c in d.because}
    assert set(top.channels) <= {"decision", "claim", "source", "linked", "symbol", "file"} and top.channels


def test_fulltext_query_keeps_identifiers_and_adds_prefixes() -> None:
    assert fulltext_query(["max_age", "checked", "none"]) == "max_age|max|age|checked|none"
    assert fulltext_query(["compression"]) == "compression|compre*"


def test_words_and_stop_words() -> None:
    assert tokens("deny-by-default? (see #12) @x:{y} a|b * max_age __x") == [
        "deny",
        "by",
        "default",
        "see",
        "12",
        "x",
        "y",
        "a",
        "b",
        "max_age",
        "x",
    ]
    assert content_words(tokens("Why do we keep Unknown prices as NULL, why?")) == ["keep", "unknown", "prices", "null"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(min_size=1, max_size=80))
def test_no_question_text_is_fulltext_syntax(store: Store, ledger: tuple[str, Graph], question: str) -> None:
    if not question.strip():
        return
    ans = why(store, ledger[0], question)  # raises QueryFailed if any character reached RediSearch as syntax
    assert ans.kind in ("answer", "none", "refusal")


@pytest.mark.parametrize("question", ["%%", "why -- is it?", '"unclosed', "@summary:{x}", "a|b|", "(*)", "~what"])
def test_punctuation_questions_do_not_fail(store: Store, ledger: tuple[str, Graph], question: str) -> None:
    assert why(store, ledger[0], question).kind in ("answer", "none")


def test_nothing_found_says_so_and_never_asks_the_model(
    store: Store, ledger: tuple[str, Graph], openai_server: OpenAIServer
) -> None:
    ans = why(store, ledger[0], "why zebras quantum?", llm=client(openai_server))
    assert ans.kind == "none" and ans.message == NO_ANSWER and not ans.decisions and ans.synthesis is None
    assert openai_server.requests == []


@pytest.mark.parametrize(
    "question",
    [
        "grade my code",
        "Please review this diff",
        "is my code good?",
        "what score would you give PR 12?",
        "Rate this implementation out of 10",
    ],
)
def test_asked_to_grade_code_it_declines_in_one_sentence(
    store: Store, ledger: tuple[str, Graph], question: str
) -> None:
    ans = why(store, ledger[0], question)
    assert ans.kind == "refusal" and ans.message == REFUSAL and not ans.decisions
    assert REFUSAL.count(". ") == 0 and REFUSAL.endswith(".") and "why" in REFUSAL


def test_why_questions_about_reviews_are_not_refused() -> None:
    assert not is_review_request("why did we review the refund code?")
    assert not is_review_request("what did the review of PR 10 say about prices?")


def test_claims_that_no_longer_hold_are_withheld(store: Store, tmp_path: Path, repo_name: str) -> None:
    g = ledger_copy(store, tmp_path, repo_name)
    try:
        before = why(store, repo_name, "why do we keep unknown prices as null?")
        assert any(c.source_id == "issue:1" for d in before.decisions for c in d.because)
        quarantine_source(g, "issue:1", "forged issue", "sec")
        after = why(store, repo_name, "why do we keep unknown prices as null?")
        shown = [c for d in after.decisions for c in d.because] + [d.receipt for d in after.decisions]
        assert after.withheld > 0 and not [r for r in shown if r.source_id == "issue:1"]
        assert after.decisions[0].receipt.id == "decision:pr:10"  # the decision itself is still found
    finally:
        g.delete()


def test_bad_questions_and_unknown_repositories(store: Store, ledger: tuple[str, Graph], repo_name: str) -> None:
    with pytest.raises(InvalidInput, match="ask a question"):
        why(store, ledger[0], "   ")
    with pytest.raises(InvalidInput, match="under 500"):
        why(store, ledger[0], "why " * 200)
    with pytest.raises(UnknownRepository):
        why(store, repo_name, "why?")


# --- the allowed-ids rule -----------------------------------------------------------------------------------------
def test_synthesis_keeps_only_citations_it_searched_and_retrieved(
    store: Store, ledger: tuple[str, Graph], openai_server: OpenAIServer
) -> None:
    repo, g = ledger
    real_but_unsearched = "decision:pr:11"  # exists in the graph, but this question never finds it
    assert g.read("MATCH (d:Decision {id: $id}) RETURN d.id AS id", {"id": real_but_unsearched})
    openai_server.reply(
        json.dumps(
            {
                "answer": "Unknown prices stay None because 0 would mean free.",
                "cites": ["decision:pr:10", real_but_unsearched, "claim:pr:99:0:5"],
            }
        )
    )
    ans = why(store, repo, "why do we keep unknown prices as null?", llm=client(openai_server))
    assert real_but_unsearched not in ans.allowed
    assert ans.cited == ["decision:pr:10"]
    assert ans.rejected_citations == [real_but_unsearched, "claim:pr:99:0:5"]
    assert ans.synthesis == "Unknown prices stay None because 0 would mean free."
    prompt = openai_server.requests[0]["messages"][1]["content"]
    assert "decision:pr:10" in prompt and real_but_unsearched not in prompt


def test_when_no_citation_survives_there_is_no_synthesis(
    store: Store, ledger: tuple[str, Graph], openai_server: OpenAIServer
) -> None:
    openai_server.reply(json.dumps({"answer": "Because finance said so.", "cites": ["decision:pr:11"]}))
    ans = why(store, ledger[0], "why do we keep unknown prices as null?", llm=client(openai_server))
    assert ans.synthesis is None and ans.cited == [] and ans.rejected_citations == ["decision:pr:11"]
    assert NO_ANSWER in ans.message and ans.decisions  # the receipts still stand on their own


def test_an_unretrieved_id_named_in_the_prose_voids_the_synthesis(
    store: Store, ledger: tuple[str, Graph], openai_server: OpenAIServer
) -> None:
    openai_server.reply(json.dumps({"answer": "See decision:pr:11 for the reason.", "cites": ["decision:pr:10"]}))
    ans = why(store, ledger[0], "why do we keep unknown prices as null?", llm=client(openai_server))
    assert ans.synthesis is None and "decision:pr:11" in ans.rejected_citations


def test_a_failing_model_is_an_error_not_a_silent_fallback(
    store: Store, ledger: tuple[str, Graph], openai_server: OpenAIServer
) -> None:
    openai_server.reply((500, {"error": {"message": "boom", "type": "server_error"}}))
    with pytest.raises(LLMError, match="HTTP 500"):
        why(store, ledger[0], "why do we keep unknown prices as null?", llm=client(openai_server))
    openai_server.reply(json.dumps({"text": "wrong shape"}))
    with pytest.raises(LLMError, match="wrong shape"):
        why(store, ledger[0], "why do we keep unknown prices as null?", llm=client(openai_server))


# --- CLI ----------------------------------------------------------------------------------------------------------
def test_cli_prints_the_answer_as_json(
    store: Store, ledger: tuple[str, Graph], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["why", "--repo", ledger[0], "why do we keep unknown prices as null?", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "answer" and out["decisions"][0]["receipt"]["id"] == "decision:pr:10"
    assert main(["why", "--repo", ledger[0], "grade my code"]) == 0
    assert REFUSAL in capsys.readouterr().out
    assert main(["why", "--repo", "nobody/nothing", "why?", "--json"]) == 2
    assert "no graph for repository" in capsys.readouterr().err


def test_max_age_question_finds_pr_1387_with_context_not_its_title(store: Store) -> None:
    from rguard_core.ingest.pipeline import ingest_snapshot
    from tests.conftest import realdata_or_skip

    repo = "Kludex/starlette"
    if not store.repo_graph(repo).exists():
        ingest_snapshot(store, realdata_or_skip() / "github", repo=repo)
    ans = why(store, repo, "why is max_age checked with is not None")
    top = [d.receipt.id for d in ans.decisions[:3]]
    assert "decision:pr:1387" in top, top
    d = next(d for d in ans.decisions if d.receipt.id == "decision:pr:1387")
    assert all(c.quote != d.receipt.text for c in d.because)
    g = store.repo_graph(repo)
    text = g.read("MATCH (s:Source {id: 'pr:1387'}) RETURN s.text AS t")[0]["t"]
    shown = d.because or ([d.context] if d.context else [])
    assert shown and all(r.quote != d.receipt.text for r in shown)
    if d.context is not None:
        assert text[d.context.start : d.context.end] == d.context.quote and "max_age" in d.context.quote
    reverted = [x for x in ans.decisions if x.replaced_by]
    assert all("reverted" in x.note or "superseded" in x.note for x in reverted)
    assert "source_text" not in json.dumps(ans.as_dict())

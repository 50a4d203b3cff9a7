"""The LLM extractor: asks a chat model for quotes; checks the answer's shape here, verbatim-ness in the pipeline."""

from __future__ import annotations

from typing import Any

from ...jsontypes import JSONObject
from ...llm import LLMClient
from .base import Candidate, Proposal, Role, SourceDoc

MAX_SOURCE_CHARS = 12_000  # the prompt gets a prefix; quotes from it are still substrings of the full text
MAX_ITEMS = 100
MAX_SUMMARY = 1000
CLAIM_KINDS = ("problem", "reason", "rationale", "fact")

SYSTEM_PROMPT = """You extract the decision record from one piece of a software repository's history.
Answer with one JSON object and nothing else:
{"decision": {"quote": "...", "summary": "..."} | null,
 "alternatives": [{"quote": "...", "summary": "..."}],
 "claims": [{"quote": "...", "summary": "...", "kind": "problem|reason|rationale|fact"}]}
Rules:
- Every "quote" MUST be copied exactly, character for character, from the SOURCE TEXT: same words, case,
  punctuation and whitespace. Never paraphrase, fix typos, join separate passages or add ellipses.
  A quote that is not an exact substring is thrown away.
- Keep quotes short: one sentence or clause, at most a few lines.
- "summary" is your own one-line wording of what the quote says.
- "decision": what this source decides or does (the change it makes), or null if it decides nothing.
- "alternatives": options the source considered and rejected.
- "claims": statements the decision rests on. kind is "problem" (what is wrong), "reason" (why this way),
  "rationale" (argument for or against an option) or "fact" (a stated fact).
- Return empty lists and null when the source holds nothing of that sort."""

CLAIMS_ONLY = """This source is supporting material (an issue or a review comment): fill "claims" and any
"alternatives" it rejects; "decision" must be null."""


class LLMExtractor:
    """Extractor backed by an OpenAI-compatible model; raises LLMError when the model fails or misbehaves."""

    name = "llm"

    def __init__(self, client: LLMClient, *, max_chars: int = MAX_SOURCE_CHARS) -> None:
        self.client = client
        self.max_chars = max_chars

    def extract(self, doc: SourceDoc) -> Proposal:
        """Propose candidates for ``doc``; quotes come back untouched so the pipeline can anchor them."""
        system = SYSTEM_PROMPT if doc.role == "decision" else f"{SYSTEM_PROMPT}\n{CLAIMS_ONLY}"
        return self.client.complete_json(
            system, user_prompt(doc, self.max_chars), lambda data: parse_proposal(data, doc.role)
        )


def user_prompt(doc: SourceDoc, max_chars: int = MAX_SOURCE_CHARS) -> str:
    """The user message: what the source is, then its text (a prefix of it when it is long)."""
    text = doc.text[:max_chars]
    note = f" (first {max_chars} of {len(doc.text)} characters)" if len(doc.text) > max_chars else ""
    title = f"Title: {doc.title}\n" if doc.title else ""
    return (
        f"Source {doc.id} (a {doc.kind}); look for: {doc.role}.\n{title}"
        f"SOURCE TEXT{note} between the markers:\n<<<SOURCE\n{text}\nSOURCE>>>"
    )


def parse_proposal(data: Any, role: Role) -> Proposal:
    """Check the model's JSON and build a Proposal; raise ValueError naming the first thing that is wrong."""
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    if not {"decision", "alternatives", "claims"} & data.keys():
        raise ValueError(f"none of the keys decision/alternatives/claims present (got {sorted(data)[:10]})")
    claims = [_candidate(c, f"claims[{i}]", claim=True) for i, c in enumerate(_items(data, "claims"))]
    alternatives = [
        _candidate(a, f"alternatives[{i}]", claim=False) for i, a in enumerate(_items(data, "alternatives"))
    ]
    if role == "claims":  # supporting sources never contribute decisions, whatever the model says
        return Proposal(alternatives=alternatives, claims=claims)
    raw_decision = data.get("decision")
    decision = None if raw_decision is None else _candidate(raw_decision, "decision", claim=False)
    return Proposal(decision=decision, alternatives=alternatives, claims=claims, why="llm" if decision else "")


def _items(data: JSONObject, key: str) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{key} must be a list, got {type(value).__name__}")
    if len(value) > MAX_ITEMS:
        raise ValueError(f"{key} has {len(value)} items; at most {MAX_ITEMS} allowed")
    return value


def _candidate(item: Any, where: str, *, claim: bool) -> Candidate:
    if not isinstance(item, dict):
        raise ValueError(f"{where} must be an object, got {type(item).__name__}")
    quote, summary = item.get("quote"), item.get("summary", "")
    if not isinstance(quote, str):
        raise ValueError(f"{where}.quote must be a string, got {type(quote).__name__}")
    if not isinstance(summary, str):
        raise ValueError(f"{where}.summary must be a string, got {type(summary).__name__}")
    if len(summary) > MAX_SUMMARY:
        raise ValueError(f"{where}.summary is {len(summary)} characters; at most {MAX_SUMMARY} allowed")
    if not claim:
        return Candidate(quote=quote, summary=summary.strip())
    kind = item.get("kind")
    if not isinstance(kind, str) or kind.strip().lower() not in CLAIM_KINDS:
        raise ValueError(f"{where}.kind must be one of {'|'.join(CLAIM_KINDS)}, got {kind!r}")
    return Candidate(quote=quote, summary=summary.strip(), kind=kind.strip().lower())

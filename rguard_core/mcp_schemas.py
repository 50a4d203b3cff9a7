"""The MCP tools' output schemas: what each tool returns after ``untrusted.mark_untrusted``, as TypedDicts the SDK
turns into ``outputSchema`` and validates every result against.

Every string that is not RGuard's own arrives as ``{"untrusted_quote": "…"}`` (``Quoted``); ``Text`` is either
form (an id stays a plain string while it looks like one). The main fields are named; each object allows more
(``extra="allow"``), so a field the CLI adds later reaches agents without breaking the contract.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from pydantic import ConfigDict, with_config

OPEN = ConfigDict(extra="allow")


@with_config(OPEN)
class Quoted(TypedDict):
    untrusted_quote: str


type Text = str | Quoted


@with_config(OPEN)
class Result(TypedDict):
    untrusted_data_notice: str


@with_config(OPEN)
class ReposOut(Result):
    store: Text
    repos: list[Text]
    workspaces: list[Text]


@with_config(OPEN)
class RuleHit(TypedDict):
    id: str
    why: Text


@with_config(OPEN)
class Expert(TypedDict):
    login: Text
    score: float


@with_config(OPEN)
class FindingOut(TypedDict):
    decision_id: Text
    label: Literal["contradicts", "related"]
    score: float
    summary: Text
    quote: Text
    source_url: Text
    rules: list[RuleHit]
    premises: list[dict[str, Any]]
    alternatives: list[dict[str, Any]]
    experts: list[Expert]
    bus_factor: int


@with_config(OPEN)
class GuardOut(Result):
    repo: Text
    verdict: Literal["pass", "note", "warn"]
    findings: list[FindingOut]
    dismissed: list[FindingOut]
    notes: list[Text]
    skipped_files: list[Text]
    truncated: NotRequired[int]  # findings left out by max_findings (the verdict counts them all)


@with_config(OPEN)
class Receipt(TypedDict):
    id: Text
    type: Text
    text: Text
    quote: Text
    url: NotRequired[Text | None]
    status: NotRequired[Text | None]


@with_config(OPEN)
class WhyDecision(TypedDict):
    receipt: Receipt
    score: float
    because: list[Receipt]


@with_config(OPEN)
class WhyOut(Result):
    repo: Text
    question: Text
    kind: Text
    message: Text
    decisions: list[WhyDecision]
    synthesis: Text | None
    truncated: NotRequired[int]


@with_config(OPEN)
class FileExperts(TypedDict):
    path: Text
    known: bool
    experts: list[Expert]
    bus_factor: int


@with_config(OPEN)
class WhoOut(Result):
    repo: Text
    files: list[Text]
    experts: list[Expert]
    bus_factor: int
    per_file: list[FileExperts]


@with_config(OPEN)
class PremiseDecision(TypedDict):
    decision_id: Text
    summary: Text
    status: Text
    stands: bool
    premises: list[dict[str, Any]]


@with_config(OPEN)
class PremisesOut(Result):
    repo: Text
    decisions: list[PremiseDecision]
    unknown: list[Text]


@with_config(OPEN)
class FeedbackOut(Result):
    repo: Text
    kind: Text
    correction: Text
    decision_id: Text
    by: Text
    status: Text
    recorded: Text


@with_config(OPEN)
class CorrectionPreviewOut(Result):
    claim: Text
    new_statement: Text
    revision: int
    claims_fall: list[Any]
    decisions_lose_support: list[Any]


@with_config(OPEN)
class CorrectionOut(Result):
    status: Text
    correction: Text
    claim: Text
    replacement: Text


@with_config(OPEN)
class QuarantineOut(Result):
    incident: Text
    source: Text
    already_quarantined: bool


@with_config(OPEN)
class CodeOut(Result):
    """A code-map walk: the CLI's ``codemap`` JSON (files, import edges with line and specifier)."""

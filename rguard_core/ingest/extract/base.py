"""The extractor interface. Extractors propose quotes; the pipeline keeps only verbatim ones (evidence.anchor)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

Role = Literal["decision", "claims"]


@dataclass(frozen=True)
class SourceDoc:
    """One source handed to an extractor. ``role`` says what to look for in it."""

    id: str  # graph node id: pr:12, issue:7, comment:pr:12:0, doc:docs/adr/0001-x.md, commit:<sha>
    kind: str  # pr | issue | comment | doc | commit
    text: str  # the exact text quotes must be substrings of
    role: Role  # decision: decisions + alternatives + rationale claims; claims: claims only
    title: str = ""


@dataclass
class Candidate:
    """A proposed quote. ``summary`` is the extractor's own words; only ``quote`` must be verbatim."""

    quote: str
    summary: str
    kind: str = "fact"  # claims: problem | reason | rationale | fact


@dataclass
class Proposal:
    decision: Candidate | None = None
    alternatives: list[Candidate] = field(default_factory=list)
    claims: list[Candidate] = field(default_factory=list)
    why: str = ""  # why the decision was extracted (stored as Decision.extracted_because): cue words, title, ADR, llm


class Extractor(Protocol):
    name: str

    def extract(self, doc: SourceDoc) -> Proposal:
        """Propose a decision, rejected alternatives and claims found in ``doc``; may raise LLMError."""
        ...

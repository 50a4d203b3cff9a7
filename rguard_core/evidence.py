"""The evidence rule, in one place: a quote exists only as an exact substring of its source, with offsets."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """A verbatim quote: ``text == source_text[start:end]``."""

    source_id: str
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class RejectedQuote:
    source_id: str
    quote: str
    reason: str  # not_verbatim | empty | too_long


MAX_QUOTE = 1200


def anchor(source_id: str, source_text: str, quote: str, hint: int = 0) -> Span | RejectedQuote:
    """Locate ``quote`` in ``source_text`` exactly (first match at or after ``hint``, else anywhere)."""
    if not quote or not quote.strip():
        return RejectedQuote(source_id, quote or "", "empty")
    if len(quote) > MAX_QUOTE:
        return RejectedQuote(source_id, quote[:80], "too_long")
    start = source_text.find(quote, hint)
    if start < 0:
        start = source_text.find(quote)
    if start < 0:
        return RejectedQuote(source_id, quote, "not_verbatim")
    return Span(source_id, start, start + len(quote), quote)


def is_verbatim(source_text: str, span: Span) -> bool:
    """True when the stored offsets still point at exactly the stored quote."""
    return 0 <= span.start <= span.end <= len(source_text) and source_text[span.start : span.end] == span.text

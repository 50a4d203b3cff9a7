"""Read an ADR's number, title, status and supersession links from its markdown."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .links import adr_number, adr_superseded_by, adr_supersedes

STATUSES = ("proposed", "accepted", "deprecated", "superseded", "rejected")
_STATUS_LINE = re.compile(r"^\s*(?:[-*]\s*)?(?:\*\*)?status(?:\*\*)?\s*[:：]\s*(?:\*\*)?\s*([A-Za-z]+)", re.I | re.M)
_STATUS_SECTION = re.compile(r"^#{1,6}\s*status\s*$\s*^\s*([A-Za-z]+)", re.I | re.M)
_TITLE = re.compile(r"^\s*#\s+(.+?)\s*$", re.M)


@dataclass
class AdrInfo:
    number: int | None
    title: str
    status: str
    supersedes: set[int] = field(default_factory=set)
    superseded_by: set[int] = field(default_factory=set)


def parse_adr(path: str, text: str) -> AdrInfo:
    """Status from a ``Status: X`` line or a ``## Status`` section; unknown words count as ``proposed``."""
    m = _STATUS_LINE.search(text) or _STATUS_SECTION.search(text)
    status = m.group(1).lower() if m else "proposed"
    if status not in STATUSES:
        status = "proposed"
    by = adr_superseded_by(text)
    if by:
        status = "superseded"
    t = _TITLE.search(text)
    title = t.group(1) if t else path.rsplit("/", 1)[-1]
    return AdrInfo(adr_number(path), title, status, adr_supersedes(text), by)

"""Rule-based links read from PR, issue, comment and commit text: fixes, references, reverts, dependencies."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_NUM = r"#(\d{1,7})\b"
_FIXES = re.compile(r"\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\b:?\s+" + _NUM, re.I)
_REFS = re.compile(r"\b(?:refs?|see|related\s+to|relates\s+to|part\s+of|addresses)\b:?\s+" + _NUM, re.I)
_DEPENDS = re.compile(r"\b(?:depends\s+on|blocked\s+by|requires)\b:?\s+" + _NUM, re.I)
_REVERTS_NUM = re.compile(r"\breverts?\s+(?:pr\s+)?" + _NUM, re.I)
_REVERT_TITLE = re.compile(r'^\s*Revert\s+"(.+)"\s*$', re.I)
_REVERTS_SHA = re.compile(r"\bThis reverts commit ([0-9a-f]{7,40})\b", re.I)
_BARE = re.compile(r"(?<![\w/&])" + _NUM)
_SUPERSEDES = re.compile(r"\bsupersedes:?\s+(?:ADR[-\s]?)?0*(\d{1,5})\b", re.I)
_SUPERSEDED_BY = re.compile(r"\bsuperseded\s+by:?\s+(?:ADR[-\s]?)?0*(\d{1,5})\b", re.I)


@dataclass
class Links:
    fixes: set[int] = field(default_factory=set)
    references: set[int] = field(default_factory=set)
    depends_on: set[int] = field(default_factory=set)
    reverts: set[int] = field(default_factory=set)
    reverts_title: str | None = None
    reverts_shas: set[str] = field(default_factory=set)


def parse_links(text: str, title: str = "", own_number: int | None = None) -> Links:
    """Read every link kind from a title and body; a number is a fix, a dependency or a reference, once."""
    body = text or ""
    links = Links()
    links.fixes = {int(m) for m in _FIXES.findall(body)}
    links.depends_on = {int(m) for m in _DEPENDS.findall(body)} - links.fixes
    links.reverts = {int(m) for m in _REVERTS_NUM.findall(body)}
    links.reverts_shas = set(_REVERTS_SHA.findall(body))
    m = _REVERT_TITLE.match(title or "")
    if m:
        links.reverts_title = m.group(1)
    explicit = {int(x) for x in _REFS.findall(body)}
    bare = {int(x) for x in _BARE.findall(f"{title}\n{body}")}
    taken = links.fixes | links.depends_on | links.reverts
    links.references = (explicit | bare) - taken
    if own_number is not None:
        for s in (links.fixes, links.references, links.depends_on, links.reverts):
            s.discard(own_number)
    return links


def adr_number(path: str) -> int | None:
    """ADR number from a file name like ``0003-event-log.md`` or ``adr-3.md``."""
    m = re.search(r"(?:^|[/_-])(?:adr[-_]?)?0*(\d{1,5})[-_. ]", path.rsplit("/", 1)[-1] + " ", re.I)
    return int(m.group(1)) if m else None


def adr_supersedes(text: str) -> set[int]:
    return {int(x) for x in _SUPERSEDES.findall(text or "")}


def adr_superseded_by(text: str) -> set[int]:
    return {int(x) for x in _SUPERSEDED_BY.findall(text or "")}

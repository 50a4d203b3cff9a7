"""Split prose into sentences with exact offsets, skipping code blocks, quotes, tables and markup."""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^\s*(```|~~~)")
_BULLET = re.compile(r"^(\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?)")
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(])")
_HEADER = re.compile(r"^\s*#{1,6}\s+(.*)$")
_CODE_CHARS = str.maketrans("", "", "{}();=<>[]")
_CHECKBOX = re.compile(r"^(?:[-*+]\s*)?\[[ xX√✓✔]?\]")


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    text: str
    section: str  # the nearest markdown heading above it, lower-cased ("" if none)


def sentences(text: str, max_len: int = 400) -> list[Sentence]:
    """Prose sentences of ``text``; each ``text[start:end] == sentence.text`` exactly."""
    out: list[Sentence] = []
    in_code = False
    section = ""
    pos = 0
    for raw in text.splitlines(keepends=True):
        line_start, pos = pos, pos + len(raw)
        line = raw.rstrip("\r\n")
        if _FENCE.match(line):
            in_code = not in_code
            continue
        h = _HEADER.match(line)
        if in_code or h or _skip_line(line) or "checklist" in section:
            if h:
                section = h.group(1).strip().lower()
            continue
        m = _BULLET.match(line)
        offset = len(m.group(1)) if m else len(line) - len(line.lstrip())
        body = line[offset:]
        base = line_start + offset
        cursor = 0
        for part in _SPLIT.split(body):
            idx = body.find(part, cursor)
            cursor = idx + len(part)
            s = part.strip()
            if len(s) < 12 or len(s) > max_len or not re.search(r"[A-Za-z]{3}", s):
                continue
            start = base + idx + (len(part) - len(part.lstrip()))
            out.append(Sentence(start, start + len(s), s, section))
    return out


def _skip_line(line: str) -> bool:
    s = line.strip()
    return (
        not s
        or s.startswith(">")
        or s.startswith("|")
        or s.startswith("<!--")
        or bool(_CHECKBOX.match(s))
        or s.startswith("    ")
        or (s.startswith("[") and "](" in s and s.endswith(")"))
        or len(s) - len(s.translate(_CODE_CHARS)) > len(s) / 6
    )

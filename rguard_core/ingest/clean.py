"""Clean source text before anything is built from it: no NUL, no control characters, no lone surrogates.

FalkorDB cannot take a NUL in a parameter ("Failed to parse query parameter") and Redis cannot take a lone
surrogate (not UTF-8), so one such character in a PR body used to fail an ingest half way. Cleaning happens on
the collected history, before extraction, so every quote's offsets are offsets into the cleaned text that is
stored. Tab, newline and carriage return are kept; other C0/C1 controls and DEL are dropped; a lone surrogate
(from JSON like ``"\\ud800"``) becomes U+FFFD.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from .model import RepoHistory

_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """``text`` without control characters (tab, newline, CR kept) and with lone surrogates replaced."""
    if _CONTROL.search(text):
        text = _CONTROL.sub("", text)
    if _SURROGATE.search(text):
        text = _SURROGATE.sub("\ufffd", text)
    return text


def clean_history(hist: RepoHistory) -> RepoHistory:
    """Clean every string in a collected history in place (and return it)."""
    _clean(hist)
    hist.people = {clean_text(k): v for k, v in hist.people.items()}
    return hist


def _clean(obj: Any) -> Any:
    if isinstance(obj, str):
        return clean_text(obj)
    if isinstance(obj, list):
        for i, x in enumerate(obj):
            obj[i] = _clean(x)
        return obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            obj[k] = _clean(v)
        return obj
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            v = getattr(obj, f.name)
            if isinstance(v, (str, list, dict)) or dataclasses.is_dataclass(v):
                setattr(obj, f.name, _clean(v))
        return obj
    return obj

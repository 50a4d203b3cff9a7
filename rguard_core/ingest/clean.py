"""Clean source text before anything is built from it: no NUL, no control characters, no lone surrogates.

FalkorDB cannot take a NUL in a parameter ("Failed to parse query parameter") and Redis cannot take a lone
surrogate (not UTF-8), so one such character in a PR body used to fail an ingest half way. Cleaning happens on
the collected history, before extraction, so every quote's offsets are offsets into the cleaned text that is
stored. Tab, newline and carriage return are kept; other C0/C1 controls and DEL are dropped; a lone surrogate
(from JSON like ``"\\ud800"``) becomes U+FFFD.
"""

from __future__ import annotations

import re
from typing import Any

from .model import RepoHistory

_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_ANY = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def clean_text(text: str) -> str:
    """``text`` without control characters (tab, newline, CR kept) and with lone surrogates replaced."""
    if not _ANY.search(text):
        return text
    return _SURROGATE.sub("\ufffd", _CONTROL.sub("", text))


def clean_history(hist: RepoHistory) -> RepoHistory:
    """Clean every string in a collected history in place (and return it)."""
    _clean_obj(hist)
    hist.people = {clean_text(k): v for k, v in hist.people.items()}
    return hist


def _clean_obj(obj: Any) -> None:
    # Walks the model's dataclasses through their __dict__ (a measured 4x faster than dataclasses.fields):
    # every string field, in lists and dicts too, so a field added to the model later is cleaned as well.
    d = obj.__dict__
    for k, v in d.items():
        t = type(v)
        if t is str:
            if _ANY.search(v):
                d[k] = clean_text(v)
        elif t is list:
            _clean_list(v)
        elif t is dict:
            for dk, dv in v.items():
                if type(dv) is str:
                    v[dk] = clean_text(dv)
                elif hasattr(dv, "__dataclass_fields__"):
                    _clean_obj(dv)
        elif hasattr(v, "__dataclass_fields__"):
            _clean_obj(v)


def _clean_list(items: list[Any]) -> None:
    for i, x in enumerate(items):
        if type(x) is str:
            if _ANY.search(x):
                items[i] = clean_text(x)
        elif hasattr(x, "__dataclass_fields__"):
            _clean_obj(x)
        elif type(x) is list:
            _clean_list(x)

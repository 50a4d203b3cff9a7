"""Paraphrased undos read from how the decision's code handles a failure.

X2  caught to accept: the decision's change handles an exception by name (``except (BadTimeSignature,
    SignatureExpired):`` resets the session) and the diff adds a handler for that exception whose body does
    what the ``try`` body does (loads the payload anyway) and raises nothing: what the decision refused is
    now taken.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .behaviour import decision_files, indent_of
from .judge_case import Case, Evidence
from .rejected import decision_code_lines

CAUGHT_SCORE = 0.65
# a handler "does what the try body does" when it repeats this many of the try body's call names
ACCEPT_CALLS_MIN = 2

_EXCEPT = re.compile(r"^\s*except\s*\(?\s*([\w., ]+?)\s*\)?\s*(?:as\s+\w+\s*)?:\s*$")
_TRY = re.compile(r"^\s*try\s*:\s*$")
_CALL = re.compile(r"(?<![\w])([A-Za-z_][\w.]*)\s*\(")
_RAISES = re.compile(r"^\s*(?:raise|throw)\b")


@lru_cache(maxsize=4096)
def handled_exceptions(patch: str, path: str) -> frozenset[str]:
    """Exception names the decision's change added an ``except`` clause for."""
    out: set[str] = set()
    for line in decision_code_lines(patch, path)[0]:
        m = _EXCEPT.match(line)
        if m:
            out.update(n.strip().rsplit(".", 1)[-1] for n in m.group(1).split(",") if n.strip())
    out.discard("Exception")
    return frozenset(out)


@dataclass(frozen=True)
class Accepted:
    exception: str
    handler: str
    calls: tuple[str, ...]
    path: str


def _try_body(lines: list[tuple[str, str]], at: int, indent: int) -> list[str]:
    """The new side's lines of the ``try`` body that the handler at ``at`` belongs to (context or added)."""
    body: list[str] = []
    for k, x in reversed(lines[:at]):
        if k == "-" or not x.strip():
            continue
        if indent_of(x) == indent and _TRY.match(x):
            return body
        if indent_of(x) == indent and _EXCEPT.match(x):
            body = []  # what was read so far belongs to an earlier handler of the same try
            continue
        if indent_of(x) <= indent:
            return []  # left the statement without meeting its try
        if indent_of(x) > indent:
            body.append(x)
    return []


def _handler_body(lines: list[tuple[str, str]], at: int, indent: int) -> list[str]:
    """The handler's lines on the new side. git may align the handler's last line with an old one (a context
    line), so context lines count; the handler needs one added line of its own."""
    body: list[str] = []
    added = False
    for k, x in lines[at + 1 :]:
        if not x.strip():
            continue
        if indent_of(x) <= indent:
            break
        added = added or k == "+"
        body.append(x)
    return body if added else []


def _calls(lines: list[str]) -> set[str]:
    return {m.group(1).rsplit(".", 1)[-1] for x in lines for m in _CALL.finditer(x)}


def caught_to_accept(case: Case) -> list[Accepted]:
    """X2: handlers the diff adds for an exception the decision handles, doing what the try body does."""
    out: list[Accepted] = []
    for path, cs, patch in decision_files(case):
        names = handled_exceptions(patch, path)
        if not names:
            continue
        for h in cs.hunks:
            new_side = [(k, x) for k, x in h if k != "-"]
            for i, (k, x) in enumerate(new_side):
                m = _EXCEPT.match(x) if k == "+" else None
                caught = {n.strip().rsplit(".", 1)[-1] for n in m.group(1).split(",")} & names if m else set()
                if not caught:
                    continue
                handler = _handler_body(new_side, i, indent_of(x))
                if not handler or any(_RAISES.match(b) for b in handler):
                    continue
                same = _calls(handler) & _calls(_try_body(new_side, i, indent_of(x)))
                if len(same) >= ACCEPT_CALLS_MIN:
                    out.append(Accepted(sorted(caught)[0], x.strip(), tuple(sorted(same)), path))
    return out


def x2_caught(case: Case) -> Evidence | None:
    """X2: the failure the decision handles caught by the diff to do what the try body does anyway."""
    if case.remote:
        return None
    found = caught_to_accept(case)
    if not found:
        return None
    a = found[0]
    calls = ", ".join(f"`{c}`" for c in a.calls[:4])
    return Evidence(
        "X2",
        CAUGHT_SCORE,
        f"the diff catches `{a.exception}` (`{a.handler}` in {a.path}), which the decision's change handles, and "
        f"goes on as if nothing failed ({calls} as in the try body)",
        None,
        True,
    )

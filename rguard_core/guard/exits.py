"""F2: a result the decision returned at once, no longer final.

A decision that makes one check win (#3057: "Ignore `if-modified-since` if `if-none-match` is present") often
writes it as an early return: ``return etag in [...]`` inside the ``if``, before the other check. The undo
keeps the expression and drops the finality: the result is stored and combined later (``etag_matches = ...``
then ``return etag_matches or not_modified_since``), or only one outcome returns (``if ... in [...]: return
True``) and the flow goes on to the check the decision made unreachable.

Fires when the diff takes out a ``return EXPR`` line the decision's change wrote inside a block with code after
it, writes EXPR again (most of its specific tokens) without returning it as is, and returns either a
combination (``x or y``, ``x and y``) or a bare ``True``/``False`` that the next statement does not complete
(``return False`` right after makes it the same function).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .behaviour import decision_files, indent_of, is_decision_line
from .diffparse import patch_hunks
from .judge_case import Case, Evidence, share_of
from .tokens import ChangeSet, is_specific, tokens

FINAL_SCORE = 0.65
KEEP_MIN = 0.8  # share of the returned expression's specific tokens the diff writes again
_RETURN = re.compile(r"^\s*return\s+(.+?)\s*;?\s*$")
_BARE_BOOL = re.compile(r"^\s*return\s+(True|False|true|false)\s*;?\s*$")
_COMBINED = re.compile(r"^\s*return\s+.*(?:\bor\b|\band\b|\|\||&&)")


@lru_cache(maxsize=4096)
def early_returns(patch: str, path: str) -> tuple[str, ...]:
    """``return EXPR`` lines the decision's change added inside a block that code follows (an early exit)."""
    out: list[str] = []
    for h in patch_hunks(patch):
        # the raw lines (code_lines drops indentation, which says what follows the block)
        lines = [(k, x) for k, x in h if k != "-" and x.strip() and not x.lstrip().startswith(("#", "//"))]
        for i, (k, x) in enumerate(lines):
            m = _RETURN.match(x) if k == "+" else None
            if not m or len([t for t in tokens(m.group(1)) if is_specific(t)]) < 2:
                continue
            if _code_follows(lines[i + 1 :], indent_of(x)):
                out.append(x.strip())
    return tuple(out)


_DEFINITION = re.compile(
    r"^\s*(?:@|(?:async\s+)?def\s|class\s|function\s|export\s|(?:const|let|var)\s+\w+\s*=\s*(?:async\s*)?\(|"
    r"(?:(?:public|private|protected|static|async|get|set|override|readonly)\s+)*[A-Za-z_$][\w$]*\s*\([^)]*\)\s*(?::\s*[^{=]+)?\{\s*$)"
)
_CLOSER = re.compile(r"^\s*[)}\]]+[;,)]*\s*$")  # a brace that closes a block says nothing of what follows


def _code_follows(rest: list[tuple[str, str]], level: int) -> bool:
    """Code of the same function after the block the return sits in: a line less indented than the return
    before any new definition (the return that ends a function is its last word, not an early one)."""
    for _, y in rest:
        if _DEFINITION.match(y):
            return False
        if _CLOSER.match(y):
            continue
        if indent_of(y) < level:
            return True
    return False


@dataclass(frozen=True)
class NotFinal:
    decided: str
    line: str  # the diff's return that replaces it
    path: str


def _specific(text: str) -> set[str]:
    return {t for t in tokens(text) if is_specific(t)}


def _completed(cs: ChangeSet, line: str) -> bool:
    """Is the bare ``return True`` followed by the opposite return at the ``if``'s level (the same function)?"""
    for h in cs.hunks:
        side = [x for k, x in h if k != "-" and x.strip()]
        for i, x in enumerate(side):
            if x.strip() == line.strip():
                level = indent_of(x)
                rest = [y for y in side[i + 1 :] if indent_of(y) < level]
                return bool(rest) and bool(_BARE_BOOL.match(rest[0]))
    return False


def _calls_any(line: str, names: frozenset[str]) -> bool:
    return any(re.search(r"(?<![\w])" + re.escape(n) + r"\s*\(", line) for n in names)


def not_final(case: Case) -> list[NotFinal]:
    out: list[NotFinal] = []
    for path, cs, patch in decision_files(case):
        mine = list(early_returns(patch, path))
        if not mine:
            continue
        # the raw lines: a return moved as it is into a helper is matched away in removed_lines / added_lines
        added = list(dict.fromkeys(x.strip() for h in cs.hunks for k, x in h if k == "+" and x.strip()))
        for r in dict.fromkeys(x.strip() for h in cs.hunks for k, x in h if k == "-"):
            m = _RETURN.match(r)
            if not m or not is_decision_line(r, mine):
                continue
            want = _specific(m.group(1))
            have = set().union(*(_specific(x) for x in added)) if added else set()
            if not want or len(want & have) < KEEP_MIN * len(want):
                continue  # the expression is gone, not kept: other rules read a removal
            if any(
                (n := _RETURN.match(x)) and len(want & _specific(n.group(1))) >= KEEP_MIN * len(want) for x in added
            ):
                # still returned as it is, unless from a helper the diff defines whose result it then combines
                combined = next((x for x in added if _COMBINED.match(x) and _calls_any(x, cs.defined)), None)
                if combined is not None:
                    out.append(NotFinal(r.strip(), combined.strip(), path))
                continue
            for x in added:
                if _COMBINED.match(x) or (_BARE_BOOL.match(x) and not _completed(cs, x)):
                    out.append(NotFinal(r.strip(), x.strip(), path))
                    break
    return out


def f2_not_final(case: Case) -> Evidence | None:
    """F2: a result the decision returned at once, kept but no longer final."""
    if case.remote:
        return None
    found = not_final(case)
    if not found:
        return None
    x = found[0]
    return Evidence(
        "F2",
        FINAL_SCORE,
        f"the decision returned at once (`{x.decided}`); the diff keeps the check but goes on (`{x.line}` in "
        f"{x.path}), so what came after it can decide again",
        share_of(case, [x.decided, x.line]),
        True,
    )

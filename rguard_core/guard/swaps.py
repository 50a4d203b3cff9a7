"""T1: a swap the decision made, turned back in new code.

The decision's change edited a line by swapping one or two names or literals for others (``.match(`` became
``.fullmatch(``, ``"lax"`` became ``"strict"``), its words name one of them, and the diff takes the new ones out
of that file and writes the old ones again on a line beside the decision line's own names
(``pattern.match(origin) for pattern in self.allow_origin_regex``). REV3 catches the same when the lines stay
alike; T1 reads the swap itself, so a rewrite around it does not hide it. It carries no share (like REV1): the
swap is the whole point of such a decision, however much else the diff changes.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from .judge_case import Case, Evidence
from .rejected import decision_words
from .revert import line_edits
from .tokens import ChangeSet, is_identifier, is_specific, tokens

SWAP_MAX = 2  # tokens on each side of the decision's edit: more is a rewrite of the line, not a swap
SWAP_SCORE = 0.8
NAME_MIN = 3  # a swapped token the decision's words name is at least this long
GROWN_MIN = 6  # a line name this long, extended by the diff (``_regex`` -> ``_regexes``), is still that name


@dataclass(frozen=True)
class Swap:
    """The decision edited a line by putting ``new`` where ``old`` was; ``names``: the line's other names."""

    old: tuple[str, ...]
    new: tuple[str, ...]
    names: frozenset[str]


@dataclass(frozen=True)
class SwapBack:
    swap: Swap
    path: str
    line: str  # the diff's added line that writes the old tokens again


@lru_cache(maxsize=4096)
def decision_swaps(patch: str, path: str) -> tuple[Swap, ...]:
    """The change's line edits that swap at most SWAP_MAX specific tokens for as many others."""
    out = []
    for before, after in line_edits(patch, path):
        was, now = Counter(tokens(before)), Counter(tokens(after))
        old, new = tuple(was - now), tuple(now - was)
        if not (1 <= len(old) <= SWAP_MAX and 1 <= len(new) <= SWAP_MAX):
            continue
        if not all(is_specific(t) for t in old + new):
            continue
        names = frozenset(t for t in now if is_identifier(t) and t not in new and len(t) >= NAME_MIN)
        if names:
            out.append(Swap(old, new, names))
    return tuple(out)


def named(text: str, tok: str) -> bool:
    """The decision's words use the token as a word (``full regex match`` names ``match``)."""
    key = tok.strip("\"'`")
    return len(key) >= NAME_MIN and re.search(r"(?<![\w])" + re.escape(key) + r"(?![\w])", text, re.I) is not None


def swapped_back(case: Case) -> SwapBack | None:
    text = decision_words(case)
    for path, patch in case.info.patches.items():
        cs = case.diff_sets.get(path)
        if cs is None or cs.test or cs.kind == "prose":
            continue
        for swap in decision_swaps(patch, path):
            if not any(named(text, t) for t in swap.old + swap.new):
                continue
            line = _written_again(cs, swap)
            if line is not None:
                return SwapBack(swap, path, line)
    return None


def _written_again(cs: ChangeSet, swap: Swap) -> str | None:
    """The diff takes the new tokens out (from a line with the decision line's names) and writes the old ones
    again beside those names; None otherwise."""
    if not all(cs.removed[t] > 0 for t in swap.new) or not all(cs.added[t] > 0 for t in swap.old):
        return None
    if not any(_holds(line, swap.new, swap.names) for line in cs.removed_lines):
        return None
    # the line's names as the diff renamed them (``allow_origin_regex`` -> ``allow_origin_regexes``)
    names = swap.names | {cs.renames[n] for n in swap.names if n in cs.renames}
    return next((line for line in cs.added_lines if _holds(line, swap.old, names, grown=True)), None)


def _holds(line: str, wanted: tuple[str, ...], names: frozenset[str], grown: bool = False) -> bool:
    """``grown``: a name that extends one of ``names`` (a plural, a suffix) counts as that name."""
    toks = set(tokens(line))
    if not all(t in toks for t in wanted):
        return False
    return bool(toks & names) or (grown and any(t.startswith(n) and len(n) >= GROWN_MIN for t in toks for n in names))


def t1_swapped_back(case: Case) -> Evidence | None:
    found = swapped_back(case)
    if found is None:
        return None
    s = found.swap
    return Evidence(
        "T1",
        SWAP_SCORE,
        f"the decision's change put `{'`, `'.join(s.new)}` where `{'`, `'.join(s.old)}` was; the diff takes it "
        f"out of {found.path} and writes `{'`, `'.join(s.old)}` again (`{found.line.strip()}`)",
        None,
        True,
    )

"""REV4: a line the decision's change took out, written again by the diff.

REV1–REV3 read reverts as line pairs (the decision's line edited back, its hunk put back). A paraphrased undo
often writes one line the decision removed into new code around it instead: #3286 replaced ``handler =
getattr(self, handler_name, self.method_not_allowed)`` by an allow-list, and the diff's new ``else`` branch
reads ``handler = getattr(self, handler_name, self.method_not_allowed)`` again. The line must be like the removed one (token
sequence), name nothing the removed line did not, and put together names no line the decision wrote holds
together, and write a call of the old line (callee and arguments) that no line the decision wrote has:
``getattr(self, handler_name, self.method_not_allowed)``, not ``getattr(self, handler_name)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from .behaviour import decision_files
from .decisive import fine_tokens
from .judge_case import Case, Evidence, share_of
from .rejected import decision_code_lines
from .tokens import _IMPORT, is_specific, tokens

RESTORED_MIN = 0.7  # token-sequence likeness of the diff's line to the line the decision took out
RESTORED_SCORE = 0.7
RESTORED_MIN_SPECIFIC = 3  # a removed line with fewer specific tokens says too little to recognise


@dataclass(frozen=True)
class Restored:
    removed: str  # the line the decision's change took out
    line: str  # the diff's line
    path: str


def _calls(line: str) -> set[str]:
    """The calls written on a line, whole (``getattr(self, handler_name, self.method_not_allowed)``), spaces
    dropped: the old line's call written again with its arguments is what comes back, not its names alone."""
    out: set[str] = set()
    for m in re.finditer(r"[A-Za-z_][\w.]*\(", line):
        depth, j = 1, m.end()
        while j < len(line) and depth:
            depth += {"(": 1, ")": -1}.get(line[j], 0)
            j += 1
        if not depth:
            out.add(re.sub(r"\s+", "", line[m.start() : j]))
    return out


def _norm(line: str) -> str:
    return " ".join(line.split())


def _ratio(a: list[str], b: list[str]) -> float:
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


@lru_cache(maxsize=4096)
def taken_out(patch: str, path: str) -> tuple[tuple[str, tuple[str, ...], frozenset[str]], ...]:
    """The decision's removed code lines it did not write again: (text, fine tokens, specific tokens)."""
    added, removed, _ = decision_code_lines(patch, path)
    kept = {" ".join(x.split()) for x in added}
    out = []
    for r in removed:
        if " ".join(r.split()) in kept or _IMPORT.match(r):
            continue
        specific = frozenset(t for t in tokens(r) if is_specific(t))
        if len(specific) >= RESTORED_MIN_SPECIFIC:
            out.append((r.strip(), tuple(fine_tokens(r)), specific))
    return tuple(out)


def restored_lines(case: Case) -> list[Restored]:
    out: list[Restored] = []
    for path, cs, patch in decision_files(case):
        gone = taken_out(patch, path)
        if not gone:
            continue
        added, _, context = decision_code_lines(patch, path)
        written = [{t for t in tokens(x) if is_specific(t)} for x in added]
        mine_calls = {c for x in added for c in _calls(x)}
        # a line the file still has (the decision's context, the diff's own context) is its idiom, not the old code
        common = {_norm(x) for x in context} | {_norm(x) for h in cs.hunks for k, x in h if k == " "}
        for line in cs.added_lines:
            if _IMPORT.match(line) or _norm(line) in common:
                continue
            mine = fine_tokens(line)
            names = {t for t in tokens(line) if is_specific(t)}
            if len(names) < RESTORED_MIN_SPECIFIC or any(names <= w for w in written):
                continue  # too little to recognise, or what a line the decision wrote says too
            calls = _calls(line) - mine_calls
            for text, old, specific in gone:
                if not names <= specific:
                    continue  # the diff's line brings a name of its own: new code, not the old line
                if calls & _calls(text) and _ratio(mine, list(old)) >= RESTORED_MIN:
                    out.append(Restored(text, line.strip(), path))
                    break
    return out


def rev4_restored(case: Case) -> Evidence | None:
    """REV4: a line the decision's change took out, written again by the diff."""
    if case.remote:
        return None
    found = restored_lines(case)
    if not found:
        return None
    r = found[0]
    share = share_of(case, [x.line for x in found])
    return Evidence(
        "REV4",
        RESTORED_SCORE,
        f"the diff writes `{r.line}` in {r.path}: the decision's change took out `{r.removed}`",
        share,
        True,
    )

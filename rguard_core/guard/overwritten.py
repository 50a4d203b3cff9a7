"""S11: a decision whose lines a later change already took out is not what the diff undoes.

Lineage, read from the candidates themselves: a decision's lines in a file stand only until a later change
replaces them. flask's "Only escape backslashes if they follow '<'" (06ec917) wrote ``.replace('</', '<\\/')``;
a day later "Fixed XSS problem by escaping all slashes" (9f6bc93e) took that line out again. A perf rewrite
after both that writes ``.replace('/', '\\/')`` once more puts back a line 06ec917 removed (REV4), yet undoes
nothing 06ec917 still holds: its choice was already gone, and what the diff touches is 9f6bc93e's. A blind
reader: "the '</'-only escaping was already replaced".

The test: every line the decision added, in the files the diff shares with it, was taken out (and not written
again) by candidate changes made after it, with most of the tokens it wrote (an edit of its lines keeps its
choice), and the diff takes out none of them itself (a line the diff removes
is still there, so it was not overwritten). Only candidates the guard read count; when the later change is not
among them the decision keeps its finding.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .judge_case import Case
from .model import DecisionInfo
from .revert import HunkLines, change_hunks, norm
from .tokens import is_specific, tokens

OVERWRITTEN_RULE = "S11"
# ...and the later changes took out at least this share of what the decision wrote there (its specific tokens,
# net): a later change that only edits the decision's lines (renames a variable, reformats a call) keeps its
# choice, and the decision stays the one that made it (zod's revert of #6391 came after such an edit).
TOKENS_GONE_MIN = 0.5


@dataclass(frozen=True)
class Removal:
    """What one candidate change took out of one file for good: its lines and specific tokens, and when."""

    at: str
    lines: frozenset[str]
    tokens: frozenset[str]


type Removals = dict[str, list[Removal]]  # path -> the candidates' removals in it


def _net(hunks: tuple[HunkLines, ...]) -> tuple[Counter[str], Counter[str]]:
    """The lines a change took out and did not write again, and likewise its specific tokens."""
    added = Counter(x for h in hunks for x in h.added)
    removed = Counter(x for h in hunks for x in h.removed)
    put = Counter(t for x in added.elements() for t in tokens(x) if is_specific(t))
    cut = Counter(t for x in removed.elements() for t in tokens(x) if is_specific(t))
    return removed - added, cut - put


def removals(infos: list[DecisionInfo]) -> Removals:
    """What each candidate's change took out of each file and did not write again, and when."""
    out: Removals = {}
    seen: set[tuple[str, int]] = set()
    for info in infos:
        if not info.at:
            continue
        for path, patch in info.patches.items():
            if (path, hash(patch)) in seen:
                continue
            seen.add((path, hash(patch)))
            lines, toks = _net(change_hunks(patch, path))
            if lines:
                out.setdefault(path, []).append(Removal(info.at, frozenset(lines), frozenset(toks)))
    return out


def overwritten(case: Case, later: Removals) -> str | None:
    """Why the decision's lines in the diff's files are no longer its own (later changes took every one out, and
    most of what it wrote with them), or None."""
    info = case.info
    if not info.at:
        return None
    lines = 0
    first: list[str] = []
    for path, cs in case.diff_sets.items():
        patch = info.patches.get(path)
        if patch is None or cs.test or cs.kind == "prose":
            continue
        hunks = change_hunks(patch, path)
        mine = [x for h in hunks for x in h.added]
        if not mine:
            continue
        removed = {norm(x) for x in cs.removed_lines}
        if any(x in removed for x in mine):
            return None  # the diff takes one of them out: it is still there
        after = [r for r in later.get(path, []) if r.at > info.at]
        gone_lines = frozenset().union(*(r.lines for r in after))
        if not all(x in gone_lines for x in mine):
            return None
        _, wrote = _net(tuple(HunkLines(h.added, h.removed) for h in hunks))  # its tokens, net: the reverse's cuts
        gone_tokens = frozenset().union(*(r.tokens for r in after))
        if not wrote or sum(t in gone_tokens for t in wrote) < TOKENS_GONE_MIN * len(wrote):
            return None
        lines += len(mine)
        first.append(min(r.at for r in after if r.lines & set(mine)))
    if not lines:
        return None
    return (
        f"a later change (from {min(first)[:10]}) already took out the {lines} line(s) the decision wrote here: "
        f"what the diff changes is no longer the decision's"
    )

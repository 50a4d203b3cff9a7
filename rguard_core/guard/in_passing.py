"""S10: lines a change wrote in passing, set back, are not its undo.

A change whose words are about one thing ("Fixed bug in literal docs", "Add canary releasing", "Force CI restart;")
often also touches a line or two of product code on the way: a type alias, a ``package.json`` field, an
``event?: ProgressEvent``. A later diff that sets those lines back is an exact revert of the change's *product*
lines (REV1 reads product code only), yet it takes back nothing the change was about. Round 4 of the blind read
of ordinary-commit warnings found these among the commonest wrong ones ("README title layout and playground
edits; dropping a stray type alias doesn't touch the literal-docs fix").

A real revert of such a change sets back most of all of it — its docs, tests and configuration too — so the
share is read over the decision's whole change (``DecisionInfo.changed_lines``: every file it touched, from the
graph), not over the files the diff shares with it. The rule applies to decisions that say little (S7: no stated
choice; S8: a title alone), where the words cannot vouch for a few lines; a decision whose words name what the
diff changes keeps its warning.
"""

from __future__ import annotations

from collections import Counter

from .judge_case import Case
from .model import Judgement
from .revert import _take, change_hunks, norm

IN_PASSING_RULE = "S10"
REVERT_FAMILY = frozenset({"REV1", "REV2", "REV3", "REV4"})
# The part of the decision's whole change (every file) a revert must set back to stand without words: a quarter,
# as S7's partial revert (PARTIAL_REVERT) — the same bar, read over all of the change instead of its product code.
IN_PASSING_MAX = 0.25


def whole_revert_share(case: Case) -> float | None:
    """The part of the decision's whole change (its changed lines in every file it touched) that the diff sets
    back: its added lines taken out, the lines it took out written again, in any kind of file. None when the
    decision's size is unknown (a graph ingested without line counts) and its stored patches are all there is."""
    info = case.info
    reverted = 0
    own = 0
    for path, patch in info.patches.items():
        hunks = change_hunks(patch, path)
        own += sum(len(h.added) + len(h.removed) for h in hunks)
        cs = case.diff_sets.get(path)
        if cs is None:
            continue
        taken = Counter(norm(x) for x in cs.removed_lines)
        written = Counter(norm(x) for x in cs.added_lines)
        for h in hunks:
            reverted += _take(taken, h.added) + _take(written, h.removed)
    total = max(info.changed_lines or 0, own)
    return reverted / total if total else None


def in_passing(case: Case, j: Judgement) -> str | None:
    """Why a contradiction that stands only on revert rules, against a decision that says little, is related (S10);
    None when it stands: the decision states and explains its choice, its words name what the diff changes, some
    other rule contradicts it too, or the diff sets back a real part of all the decision changed."""
    info = case.info
    if j.label != "contradicts" or (info.stated and info.explained) or case.named:
        return None
    fired = {r for r, _ in j.rules}
    if not fired or not fired <= REVERT_FAMILY:
        return None
    share = whole_revert_share(case)
    if share is None or share >= IN_PASSING_MAX:
        return None
    return (
        f"the diff sets back {share:.0%} of all the decision changed, lines it wrote in passing that its words "
        f"do not name: not its undo"
    )

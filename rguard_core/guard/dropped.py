"""S14: a decision's edit that goes because the diff deletes the whole file is not undone on its own.

A change that deletes a file takes out every line in it, and so every edit any decision ever made there. zod's
"v3 -> master" merge dropped ``codegen.ts``, ``isScalar.ts`` and ``types/keyof.ts`` with its rewrite; "Fixed
codegen and isScalar for keyof" had edited all three, and read line by line the merge "takes out" 84 of its lines
(D1). A blind reader: "the keyof support goes too, but only as a side effect of the v3 rewrite dropping those
modules whole". What the diff decides is that the file goes, not that the decision's edit does.

The test: every product file the decision's change shares with the diff is one the diff deletes, and the decision
created none of them (a diff that deletes a file a decision added is that decision's revert, REV1).
"""

from __future__ import annotations

from .diffparse import patch_hunks
from .judge_case import Case, listing
from .model import Judgement

DROPPED_RULE = "S14"


def _created(patch: str) -> bool:
    """The decision's change wrote the file: its hunks add lines and keep or take out none."""
    hunks = patch_hunks(patch)
    return bool(hunks) and all(k == "+" for h in hunks for k, _ in h)


def dropped_with_file(case: Case, j: Judgement) -> str | None:
    """Why a contradiction found only in files the diff deletes whole, which the decision edited, is related."""
    if j.label != "contradicts":
        return None
    shared = sorted(
        {
            path
            for path, cs in case.diff_sets.items()
            if path in case.info.patches and not cs.test and cs.kind != "prose"
        }
    )
    if not shared or not all(case.diff_sets[p].deleted for p in shared):
        return None
    if any(_created(case.info.patches[p]) for p in shared):
        return None
    return (
        f"the diff deletes {listing(shared, 3)} whole, where the decision had edited: its edit goes with the "
        f"file, the diff does not undo it on its own"
    )

"""S13: lines a decision only moved, moved on again, are not its undo.

A change that moves code from one file to another writes lines it did not choose: axios's "Fixing baseURL not
working in interceptors" (#950) took the baseURL joining out of ``Axios.js`` and wrote the same seven lines into
``dispatchRequest.js``, so they run after the interceptors. A later diff that takes those lines out of
``dispatchRequest.js`` and joins the URL in the adapters instead (#2391) is, line by line, an exact revert of #950
in the one file both touch (REV1), yet it keeps what #950 chose: the joining still runs after the interceptors.
A blind reader: "baseURL joining moves from dispatchRequest into the adapters, which still runs after the
interceptors, so the earlier fix is kept".

A real undo of a move puts the lines back where they came from. The test: most of the decision's lines the diff
takes out are lines the decision itself took out of another file (its move), and the diff writes none of them back
into that file. The lines a decision took out of files the diff does not touch come from the graph
(``DecisionInfo.removed_elsewhere``); in the files the diff touches, from its stored patches. A move that changed
the lines on the way (the part a decision chose) does not count as moved.
"""

from __future__ import annotations

from collections import Counter

from .judge_case import Case
from .model import Judgement
from .revert import change_hunks, norm

MOVED_RULE = "S13"
# The share of the decision's lines the diff takes out that must be lines the decision moved there: most of them,
# so a move that also wrote new lines (what it chose) keeps its warning when the diff takes those out too.
MOVED_MIN = 0.75


def _origins(case: Case) -> dict[str, str]:
    """Telling line -> a file the decision's change took it out of (the first found)."""
    out: dict[str, str] = {}
    for path, lines in case.info.removed_elsewhere.items():
        for x in lines:
            out.setdefault(x, path)
    for path, patch in case.info.patches.items():
        cs = case.diff_sets.get(path)
        if cs is not None and (cs.test or cs.kind == "prose"):
            continue
        for h in change_hunks(patch, path):
            for x in h.removed:
                out.setdefault(x, path)
    return out


def moved_on(case: Case, j: Judgement) -> str | None:
    """Why a contradiction against lines the decision only moved into the diff's files is related (S13), or None."""
    if j.label != "contradicts":
        return None
    origins = _origins(case)
    if not origins:
        return None
    taken = moved = 0
    came_from: Counter[str] = Counter()
    for path, cs in case.diff_sets.items():
        patch = case.info.patches.get(path)
        if patch is None or cs.test or cs.kind == "prose":
            continue
        removed = {norm(x) for x in cs.removed_lines}
        for h in change_hunks(patch, path):
            for x in h.added:
                if x not in removed:
                    continue
                taken += 1
                origin = origins.get(x)
                back = case.diff_sets.get(origin) if origin else None
                if origin and origin != path and (back is None or x not in {norm(y) for y in back.added_lines}):
                    moved += 1
                    came_from[origin] += 1
    if not taken or moved < MOVED_MIN * taken:
        return None
    origin = came_from.most_common(1)[0][0]
    return (
        f"the decision moved {moved} of these line(s) here from {origin}; the diff takes them out without putting "
        f"them back there: it moves the code on, the decision's move is not undone"
    )

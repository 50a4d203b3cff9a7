"""S9: a deprecation carried out is not its undo.

A decision whose words deprecate something ("deprecate `__version__`", "X is deprecated and will be removed")
usually adds a shim — a warning, a ``__getattr__`` hook, an alias. The later change that removes the shim takes
out what the decision added, which REV1 reads as an exact revert; but it puts back nothing the decision
replaced, so it finishes the plan instead of undoing it. Found on flask's history ("remove previously deprecated
code" cited "deprecate `__version__` attribute"; a blind reader: "completing rather than reversing the choice").
An undeprecation puts the old lines back, and stays a contradiction. The deprecation is read from the decision's
words, or from the lines the diff removes that the decision added (a ``DeprecationWarning`` shim).
"""

from __future__ import annotations

import re

from .judge_case import Case
from .revert import change_hunks, norm

DEPRECATION_RULE = "S9"
DEPRECATES = re.compile(r"\bdeprecat\w*", re.I)
# A code line that warns of a deprecation (a shim's warning), not one that only says the word (zod's JSON Schema
# keyword list holds "deprecated")
WARNS = re.compile(r"DeprecationWarning|\bis deprecated\b|\bdeprecated\b.*\b(?:removed|instead)\b", re.I)


def deprecation_completed(case: Case) -> bool:
    """The decision deprecates (its words, or a warning among the lines of it the diff removes), the diff takes
    out lines the decision added, and it writes again none of the lines the decision took out (in the files both
    touch)."""
    info = case.info
    words = " ".join((info.quote, info.summary, info.source_title, *info.claims))
    said = DEPRECATES.search(words) is not None
    took_out = False
    for path, cs in case.diff_sets.items():
        patch = info.patches.get(path)
        if patch is None or cs.test:
            continue
        hunks = change_hunks(patch, path)
        added = {norm(x) for x in cs.added_lines}
        removed = {norm(x) for x in cs.removed_lines}
        if any(x in added for h in hunks for x in h.removed):
            return False  # what the deprecation replaced comes back: an undeprecation
        gone = [x for h in hunks for x in h.added if x in removed]
        # a shim that warns of its own removal is a deprecation, whatever the title says (flask's "blinker is
        # required, signals are always available" added a `signals_available` that warns "is deprecated")
        said = said or any(WARNS.search(x) for x in gone)
        took_out = took_out or bool(gone)
    return took_out and said

"""S12: a sweeping change (a rewrite, a major release merged as one PR) is held to what its words name.

zod's "Zod 4" (#4074) changed 106,221 lines in 550 files under a two-word title. Every later change to the
library overlaps it, and its words cannot say which of those lines were a choice: a blind reader of a D1 warning
against it ("Improve z.function typing", a refactor) found "no deliberate Zod 4 choice taken back". A decision
whose whole change passes ``SWEEPING_LINES`` is read as a title alone (S8): overlap contradicts it only where its
words name what the diff changes, a partial or line revert only over enough of its change; an exact revert still
stands.
"""

from __future__ import annotations

from .model import DecisionInfo

SWEEPING_RULE = "S12"
# Lines added and removed over every file the change touched. The largest decision any labelled set cites is
# under 2,000; a change past this size is a rewrite, a vendored drop or a release branch, not one choice.
SWEEPING_LINES = 5000


def sweeping(info: DecisionInfo) -> bool:
    return (info.changed_lines or 0) > SWEEPING_LINES


def why(info: DecisionInfo) -> str:
    return (
        f"a sweeping change ({info.changed_lines:,} lines): its words do not name what the diff changes, "
        f"nor does the diff revert most of it"
    )

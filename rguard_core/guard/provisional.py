"""S16: a revert whose own words say the change comes back is not undone when the change comes back.

zod's 'Revert "fix(v4): reject whitespace in z.base64() to close atob bypass"' says why: "That commit landed on
main accidentally … Reverting so the change can go through a normal PR. The work is preserved on the
`base64-whitespace` branch and will be re-applied via PR." The PR that re-applied it puts the reverted lines back,
and read line by line that is an exact revert of the revert (REV1). A blind reader: "the revert was only to route
the fix through review; this is that fix landing as the revert said it would". A revert that gives a reason to
keep the change out ("it broke Windows") says nothing of the kind, and turning it back still contradicts.

The test: the decision's source is a revert (its title opens ``Revert``), and its own text says the revert is
provisional: the change will be re-applied or re-landed, it landed by accident or on the wrong branch, it is
reverted temporarily or for now. The finding quotes those words verbatim from the source.
"""

from __future__ import annotations

import re

from .judge_case import Case
from .model import Judgement

PROVISIONAL_RULE = "S16"
_REVERT_TITLE = re.compile(r"^\s*(?:\[[^\]]*\]\s*)?revert\b", re.I)
# each alternative is a phrase about this revert's own future or its cause, not about behaviour
_PROVISIONAL = re.compile(
    r"\b(?:"
    r"(?:will|to|can|should|would)\s+(?:be\s+)?re-?(?:appl(?:y|ied)|land(?:ed)?|submit(?:ted)?|merged?|introduced?)"
    r"|re-?(?:appl(?:y|ied)|land(?:ed)?)\s+(?:it\s+)?(?:later|soon|via|in|after|once|when)"
    r"|(?:landed|merged|pushed|committed)\s+(?:on\s+\S+\s+)?(?:accidentally|by\s+(?:accident|mistake))"
    r"|accidentally\s+(?:landed|merged|pushed|committed)"
    r"|(?:to|on|into)\s+the\s+wrong\s+branch"
    r"|revert(?:ing|ed)?\s+(?:this\s+|it\s+)?(?:temporarily|for\s+now)"
    r"|temporar(?:y|ily)\s+revert"
    r")\b",
    re.I,
)
_SENTENCE_END = re.compile(r"\.(?:\s|$)|\n[ \t]*\n")


def provisional_words(title: str, text: str) -> str | None:
    """The sentence of a revert's own text that says the change comes back, verbatim (across the line breaks of a
    wrapped paragraph); None when it says no such thing."""
    if not _REVERT_TITLE.match(title or ""):
        return None
    m = _PROVISIONAL.search(text or "")
    if m is None:
        return None
    start = max(
        (i + 2 for i in (text.rfind(". ", 0, m.start()), text.rfind("\n\n", 0, m.start())) if i >= 0), default=0
    )
    end = _SENTENCE_END.search(text, m.end())
    return text[start : end.start() if end else len(text)].strip()


def provisional_revert(case: Case, j: Judgement) -> str | None:
    """Why a contradiction of a revert that said the change comes back is related, or None."""
    if j.label != "contradicts":
        return None
    info = case.info
    # a commit's source has no title of its own: its subject is the first line of its message
    words = provisional_words(info.source_title or info.text.partition("\n")[0], info.text)
    if words is None:
        return None
    return f"the revert said the change comes back (“{words}”): putting it back is what it planned, not its undo"

"""Is a sentence a claim? A claim states something; greetings, thanks, questions and bare chatter do not.

Used by the offline extractor (a sentence that is not a statement never becomes a claim) and by "why" (an old
graph's chatter is never given as a reason).
"""

from __future__ import annotations

import re

_GREETING = re.compile(
    r"^\s*(?:hi|hey|hello|thanks|thank you|thx|ty|cheers|lgtm|\+1|congrats|welcome|sorry|"
    r"good (?:morning|afternoon|evening)|dear)\b[\s,!.:@]*",
    re.I,
)
_CHATTER = re.compile(
    r"^\s*(?:(?:@[\w-]+[\s,]*)+|(?:any|friendly) (?:update|news|ping)|bump|ping|same here|me too|"
    r"(?:i|we) (?:hope|think) (?:this|that) helps|let me know|wdyt|ptal)\b",
    re.I,
)
_WORDS = re.compile(r"[A-Za-z]{2,}")
MIN_WORDS = 4


def is_statement(sentence: str) -> bool:
    """True when ``sentence`` states something: not a question, greeting, thanks, ping or a few loose words."""
    s = sentence.strip()
    if not s or s.endswith("?") or _GREETING.match(s) or _CHATTER.match(s):
        return False
    return len(_WORDS.findall(s)) >= MIN_WORDS

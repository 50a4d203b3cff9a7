"""What guard feedback is keyed by, in a module that imports nothing of ours.

The guard reads dismissals on every run and the CLI lists the feedback kinds in its help; both need these two
names and neither needs the memory engine that writes the feedback (``memory/reviews.py``), so a ``guard`` call
does not pay for loading it.
"""

from __future__ import annotations

import hashlib

REVIEW_KINDS = ("ack", "wrong", "override")


def decision_key(summary: object, quote: object) -> str:
    """What a dismissal is about: the decision as written. Re-ingesting a changed decision changes it."""
    return hashlib.sha256(f"{summary or ''}\x00{quote or ''}".encode()).hexdigest()[:16]

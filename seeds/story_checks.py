"""Consistency checks on the story itself: people and times, issue links, the story lines' decisive lines.

Run by ``build_demo.build`` before anything is written, so a story that contradicts itself never reaches seeds/demo.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from story_model import PR, Issue, StoryError, default_story

if TYPE_CHECKING:
    from build_demo import Builder

STORY = default_story()
_CLOSING = re.compile(r"\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\b:?\s+#(\d+)\b", re.I)

# --------------------------------------------------------------------------------------------------------------
# Consistency checks on the story itself
# --------------------------------------------------------------------------------------------------------------


def check_people_and_times(b: Builder) -> None:
    logins = {p.login for p in STORY.people}
    for event in b.events:
        comments = [*getattr(event, "review", []), *event.notes]
        for who in [event.author, *(c.author for c in comments)]:
            if who not in logins:
                raise StoryError(f"{event.key}: unknown person {who}")
        ended = event.merged or event.closed if isinstance(event, PR) else None
        for c in comments:
            if c.at < event.created or (ended and c.at > ended):
                raise StoryError(f"{event.key}: comment at {c.at} outside {event.created} .. {ended}")


def check_links(b: Builder) -> None:
    """Every completed issue is closed by the merge of a PR that fixes it; a fixed issue left open was reopened."""
    fixed_at: dict[int, list[str]] = {}
    for pr in b.prs():
        if pr.merged:
            for n in _CLOSING.findall(b.body(pr.body)):
                fixed_at.setdefault(int(n), []).append(pr.merged)
    for issue in b.issues():
        n = b.numbers[issue.key]
        if issue.state_reason == "completed" and issue.closed not in fixed_at.get(n, []):
            raise StoryError(f"{issue.key} (#{n}) is completed but no merged PR that fixes it merged at {issue.closed}")
        if issue.closed is None and n in fixed_at and issue.state_reason != "reopened":
            raise StoryError(f"{issue.key} (#{n}) is fixed by a merged PR but open without being reopened")
    for n in fixed_at:
        if not isinstance(b.events[n - 1], Issue):
            raise StoryError(f"a PR fixes #{n}, which is not an issue")


def comment_bodies(b: Builder, keys: list[str]) -> list[str]:
    out = []
    for key in keys:
        event = b.by_key[key]
        out += [b.resolve(c.body) for c in [*getattr(event, "review", []), *event.notes]]
    return out


def added_by(b: Builder, path: str, line: str) -> str | None:
    """The last merged PR whose patch adds ``line`` to ``path`` (None: it came with the initial import)."""
    found = None
    for key in b.merge_order:
        for row in b.files[key]:
            if row["filename"] == path and ("+" + line) in row["patch"].split("\n"):
                found = key
    return found


def check_stories(b: Builder) -> None:
    for s in STORY.stories:
        pr = b.by_key[s.decision_pr]
        if not (isinstance(pr, PR) and pr.merged):
            raise StoryError(f"story {s.id}: {s.decision_pr} is not a merged PR")
        if s.decision not in b.body(pr.body):
            raise StoryError(f"story {s.id}: the decision sentence is not verbatim in {s.decision_pr}'s body")
        bodies = comment_bodies(b, s.prs + [e.key for e in b.events])
        for alt in s.alternatives:
            if not any(alt in body for body in bodies):
                raise StoryError(f"story {s.id}: alternative not verbatim in any comment: {alt[:60]}")
        own = 0
        for path, lines in s.lines.items():
            head = b.head.get(path, "").split("\n")
            for line in lines:
                if line not in head:
                    raise StoryError(f"story {s.id}: {path} has no line {line!r} at HEAD")
                own += added_by(b, path, line) in s.prs
        if not own:
            raise StoryError(f"story {s.id}: none of its decisive lines was added by one of its PRs")

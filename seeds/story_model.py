"""The demo seed's story as typed records, loaded from the YAML data files in seeds/story/.

Layout of seeds/story/ (all data, no code):

    repo.yaml            the repository's name, description, creation time, noise labels
    people.yaml          who works on it
    initial_tree.yaml    every file at the first import, path -> text
    events/*.yaml        PRs and issues, one list per year, in creation order (files read in name order)
    stories.yaml         the decision lines STORY.md and story.json describe
    special.yaml         the premise-rule cases (revert pair, stale fix, ...)

In any PR/issue text, <<key>> becomes "#N", <<n:key>> becomes "N" and <<sha:key>> the merge commit of that PR.
Edits use the shared format in seeds/edits.py.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from edits import Edit, EditError, parse_edits

STORY_DIR = Path(__file__).resolve().parent / "story"


class StoryError(ValueError):
    """The story data is inconsistent (a bad edit, an unknown key, a quote that is not in its source)."""


@dataclass(frozen=True)
class Person:
    login: str
    name: str
    role: str
    is_bot: bool = False


@dataclass(frozen=True)
class Review:
    """A review comment on the line of ``path`` (new side of the PR's patch) that contains ``anchor``."""

    author: str
    at: str
    path: str
    anchor: str
    body: str


@dataclass(frozen=True)
class Note:
    """A conversation comment on a PR or an issue."""

    author: str
    at: str
    body: str


@dataclass
class PR:
    key: str
    title: str
    author: str
    created: str
    body: str
    edits: list[Edit]
    merged: str | None = None
    closed: str | None = None  # closed without merging
    review: list[Review] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)


@dataclass
class Issue:
    key: str
    title: str
    author: str
    created: str
    body: str
    closed: str | None = None
    state_reason: str | None = None  # completed | not_planned | reopened
    notes: list[Note] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)


@dataclass
class Story:
    """One decision line of the story, for STORY.md and story.json (checked against the output)."""

    id: str
    title: str
    decision_pr: str
    decision: str  # verbatim sentence(s) of the decision PR's body
    prs: list[str]
    issues: list[str]
    lines: dict[str, list[str]]  # path -> decisive lines, each a whole line of the HEAD file
    alternatives: list[str] = field(default_factory=list)  # verbatim rejected alternatives (review comments)
    premise: str = ""  # what the guard's premise rules should notice
    undo_ideas: list[str] = field(default_factory=list)  # how a contradicting diff would look
    benign_ideas: list[str] = field(default_factory=list)  # nearby changes that keep the decision


@dataclass(frozen=True)
class StoryData:
    repo: dict[str, Any]
    people: list[Person]
    initial_tree: dict[str, str]
    events: list[PR | Issue]
    stories: list[Story]
    special: dict[str, Any]

    @property
    def full_name(self) -> str:
        return str(self.repo["full_name"])

    @property
    def noise_labels(self) -> set[str]:
        return set(self.repo.get("noise_labels", []))


def _read(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise StoryError(f"{path}: {e}") from None


def _text(raw: dict[str, Any], key: str, where: str, default: str | None = None) -> Any:
    """A string field; dates stay strings because every stamp is 'YYYY-MM-DD HH:MM' (YAML reads no seconds)."""
    value = raw.get(key, default)
    if value is not None and not isinstance(value, str):
        raise StoryError(f"{where}: {key} must be a string, got {value!r}")
    return value


def _comments(raw: list[dict[str, Any]] | None, where: str, review: bool) -> list[Any]:
    out: list[Any] = []
    for c in raw or []:
        if review:
            out.append(Review(c["author"], _text(c, "at", where), c["path"], c["anchor"], c["body"]))
        else:
            out.append(Note(c["author"], _text(c, "at", where), c["body"]))
    return out


def _event(raw: dict[str, Any]) -> PR | Issue:
    if "pr" in raw:
        where = f"PR {raw['pr']}"
        try:
            edits = parse_edits(raw.get("edits", []), where)
        except EditError as e:
            raise StoryError(str(e)) from None
        return PR(
            raw["pr"],
            raw["title"],
            raw["author"],
            _text(raw, "created", where),
            raw["body"],
            edits,
            merged=_text(raw, "merged", where),
            closed=_text(raw, "closed", where),
            review=_comments(raw.get("review"), where, review=True),
            notes=_comments(raw.get("notes"), where, review=False),
            labels=list(raw.get("labels", [])),
        )
    if "issue" in raw:
        where = f"issue {raw['issue']}"
        return Issue(
            raw["issue"],
            raw["title"],
            raw["author"],
            _text(raw, "created", where),
            raw["body"],
            closed=_text(raw, "closed", where),
            state_reason=raw.get("state_reason"),
            notes=_comments(raw.get("notes"), where, review=False),
            labels=list(raw.get("labels", [])),
        )
    raise StoryError(f"an event must start with 'pr: KEY' or 'issue: KEY', got {list(raw)[:3]}")


def _story(raw: dict[str, Any]) -> Story:
    return Story(
        raw["id"],
        raw["title"],
        raw["decision_pr"],
        raw["decision"],
        list(raw["prs"]),
        list(raw["issues"]),
        {path: list(lines) for path, lines in raw["lines"].items()},
        alternatives=list(raw.get("alternatives", [])),
        premise=raw.get("premise", ""),
        undo_ideas=list(raw.get("undo_ideas", [])),
        benign_ideas=list(raw.get("benign_ideas", [])),
    )


@functools.cache
def default_story() -> StoryData:
    """The story in seeds/story/, read once per process (the engine and its checks and report share it)."""
    return load_story()


def load_story(root: Path = STORY_DIR) -> StoryData:
    """Read every data file of the story; raises StoryError naming the file or record that is wrong."""
    events: list[PR | Issue] = []
    for path in sorted((root / "events").glob("*.yaml")):
        events += [_event(raw) for raw in _read(path) or []]
    try:
        return StoryData(
            repo=_read(root / "repo.yaml"),
            people=[Person(**p) for p in _read(root / "people.yaml")],
            initial_tree=dict(_read(root / "initial_tree.yaml")),
            events=events,
            stories=[_story(s) for s in _read(root / "stories.yaml")],
            special=_read(root / "special.yaml"),
        )
    except (KeyError, TypeError) as e:
        raise StoryError(f"{root}: a record lacks a field or has a wrong one: {e}") from None

"""The normalised history every source (GitHub REST, snapshot folder, local git) produces for the pipeline."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Person:
    login: str
    is_bot: bool = False
    name: str | None = None


@dataclass
class FileChange:
    path: str
    status: str = "modified"  # added | removed | modified | renamed
    additions: int = 0
    deletions: int = 0
    patch: str = ""  # unified hunks starting at the first @@ ("" for binary or unknown)
    previous_path: str | None = None


@dataclass
class Comment:
    id: str  # stable: comment:pr:12:0, review:pr:12:3, comment:issue:7:1
    parent: str  # node id of the PR or issue it is on: pr:12 / issue:7
    author: str | None
    body: str
    url: str | None = None
    path: str | None = None  # review comments: the file the thread is on
    created_at: str | None = None
    is_review: bool = False


@dataclass
class PullRequest:
    number: int
    title: str
    body: str
    author: str | None
    state: str  # open | closed
    merged: bool
    url: str | None = None
    created_at: str | None = None
    merged_at: str | None = None
    closed_at: str | None = None
    merge_commit_sha: str | None = None
    files: list[FileChange] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)


@dataclass
class Issue:
    number: int
    title: str
    body: str
    author: str | None
    state: str  # open | closed
    url: str | None = None
    state_reason: str | None = None
    created_at: str | None = None
    closed_at: str | None = None
    labels: list[str] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)


@dataclass
class Doc:
    """An ADR or design document read from the tree (or reconstructed from the PR that added it)."""

    path: str
    text: str
    url: str | None = None
    added_by_pr: int | None = None


@dataclass
class Commit:
    sha: str
    message: str
    author: str | None
    date: str | None = None
    pr_number: int | None = None
    files: list[FileChange] = field(default_factory=list)
    url: str | None = None
    parents: tuple[str, ...] = ()
    # a merge that names no PR, whose branch's own commits are in the history: those commits wrote its lines,
    # so they carry the decisions and the merge itself carries none (lineage; gitlocal.read_git_history)
    branch_merge: bool = False
    merged_by: str | None = None  # for a branch's commit read through such a merge (mainline walks): that merge


@dataclass
class RepoHistory:
    """One repository's history as read from a source; ``problems`` lists what could not be read."""

    repo: str  # owner/name
    url: str | None = None
    pulls: list[PullRequest] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    docs: list[Doc] = field(default_factory=list)
    commits: list[Commit] = field(default_factory=list)
    people: dict[str, Person] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def person(self, login: str | None, is_bot: bool = False) -> str | None:
        """Register a login (bots by flag or a ``[bot]`` suffix) and return it."""
        if not login:
            return None
        p = self.people.get(login)
        bot = is_bot or login.endswith("[bot]")
        if p is None:
            self.people[login] = Person(login=login, is_bot=bot)
        elif bot:
            p.is_bot = True
        return login

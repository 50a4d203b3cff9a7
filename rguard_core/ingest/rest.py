"""The REST-shaped source interface (GitHub API or a snapshot folder on disk) and the snapshot reader.

Both speak GitHub's JSON shapes, so one normaliser (``normalize.py``) serves both, and a GitHub run
recorded with ``--record DIR`` can be ingested again with ``ingest snapshot DIR``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from ..errors import SnapshotError

Json = dict[str, Any]


class RestSource(Protocol):
    repo: str  # owner/name

    def repo_info(self) -> Json:
        """GET /repos/{o}/{n}; raises RepoNotFound when it does not exist."""
        ...

    def list_pulls(self, max_prs: int) -> Iterator[Json]:
        """PRs newest first (state=all), at most ``max_prs``."""
        ...

    def pull(self, number: int) -> Json | None: ...

    def pull_files(self, number: int) -> list[Json]: ...

    def pull_review_comments(self, number: int) -> list[Json]: ...

    def issue(self, number: int) -> Json | None:
        """GET /repos/{o}/{n}/issues/{number}; None when missing. May be a PR (has ``pull_request``)."""
        ...

    def issue_comments(self, number: int) -> list[Json]: ...

    def file_text(self, path: str) -> str | None:
        """A file's content at the default branch (ADRs), or None when unavailable."""
        ...


class SnapshotSource:
    """A folder in GitHub REST shapes: ``<root>/repos/<owner>/<name>/{repo.json,pulls,issues,contents}``."""

    def __init__(self, root: Path, repo: str | None = None) -> None:
        root = Path(root)
        if (root / "github").is_dir() and not (root / "repos").is_dir():
            root = root / "github"
        if not (root / "repos").is_dir():
            raise SnapshotError(f"{root} is not a snapshot folder: expected {root}/repos/<owner>/<name>/")
        repos = sorted(p.parent.name + "/" + p.name for p in (root / "repos").glob("*/*") if p.is_dir())
        if not repos:
            raise SnapshotError(f"{root}/repos holds no <owner>/<name> folders")
        if repo is None:
            if len(repos) > 1:
                raise SnapshotError(f"{root} holds several repositories ({', '.join(repos)}); pass --repo")
            repo = repos[0]
        elif repo not in repos:
            raise SnapshotError(f"{root} has no repository {repo}; it has: {', '.join(repos)}")
        self.repo = repo
        self.root = root
        self.dir = root / "repos" / repo
        self._dir = str(self.dir)

    parallel_fetch = False  # local files: threads only add contention (measured slower than one reader)

    def _load(self, rel: str) -> Any:
        p = os.path.join(self._dir, rel)
        try:
            with open(p, encoding="utf-8") as fh:
                return json.load(fh)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None  # an absent file is an empty answer, as a 404 is for the REST source
        except (OSError, ValueError) as e:
            raise SnapshotError(f"cannot read {p}: {e}") from e

    def repo_info(self) -> Json:
        return self._load("repo.json") or {"full_name": self.repo}

    def list_pulls(self, max_prs: int) -> Iterator[Json]:
        nums = sorted((int(p.stem) for p in (self.dir / "pulls").glob("*.json") if p.stem.isdigit()), reverse=True)
        for n in nums[:max_prs]:
            pr = self._load(f"pulls/{n}.json")
            if pr is not None:
                yield pr

    def pull(self, number: int) -> Json | None:
        return self._load(f"pulls/{number}.json")

    def pull_files(self, number: int) -> list[Json]:
        return self._load(f"pulls/{number}/files.json") or []

    def pull_review_comments(self, number: int) -> list[Json]:
        return self._load(f"pulls/{number}/comments.json") or []

    def issue(self, number: int) -> Json | None:
        return self._load(f"issues/{number}.json")

    def issue_comments(self, number: int) -> list[Json]:
        data = self._load(f"issues/{number}/comments.json")
        if data is None:
            data = self._load(f"pulls/{number}/issue_comments.json")
        return data or []

    def file_text(self, path: str) -> str | None:
        p = self.dir / "contents" / path
        if not p.is_file():
            return None
        return p.read_text(encoding="utf-8")

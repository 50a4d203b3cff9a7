"""The REST-shaped source interface (GitHub API or a snapshot folder on disk) and the snapshot reader.

Both speak GitHub's JSON shapes, so one normaliser (``normalize.py``) serves both, and a GitHub run
recorded with ``--record DIR`` can be ingested again with ``ingest snapshot DIR``.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

from ..errors import SnapshotError
from ..jsontypes import JSONObject
from . import records
from .snapshot_index import MergedIndex, Stamp

Json = JSONObject  # a GitHub answer or snapshot record (records.py checks its fields)


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
    """A folder in GitHub REST shapes: ``<root>/repos/<owner>/<name>/{repo.json,pulls,issues,contents}``.

    A snapshot folder is untrusted input: every path is resolved and must stay inside the snapshot root or
    the repository folder (no ``..``, absolute names or symlinks out), only regular files are opened (never a FIFO or device),
    every read is bounded by size, and every record is checked against the shapes GitHub gives
    (``records.py``). Oddities that lose nothing but a record (a file name that disagrees with its number,
    two files for one PR, a null record, no PRs at all) are listed in ``problems`` for the coverage report.
    """

    def __init__(self, root: Path, repo: str | None = None, index_dir: Path | None = None) -> None:
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
        # The repository folder may itself be a link (a snapshot assembled from folders kept elsewhere): what
        # is read below it must stay inside it, or inside the snapshot root.
        reals = [os.path.realpath(x) for x in (self.dir, root)]
        if os.sep in reals:
            raise SnapshotError(f"{self.dir} resolves to the filesystem root; point at a real snapshot folder")
        self._roots = tuple(dict.fromkeys(r + os.sep for r in reals))
        self.problems: list[str] = []
        self._index = MergedIndex(index_dir, self.dir / "pulls")
        self._merged: Callable[[str | None], bool] | None = None

    def only_merged(self, merged: Callable[[str | None], bool]) -> None:
        """From now on ``list_pulls`` yields only PRs whose ``merged_at`` passes ``merged``; a file whose merge
        time is remembered (snapshot_index.py) and fails is not opened at all."""
        self._merged = merged

    parallel_fetch = False  # local files: threads only add contention (measured slower than one reader)

    def _read(self, rel: str, limit: int) -> bytes | None:
        """The bytes of ``rel`` under the repository folder, or None when absent; refuses anything unsafe.

        The type is checked before opening (a FIFO would block, a device never end or act on open), the
        opened file is checked again (not swapped since), and its real path must lie inside the snapshot root.
        """
        p = os.path.join(self._dir, rel)
        try:
            st = os.stat(p)
        except (FileNotFoundError, NotADirectoryError):
            return None  # an absent file is an empty answer, as a 404 is for the REST source
        except OSError as e:  # a symlink loop, no permission
            raise SnapshotError(f"cannot read {p}: {e.strerror or e}") from e
        if not stat.S_ISREG(st.st_mode):
            self._inside(p, os.path.realpath(p))
            raise SnapshotError(
                f"{p} is not a regular file ({_kind(st.st_mode)}); refusing to read it: "
                "replace it with the JSON or text file it should be"
            )
        if st.st_size > limit:
            raise SnapshotError(
                f"{p} is {st.st_size:,} bytes, over the {limit:,}-byte limit for one "
                "snapshot file; trim it or leave it out"
            )
        try:
            fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
        except OSError as e:
            raise SnapshotError(f"cannot read {p}: {e.strerror or e}") from e
        with os.fdopen(fd, "rb") as fh:
            now = os.fstat(fd)
            if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                raise SnapshotError(f"{p} changed while being opened; refusing to read it")
            self._inside(p, _real_path(fd, p))
            data = fh.read(limit + 1)
        if len(data) > limit:
            raise SnapshotError(f"{p} grew past the {limit:,}-byte limit while being read; refusing it")
        return data

    def _inside(self, p: str, real: str) -> None:
        if not (real + os.sep).startswith(self._roots):
            raise SnapshotError(
                f"{p} leads outside the snapshot folder (to {real}); refusing to read it: "
                "remove the link or copy the file into the snapshot"
            )

    def _load(self, rel: str) -> Any:
        data = self._read(rel, MAX_RECORD_BYTES)
        if data is None:
            return _MISSING
        where = os.path.join(self._dir, rel)
        try:
            return json.loads(data.decode("utf-8"))
        except UnicodeDecodeError as e:
            raise SnapshotError(
                f"{where} is not valid UTF-8 (byte {data[e.start]:#04x} at offset {e.start}); save it as UTF-8 JSON"
            ) from e
        except ValueError as e:
            raise SnapshotError(f"{where} is not valid JSON ({e}); fix or remove it") from e
        except RecursionError as e:
            raise SnapshotError(f"{where} nests too deeply to be a GitHub record; fix or remove it") from e

    def _where(self, rel: str) -> str:
        return os.path.join(self._dir, rel)

    def _record[T](self, rel: str, check: Callable[[Any, str], T]) -> T | None:
        """A checked record, or None when the file is absent or holds ``null`` (a problem, not an error)."""
        data = self._load(rel)
        if data is _MISSING:
            return None
        if data is None:
            self.problems.append(f"{rel} holds null; skipped")
            return None
        return check(data, self._where(rel))

    def repo_info(self) -> Json:
        info = self._record("repo.json", records.repo_info)
        return info or {"full_name": self.repo}

    def list_pulls(self, max_prs: int) -> Iterator[Json]:
        chosen = self._pull_files()
        yielded = 0
        for n in sorted(chosen, reverse=True)[:max_prs]:
            name = chosen[n]
            if self._merged is not None:
                known, at = self._index.merged_at(name, self._stamp)
                if known and not self._merged(at):
                    yielded += 1  # a readable PR outside the window: counted, not opened
                    continue
            pr = self._record(f"pulls/{name}", records.pull)
            if pr is None:
                continue
            if pr["number"] != n:
                self.problems.append(
                    f"pulls/{name} holds PR #{pr['number']}, not #{n}; skipped (rename the file or fix its number)"
                )
                continue
            self._index.remember(name, self._stamp(name), _merged_at(pr))
            yielded += 1
            if self._merged is None or self._merged(_merged_at(pr)):
                yield pr
        self._index.save()
        if not yielded:
            self.problems.append(
                "the snapshot holds no pull requests (no readable pulls/<number>.json); the graph has no PR history"
            )

    def _stamp(self, name: str) -> Stamp | None:
        """``pulls/<name>``'s size and mtime (the merged-at index's check), or None when it cannot be read."""
        try:
            st = os.stat(os.path.join(self._dir, "pulls", name))
        except OSError:
            return None
        return (st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else None

    def _pull_files(self) -> dict[int, str]:
        """PR number -> the file to read for it; oddities in pulls/ are recorded as problems."""
        pulls = self.dir / "pulls"
        if pulls.exists() and not pulls.is_dir():
            self.problems.append("pulls is a file, not a folder: no pull requests were read")
            return {}
        names: dict[int, list[str]] = {}
        for entry in _json_entries(pulls):
            m = _PR_FILE.fullmatch(entry.name)
            if m is None:
                self.problems.append(f"pulls/{entry.name} is not named <number>.json; skipped")
                continue
            names.setdefault(int(m.group(1)), []).append(entry.name)
        chosen: dict[int, str] = {}
        for n, files in names.items():
            pick = f"{n}.json" if f"{n}.json" in files else files[0]
            if len(files) > 1:
                self.problems.append(
                    f"{' and '.join(f'pulls/{f}' for f in files)} are both PR #{n}; read "
                    f"pulls/{pick} only (remove the other)"
                )
            chosen[n] = pick
        return chosen

    def pull(self, number: int) -> Json | None:
        pr = self._record(f"pulls/{number}.json", records.pull)
        if pr is not None and pr["number"] != number:
            self.problems.append(f"pulls/{number}.json holds PR #{pr['number']}; skipped")
            return None
        return pr

    def pull_files(self, number: int) -> list[Json]:
        return self._record(f"pulls/{number}/files.json", records.files) or []

    def pull_review_comments(self, number: int) -> list[Json]:
        return self._record(f"pulls/{number}/comments.json", records.comments) or []

    def issue(self, number: int) -> Json | None:
        raw = self._record(f"issues/{number}.json", records.issue)
        if raw is not None and raw["number"] != number:
            self.problems.append(f"issues/{number}.json holds #{raw['number']}, not #{number}; skipped")
            return None
        return raw

    def issue_comments(self, number: int) -> list[Json]:
        data = self._record(f"issues/{number}/comments.json", records.comments)
        if data is None:
            data = self._record(f"pulls/{number}/issue_comments.json", records.comments)
        return data or []

    def file_text(self, path: str) -> str | None:
        rel = records.repo_path(path, self._where("contents"), "a document path")
        data = self._read(os.path.join("contents", rel), MAX_DOC_BYTES)
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise SnapshotError(
                f"{self._where(os.path.join('contents', rel))} is not valid UTF-8 (byte "
                f"{data[e.start]:#04x} at offset {e.start}); save it as UTF-8"
            ) from e


MAX_RECORD_BYTES = 128 * 1024 * 1024  # one JSON file (a PR's files.json with every patch can be large)
MAX_DOC_BYTES = 5 * 1024 * 1024  # one document under contents/ (an ADR); GitHub inlines at most 1 MB
_PR_FILE = re.compile(r"([0-9]+)\.json")


def _json_entries(folder: Path) -> list[os.DirEntry[str]]:
    """``folder``'s ``*.json`` entries by name (os.scandir: one listing, no Path per file; 10,000 PR files)."""
    try:
        with os.scandir(folder) as it:
            return sorted((e for e in it if e.name.endswith(".json")), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []


def _merged_at(pr: Json) -> str | None:
    at = pr.get("merged_at")
    return str(at) if at else None


_MISSING = object()


def _real_path(fd: int, path: str) -> str:
    """Where an open file really is: /proc's link for the descriptor (one call), else the resolved path."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return os.path.realpath(path)


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"

"""The files of one commit, from a local git clone (``git archive``) or a GitHub tarball, as one tar stream.

Both sources go through ``read_tar``: regular files only (links, devices and paths that climb out are
skipped), a cap on the compressed bytes read, on the number of files and on each file kept in memory.
Only what the code map reads is kept (source files, tsconfig/jsconfig, package.json); every other path is listed, so
an import of ``./styles.css`` still resolves to a file of the tree.
"""

from __future__ import annotations

import os
import posixpath
import re
import subprocess
import tarfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import requests

from ..db import validate_repo
from ..errors import GitHubError, GitSourceError, InvalidInput, SourceError
from ..files import is_regular, read_regular
from .model import TreeInfo
from .parse import lang_of
from .tsconfig import CONFIG_NAMES

MAX_ARCHIVE_BYTES = 512 * 1024 * 1024  # compressed bytes read from a tarball or git archive
# bytes a tarball may unpack to: a few MB of gzip can stand for gigabytes of zeros (a decompression bomb)
MAX_UNPACKED_BYTES = 1024 * 1024 * 1024
MAX_FILES = 300_000
MAX_FILE_BYTES = 1024 * 1024  # bigger source files are listed, not parsed (generated or minified code)
SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache"})
KEPT_NAMES = (*CONFIG_NAMES, "package.json")  # besides source files: what resolution reads
_REF = re.compile(r"^[A-Za-z0-9._/+-]{1,200}$")
_SHA = re.compile(r"^[0-9a-f]{7,40}$")

Progress = Callable[[str], None]


@dataclass
class Tree:
    info: TreeInfo
    paths: set[str] = field(default_factory=set)
    contents: dict[str, bytes] = field(default_factory=dict)  # source and config files only
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> count

    def read(self, path: str) -> bytes | None:
        return self.contents.get(path)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


class _Bounded:
    """A read-only stream that fails once more than ``limit`` bytes came through."""

    def __init__(self, raw: IO[bytes] | Any, limit: int, what: str, verb: str = "is larger than") -> None:
        self.raw, self.limit, self.what, self.count, self.verb = raw, limit, what, 0, verb

    def read(self, n: int = -1) -> bytes:
        data: bytes = self.raw.read(n if n is not None and n >= 0 else 1024 * 1024)
        self.count += len(data)
        if self.count > self.limit:
            raise SourceError(
                f"{self.what} {self.verb} {self.limit // (1024 * 1024)} MB; refusing to read more (nothing was written)"
            )
        return data


class _Prefixed:
    """A stream with a few bytes already read from it put back in front (to look at its magic number)."""

    def __init__(self, head: bytes, rest: Any) -> None:
        self.head, self.rest = head, rest

    def read(self, n: int = -1) -> bytes:
        if self.head:
            if n is None or n < 0:
                out, self.head = self.head + self.rest.read(), b""
                return bytes(out)
            out, self.head = self.head[:n], self.head[n:]
            return out if len(out) == n else out + self.rest.read(n - len(out))
        return bytes(self.rest.read(n))


def _unpacked(stream: Any, what: str) -> _Bounded:
    """The tar bytes of a plain, gzip, bzip2 or xz stream, decompressed here (not by tarfile) so that what it
    unpacks to is bounded by MAX_UNPACKED_BYTES as well as what is read by MAX_ARCHIVE_BYTES."""
    import bz2
    import gzip
    import lzma

    head = stream.read(6)
    src = _Prefixed(head, stream)
    inner: Any
    if head.startswith(b"\x1f\x8b"):
        inner = gzip.GzipFile(fileobj=src, mode="rb")  # type: ignore[call-overload]
    elif head.startswith(b"BZh"):
        inner = bz2.BZ2File(src)  # type: ignore[call-overload]
    elif head.startswith(b"\xfd7zXZ\x00"):
        inner = lzma.LZMAFile(src)  # type: ignore[arg-type]
    else:
        inner = src
    return _Bounded(inner, MAX_UNPACKED_BYTES, what, "unpacks to more than")


def read_tar(stream: IO[bytes] | Any, info: TreeInfo, strip_top: bool, limit: int = MAX_ARCHIVE_BYTES) -> Tree:
    """Read a (possibly compressed) tar stream into a Tree; ``strip_top`` drops GitHub's ``owner-repo-sha/``."""
    tree = Tree(info)
    bounded = _Bounded(stream, limit, info.location or "the archive")
    top: str | None = None
    try:
        with tarfile.open(fileobj=_unpacked(bounded, info.location or "the archive"), mode="r|") as tar:  # type: ignore[call-overload]
            for member in tar:
                name = member.name
                if strip_top:
                    first, _, name = name.partition("/")
                    top = top or first
                path = _safe(name)
                if path is None or not member.isfile():
                    if member.isfile() or member.issym() or member.islnk():
                        tree.skip("link_or_unsafe_path")
                    continue
                if any(part in SKIP_DIRS for part in path.split("/")[:-1]):
                    tree.skip("vendored_or_tool_folder")
                    continue
                if len(tree.paths) >= MAX_FILES:
                    raise SourceError(f"{info.location} holds more than {MAX_FILES} files; refusing to map it")
                tree.paths.add(path)
                wanted = lang_of(path) is not None or posixpath.basename(path) in KEPT_NAMES
                if not wanted:
                    continue
                if member.size > MAX_FILE_BYTES:
                    tree.skip("too_large")
                    continue
                fh = tar.extractfile(member)
                if fh is not None:
                    tree.contents[path] = fh.read()
    except (tarfile.TarError, EOFError, zlib.error, OSError) as e:  # gzip/bz2/lzma say "not a … file" as OSError
        raise SourceError(f"{info.location or 'the archive'} is not a readable tar archive: {e}") from e
    if strip_top and top and not _SHA.match(info.commit):
        sha = top.rsplit("-", 1)[-1]
        if _SHA.match(sha):
            tree.info = TreeInfo(info.source, sha, info.ref, info.location)
    return tree


def _safe(name: str) -> str | None:
    name = name[2:] if name.startswith("./") else name
    p = posixpath.normpath(name) if name else ""
    if not name or p in (".", "") or p.startswith(("/", "../")) or p == ".." or "\\" in p or "\x00" in p:
        return None
    return p


# --- a local clone --------------------------------------------------------------------------------------


def _git_env() -> dict[str, str]:
    drop = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_NAMESPACE")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(LC_ALL="C", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
    return env


def _git(path: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(path), *args], capture_output=True, env=_git_env(), check=False)
    except FileNotFoundError as e:
        raise GitSourceError("the git command was not found; install git to map a local clone") from e
    if done.returncode != 0:
        msg = done.stderr.decode("utf-8", "replace").strip() or "(no message)"
        raise GitSourceError(f"git {args[0]} failed in {path}: {msg}")
    return done.stdout.decode("utf-8", "replace").strip()


def tree_from_git(path: str | Path, rev: str = "HEAD") -> Tree:
    """The files of ``rev`` (default HEAD) of a local clone, read from git's objects, not the work tree."""
    top = Path(path)
    if not top.is_dir():
        raise GitSourceError(f"{top} is not a folder; pass the folder of a local git clone")
    if rev.startswith("-") or not _REF.match(rev):
        raise InvalidInput(f"invalid git revision {rev!r}")
    commit = _git(top, "rev-parse", "--verify", "--end-of-options", f"{rev}^{{commit}}")
    info = TreeInfo("git", commit, None if rev == "HEAD" else rev, str(top.resolve()))
    proc = subprocess.Popen(
        ["git", "-C", str(top), "archive", "--format=tar", commit],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_git_env(),
    )
    try:
        assert proc.stdout is not None
        tree = read_tar(proc.stdout, info, strip_top=False)
    finally:
        if proc.stdout is not None:
            proc.stdout.close()
        err = proc.stderr.read() if proc.stderr is not None else b""
        code = proc.wait()
    if code != 0:
        raise GitSourceError(f"git archive failed in {top}: {err.decode('utf-8', 'replace').strip()}")
    return tree


# --- a GitHub tarball -----------------------------------------------------------------------------------


def tree_from_github(
    repo: str,
    ref: str,
    api_url: str,
    token: str | None = None,
    session: requests.Session | None = None,
    limit: int = MAX_ARCHIVE_BYTES,
    timeout_s: float = 60,
) -> Tree:
    """``GET /repos/{o}/{r}/tarball/{ref}`` (GitHub redirects to its archive host), streamed with a size cap."""
    from ..github_http import GitHubHttp

    repo = validate_repo(repo)
    if ref.startswith("-") or ".." in ref or not _REF.match(ref):
        raise InvalidInput(f"invalid ref {ref!r}; give a branch, tag or commit sha")
    url = f"{api_url.rstrip('/')}/repos/{repo}/tarball/{ref}"
    own = session is None
    # the shared transport (github_http): 5xx retries; a rate limit is reported at once (max_wait_s 0: one
    # request, so the user is better told when to run it again than kept waiting). requests drops the token
    # when GitHub's redirect leaves the API host for its archive host.
    http = GitHubHttp(api_url, token, session=session, timeout_s=timeout_s, retries=2, max_wait_s=0)
    try:
        resp = http.send("GET", url, stream=True)
        with resp:
            status = resp.status_code
            if status == 404:
                raise GitHubError(
                    f"GitHub has no tarball of {repo} at {ref!r} (404): check the repository and the "
                    "ref; private repositories need GITHUB_TOKEN",
                    404,
                    url,
                )
            if status >= 400:
                raise GitHubError(f"GitHub answered {status} for {url}: {resp.text[:200]}", status, url)
            declared = resp.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > limit:
                raise SourceError(
                    f"the tarball of {repo}@{ref} is {int(declared) // (1024 * 1024)} MB, over the "
                    f"{limit // (1024 * 1024)} MB limit (nothing was written)"
                )
            info = TreeInfo("tarball", ref if _SHA.match(ref) else "", ref, f"tarball {repo}@{ref}")
            try:
                return read_tar(resp.raw, info, strip_top=True, limit=limit)
            except (requests.RequestException, OSError) as e:
                raise GitHubError(f"the tarball download from {url} broke off: {e}", None, url) from e
    finally:
        if own:
            http.session.close()


def tree_from_folder(path: str | Path) -> Tree:
    """The files under a plain folder (tests and benchmarks; a build records no commit for it)."""
    top = Path(path)
    if not top.is_dir():
        raise InvalidInput(f"{top} is not a folder")
    tree = Tree(TreeInfo("folder", "", None, str(top.resolve())))
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        rel_dir = os.path.relpath(dirpath, top).replace(os.sep, "/")
        for name in filenames:
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            full = os.path.join(dirpath, name)
            if os.path.islink(full):
                tree.skip("link_or_unsafe_path")
                continue
            if not is_regular(full):  # a FIFO would block the open below forever; a device may never end
                tree.skip("not_a_regular_file")
                continue
            tree.paths.add(rel)
            if lang_of(rel) is not None or name in KEPT_NAMES:
                if os.path.getsize(full) > MAX_FILE_BYTES:
                    tree.skip("too_large")
                    continue
                tree.contents[rel] = read_regular(full, "source file", MAX_FILE_BYTES)
    return tree

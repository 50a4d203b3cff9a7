"""Read a local git clone into a RepoHistory with the ``git`` command line (no extra library).

One streaming ``git log --raw -p`` call reads every commit (message, author, files, hunks); a
second, path-limited ``git log`` finds which commit first added each ADR file, and ``git cat-file``
reads the ADR texts at HEAD.

Choices worth knowing:
- author login = the local part of the (mailmap-applied) author email; for GitHub noreply addresses
  (``12345+login@users.noreply.github.com``) the part after ``+``; the author name when there is no email.
  Logins are therefore per mailbox, not per GitHub account.
- a person is a bot when the name or email contains ``[bot]`` or ``bot@`` (case-insensitive).
- ``Commit.date`` and a PR's ``merged_at`` are the committer date in UTC (when the change landed).
- a subject ending in ``(#N)`` is a squash merge of PR N; ``Merge pull request #N from ...`` is a
  merge of PR N whose files are the diff against the first parent and whose author is the merger.
- any other merge (``Merge branch '2.0.x'``) is a branch merge: its branch's commits wrote its lines, so they carry
  the decisions and the merge none. A mainline walk (``first_parent``) reads those commits through the merge
  (``P1..P2`` along the branch's first parents, at most BRANCH_MAX, each ``merged_by`` the merge).
- messages are kept exactly as git prints them with ``%B`` (trailing newline included); a message that
  is not UTF-8 is left out (and listed in ``problems``) rather than altered.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import secrets
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO
from urllib.parse import quote

from ..db import validate_repo
from ..errors import GitSourceError, InvalidInput
from .model import Commit, Doc, FileChange, PullRequest, RepoHistory

Progress = Callable[[str], None]

PATCH_CAP = 64 * 1024
BRANCH_MAX = 200  # commits read through one branch merge on a mainline walk
BRANCH_DEPTH = 3  # branch merges read through within a branch (a merge of a merge of a branch)
PROGRESS_EVERY = 200
ADR_DIRS = ("docs/adr", "docs/decisions", "adr", "doc/adr", "docs/architecture/decisions", "architecture/decisions")
_STATUS = {"A": "added", "M": "modified", "D": "removed", "R": "renamed", "C": "added", "T": "modified"}
_SQUASH = re.compile(r"^(?P<title>.*?)\s*\(#(?P<n>\d+)\)\s*$")
_MERGE = re.compile(r"^Merge pull request #(?P<n>\d+) from \S+")
_GITHUB = re.compile(
    r"^(?:https?://(?:[^@/]+@)?github\.com/|git@github\.com:|ssh://git@github\.com(?::\d+)?/|git://github\.com/)"
    r"(?P<owner>[A-Za-z0-9_.-]+)/(?P<name>[A-Za-z0-9_.-]+?)(?:\.git)?/?$"
)
# Config a user may have set that would change what `git log` prints; pinned so parsing stays exact.
_PINNED = ("core.quotePath=false", "log.showSignature=false", "diff.suppressBlankEmpty=false", "diff.noprefix=false")
_REPO_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_NAMESPACE",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
)


@dataclass(frozen=True)
class PrRef:
    """What a commit message says about the PR it merged."""

    number: int
    title: str
    body: str


def read_git_history(
    path: Path,
    repo: str,
    max_commits: int = 5000,
    progress: Progress | None = None,
    *,
    since: str | None = None,
    until: str | None = None,
    first_parent: bool = False,
) -> RepoHistory:
    """Read up to ``max_commits`` commits reachable from HEAD, their squash/merge PRs and the ADRs at HEAD.

    ``since``/``until`` (any revision git understands) read only ``since..until`` — the commits to append to
    a graph that already holds ``since`` (incremental ingest); ``until`` defaults to HEAD, and ADRs are read
    at ``until``. ``first_parent`` follows the mainline only (what landed, in landing order, as replay walks it).
    """
    repo = validate_repo(repo)
    if not isinstance(max_commits, int) or max_commits < 1:
        raise InvalidInput(f"max_commits must be a positive integer, got {max_commits!r}")
    top = _work_tree(Path(path))
    head = _resolve_rev(top, until, "--until") if until else _head(top)
    spec = [f"^{_resolve_rev(top, since, '--since')}", head] if since else [head]
    base = github_base_url(_origin_url(top))
    hist = RepoHistory(repo=repo, url=base)
    shallow = _shallow_edges(top)
    fp = ["--first-parent"] if first_parent else []
    total = int(_git(top, "rev-list", "--count", f"--max-count={max_commits}", *fp, *spec).stdout)
    for n, commit in enumerate(_read_commits(top, spec, max_commits, hist, base, fp), start=1):
        if commit.sha in shallow:
            _drop_shallow_diff(commit, hist.problems)
        hist.commits.append(commit)
        if first_parent and _bare_merge(commit):
            branch = _branch_commits(top, commit, hist, base, shallow)
            commit.branch_merge = bool(branch)
            hist.commits += branch
        if progress and n % PROGRESS_EVERY == 0:
            progress(f"git: read {n} of {total} commits")
    if not first_parent:
        read = {c.sha for c in hist.commits}
        for commit in hist.commits:
            commit.branch_merge = _bare_merge(commit) and commit.parents[1] in read
    hist.pulls = _pulls_from_commits(hist, base)
    hist.docs = _read_docs(top, head, base, shallow, hist.problems)
    if progress:
        progress(f"git: {len(hist.commits)} commits, {len(hist.pulls)} pull requests, {len(hist.docs)} ADR files")
    return hist


def _bare_merge(commit: Commit) -> bool:
    """A merge of a branch that names no PR (``Merge branch '2.0.x'``, ``Merge branch 'master' of github.com:…``):
    its first-parent diff is what the branch's commits wrote, so they, not the merge, made those choices."""
    return len(commit.parents) >= 2 and commit.pr_number is None


def _branch_commits(
    top: Path, merge: Commit, hist: RepoHistory, base: str | None, shallow: set[str], depth: int = 0, landed: str = ""
) -> list[Commit]:
    """The commits ``merge`` brought in from its branch (``P1..P2``, the branch's own mainline, newest first, at most
    BRANCH_MAX), each marked ``merged_by`` (set by the caller). A branch merge on the way (zod's ``Merge branch
    'master' of …`` whose branch is only ``Merge branch 'jauco-master'``) is read through in turn, BRANCH_DEPTH deep;
    a cut list is reported in ``problems``."""
    landed = landed or merge.parents[0]  # the mainline before the outermost merge: nothing from it is read again
    spec = [f"^{merge.parents[0]}", f"^{landed}", *merge.parents[1:]]
    out: list[Commit] = []
    for c in _read_commits(top, spec, BRANCH_MAX + 1, hist, base, ["--first-parent"]):
        if c.sha in shallow:
            continue
        if _bare_merge(c):
            if depth + 1 < BRANCH_DEPTH:
                out += _branch_commits(top, c, hist, base, shallow, depth + 1, landed)
            continue
        out.append(c)
    if depth == 0:
        for c in out:
            c.merged_by = merge.sha
    if len(out) > BRANCH_MAX:
        hist.problems.append(
            f"merge {merge.sha[:12]} brought in more than {BRANCH_MAX} commits; read the newest {BRANCH_MAX}"
        )
        out = out[:BRANCH_MAX]
    return out


# --- running git -------------------------------------------------------------------------------


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _REPO_ENV}
    env.update(LC_ALL="C", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
    return env


def _cmd(top: Path, *args: str) -> list[str]:
    pinned = [x for kv in _PINNED for x in ("-c", kv)]
    return ["git", "-C", str(top), *pinned, *args]


def _git(top: Path, *args: str, stdin: bytes | None = None, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    """Run one git command to completion; a failure becomes GitSourceError with git's own words."""
    try:
        done = subprocess.run(_cmd(top, *args), input=stdin, capture_output=True, env=_env(), check=False)
    except FileNotFoundError as e:
        raise GitSourceError("the git command was not found; install git to ingest a local clone") from e
    if check and done.returncode != 0:
        verb = next(a for a in args if not a.startswith("-"))
        raise GitSourceError(f"git {verb} failed in {top}: {_stderr(done.stderr)}")
    return done


def _stderr(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace").strip() or "(no message)"


def _work_tree(path: Path) -> Path:
    """The top of the work tree that holds ``path``, or GitSourceError saying why not."""
    if not path.exists():
        raise GitSourceError(f"{path} does not exist; pass the folder of a local git clone")
    if not path.is_dir():
        raise GitSourceError(f"{path} is not a folder; pass the folder of a local git clone")
    done = _git(path, "rev-parse", "--is-inside-work-tree", "--show-toplevel", check=False)
    lines = done.stdout.decode("utf-8", errors="surrogateescape").splitlines()
    if done.returncode != 0 or not lines or lines[0] != "true" or len(lines) < 2:
        why = _stderr(done.stderr) if done.returncode != 0 else "it is not inside a work tree (a bare repository?)"
        raise GitSourceError(f"{path} is not a git work tree: {why}")
    return Path(lines[1])


def _resolve_rev(top: Path, rev: str, what: str) -> str:
    """A revision given by the user as a full commit sha, or GitSourceError naming the option."""
    rev = (rev or "").strip()
    if not rev or rev.startswith("-"):
        raise InvalidInput(f"{what} needs a revision (a commit sha, tag or branch), got {rev!r}")
    done = _git(top, "rev-parse", "--verify", "-q", "--end-of-options", f"{rev}^{{commit}}", check=False)
    if done.returncode != 0:
        raise GitSourceError(f"{what} {rev!r} is not a commit in {top}")
    return done.stdout.decode().strip()


def _head(top: Path) -> str:
    done = _git(top, "rev-parse", "--verify", "-q", "HEAD^{commit}", check=False)
    if done.returncode != 0:
        raise GitSourceError(f"{top} has no commits yet (HEAD does not resolve); nothing to ingest")
    return done.stdout.decode().strip()


def _origin_url(top: Path) -> str | None:
    done = _git(top, "remote", "get-url", "origin", check=False)
    if done.returncode != 0:
        return None  # no origin remote: history without links
    return done.stdout.decode("utf-8", errors="replace").strip() or None


def _shallow_edges(top: Path) -> set[str]:
    """Commits whose parents a shallow clone left out (git diffs them against nothing)."""
    where = _git(top, "rev-parse", "--git-path", "shallow").stdout.decode("utf-8", errors="surrogateescape").strip()
    shallow = top / where
    return set(shallow.read_text(encoding="ascii").split()) if shallow.is_file() else set()


def _drop_shallow_diff(commit: Commit, problems: list[str]) -> None:
    # Without its parents the commit would appear to add every file in the tree.
    problems.append(
        f"commit {commit.sha[:12]}: oldest commit of a shallow clone; its {len(commit.files)} files are "
        "left out because its parents are missing (git fetch --unshallow reads them)"
    )
    commit.files = []


def github_base_url(remote: str | None) -> str | None:
    """``https://github.com/OWNER/NAME`` for a GitHub remote URL (https, ssh or git form), else None."""
    m = _GITHUB.match((remote or "").strip())
    return f"https://github.com/{m['owner']}/{m['name']}" if m else None


def _split_stream(stream: IO[bytes], sep: bytes, chunk: int = 1 << 20) -> Iterator[bytes]:
    """Yield the pieces of a byte stream between separators, without holding more than one piece."""
    buf = bytearray()
    scan = 0
    while data := stream.read(chunk):
        buf += data
        while (i := buf.find(sep, scan)) >= 0:
            yield bytes(buf[:i])
            del buf[: i + len(sep)]
            scan = 0
        scan = max(0, len(buf) - len(sep) + 1)
    yield bytes(buf)


# --- commits -----------------------------------------------------------------------------------


def _read_commits(
    top: Path, spec: list[str], limit: int, hist: RepoHistory, base: str | None, extra: list[str] | None = None
) -> Iterator[Commit]:
    """Stream ``git log`` once; every commit is a header (between markers) followed by its raw + patch block."""
    token = secrets.token_hex(8)
    mark = f"%x00RG{token}%x00"
    fmt = f"{mark}%H%n%P%n%aN%n%aE%n%ct%n%B{mark}"
    args = [
        "log",
        *spec,
        *(extra or []),
        f"-n{limit}",
        f"--format={fmt}",
        "--encoding=UTF-8",
        "--raw",
        "-p",
        "-M",
        "-U3",
        "--inter-hunk-context=0",
        "--root",
        "--diff-merges=first-parent",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--",
    ]
    with tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(_cmd(top, *args), stdout=subprocess.PIPE, stderr=err, env=_env())
        except FileNotFoundError as e:
            raise GitSourceError("the git command was not found; install git to ingest a local clone") from e
        assert proc.stdout is not None
        try:
            pieces = _split_stream(proc.stdout, b"\x00RG" + token.encode() + b"\x00")
            next(pieces, None)  # the empty piece before the first marker
            for header in pieces:
                yield _parse_commit(header, next(pieces, b""), hist, base)
        finally:
            proc.stdout.close()
            rc = proc.wait()
        err.seek(0)
        warnings = err.read()
    if rc != 0:
        raise GitSourceError(f"git log failed in {top}: {_stderr(warnings)}")
    if warnings.strip():
        hist.problems.append(f"git log warned: {_stderr(warnings)}")


def _parse_commit(header: bytes, block: bytes, hist: RepoHistory, base: str | None) -> Commit:
    sha_b, parents_b, name_b, email_b, ts_b, msg_b = header.split(b"\n", 5)
    sha = sha_b.decode("ascii")
    name = name_b.decode("utf-8", errors="replace")
    email = email_b.decode("utf-8", errors="replace")
    try:
        message = msg_b.decode("utf-8")
    except UnicodeDecodeError:
        message = ""
        hist.problems.append(f"commit {sha[:12]}: message is not valid UTF-8; left out (no quote can come from it)")
    login = hist.person(author_login(name, email), is_bot=is_bot(name, email))
    if login and hist.people[login].name is None and name:
        hist.people[login].name = name
    ref = pr_ref(message)
    commit = Commit(
        sha=sha,
        message=message,
        author=login,
        date=_utc(ts_b),
        url=f"{base}/commit/{sha}" if base else None,
        pr_number=ref.number if ref else None,
        parents=tuple(parents_b.decode("ascii").split()),
    )
    commit.files = _parse_files(block, sha, hist.problems)
    return commit


def _utc(ts: bytes) -> str:
    return dt.datetime.fromtimestamp(int(ts), tz=dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def author_login(name: str, email: str) -> str | None:
    """The login RGuard uses for a git author: email local part (GitHub noreply aware), else the name."""
    local = email.rsplit("@", 1)[0] if "@" in email else ""
    if "+" in local and email.lower().endswith("@users.noreply.github.com"):
        local = local.split("+", 1)[1]
    return local.strip() or name.strip() or None


def is_bot(name: str, email: str) -> bool:
    """A bot author: ``[bot]`` or ``bot@`` anywhere in the name or email."""
    text = f"{name} {email}".lower()
    return "[bot]" in text or "bot@" in text


def pr_ref(message: str) -> PrRef | None:
    """The PR a commit merged: squash subject ``… (#N)`` or ``Merge pull request #N from …``."""
    subject, _, rest = message.partition("\n")
    subject = subject.rstrip("\r")
    if m := _MERGE.match(subject):
        title, _, body = rest.lstrip("\r\n").partition("\n")
        return PrRef(int(m["n"]), title.strip() or subject, body.strip("\r\n"))
    if m := _SQUASH.match(subject):
        return PrRef(int(m["n"]), m["title"] or subject, rest.strip("\r\n"))
    return None


# --- files and patches -------------------------------------------------------------------------


def _parse_files(block: bytes, sha: str, problems: list[str]) -> list[FileChange]:
    """Files from the ``--raw`` lines, each given its patch section (git prints both in the same order)."""
    # Hunk lines start with ' ', '+', '-', '\\' or '@', and paths with a newline are quoted, so
    # "\ndiff --git " can only be a section header: splitting the whole block is exact and fast.
    raw, *sections = (b"\n" + block).split(b"\ndiff --git ")
    entries = [_raw_file(line, sha, problems) for line in raw.split(b"\n") if line.startswith(b":")]
    files = [fc for fc, _ in entries]
    # A type change (file <-> symlink or submodule) is printed as a deletion and a creation.
    spans = [2 if code == "T" else 1 for _, code in entries]
    if sum(spans) != len(sections):
        problems.append(f"commit {sha[:12]}: {len(files)} files but {len(sections)} patch sections; patches left out")
    else:
        pos = 0
        for fc, span in zip(files, spans, strict=True):
            _attach_patch(fc, sections[pos : pos + span], sha, problems)
            pos += span
    return files


def _raw_file(line: bytes, sha: str, problems: list[str]) -> tuple[FileChange, str]:
    """One ``--raw`` line (``:old new sha sha R087\\told\\tnew``) and its status letter."""
    meta, *paths = line.split(b"\t")
    code = meta.split()[-1].decode("ascii")[:1]
    names = [_path(p, sha, problems) for p in paths]
    status = _STATUS.get(code, "modified")
    if len(names) == 2:
        return FileChange(path=names[1], status=status, previous_path=names[0]), code
    return FileChange(path=names[0], status=status), code


def _path(raw: bytes, sha: str, problems: list[str]) -> str:
    raw = unquote_c(raw) if raw.startswith(b'"') else raw
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        problems.append(f"commit {sha[:12]}: file name {text!r} is not valid UTF-8; undecodable bytes replaced")
        return text


_ESC = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13, b'"': 34, b"\\": 92}


def unquote_c(raw: bytes) -> bytes:
    """Undo git's C-style path quoting (``"a\\tb\\303\\274"`` → the raw bytes)."""
    s = raw[1:-1] if raw.startswith(b'"') and raw.endswith(b'"') else raw
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i : i + 1]
        if c != b"\\" or i + 1 >= len(s):
            out += c
            i += 1
        elif s[i + 1 : i + 2] in _ESC:
            out.append(_ESC[s[i + 1 : i + 2]])
            i += 2
        else:
            out.append(int(s[i + 1 : i + 4], 8) & 0xFF)
            i += 4
    return bytes(out)


def _attach_patch(fc: FileChange, sections: list[bytes], sha: str, problems: list[str]) -> None:
    """Hunks from the first ``@@`` (capped, decoded) and their +/- counts; binary files get no patch."""
    hunks = []
    for section in sections:
        start = section.find(b"\n@@")
        if start >= 0:
            hunks.append(section[start + 1 :].rstrip(b"\n"))
        elif b"\nBinary files " in section:
            problems.append(f"commit {sha[:12]}: binary file {fc.path} (patch skipped)")
    if not hunks:
        return
    patch = b"\n".join(hunks)
    fc.additions = patch.count(b"\n+")  # the patch opens with "@@", so every +/- line follows a newline
    fc.deletions = patch.count(b"\n-")
    if len(patch) > PATCH_CAP:
        cut = patch.rfind(b"\n", 0, PATCH_CAP)
        patch = patch[: cut if cut > 0 else PATCH_CAP]
        problems.append(f"commit {sha[:12]}: patch of {fc.path} cut at 64 KB")
    try:
        fc.patch = patch.decode("utf-8")
    except UnicodeDecodeError:
        fc.patch = patch.decode("utf-8", errors="replace")
        problems.append(f"commit {sha[:12]}: patch of {fc.path} is not valid UTF-8; undecodable bytes replaced")


# --- pull requests -----------------------------------------------------------------------------


def _pulls_from_commits(hist: RepoHistory, base: str | None) -> list[PullRequest]:
    """One merged PR per squash/merge commit; when two commits name the same PR the older one wins."""
    pulls: dict[int, PullRequest] = {}
    for commit in hist.commits:  # newest first, so an older commit overwrites a newer one
        ref = pr_ref(commit.message)
        if ref is None:
            continue
        if ref.number in pulls:
            hist.problems.append(f"PR #{ref.number} is named by several commits; kept the oldest ({commit.sha[:12]})")
        pulls[ref.number] = PullRequest(
            number=ref.number,
            title=ref.title,
            body=ref.body,
            author=commit.author,
            state="closed",
            merged=True,
            url=f"{base}/pull/{ref.number}" if base else None,
            merged_at=commit.date,
            closed_at=commit.date,
            merge_commit_sha=commit.sha,
            files=list(commit.files),
        )
    return sorted(pulls.values(), key=lambda p: p.number, reverse=True)


# --- ADR documents -----------------------------------------------------------------------------


def is_adr_path(path: str) -> bool:
    """A markdown file under one of the ADR folders (folder names compared case-insensitively)."""
    low = path.lower()
    return low.endswith((".md", ".markdown")) and any(low.startswith(d + "/") for d in ADR_DIRS)


def _read_docs(top: Path, head: str, base: str | None, shallow: set[str], problems: list[str]) -> list[Doc]:
    blobs = _adr_blobs(top, head, problems)
    if not blobs:
        return []
    texts = _cat_blobs(top, [sha for sha, _ in blobs])
    added_by = _added_by_pr(top, head, [p for _, p in blobs], shallow, problems)
    docs: list[Doc] = []
    for (_blob, path), raw in zip(blobs, texts, strict=True):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            problems.append(f"ADR {path} is not valid UTF-8; skipped")
            continue
        url = f"{base}/blob/{head}/{quote(path)}" if base else None
        docs.append(Doc(path=path, text=text, url=url, added_by_pr=added_by.get(path)))
    return docs


def _adr_blobs(top: Path, head: str, problems: list[str]) -> list[tuple[str, str]]:
    """(blob sha, path) of every ADR markdown file in HEAD's tree."""
    out = _git(top, "ls-tree", "-r", "-z", head).stdout
    blobs = []
    for entry in out.split(b"\x00"):
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        _mode, kind, sha = meta.split()
        path = _path(raw_path, head, problems)
        if kind == b"blob" and is_adr_path(path):
            blobs.append((sha.decode("ascii"), path))
    return blobs


def _cat_blobs(top: Path, shas: list[str]) -> list[bytes]:
    """Blob contents in one ``git cat-file --batch`` call."""
    out = _git(top, "cat-file", "--batch", stdin="".join(s + "\n" for s in shas).encode()).stdout
    texts, pos = [], 0
    for _ in shas:
        eol = out.index(b"\n", pos)
        size = int(out[pos:eol].split()[2])
        texts.append(out[eol + 1 : eol + 1 + size])
        pos = eol + 1 + size + 1
    return texts


def _added_by_pr(top: Path, head: str, paths: list[str], shallow: set[str], problems: list[str]) -> dict[str, int]:
    """For each path, the PR of the oldest mainline commit that added it (when that commit names a PR)."""
    token = secrets.token_hex(8)
    mark = f"%x00RG{token}%x00"
    out = _git(
        top,
        "--literal-pathspecs",
        "log",
        head,
        "--first-parent",
        "--diff-merges=first-parent",
        "--no-renames",
        "--diff-filter=A",
        "--name-only",
        f"--format={mark}%H%n%B{mark}",
        "--encoding=UTF-8",
        "--",
        *paths,
    ).stdout
    pieces = out.split(b"\x00RG" + token.encode() + b"\x00")[1:]
    added: dict[str, int | None] = {}
    for header, names in zip(pieces[0::2], pieces[1::2], strict=False):
        sha, _, msg = header.partition(b"\n")
        if sha.decode() in shallow:
            continue  # its "adds" are an artefact of the missing parents
        ref = pr_ref(msg.decode("utf-8", errors="replace"))
        for raw in names.split(b"\n"):
            if raw:  # newest first: the last assignment is the oldest add
                added[_path(raw, sha.decode(), problems)] = ref.number if ref else None
    return {p: n for p, n in added.items() if n is not None}


def landed_with(path: Path, shas: list[str], mainline: set[str], head: str = "HEAD") -> dict[str, str]:
    """For commits off the mainline (a merged branch's commits), the first-parent commit that brought each in
    (its merge). A sha git does not know, or one that never reached ``head``, is left out: a squash commit
    that names its branch's own commits names commits that are not in the history."""
    top = _work_tree(Path(path))
    out: dict[str, str] = {}
    for sha in shas:
        if not re.fullmatch(r"[0-9a-fA-F]{7,40}", sha):
            continue
        full = _git(top, "rev-parse", "--verify", "-q", f"{sha}^{{commit}}", check=False)
        if full.returncode != 0:
            continue
        sha_full = full.stdout.decode().strip()
        if _git(top, "merge-base", "--is-ancestor", sha_full, head, check=False).returncode != 0:
            continue
        # descendants of the commit, oldest first; the first on the mainline is the merge that brought it in
        # (git 2.39 lets --ancestry-path list branch descendants even with --first-parent, so filter here)
        done = _git(top, "rev-list", "--ancestry-path", "--reverse", f"{sha_full}..{head}", check=False)
        first = [x for x in done.stdout.decode().split() if x in mainline][:1]
        if done.returncode == 0 and first:
            out[sha] = first[0]
    return out

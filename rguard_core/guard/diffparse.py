"""Parse a unified diff (git or plain) with unidiff into FileDiffs, with bounded work on huge input."""

from __future__ import annotations

import re
from collections import Counter
from typing import Literal

import unidiff

from ..errors import DiffParseError
from .model import FileDiff, Hunk, ParsedDiff
from .tokens import change_set

# The guard's work budget on an accepted diff (the input limit that refuses a diff is guard/request.py's
# MAX_DIFF_BYTES). Anything beyond PARSE_BUDGET_CHARS or PARSE_BUDGET_FILES is skipped, listed in
# ParsedDiff.skipped_files, raises the verdict to at least ``note`` and fails ``--fail-on-warn``, so padding a
# diff can never turn a warning into a pass.
PARSE_BUDGET_CHARS = 1_500_000  # beyond this only whole files up to the budget are read
PARSE_BUDGET_FILES = 300
MAX_IDENTIFIERS = 60
_FILE_START = re.compile(r"^diff --git |^--- (?:a/|/dev/null)", re.M)
_LOOKS_LIKE_DIFF = re.compile(r"^(?:diff --git |--- \S|\+\+\+ \S|@@ -\d)", re.M)
_HEADER_PATH = re.compile(r"^(?:diff --git a/\S+ b/(\S+)|\+\+\+ (?:b/)?(\S+))", re.M)


def parse_diff(text: str | bytes) -> ParsedDiff:
    """Files, hunks and changed identifiers of a unified diff; DiffParseError on empty or non-diff input."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if not isinstance(text, str):
        raise DiffParseError(f"the diff must be text (str or bytes), got {type(text).__name__}")
    if not text or not text.strip():
        raise DiffParseError("the diff is empty: pass a unified diff (git diff / diff -u) on --diff FILE or stdin")
    notes: list[str] = []
    skipped: list[str] = []
    text = text.replace("\r\n", "\n")
    if "\r" in text and "\n" not in text.strip("\r"):
        text = text.replace("\r", "\n")  # classic Mac line endings: read as lines, not as one long line
        notes.append("the diff's lines end in CR only; read them as LF line endings")
    if len(text) > PARSE_BUDGET_CHARS:
        text, rest = _cut(text, PARSE_BUDGET_CHARS)
        skipped += _paths_in(text, rest)
        notes.append(
            f"diff is larger than {PARSE_BUDGET_CHARS:,} characters: read the first files only ({len(rest):,} "
            f"characters of {len(skipped)} file(s) not checked)"
        )
    text = _lone_target_header(_unquote_headers(_mode_lines(text)))
    if not _LOOKS_LIKE_DIFF.search(text):
        raise DiffParseError("the input is not a unified diff: no 'diff --git', '---'/'+++' or '@@' lines found")
    try:
        patch = _patch_set(text)
    except DiffParseError as first:
        # Hand-edited diffs often carry stale hunk line counts; recount them once before giving up.
        try:
            patch = _patch_set(recount_hunks(text))
        except DiffParseError:
            raise first from None
        notes.append(
            f"hunk line counts did not match the hunks ({first.args[0].removeprefix('malformed unified diff: ')}); they were recounted"
        )
    if len(patch) == 0:
        raise DiffParseError("the input is not a unified diff: no file sections could be read")
    every = [_file(p) for p in patch]
    # Files without hunks (a mode change, a binary marker, a pure rename) cost nothing to read: only files with
    # hunks count against the budget, so a mass `chmod +x` ahead of the real change cannot push it out.
    files: list[FileDiff] = []
    with_hunks = 0
    for f in every:
        with_hunks += bool(f.hunks)
        if f.hunks and with_hunks > PARSE_BUDGET_FILES:
            skipped.append(f.path)
        else:
            files.append(f)
    if with_hunks > PARSE_BUDGET_FILES:
        notes.append(f"diff changes the lines of {with_hunks} files: only the first {PARSE_BUDGET_FILES} were checked")
        skipped = list(dict.fromkeys(skipped))
    if not any(f.hunks or f.binary or f.status != "modified" or f.old_path for f in every) and ("\n@@ " in text):
        raise DiffParseError(
            "the diff's '@@' hunks could not be read: check that each hunk follows its file's '---'/'+++' header lines"
        )
    return ParsedDiff(files, _identifiers(files), notes, skipped)


def _patch_set(text: str) -> unidiff.PatchSet:
    """unidiff's parse, every failure of it (its own error, or a crash on input it did not expect) one
    DiffParseError: a malformed diff is the caller's input, never an internal error."""
    try:
        return unidiff.PatchSet(text)
    except unidiff.UnidiffParseError as e:
        raise DiffParseError(f"malformed unified diff: {e}") from e
    except (UnboundLocalError, ValueError, IndexError, KeyError, TypeError) as e:
        raise DiffParseError(
            "malformed unified diff: a file's header is incomplete (each file needs a '--- old' line, then "
            "'+++ new', then its '@@' hunks)"
        ) from e


def _lone_target_header(text: str) -> str:
    """A diff cut just after its ``---`` line (it starts at ``+++``): give back the ``---`` line, the same path."""
    first = text.lstrip("\n").split("\n", 1)[0]
    if not first.startswith("+++ "):
        return text
    path = first[4:].split("\t", 1)[0]
    old = "a/" + path[2:] if path.startswith("b/") else path
    return f"--- {old}\n" + text.lstrip("\n")


# Git writes a path with bytes outside printable ASCII (or a quote, backslash or control character) as a C string:
# "a/pr\303\251cis.py". Read back, the name is the real one, so a change to app/précis.py is judged like any other.
_QUOTED = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_PATH_LINE = re.compile(
    r"^(diff --git |--- |\+\+\+ |rename from |rename to |copy from |copy to |Binary files )(.*\"[^\n]*)$", re.M
)
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def unquote_git_path(quoted: str) -> str:
    """The path a C-quoted git name stands for (the quotes removed); an unquoted name comes back as it is."""
    if len(quoted) < 2 or not (quoted[0] == quoted[-1] == '"'):
        return quoted
    body, out, i = quoted[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and re.fullmatch(r"[0-7]{3}", body[i + 1 : i + 4]):
                out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
                i += 4
                continue
            out.append(_ESCAPES.get(nxt, ord(nxt) if ord(nxt) < 128 else 63))
            i += 2
            continue
        out += c.encode("utf-8")
        i += 1
    return out.decode("utf-8", errors="replace")


def _unquote_headers(text: str) -> str:
    if '"' not in text:
        return text
    return _PATH_LINE.sub(lambda m: m.group(1) + _QUOTED.sub(lambda q: unquote_git_path(q.group(0)), m.group(2)), text)


_GIT_DELETE = re.compile(r"^(diff --git [^\n]*\n)(--- [^\n]*\n\+\+\+ /dev/null)", re.M)
_GIT_ADD = re.compile(r"^(diff --git [^\n]*\n)(--- /dev/null\n)", re.M)


def _mode_lines(text: str) -> str:
    """Add the ``new/deleted file mode`` line git writes, when a hand-made diff left it out (unidiff needs it)."""
    text = _GIT_DELETE.sub(r"\1deleted file mode 100644\n\2", text)
    return _GIT_ADD.sub(r"\1new file mode 100644\n\2", text)


_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$")


def recount_hunks(text: str) -> str:
    """Rewrite every ``@@ -a,b +c,d @@`` header with the line counts its body really has."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _HUNK_HEADER.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        j = i + 1
        old = new = 0
        while j < len(lines) and not lines[j].startswith(("@@", "diff --git ")) and not _file_header(lines, j):
            k = lines[j][:1]
            if k not in (" ", "-", "+", "\\", ""):
                break
            old += k in (" ", "-", "")
            new += k in (" ", "+", "")
            j += 1
        while j > i + 1 and lines[j - 1] == "":  # trailing blank lines belong to no hunk
            j -= 1
            old -= 1
            new -= 1
        if j == i + 1 and (j >= len(lines) or lines[j].startswith(("@@", "diff --git ")) or _file_header(lines, j)):
            # a header with no lines before the next hunk or file: a stored patch cut before its first line (a
            # minified bundle or source map is one line longer than the cap); there is nothing to read in it
            i = j
            continue
        out.append(f"@@ -{m.group(1)},{old} +{m.group(2)},{new} @@{m.group(3)}")
        out += lines[i + 1 : j]
        i = j
    return "\n".join(out)


def _file_header(lines: list[str], j: int) -> bool:
    """``--- a`` followed by ``+++ b`` starts a file; a lone ``--- x`` is a removed ``-- x`` line (SQL comment)."""
    return lines[j].startswith("--- ") and j + 1 < len(lines) and lines[j + 1].startswith("+++ ")


def diff_from_patches(patches: list[dict[str, object]]) -> str:
    """A git-style diff rebuilt from stored TOUCHES rows (path, status, patch, previous_path)."""
    out: list[str] = []
    for row in patches:
        path = str(row["path"])
        prev = row.get("previous_path") or None
        status = str(row.get("status") or "modified")
        body = str(row.get("patch") or "")
        old = str(prev) if prev else path
        out.append(f"diff --git a/{old} b/{path}")
        if prev and prev != path:
            out += [f"rename from {prev}", f"rename to {path}"]
        if not body.strip():
            out.append(f"Binary files a/{old} and b/{path} differ")
            continue
        out.append("--- /dev/null" if status == "added" else f"--- a/{old}")
        out.append("+++ /dev/null" if status == "removed" else f"+++ b/{path}")
        out.append(body.rstrip("\n"))
    return "\n".join(out) + "\n"


def _cut(text: str, limit: int) -> tuple[str, str]:
    """Keep whole file sections up to ``limit`` characters (at least the first section's hunks up to it);
    returns (kept, dropped)."""
    starts = [m.start() for m in _FILE_START.finditer(text)]
    ends = [s for s in starts if 0 < s <= limit]
    if ends:
        cut = ends[-1]
    else:
        cut = text.rfind("\n@@ ", 0, limit)
        cut = cut + 1 if cut > 0 else limit
    return text[:cut], text[cut:]


def _paths_in(kept: str, rest: str) -> list[str]:
    """The files the dropped text belongs to: those whose headers it holds, and the file it was cut from."""
    out: dict[str, None] = {}
    if not _FILE_START.match(rest):  # cut inside a file: that file was read only in part
        last = [m.group(1) or m.group(2) for m in _HEADER_PATH.finditer(kept)]
        out.update(dict.fromkeys(last[-1:]))
    out.update(dict.fromkeys(m.group(1) or m.group(2) for m in _HEADER_PATH.finditer(rest)))
    out.pop("/dev/null", None)
    return list(out)


def _file(p: unidiff.PatchedFile) -> FileDiff:
    path = _strip(p.target_file) if not p.is_removed_file else _strip(p.source_file)
    old = _strip(p.source_file) if not p.is_added_file else None
    status: Literal["modified", "added", "removed", "renamed"]
    if p.is_added_file:
        status = "added"
    elif p.is_removed_file:
        status = "removed"
    elif old and old != path:
        status = "renamed"
    else:
        status = "modified"
    if not path:
        path = p.path
    hunks = [] if p.is_binary_file else [_hunk(h) for h in p]
    return FileDiff(
        path=path, old_path=old if old != path else None, status=status, binary=bool(p.is_binary_file), hunks=hunks
    )


def _hunk(h: unidiff.Hunk) -> Hunk:
    lines = [(ln.line_type, ln.value.rstrip("\n")) for ln in h if ln.line_type in (" ", "-", "+")]
    header = f"@@ -{h.source_start},{h.source_length} +{h.target_start},{h.target_length} @@"
    return Hunk(header, lines)


def _strip(name: str | None) -> str:
    if not name or name == "/dev/null":
        return ""
    name = name.split("\t", 1)[0]
    return name[2:] if name[:2] in ("a/", "b/") else name


def _identifiers(files: list[FileDiff]) -> list[str]:
    counts: Counter[str] = Counter()
    for f in files:
        if f.binary or not f.hunks:
            continue
        cs = change_set([h.lines for h in f.hunks], f.path)
        if cs.kind != "prose":
            counts.update(cs.changed_idents)
    return [name for name, _ in counts.most_common(MAX_IDENTIFIERS)]


def patch_hunks(patch: str) -> list[list[tuple[str, str]]]:
    """A stored patch (hunks from the first @@) as (kind, text) lines per hunk."""
    hunks: list[list[tuple[str, str]]] = []
    for line in patch.splitlines():
        if line.startswith("@@"):
            hunks.append([])
        elif hunks and line[:1] in (" ", "-", "+"):
            hunks[-1].append((line[0], line[1:]))
        elif hunks and line == "":
            hunks[-1].append((" ", ""))
    return hunks

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
    text = _mode_lines(text)
    if not _LOOKS_LIKE_DIFF.search(text):
        raise DiffParseError("the input is not a unified diff: no 'diff --git', '---'/'+++' or '@@' lines found")
    try:
        patch = unidiff.PatchSet(text)
    except unidiff.UnidiffParseError as first:
        # Hand-edited diffs often carry stale hunk line counts; recount them once before giving up.
        try:
            patch = unidiff.PatchSet(recount_hunks(text))
        except unidiff.UnidiffParseError:
            raise DiffParseError(f"malformed unified diff: {first}") from first
        notes.append(f"hunk line counts did not match the hunks ({first}); they were recounted")
    if len(patch) == 0:
        raise DiffParseError("the input is not a unified diff: no file sections could be read")
    if len(patch) > PARSE_BUDGET_FILES:
        notes.append(f"diff touches {len(patch)} files: only the first {PARSE_BUDGET_FILES} were checked")
        skipped = list(dict.fromkeys(skipped + [_path_of(p) for p in list(patch)[PARSE_BUDGET_FILES:]]))
    files = [_file(p) for p in list(patch)[:PARSE_BUDGET_FILES]]
    if not any(f.hunks or f.binary or f.status != "modified" or f.old_path for f in files) and "\n@@ " in text:
        raise DiffParseError(
            "the diff's '@@' hunks could not be read: check that each hunk follows its file's '---'/'+++' header lines"
        )
    return ParsedDiff(files, _identifiers(files), notes, skipped)


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


def _path_of(p: unidiff.PatchedFile) -> str:
    return (_strip(p.target_file) if not p.is_removed_file else _strip(p.source_file)) or p.path


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

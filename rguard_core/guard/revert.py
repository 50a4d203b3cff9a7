"""Exact and partial reverts, line by line: the diff takes out the lines a change put in and puts back the
lines it took out, in the same file (whitespace-normalised). No threshold on words or tokens: a revert of a
code change is caught whatever the decision's text says.

Only *telling* lines count: a line with a specific token (a name or a literal, not ``}`` or ``else:``).
Per hunk of the change, ``need`` is its telling added + removed lines and ``got`` those the diff reverses
(added lines the diff removes, removed lines it adds back). A block (a run of changed lines) is reverted when got >= HUNK_MIN of need.

  REV1  exact revert: over the files both touch, got >= FILE_MIN of need, and the reversed lines are at
        least COVER_MIN of the diff's telling changed lines in those files (the diff is mostly the revert)
  REV3  a line edit undone: the change edited line A into B; the diff edits B (or a later form of it,
        LINE_ALIKE alike) back into A (LINE_ALIKE alike, nearer A than B). Near-exact: the lines were retouched
  REV2  partial revert: blocks of the change reverted both ways (its lines taken out *and* the lines it
        replaced put back), and those lines are PARTIAL_COVER of the diff's telling changed lines
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache, partial

from .tokens import _IMPORT, ChangeSet, _blocks, code_lines, file_kind, is_specific, tokens

HUNK_MIN = 0.8
FILE_MIN = 0.7
COVER_MIN = 0.3
PARTIAL_COVER = 0.3
PARTIAL_MIN_LINES = 2
SEARCH_LINES = 12  # telling lines of the diff looked up in stored patches (candidates.reverted_rows)
SEARCH_MIN_CHARS = 12


@dataclass(frozen=True)
class HunkLines:
    removed: tuple[str, ...]  # telling lines, normalised
    added: tuple[str, ...]


@dataclass(frozen=True)
class RevertEvidence:
    """How much of a change the diff reverses, in the files both touch."""

    exact: bool  # REV1 (else REV2, partial)
    got: int  # telling lines of the change the diff reverses
    need: int  # telling lines of the change in the files the diff touches
    cover: float  # reversed lines / the diff's telling changed lines in those files
    hunks: int  # hunks of the change reverted
    paths: tuple[str, ...]


def norm(line: str) -> str:
    return " ".join(line.split())


def telling(line: str, path: str) -> bool:
    """A line that says something of its own: it holds a name or a literal (``}``, ``else:`` do not)."""
    if file_kind(path) == "prose":
        return len(norm(line)) >= 8
    return any(is_specific(t) for t in tokens(line))


@lru_cache(maxsize=4096)
def change_hunks(patch: str, path: str) -> tuple[HunkLines, ...]:
    """The telling removed and added lines of each block of changed lines (a run of -/+ lines) of a stored
    patch, comments and docstrings dropped: a partial revert puts back some blocks of a hunk."""
    from .diffparse import patch_hunks

    kind = file_kind(path)
    out = []
    for h in patch_hunks(patch):
        lines = h if kind == "prose" else code_lines(h, kind)
        for r, a in _blocks(lines):
            rem = tuple(norm(x) for x in r if telling(x, path))
            add = tuple(norm(x) for x in a if telling(x, path))
            if rem or add:
                out.append(HunkLines(rem, add))
    return tuple(out)


def revert_of(diff_sets: dict[str, ChangeSet], patches: dict[str, str]) -> RevertEvidence | None:
    """REV1 / REV2 evidence that the diff reverts (all or some hunks of) the change stored in ``patches``."""
    need = got = changed = 0
    rev_got = two_way = hunks = 0
    paths: list[str] = []
    seen: set[int] = set()
    moved = _moved(diff_sets)
    for path, cs in diff_sets.items():
        # product code only: tests, docs and support files (scratch, CI, tool configuration, manifests, lockfiles)
        # put back or taken out revert no decision about how the software behaves (a deleted test a change
        # added, a README link set back, requirement pins a release branch merged in)
        if path not in patches or id(cs) in seen or cs.test or cs.kind == "prose":
            continue
        seen.add(id(cs))
        d_rem, d_add = cs.once("rev.lines", partial(_telling_lines, cs, path))
        # consumed below; a line the diff moves to another file is neither taken out nor put back
        d_rem = Counter({x: n for x, n in d_rem.items() if x not in moved})
        d_add = Counter({x: n for x, n in d_add.items() if x not in moved})
        changed += sum(d_rem.values()) + sum(d_add.values())
        file_got = 0
        for h in change_hunks(patches[path], path):
            g_rem = _take(d_add, h.removed)
            # the change's lines taken out count only where their content leaves the file, not where the diff
            # writes it again: extended in place (nothing the change replaced is put back), or moved into a
            # helper the diff defines (the old line may come back around the call)
            reshaped = not g_rem or bool(cs.defined)
            g_add = _take_gone(d_rem, h.added, cs.added_tokens) if reshaped else _take(d_rem, h.added)
            n = len(h.added) + len(h.removed)
            need += n
            file_got += g_add + g_rem
            if n and (g_add + g_rem) >= HUNK_MIN * n:
                hunks += 1
                rev_got += g_add + g_rem
                # a block that only dropped `export` (a function expression's name) put back is no partial
                # revert of behaviour; the whole change put back is still REV1 above
                if h.added and h.removed and g_add and g_rem and not _cosmetic_block(h):
                    two_way += g_add + g_rem
        got += file_got
        if file_got:
            paths.append(path)
    if not got or not changed:
        return None
    if need and got >= FILE_MIN * need and got >= COVER_MIN * changed and got >= 1:
        return RevertEvidence(True, got, need, got / changed, hunks, tuple(paths))
    # a block the change only added, deleted again, is also what moving or dropping code looks like: a partial
    # revert needs blocks put back both ways (lines the change replaced restored, its lines taken out)
    if two_way >= PARTIAL_MIN_LINES and two_way >= PARTIAL_COVER * changed:
        return RevertEvidence(False, two_way, need, two_way / changed, hunks, tuple(paths))
    return None


def _moved(diff_sets: dict[str, ChangeSet]) -> frozenset[str]:
    """Lines the diff removes from one file and adds to another (code moved between files)."""
    sets = list({id(c): c for c in diff_sets.values()}.values())
    if len(sets) < 2:
        return frozenset()
    first = sets[0]
    return first.once("rev.moved", lambda: _moved_lines(sets))  # type: ignore[no-any-return]


def _moved_lines(sets: list[ChangeSet]) -> frozenset[str]:
    out: set[str] = set()
    for i, a in enumerate(sets):
        rem = {norm(x) for x in a.removed_lines}
        for j, b in enumerate(sets):
            if i != j:
                out |= rem & {norm(x) for x in b.added_lines}
    return frozenset(out)


def _telling_lines(cs: ChangeSet, path: str) -> tuple[Counter[str], Counter[str]]:
    return (
        Counter(norm(x) for x in cs.removed_lines if telling(x, path)),
        Counter(norm(x) for x in cs.added_lines if telling(x, path)),
    )


def _take(pool: Counter[str], lines: tuple[str, ...]) -> int:
    """How many of ``lines`` are in ``pool`` (each pool line used once); the pool is consumed."""
    n = 0
    for x in lines:
        if pool[x] > 0:
            pool[x] -= 1
            n += 1
    return n


KEPT_MIN = 0.8  # a line whose specific tokens the diff's added lines hold this share of is kept, not gone


def _take_gone(pool: Counter[str], lines: tuple[str, ...], written: frozenset[str]) -> int:
    """As ``_take``, for lines whose specific tokens the diff does not write again (``written``)."""
    n = 0
    for x in lines:
        if pool[x] <= 0:
            continue
        pool[x] -= 1
        own = [t for t in tokens(x) if is_specific(t)]
        if not own or sum(t in written for t in own) < KEPT_MIN * len(own):
            n += 1
    return n


def _searchable(line: str, path: str) -> bool:
    return len(line.strip()) >= SEARCH_MIN_CHARS and not _IMPORT.match(line) and telling(line, path)


def search_lines(diff_sets: dict[str, ChangeSet]) -> list[str]:
    """Patch fragments a change the diff reverts must contain: ``\\n+line`` for lines the diff removes (the
    change added them), ``\\n-line`` for lines it adds back. Long telling lines, spread over the files."""
    per_file: list[list[str]] = []
    seen: set[int] = set()
    for path, cs in diff_sets.items():
        if id(cs) in seen:
            continue
        seen.add(id(cs))
        # import lines are written by many changes (``from __future__ import annotations``): not telling here
        frags = [f"\n+{x}" for x in cs.removed_lines if _searchable(x, path)]
        frags += [f"\n-{x}" for x in cs.added_lines if _searchable(x, path)]
        frags = sorted(dict.fromkeys(frags), key=lambda s: -len(s.strip()))
        if frags:
            per_file.append(frags)
    out: list[str] = []
    i = 0
    while len(out) < SEARCH_LINES and any(i < len(f) for f in per_file):
        out += [f[i] for f in per_file if i < len(f)]
        i += 1
    return out[:SEARCH_LINES]


# --- REV3: one line edit of the decision undone, the lines since retouched (near-exact) ---------------------

LINE_ALIKE = 0.75  # a diff line this alike (token sequence) to a line of the decision's edit is that line
PAIR_CELLS = 400  # blocks with more rem x add pairs than this are not paired (bounded work)


@dataclass(frozen=True)
class LineUndo:
    """The decision edited ``before`` into ``after``; the diff edits (a later form of) ``after`` back."""

    before: str
    after: str
    diff_removed: str
    diff_added: str


@lru_cache(maxsize=4096)
def line_edits(patch: str, path: str) -> tuple[tuple[str, str], ...]:
    """(old line, new line) pairs the change edited (one line turned into a similar one), telling ones only."""
    from .decisive import _pair
    from .diffparse import patch_hunks

    kind = file_kind(path)
    if kind == "prose":
        return ()
    from .behaviour import logical

    out = []
    for h in patch_hunks(patch):
        # a statement a formatter spread over lines is one line here: its fragments (`body is not None` of an
        # `if (` ... `):`) are not lines an edit turned into others
        for rem, add in _blocks(logical(code_lines(h, kind))):
            if not rem or not add or len(rem) * len(add) > PAIR_CELLS:
                continue
            for j, i in _pair(rem, add).items():
                # an import line follows the code that uses it: a name dropped from one once unused undoes nothing
                # (flask's "Remove unused werkzeug data" took `Range` out again: blind round 13, wrong)
                if _IMPORT.match(rem[i]) or _IMPORT.match(add[j]):
                    continue
                if norm(rem[i]) != norm(add[j]) and telling(add[j], path) and not cosmetic_edit(rem[i], add[j]):
                    out.append((rem[i], add[j]))
    return tuple(out)


# Words that change how a declaration is seen, not what it does. zod's "Restore existing type inference behaviour"
# dropped `export` from two type aliases on the way; a later "Export stuff" put it back and was read as turning the
# edit back (blind round 9: wrong). A decision that is about visibility says so in its words (D1, X1 read those).
_MODIFIERS = re.compile(r"\b(?:export|declare|public|private|protected|readonly|override)\s+")
# A function expression's own name (`function toJSON() {` for `function() {`) names it in stack traces only.
_FUNCTION_NAME = re.compile(r"\bfunction\s*\*?\s*[A-Za-z_$][\w$]*\s*\(")
_ANONYMOUS = re.compile(r"\bfunction\s+\(")


def _cosmetic_block(h: HunkLines) -> bool:
    return len(h.removed) == len(h.added) and all(cosmetic_edit(r, a) for r, a in zip(h.removed, h.added, strict=True))


def cosmetic_edit(before: str, after: str) -> bool:
    """The edit only adds or drops declaration modifiers or a function expression's name: turning it back
    undoes no behaviour, so it is no line edit for REV3 (or T1)."""

    def bare(line: str) -> str:
        return norm(_ANONYMOUS.sub("function(", _FUNCTION_NAME.sub("function(", _MODIFIERS.sub("", line))))

    return bare(before) == bare(after)


def undone_edits(diff: ChangeSet, edits: tuple[tuple[str, str], ...], path: str) -> list[LineUndo]:
    """Line edits of the decision the diff turns back: it edits a line like the decision's new one into a
    line like its old one (each LINE_ALIKE alike, and nearer the old than the new)."""
    if not edits or diff.kind == "prose":
        return []
    spelled = _spelled_edits(edits)
    out: list[LineUndo] = []
    for r, a, r_text, a_text in diff.once("rev.pairs", lambda: _diff_pairs(diff)):
        for old, new, old_text, new_text in spelled:
            back, fro = _ratio(a, old), _ratio(r, new)
            if back >= LINE_ALIKE and fro >= LINE_ALIKE and back > _ratio(a, new) and fro > _ratio(r, old):
                if (
                    not _edit_taken_out(diff, old_text, new_text)
                    or not _old_put_back(a_text, old_text, new_text)
                    or _through_helper(diff, a_text, old_text)
                    or _writes_new_names(a_text, old_text, new_text, r_text)
                ):
                    continue
                out.append(LineUndo(old_text.strip(), new_text.strip(), r_text.strip(), a_text.strip()))
                break
    return out


def _edit_taken_out(diff: ChangeSet, before: str, after: str) -> bool:
    """What the decision's edit put in (its specific tokens) leaves the file: a line turned back whose new code
    the diff writes again nearby (``autoescape=select_autoescape()`` moved into a fallback, ``raise exc``
    into ``raise ... from exc``) is a reshaped line, not an undone edit. An edit that put in no specific token
    (punctuation, a keyword) is judged by the lines alone."""
    put_in = [t for t in Counter(tokens(after)) - Counter(tokens(before)) if is_specific(t)]
    # written again anywhere the diff adds (``autoescape=...`` into ``{"autoescape": ...}`` defaults) it stays
    written = diff.added_tokens
    return not put_in or any(
        diff.removed[t] > 0 and t not in written and f'"{t}"' not in written and f"'{t}'" not in written for t in put_in
    )


def _old_put_back(added: str, before: str, after: str) -> bool:
    """A line turned back writes again something the edit took out of it: axios's "check for XMLHttpRequest, not
    window" made ``typeof window`` into ``typeof XMLHttpRequest || typeof ActiveXObject``, and a diff that drops
    only the ActiveXObject half (``else if (typeof XMLHttpRequest ...``) keeps the choice: ``window`` does not come
    back. A part of a name counts (``round(...)`` back as ``round_money(...)``). An edit that took out no specific
    token (it only added an argument) is judged by the lines alone."""
    taken = [t for t in Counter(tokens(before)) - Counter(tokens(after)) if is_specific(t)]
    if not taken:
        return True
    written = set(tokens(added))
    parts = {w for t in written for w in _subwords(t)}
    return any(t in written or t.lower() in parts for t in taken)


def _subwords(tok: str) -> set[str]:
    """The words of a name, lowercased: ``round_money`` -> round, money; ``XMLHttpRequest`` -> xml, http, request."""
    return {w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", tok)}


def _writes_new_names(added: str, before: str, after: str, removed: str) -> bool:
    """The diff's line names what neither the decision's old line nor the line it replaces named: axios's fix gave
    Brotli its own ``createBrotliDecompress(brotliOptions)`` where the decision had written
    ``createUnzip(zlibOptions)``; alike by shape, but a new call, not the old one back (blind round 11: wrong).
    A name made of what the edit took out is the old one back in a new form (``round(...)`` as ``round_money(...)``)."""
    known = set(tokens(before)) | set(tokens(removed))
    taken = {w for t in Counter(tokens(before)) - Counter(tokens(after)) if is_specific(t) for w in _subwords(t)}
    return any(
        is_specific(t) and t not in known and not t[0].isdigit() and not (_subwords(t) & taken) for t in tokens(added)
    )


def _through_helper(diff: ChangeSet, added: str, before: str) -> bool:
    """The diff's line differs from the decision's old line by a call to a helper the diff defines
    (``realpath(...)`` became ``self._resolve(...)``): the code was extracted into that helper, not turned back."""
    return any(t in diff.defined for t in Counter(tokens(added)) - Counter(tokens(before)))


@lru_cache(maxsize=4096)
def _spelled_edits(edits: tuple[tuple[str, str], ...]) -> tuple[tuple[list[str], list[str], str, str], ...]:
    from .decisive import _spelled

    return tuple((_spelled(a), _spelled(b), a, b) for a, b in edits)


def _diff_pairs(diff: ChangeSet) -> list[tuple[list[str], list[str], str, str]]:
    """The diff's line edits (removed line, the added line it became), spelled for comparison."""
    from .decisive import _pair, _spelled

    out = []
    for rem, add in diff.blocks:
        if not rem or not add or len(rem) * len(add) > PAIR_CELLS:
            continue
        for j, i in _pair(rem, add).items():
            out.append((_spelled(rem[i]), _spelled(add[j]), rem[i], add[j]))
    return out


def _ratio(a: list[str], b: list[str]) -> float:
    from difflib import SequenceMatcher

    return SequenceMatcher(None, a, b, autojunk=False).ratio()

"""What the offline judge's detectors share: one decision against the diff (``Case``), what a rule found
(``Evidence``), a named rule (``JudgeRule``), and the parsed-once views of a decision's stored patches.

The registry and policy are in judge_offline.py; the detectors in judge_bag.py (token overlap), judge_lines.py
(reverts, decision lines, documents) and paraphrase.py (the decision's words against the diff's added code).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .decisive import DecisionLine, LineEdit, decision_lines, guarded_lines
from .diffparse import patch_hunks
from .model import DecisionInfo, FileDiff, Label
from .tokens import ChangeSet, bare, change_set, file_kind, is_specific, literal_body, tokens, weight

PATCH_CACHE = 4096


@dataclass
class Overlap:
    undo: Counter[str]  # scaled by repetition (see _shared)
    same: Counter[str]
    change_w: float
    role: str  # code | test | prose
    raw_undo: Counter[str]  # plain min-count overlap, for pinpoint edits
    code_w: float = 0.0  # change_w without import lines
    # the same, with uses the decision's change kept around (its context) and the file's vocabulary
    # (tokens most candidate changes to the file use) scaled down: what a contradiction is judged on
    undo_k: Counter[str] = field(default_factory=Counter)
    same_k: Counter[str] = field(default_factory=Counter)
    restored_w: float = 0.0  # put back what the decision took out
    taken_w: float = 0.0  # taken out what the decision put in
    novel_w: float = 0.0  # added, neither added nor removed by the decision

    @property
    def undo_w(self) -> float:
        return weigh(self.undo)

    @property
    def same_w(self) -> float:
        return weigh(self.same)


def diff_change_sets(files: list[FileDiff]) -> dict[str, ChangeSet]:
    """The diff's ChangeSet per path (and per old path on renames); a name renamed where it is bound counts
    as no change at its uses in other files either (a rename refactor), nor does code moved between files."""
    out: dict[str, ChangeSet] = {}
    for f in files:
        if f.binary or not f.hunks:
            continue
        cs = change_set([h.lines for h in f.hunks], f.path)
        cs.deleted = f.status == "removed"
        for p in f.paths:
            out[p] = cs
    for cs in {id(c): c for c in out.values()}.values():
        _drop_imported_definitions(cs)
    renames = diff_renames(out)
    for cs in {id(c): c for c in out.values()}.values():
        for old, new in renames.items():
            n = min(cs.removed[old], cs.added[new])
            if n:
                cs.removed[old] -= n
                cs.added[new] -= n
        cs.removed, cs.added = +cs.removed, +cs.added
    _cancel_moves(out)
    return out


_DEF = re.compile(r"^(?P<indent>\s*)(?:async\s+)?(?:def|class|function)\s+(?P<name>[\w$]+)\s*[(:<]")
_FROM_IMPORT = re.compile(r"^\s*from\s+[\w.]+\s+import\s+\(?(?P<names>[^)#]+)")
_JS_IMPORT = re.compile(r"^\s*import\s+(?:type\s+)?\{(?P<names>[^}]+)\}\s*from\b")


def _imported_names(lines: list[str]) -> set[str]:
    out: set[str] = set()
    for line in lines:
        m = _FROM_IMPORT.match(line) or _JS_IMPORT.match(line)
        if m:
            out |= {part.split()[-1] for part in m.group("names").split(",") if part.strip()}
    return out


def _drop_imported_definitions(cs: ChangeSet) -> None:
    """A function or class the diff deletes from a file while the file now imports that name from elsewhere (a
    copy of a helper replaced by the original: ``def _take(...)`` gone, ``from .revert import _take`` added) is
    a deduplication, not an undo: its lines count as moved. The hunks say where each body ends (the removed
    lines indented under the ``def``)."""
    if cs.test or cs.kind == "prose":
        return
    imported = _imported_names([x for _, add in cs.blocks for x in add]) - _imported_names(
        [x for rem, _ in cs.blocks for x in rem]
    )
    if not imported:
        return
    gone: list[str] = []
    for hunk in cs.hunks:  # the hunks as given keep their indentation, which says where a body ends
        i = 0
        while i < len(hunk):
            kind, text = hunk[i]
            m = _DEF.match(text) if kind == "-" else None
            if not m or m.group("name") not in imported:
                i += 1
                continue
            depth = len(m.group("indent").expandtabs())
            j = i + 1
            while j < len(hunk) and hunk[j][0] == "-":
                body = hunk[j][1]
                if body.strip() and len(body) - len(body.lstrip()) <= depth and not body.lstrip().startswith(")"):
                    break
                j += 1
            gone += [t.strip() for _, t in hunk[i:j]]
            i = j
    pool = Counter(x for x in gone if x)
    if not pool:
        return
    kept = []
    for x in cs.removed_lines:
        if pool[x] > 0:
            pool[x] -= 1
            for t in tokens(x):
                if cs.removed[t] > 0:
                    cs.removed[t] -= 1
                    cs.moved_w += weight(t)
        else:
            kept.append(x)
    cs.removed_lines = kept
    cs.removed = +cs.removed
    cs.memo.clear()


def _cancel_moves(sets: dict[str, ChangeSet]) -> None:
    """Code the diff takes out of one file and writes into another (extract a helper, move a constant or a
    function to another module) is moved, not changed: as within one file, it counts as no change. Tests
    and prose are left out: a test that spells a literal again does not make its removal a move. The moved
    weight stays in each file's ``code_w``: a move takes evidence away from a rule, it never makes what is
    left a bigger share of the diff (measured: shrinking the shares turned a refactor into a warning)."""
    files = [cs for cs in {id(c): c for c in sets.values()}.values() if not cs.test and cs.kind != "prose"]
    if len(files) < 2:
        return
    adders: dict[str, list[ChangeSet]] = {}  # token -> the files that add it (one pass, not files x tokens)
    for cs in files:
        for t in cs.added:
            adders.setdefault(t, []).append(cs)
    for giver in files:
        for token in [t for t in giver.removed if t in adders]:
            for taker in adders[token]:
                n = min(giver.removed[token], taker.added[token]) if taker is not giver else 0
                giver.removed[token] -= n
                taker.added[token] -= n
                giver.moved_w += weight(token) * n
                taker.moved_w += weight(token) * n
    for cs in files:
        cs.removed, cs.added = +cs.removed, +cs.added


@dataclass(frozen=True)
class Evidence:
    """What one rule found: its id, a score for the finding and a sentence saying why. ``share``: the weight
    of what it found over the whole diff's code change (None: the rule is not about a share of the diff);
    ``named``: the decision's own words name a token it found."""

    rule: str
    score: float
    why: str
    share: float | None = None
    named: bool = False
    decision_share: float | None = None  # what it found over the decision's own code change in these files
    literal: bool = False  # a literal or number is among what it found
    retune: bool = False  # only numbers the decision wrote, replaced by other numbers (S5)
    stricter: bool = False  # only patterns the decision wrote, replaced by patterns that accept less (S6)
    revert_share: float | None = None  # revert rules: the part of the decision's change the diff reverts


@dataclass
class Case:
    """One decision against the diff: what the detectors read (built once per decision by ``judge``)."""

    diff_sets: dict[str, ChangeSet]
    info: DecisionInfo
    overlaps: list[Overlap]
    remote: bool  # the decision's change is elsewhere (reached through an issue or symbol)
    edits: list[LineEdit]
    named: list[str]
    vocab: dict[str, Counter[str]]
    # the decision's lines in one of its files, parsed once per judge: (path, patch) -> line text -> line
    lines: Callable[[str, str], dict[str, DecisionLine]]
    total_w: float = 1.0  # the whole diff's code change (every code file, tests and prose aside)
    decision_w: float = 1.0  # the decision's code change in the files it was read for
    memo: dict[str, Any] = field(default_factory=dict)  # detectors' shared work (the bag, the decisive lines)

    def once(self, key: str, fn: Callable[[Case], Any]) -> Any:
        if key not in self.memo:
            self.memo[key] = fn(self)
        return self.memo[key]


Detector = Callable[[Case], "Evidence | None"]


@dataclass(frozen=True)
class JudgeRule:
    """A named rule: its id (what a finding carries), its name (kebab-case, as ``rguard rules`` lists it), its
    detector and what the policy makes of its evidence (the label it gives)."""

    id: str
    name: str
    label: Label
    what: str
    detect: Detector


# Stored patches do not change between runs: parse each once per process (read-only afterwards).
@lru_cache(maxsize=PATCH_CACHE)
def patch_set(patch: str, path: str) -> ChangeSet:
    return change_set(patch_hunks(patch), path)


@lru_cache(maxsize=PATCH_CACHE)
def patch_guards(patch: str, path: str) -> list[tuple[str, list[str]]]:
    return guarded_lines(patch_hunks(patch), path)


@lru_cache(maxsize=PATCH_CACHE)
def patch_lines(patch: str, path: str) -> dict[str, DecisionLine]:
    return decision_lines(patch_hunks(patch), path)


def share_of(case: Case, lines: list[str]) -> float:
    """The weight of ``lines`` over the whole diff's code change: how much of the diff a rule's finding is."""
    return sum(weight(t) for x in lines for t in tokens(x)) / case.total_w


def is_literal(tok: str) -> bool:
    return literal_body(tok) is not None or tok[0].isdigit()


def total_weight(diff_sets: dict[str, ChangeSet]) -> float:
    """The whole diff's code change: every code file once (tests and prose aside), import lines left out."""
    seen = {id(c): c for c in diff_sets.values()}
    return max(1.0, sum(c.code_w for c in seen.values() if not c.test and c.kind != "prose"))


def diff_renames(diff_sets: dict[str, ChangeSet]) -> dict[str, str]:
    """Names the diff renames where they are bound, in any file: call sites elsewhere follow the rename."""
    out: dict[str, str] = {}
    for cs in diff_sets.values():
        out.update(cs.renames)
    return out


def diff_keys(diff_sets: dict[str, ChangeSet]) -> list[tuple[str, bool]]:
    """The diff's changed code tokens a decision's words could name, once per diff: (bare key, reads as code),
    first occurrence order, each key once."""
    out: dict[str, bool] = {}
    for cs in {id(c): c for c in diff_sets.values()}.values():
        if cs.kind == "prose" or cs.test:
            continue
        for t in list(cs.removed) + list(cs.added):
            key = bare(t)
            if is_specific(t) and len(key) >= 3:
                out[key] = out.get(key, False) or code_like(t)
    return list(out.items())


_SEGMENT = re.compile(r"[\w/.-]+")
_KEY_CHARS = re.compile(r"^[\w/.-]+$")


@lru_cache(maxsize=4096)
def _named_keys(text: str) -> frozenset[str]:
    """Every key ``(?<![\\w/.-])key(?![\\w/-])`` finds in ``text`` that is made of ``[\\w/.-]`` only: a run of those
    characters cut at its end or before one of its dots (``hmac.compare_digest`` names ``hmac`` and itself)."""
    out: set[str] = set()
    for m in _SEGMENT.finditer(text):
        seg = m.group(0)
        out.add(seg)
        out.update(seg[:i] for i, c in enumerate(seg) if c == "." and i)
    return frozenset(out)


def _names(text: str, key: str) -> bool:
    if _KEY_CHARS.match(key):
        return key in _named_keys(text)
    return re.search(r"(?<![\w/.-])" + re.escape(key) + r"(?![\w/-])", text) is not None


def named_tokens(
    diff_sets: dict[str, ChangeSet], info: DecisionInfo, keys: list[tuple[str, bool]] | None = None
) -> list[str]:
    """Code tokens the diff changes that the decision's quote, summary or title names.

    Only what reads as code counts: text in backticks, literals, or identifiers with ``_``, digits or inner
    capitals; a plain English word (``session``) that happens to be an identifier does not. ``keys``: the diff's
    ``diff_keys``, when the caller judges many decisions against one diff.
    """
    text = " ".join((info.quote, info.summary, info.source_title))
    ticked = " ".join(re.findall(r"`([^`]+)`", text))
    return [
        key
        for key, code in (diff_keys(diff_sets) if keys is None else keys)
        if _names(ticked, key) or (code and _names(text, key))
    ]


def words_name(text: str, tok: str) -> bool:
    """Does the decision's text name this code token, also as a dotted part (``hmac.compare_digest``)?"""
    key = bare(tok)
    if not is_specific(tok) or len(key) < 3 or not code_like(tok):
        return False
    return re.search(r"(?<![\w/-])" + re.escape(key) + r"(?![\w/-])", text) is not None


def code_like(tok: str) -> bool:
    """A number, an identifier with ``_``/digits/inner capitals, or a literal holding such (``"a/b"``)."""
    if tok[0].isdigit():
        return True
    body = bare(tok)
    return any(c in "_/.-=:;+%" or c.isdigit() for c in body.strip("_")) or (
        any(c.isupper() for c in body[1:]) and (any(c.islower() for c in body) or len(body) >= 3)
    )


def kind_matches(path: str, cs: ChangeSet) -> bool:
    return file_kind(path) == cs.kind


def by_weight(c: Counter[str]) -> list[str]:
    return sorted(c, key=lambda t: (-weight(t), t))


def weigh(c: Counter[str]) -> float:
    return sum(weight(t) * n for t, n in c.items())


def listing(items: list[str], n: int = 5) -> str:
    shown = [f"`{x}`" for x in items[:n]]
    return ", ".join(shown) + (f" and {len(items) - n} more" if len(items) > n else "")

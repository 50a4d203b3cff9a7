"""The offline judge: deterministic, and it only labels what the graph returned.

For each file the diff shares with the decision's own change (its PR hunks, stored on TOUCHES), it
compares net token changes (tokens.ChangeSet):
  undo  the diff takes out what the decision's change put in, or puts back what it took out
  same  the diff moves the same way as the decision (redoing or extending it)
and, line by line (decisive.py), what the diff does to the lines the decision's change wrote.
It also checks whether the diff flips a literal or condition the decision's own words name
(None vs 0, ``is not None`` vs truthiness, null vs zero).

  contradicts  undo carries a literal or specific identifier, weighs >= UNDO_MIN, explains at least
               COVERAGE_MIN of the diff's change in those files and outweighs ``same`` (uses the decision
               left in place and the file's vocabulary count less); or the diff is a pinpoint reversal
               (>= PINPOINT_COVERAGE of its change) of a literal or a named token; or it rewrites the
               decision's own lines (a named token, DECISIVE_MIN over DECISIVE_COVERAGE of its change, or
               DECISIVE_PINPOINT of it); or a named literal/condition is flipped where code is replaced;
               or it withdraws an ADR the decision's change wrote, rewrites the decision's own words in a
               document, says the opposite of a decision line, or copies guarded code without its guard
  related      some overlap either way, or the decision's words name what the diff changes
  unrelated    nothing shared (comment-, docstring- and rename-only edits have no change at all)
A decision that no longer stands (reverted, superseded, ADR withdrawn) is at most ``related``.
The rules and why each exists: guard/README.md, "The offline judge".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .decisive import (
    DecisionLine,
    LineEdit,
    Negation,
    UnguardedCopy,
    decision_lines,
    decisive_edits,
    decisive_prose,
    guarded_lines,
    negations,
    quote_words,
    status_change,
    unguarded_copies,
)
from .diffparse import patch_hunks
from .model import DecisionInfo, FileDiff, Judgement, Label
from .paraphrase import allowed_names, eager_imports, lazy_modules, rejections
from .revert import LineUndo, line_edits, revert_of, undone_edits
from .tokens import ChangeSet, bare, change_set, is_specific, literal_body, tokens, weight

UNDO_MIN = 2.0
PATCH_CACHE = 4096
VOCAB_MIN = 3  # a token in this many candidate changes to one file is that file's vocabulary
COVERAGE_MIN = 0.3
NOVEL_MAX = 0.6  # U1: new code the diff writes in place of the decision's, at most this much of what it takes out
PINPOINT_COVERAGE = 0.75
SCALE_POWER = 1.0  # 1: full min/max scaling (0.5 and 0.7 still flagged boilerplate removals)
REMOTE_UNDO_MIN = 3.0  # a decision reached only through an issue or symbol: its change is elsewhere
REMOTE_DISCOUNT = 0.8
PROSE_UNDO_MIN = 3.0
RELATED_MIN = 2.0
TEST_UNDO_MIN = 4.0
DECISIVE_MIN = 2.0  # weight of decision tokens a rewrite takes out or puts back at the decision's cuts
DECISIVE_COVERAGE = 0.1
DECISIVE_PINPOINT = 0.5  # a small edit that is mostly a rewrite of decision lines
PROSE_QUOTE_MIN = 3  # distinct quote words taken out of the decision's own prose lines
FLIP_MAX_CHANGE = 12.0  # a flip is a small, targeted edit
FLIP_GROUPS: dict[str, frozenset[str]] = {
    "none": frozenset({"None", "null", "nil", "undefined", "NULL", "nullptr"}),
    "null": frozenset({"None", "null", "nil", "undefined", "NULL", "nullptr"}),
    "nil": frozenset({"None", "null", "nil"}),
    "zero": frozenset({"0"}),
    "0": frozenset({"0"}),
    "truthiness": frozenset({"is", "not", "None", "null", "!=", "==", "!==", "==="}),
    "truthy": frozenset({"is", "not", "None", "null", "!=", "==", "!==", "==="}),
    "falsy": frozenset({"is", "not", "None", "null", "!=", "==", "!==", "==="}),
    "empty": frozenset({'""', "''"}),
}


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
        return _w(self.undo)

    @property
    def same_w(self) -> float:
        return _w(self.same)


def diff_change_sets(files: list[FileDiff]) -> dict[str, ChangeSet]:
    """The diff's ChangeSet per path (and per old path on renames); a name renamed where it is bound counts
    as no change at its uses in other files either (a rename refactor)."""
    out: dict[str, ChangeSet] = {}
    for f in files:
        if f.binary or not f.hunks:
            continue
        cs = change_set([h.lines for h in f.hunks], f.path)
        for p in f.paths:
            out[p] = cs
    renames = _renames(out)
    for cs in {id(c): c for c in out.values()}.values():
        for old, new in renames.items():
            n = min(cs.removed[old], cs.added[new])
            if n:
                cs.removed[old] -= n
                cs.added[new] -= n
        cs.removed, cs.added = +cs.removed, +cs.added
    return out


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
    judge: OfflineJudge
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
    """A named rule: its detector and what the policy makes of its evidence (the label it gives)."""

    id: str
    label: Label
    what: str
    detect: Detector


class OfflineJudge:
    """Deterministic labels: every rule of ``RULES`` runs, ``POLICY`` turns what fired into a label."""

    name = "offline"

    def __init__(self) -> None:
        self._pr_sets: dict[tuple[str, str], ChangeSet] = {}
        self._pr_lines: dict[tuple[str, str], dict[str, DecisionLine]] = {}
        self._vocab: dict[str, Counter[str]] = {}  # path -> in how many candidates' changes each token occurs
        self._writers: dict[str, dict[str, set[int]]] = {}  # path -> added line -> candidate changes adding it
        self._total: tuple[dict[str, ChangeSet], float] | None = None  # the diff's whole code change, once

    def prepare(self, infos: list[DecisionInfo]) -> None:
        """Count, per file, how many of the candidate decisions' changes use each token (their context too):
        a token most changes to a file use is that file's vocabulary, not one decision's intent."""
        seen: set[tuple[str, int]] = set()
        for info in infos:
            for path, patch in info.patches.items():
                if (path, hash(patch)) in seen:
                    continue  # an ADR's decision and its PR's decision share one change
                seen.add((path, hash(patch)))
                pr = self._pr_set(info.source_id, path, patch)
                self._vocab.setdefault(path, Counter()).update(set(pr.removed) | set(pr.added) | set(pr.context))
                writers = self._writers.setdefault(path, {})
                for key in self._lines(info.source_id, path, patch):
                    writers.setdefault(key, set()).add(hash(patch))

    def judge(self, diff_sets: dict[str, ChangeSet], info: DecisionInfo, standing: bool) -> Judgement:
        local = self._overlaps(diff_sets, info, same_path=True)
        remote = False
        if not local and info.patches:
            local, remote = self._overlaps(diff_sets, info, same_path=False), True
        edits = [] if remote else self._edits(diff_sets, info)
        if self._total is None or self._total[0] is not diff_sets:
            self._total = (diff_sets, _total_w(diff_sets))
        case = Case(
            diff_sets,
            info,
            local,
            remote,
            edits,
            _named(diff_sets, info),
            self._vocab,
            self,
            total_w=self._total[1],
            decision_w=self._decision_w(info),
        )
        found = [e for r in RULES if (e := r.detect(case)) is not None]
        return policy(found, standing)

    def _decision_w(self, info: DecisionInfo) -> float:
        sets = [self._pr_set(info.source_id, p, x) for p, x in info.patches.items()]
        return max(1.0, sum(c.code_w for c in sets if not c.test and c.kind != "prose"))

    def _overlaps(self, diff_sets: dict[str, ChangeSet], info: DecisionInfo, same_path: bool) -> list[Overlap]:
        out = []
        seen: set[int] = set()
        for path, cs in diff_sets.items():
            if id(cs) in seen or cs.empty:
                continue
            pairs = [(path, info.patches[path])] if same_path and path in info.patches else []
            if not same_path:
                pairs = [(p, x) for p, x in info.patches.items() if _kind_matches(p, cs)]
            for p, patch in pairs:
                pr = self._pr_set(info.source_id, p, patch)
                out.append(_overlap(cs, pr, self._vocab.get(p)))
            if pairs:
                seen.add(id(cs))
        return out

    def _edits(self, diff_sets: dict[str, ChangeSet], info: DecisionInfo) -> list[LineEdit]:
        """The diff's edits to code lines the decision's change added (test files aside)."""
        out: list[LineEdit] = []
        for path, cs in diff_sets.items():
            if path not in info.patches or cs.test or cs.kind == "prose":
                continue
            mine = hash(info.patches[path])
            theirs = {k for k, w in self._writers.get(path, {}).items() if w - {mine}}
            lines = self._lines(info.source_id, path, info.patches[path])
            for e in decisive_edits(cs, lines, _renames(diff_sets), theirs):
                e.path = path
                out.append(e)
        return out

    def _negations(self, diff_sets: dict[str, ChangeSet], info: DecisionInfo) -> list[Negation]:
        """Lines the diff adds, in any file, that say the opposite of a line the decision's change wrote in a
        file of the same kind (a new migration granting what the decision's migration revoked)."""
        out: list[Negation] = []
        for cs in {id(c): c for c in diff_sets.values()}.values():
            for p, patch in info.patches.items():
                if _kind_matches(p, cs):
                    out += negations(cs, self._lines(info.source_id, p, patch))
        return out

    def _unguarded(self, diff_sets: dict[str, ChangeSet], info: DecisionInfo) -> list[UnguardedCopy]:
        """Code a guard the decision added protects, written again in the same file without the guard."""
        out: list[UnguardedCopy] = []
        for path, cs in diff_sets.items():
            if path in info.patches:
                out += unguarded_copies(cs, _patch_guards(info.patches[path], path))
        return out

    def _lines(self, source_id: str, path: str, patch: str) -> dict[str, DecisionLine]:
        key = (source_id, path)
        if key not in self._pr_lines:
            self._pr_lines[key] = _patch_lines(patch, path)
        return self._pr_lines[key]

    def _prose(self, diff_sets: dict[str, ChangeSet], info: DecisionInfo) -> list[str]:
        """The decision's quote words the diff takes out of prose its change wrote."""
        words = quote_words(info.quote)
        out: list[str] = []
        for path, cs in diff_sets.items():
            if path in info.patches and cs.kind == "prose":
                out += [w for w in decisive_prose(cs, patch_hunks(info.patches[path]), words) if w not in out]
        return out

    def _pr_set(self, source_id: str, path: str, patch: str) -> ChangeSet:
        key = (source_id, path)
        if key not in self._pr_sets:
            self._pr_sets[key] = _patch_set(patch, path)
        return self._pr_sets[key]


# Stored patches do not change between runs: parse each once per process (read-only afterwards).
@lru_cache(maxsize=PATCH_CACHE)
def _patch_set(patch: str, path: str) -> ChangeSet:
    return change_set(patch_hunks(patch), path)


@lru_cache(maxsize=PATCH_CACHE)
def _patch_guards(patch: str, path: str) -> list[tuple[str, list[str]]]:
    return guarded_lines(patch_hunks(patch), path)


@lru_cache(maxsize=PATCH_CACHE)
def _patch_lines(patch: str, path: str) -> dict[str, DecisionLine]:
    return decision_lines(patch_hunks(patch), path)


@lru_cache(maxsize=PATCH_CACHE)
def _lazy(patch: str, words: str) -> frozenset[str]:
    return frozenset(lazy_modules(patch_hunks(patch), words))


def _is_literal(tok: str) -> bool:
    return literal_body(tok) is not None or tok[0].isdigit()


def _total_w(diff_sets: dict[str, ChangeSet]) -> float:
    """The whole diff's code change: every code file once (tests and prose aside), import lines left out."""
    seen = {id(c): c for c in diff_sets.values()}
    return max(1.0, sum(c.code_w for c in seen.values() if not c.test and c.kind != "prose"))


def _renames(diff_sets: dict[str, ChangeSet]) -> dict[str, str]:
    """Names the diff renames where they are bound, in any file: call sites elsewhere follow the rename."""
    out: dict[str, str] = {}
    for cs in diff_sets.values():
        out.update(cs.renames)
    return out


def _overlap(d: ChangeSet, pr: ChangeSet, vocab: Counter[str] | None = None) -> Overlap:
    undo = _shared(d.removed, pr.added) + _shared(d.added, pr.removed)
    same = _shared(d.added, pr.added) + _shared(d.removed, pr.removed)
    # what the decision changed while the same token stays in use around it was one use among several
    undo_k = _shared(d.removed, pr.added, pr.context) + _shared(d.added, pr.removed, pr.context)
    same_k = same
    if vocab:
        undo_k, same_k = _rare(undo_k, vocab), _rare(same, vocab)
    raw = (d.removed & pr.added) + (d.added & pr.removed)
    role = "prose" if d.kind == "prose" else "test" if d.test else "code"
    novel = _w(Counter({t: n for t, n in d.added.items() if t not in pr.removed and t not in pr.added}))
    return Overlap(
        undo,
        same,
        _w(d.removed) + _w(d.added),
        role,
        raw,
        d.code_w,
        undo_k,
        same_k,
        _w(_shared(d.added, pr.removed)),
        _w(_shared(d.removed, pr.added)),
        novel,
    )


def _rare(c: Counter[str], vocab: Counter[str]) -> Counter[str]:
    """Scale down the file's vocabulary: a token used by n > VOCAB_MIN - 1 candidate changes counts (VOCAB_MIN-1)/n."""
    out: Counter[str] = Counter()  # fractional counts, as in _shared
    for t, n in c.items():
        df = vocab.get(t, 0)
        out[t] = n * min(1.0, (VOCAB_MIN - 1) / df) if df else n  # type: ignore[assignment]  # fractional
    return out


def _shared(a: Counter[str], b: Counter[str], kept: Counter[str] | None = None) -> Counter[str]:
    """Tokens in both, counted min(a, b) scaled by min/max: taking out one of the five ``_conn`` uses a
    rewrite put in is a fifth of the evidence of taking out its only one (boilerplate is not intent).
    ``kept``: uses of the token the decision's change left in place (its context lines) count into max."""
    out: Counter[str] = Counter()
    for t, n in a.items():
        m = b.get(t, 0)
        if m:
            k = kept[t] if kept else 0
            out[t] = min(n, m) * (min(n, m) / (max(n, m) + k)) ** SCALE_POWER
    return out


@dataclass(frozen=True)
class Bag:
    """Token overlap of the diff with the decision's change (code files), summed over files."""

    undo: Counter[str]
    same: Counter[str]
    kept_w: float  # undo with kept uses and file vocabulary scaled down (B1, B2)
    kept_same_w: float
    coverage: float  # kept_w / the diff's change in those files
    raw: Counter[str]  # plain min-count reversal, for pinpoint edits
    raw_cov: float
    change_w: float
    code_w: float
    specific: tuple[str, ...]
    raw_specific: tuple[str, ...]
    restored_w: float = 0.0  # what the diff puts back that the decision took out
    taken_w: float = 0.0  # what the diff takes out that the decision put in
    novel_w: float = 0.0  # what the diff adds that the decision's change neither added nor removed


def _bag(case: Case) -> Bag:
    return case.once("bag", _bag_of)  # type: ignore[no-any-return]


def _bag_of(case: Case) -> Bag:
    code = [o for o in case.overlaps if o.role == "code"]
    undo = sum((o.undo for o in code), Counter())
    same = sum((o.same for o in code), Counter())
    undo_k = sum((o.undo_k for o in code), Counter())
    kept_w, kept_same_w = _w(undo_k), _w(sum((o.same_k for o in code), Counter()))
    change_w = sum(o.change_w for o in code) or 1.0
    raw = sum((o.raw_undo for o in code), Counter())
    return Bag(
        undo,
        same,
        kept_w,
        kept_same_w,
        kept_w / change_w,
        raw,
        _w(raw) / change_w,
        change_w,
        sum(o.code_w for o in code) or 1.0,
        tuple(t for t in _by_weight(undo_k) if is_specific(t)),
        tuple(t for t in _by_weight(raw) if is_specific(t)),
        sum(o.restored_w for o in code),
        sum(o.taken_w for o in code),
        sum(o.novel_w for o in code),
    )


def _bag_score(case: Case, cov: float, w: float) -> float:
    score = 0.5 + 0.4 * min(1.0, cov) * min(1.0, w / 6) + (0.1 if case.named else 0.0)
    return min(1.0, score * (REMOTE_DISCOUNT if case.remote else 1.0))


def _where(case: Case) -> str:
    return "elsewhere in the decision's change" if case.remote else "in the same file"


def rev(case: Case) -> Evidence | None:
    """REV1/REV2: the diff puts the decision's lines back the way they were (revert.py)."""
    return case.once("rev", _rev)  # type: ignore[no-any-return]


def _rev(case: Case) -> Evidence | None:
    if case.remote:
        return None
    ev = revert_of(case.diff_sets, case.info.patches)
    if ev is None:
        return None
    what = "reverts" if ev.exact else "partly reverts"
    return Evidence(
        "REV1" if ev.exact else "REV2",
        1.0 if ev.exact else 0.9,
        f"the diff {what} the decision's own change: {ev.got} of its {ev.need} changed lines "
        f"put back as they were ({ev.hunks} hunk(s) in {', '.join(ev.paths)})",
    )


def rev1(case: Case) -> Evidence | None:
    e = rev(case)
    return e if e is not None and e.rule == "REV1" else None


def rev2(case: Case) -> Evidence | None:
    e = rev(case)
    return e if e is not None and e.rule == "REV2" else None


def rev3(case: Case) -> Evidence | None:
    """REV3: a line the decision edited, edited back (near-exact: the lines may have been retouched since)."""
    if case.remote:
        return None
    found: list[LineUndo] = []
    for path, cs in case.diff_sets.items():
        if path in case.info.patches and not cs.test:
            found += undone_edits(cs, line_edits(case.info.patches[path], path), path)
    if not found:
        return None
    u = found[0]
    w = sum(weight(t) for x in found for t in tokens(x.diff_removed) + tokens(x.diff_added)) / 2
    return Evidence(
        "REV3",
        0.85,
        f"the diff turns back {len(found)} line edit(s) of the decision: `{u.after}` was "
        f"`{u.before}`, and the diff writes `{u.diff_added}` again",
        w / case.total_w,
    )


def u1_broad(case: Case) -> Evidence | None:
    """U1: the diff's net change is largely the decision's change undone (a literal or specific name)."""
    b = _bag(case)
    need = REMOTE_UNDO_MIN if case.remote else UNDO_MIN
    if not (b.specific and b.kept_w >= need and b.coverage >= COVERAGE_MIN and b.kept_w >= b.kept_same_w):
        return None
    # an undo puts back what the decision took out, or takes its code out without writing much new code in
    # its place; taking the decision's code out for new code of one's own is a rewrite (related at most)
    if not b.restored_w and b.novel_w > NOVEL_MAX * b.taken_w:
        return None
    return Evidence(
        "U1",
        _bag_score(case, b.coverage, b.kept_w),
        f"the diff undoes the decision's own change {_where(case)}: {_list(list(b.specific))} "
        f"({b.coverage:.0%} of the diff's change)",
        b.kept_w / case.total_w,
        bool(case.named),
        b.kept_w / case.decision_w,
        any(_is_literal(t) for t in b.specific),
    )


def u2_pinpoint(case: Case) -> Evidence | None:
    """U2: a small edit that is almost all reversal: a literal, a token its words name, or weight >= UNDO_MIN."""
    if case.remote:
        return None
    b = _bag(case)
    if not (
        b.raw_cov >= PINPOINT_COVERAGE
        and _w(b.raw) >= _w(b.same)
        and (
            sum(weight(t) * b.raw[t] for t in b.raw_specific) >= UNDO_MIN
            or any(literal_body(t) is not None or t[0].isdigit() or bare(t) in case.named for t in b.raw_specific)
        )
    ):
        return None
    return Evidence(
        "U2",
        _bag_score(case, b.raw_cov, max(b.kept_w, _w(b.raw))),
        f"the diff undoes the decision's own change {_where(case)}: "
        f"{_list(list(b.specific or b.raw_specific))} ({b.raw_cov:.0%} of the diff's change)",
        _w(b.raw) / case.total_w,
        bool(case.named),
        _w(b.raw) / case.decision_w,
        any(_is_literal(t) for t in b.raw_specific),
    )


def decisive(case: Case) -> Evidence | None:
    """D1-D4: the diff rewrites the decision's own lines (decisive.py); the id says what carried it."""
    return case.once("decisive", _decisive)  # type: ignore[no-any-return]


def _decisive(case: Case) -> Evidence | None:
    edits, vocab = case.edits, case.vocab
    toks = [t for e in edits for t in e.tokens]
    if not toks or not any(is_specific(t) for t in toks):
        return None
    info = case.info
    info_text = " ".join((info.quote, info.summary, info.source_title))
    # a guard the decision wrote (raise, return, ...) that is gone counts as much as a broad rewrite;
    # the file's vocabulary counts less, as in the token overlap
    w = sum(
        max(_w(_rare(Counter(e.tokens), vocab.get(e.path, Counter()))), DECISIVE_MIN if e.exit_removed else 0.0)
        for e in edits
    )
    hit = list(dict.fromkeys(bare(t) for t in toks if bare(t) in case.named or _names(info_text, t)))
    cov = w / max(_bag(case).code_w, 1.0)
    if not (hit or (w >= DECISIVE_MIN and cov >= DECISIVE_COVERAGE) or cov >= DECISIVE_PINPOINT):
        return None
    score = 0.5 + 0.4 * min(1.0, cov) * min(1.0, w / 6) + (0.1 if hit else 0.0)
    taken = list(dict.fromkeys(t for e in edits for t in e.taken if is_specific(t)))
    back = list(dict.fromkeys(t for e in edits for t in e.put_back if is_specific(t)))
    into = list(dict.fromkeys(t for e in edits for t in e.inserted if weight(t) > 0))
    what = "; ".join(
        x
        for x in (
            f"takes out {_list(taken)}" if taken else "",
            f"puts {_list(back)} where the decision cut code" if back else "",
            f"adds {_list(into)} to a condition the decision wrote" if into else "",
        )
        if x
    )
    rule = "D4" if any(e.exit_removed for e in edits) else "D2" if back else "D1" if taken else "D3"
    took = [t for e in edits for t in e.taken if is_specific(t)]
    put = [t for e in edits for t in e.replaced_by + e.inserted if is_specific(t)]
    # numbers only (a query or a key format in a string is behaviour, B3), on lines where the decision itself
    # changed an older value: a setting retuned again. A value the decision introduced stays its own (D1)
    retune = (
        rule == "D1"
        and not hit
        and bool(took)
        and bool(put)
        and all(t[0].isdigit() for t in took + put)
        and all(e.edited_line for e in edits if e.taken)
    )  # the decision itself retuned those numbers
    return Evidence(
        rule,
        min(score, 1.0),
        f"the diff rewrites {len(edits)} line(s) the decision's change wrote: {what} ({cov:.0%} of the diff's change)",
        w / case.total_w,
        bool(hit),
        w / case.decision_w,
        any(_is_literal(t) for t in taken + back),
        retune,
    )


def _only(rule: str) -> Detector:
    def detect(case: Case) -> Evidence | None:
        e = decisive(case)
        return e if e is not None and e.rule == rule else None

    return detect


def f1_flip(case: Case) -> Evidence | None:
    """F1: a literal or condition the decision's words name (None, zero, truthiness) flipped where code is replaced."""
    flip = _flip(case.diff_sets, case.info, any(o.role == "code" for o in case.overlaps) and not case.remote)
    if not flip:
        return None
    return Evidence("F1", 0.6, f"the diff flips {_list(flip)}, which the decision's own words name")


def a1_withdrawn(case: Case) -> Evidence | None:
    """A1: a document the decision's change wrote (an ADR) whose ``Status:`` moves away from accepted."""
    if case.remote:
        return None
    for path, cs in case.diff_sets.items():
        change = status_change(cs) if path in case.info.patches else None
        if change:
            return Evidence("A1", 0.7, f"the diff changes the status of {path} from {change[0]} to {change[1]}")
    return None


def a2_text(case: Case) -> Evidence | None:
    """A2: a document edit that takes the decision's own words out of the text its change wrote."""
    if case.remote:
        return None
    words = case.judge._prose(case.diff_sets, case.info)
    if len(words) < PROSE_QUOTE_MIN:
        return None
    return Evidence(
        "A2",
        0.5 + 0.05 * min(len(words), 8),
        f"the diff rewrites the text that states the decision, taking out {_list(words)}",
    )


def n1_negated(case: Case) -> Evidence | None:
    found = case.judge._negations(case.diff_sets, case.info)
    if not found:
        return None
    n = found[0]
    pairs = ", ".join(f"`{a}` -> `{b}`" for a, b in n.swapped[:3])
    share = sum(weight(t) for t in tokens(n.added)) / case.total_w
    return Evidence(
        "N1", 0.65, f"the diff adds `{n.added.strip()}`, the opposite ({pairs}) of `{n.decision_line}`", share
    )


def g1_unguarded(case: Case) -> Evidence | None:
    if case.remote:
        return None
    found = case.judge._unguarded(case.diff_sets, case.info)
    if not found:
        return None
    u = found[0]
    share = sum(weight(t) for x in u.copied for t in tokens(x)) / case.total_w
    return Evidence(
        "G1",
        0.6,
        f"the diff writes {_list(u.copied, 3)} again without the guard the decision put before them (`{u.guard}`)",
        share,
    )


def e1_eager(case: Case) -> Evidence | None:
    """E1: an import the decision made lazy (moved into a function) imported at module level again."""
    if case.remote:
        return None
    for path, cs in case.diff_sets.items():
        if path in case.info.patches and not cs.test and cs.kind != "prose":
            words = " ".join((case.info.quote, case.info.summary, case.info.source_title))
            found = eager_imports(cs, _lazy(case.info.patches[path], words))
            if found:
                return Evidence(
                    "E1",
                    0.6,
                    f"the diff imports `{found[0].module}` at module level again "
                    f"(`{found[0].line}`); the decision's change made that import lazy",
                )
    return None


def c1_rejected(case: Case) -> Evidence | None:
    """C1: what the decision's words allow (``accept `str` values``), the diff now rejects (check + raise)."""
    if case.remote:
        return None
    names = allowed_names(" ".join((case.info.quote, case.info.summary, case.info.source_title)))
    for path, cs in case.diff_sets.items():
        if path in case.info.patches and not cs.test and cs.kind != "prose":
            found = rejections(cs, names)
            if found:
                r = found[0]
                share = sum(weight(t) for t in tokens(r.check) + tokens(r.words)) / case.total_w
                return Evidence(
                    "C1",
                    0.6,
                    f"the decision allows `{r.name}`; the diff rejects it (`{r.check}` then `{r.words}`)",
                    share,
                    True,
                )
    return None


def l1_overlap(case: Case) -> Evidence | None:
    """L1: some overlap either way with the decision's change, or the decision's words name what changes."""
    b = _bag(case)
    shared = [t for t in b.undo + b.same if is_specific(t)]
    undo_w, same_w = _w(b.undo), _w(b.same)
    if not ((shared and undo_w + same_w >= RELATED_MIN) or case.named):
        return None
    parts = []
    if b.undo:
        parts.append(f"partly undoes {_list(_by_weight(b.undo))}")
    if b.same:
        parts.append(f"changes the same code ({_list(_by_weight(b.same))})")
    if case.named:
        parts.append(f"changes what the decision names: {_list(case.named)}")
    return Evidence(
        "L1", 0.2 + 0.25 * min(1.0, (undo_w + same_w) / 6) + (0.05 if case.named else 0.0), "; ".join(parts)
    )


def l2_tests(case: Case) -> Evidence | None:
    tests = [o for o in case.overlaps if o.role == "test"]
    test_undo = sum((o.undo for o in tests), Counter())
    test_change = sum(o.change_w for o in tests) or 1.0
    if _w(test_undo) >= TEST_UNDO_MIN and _w(test_undo) / test_change >= 0.5:
        return Evidence("L2", 0.3, f"the diff undoes test code the decision added: {_list(_by_weight(test_undo))}")
    return None


def l3_prose(case: Case) -> Evidence | None:
    prose = [o for o in case.overlaps if o.role == "prose"]
    prose_undo = sum((o.undo for o in prose), Counter())
    prose_change = sum(o.change_w for o in prose) or 1.0
    if _w(prose_undo) >= PROSE_UNDO_MIN and _w(prose_undo) / prose_change >= 0.5:
        return Evidence("L3", 0.25, f"the diff removes text the decision added: {_list(_by_weight(prose_undo))}")
    return None


# The registry: every offline rule, in the order reasons are shown. guard/README.md lists each with its reason
# (tests/test_docs.py checks the table names every id here).
RULES: tuple[JudgeRule, ...] = (
    JudgeRule("REV1", "contradicts", "exact revert of the decision's change (line by line)", rev1),
    JudgeRule("REV2", "contradicts", "partial revert: hunks of the decision's change put back", rev2),
    JudgeRule("REV3", "contradicts", "a line edit of the decision turned back (lines since retouched)", rev3),
    JudgeRule("U1", "contradicts", "broad undo: most of the diff's net tokens reverse the change", u1_broad),
    JudgeRule("U2", "contradicts", "pinpoint undo: a small edit that is almost all reversal", u2_pinpoint),
    JudgeRule("D1", "contradicts", "decision-own tokens taken out of its lines", _only("D1")),
    JudgeRule("D2", "contradicts", "tokens put back where the decision cut code", _only("D2")),
    JudgeRule("D3", "contradicts", "a decision line's condition reshaped", _only("D3")),
    JudgeRule("D4", "contradicts", "a guard (raise/return/...) the decision wrote removed", _only("D4")),
    JudgeRule("F1", "contradicts", "a literal or condition the decision's words name flipped", f1_flip),
    JudgeRule("N1", "contradicts", "a new line saying the opposite of a decision line", n1_negated),
    JudgeRule("G1", "contradicts", "guarded code written again without the guard", g1_unguarded),
    JudgeRule("A1", "contradicts", "the ADR's status withdrawn", a1_withdrawn),
    JudgeRule("A2", "contradicts", "the decision's own words taken out of its document", a2_text),
    JudgeRule("E1", "contradicts", "an import the decision made lazy imported at module level again", e1_eager),
    JudgeRule("C1", "contradicts", "what the decision's words allow, the diff rejects", c1_rejected),
    JudgeRule("L1", "related", "overlap with the decision's change, or its words name what changes", l1_overlap),
    JudgeRule("L2", "related", "test code the decision added undone", l2_tests),
    JudgeRule("L3", "related", "text the decision added removed", l3_prose),
)
POLICY: dict[str, Label] = {r.id: r.label for r in RULES}
# Rules about a share of the diff warn only when what they found is a real part of the whole diff: a large
# change that rewrites a few decision lines among much else is an edit of that code (related), not its undo.
# Exact and partial reverts (REV1/REV2), flips, ADR and document rules carry no share and are never demoted.
FOCUS_MIN = 0.15
FOCUS_NAMED = 0.1  # the decision's own words name what the diff changes
FOCUS_RULE = "S3"  # S4 (decision share) is reported under the same id's sentence
RETUNE_RULE = "S5"
# ...and of the decision: a few lines of a change that rewrote a whole module are not what it decided
DECISION_SHARE_MIN = 0.05
STANDING_RULE = "S1"  # a decision that no longer stands is at most related
NOT_STANDING_MAX = 0.45
RELATED_MAX = 0.45


def focused(e: Evidence) -> bool:
    """A real part of the diff (S3), and a real part of what the decision's change did (S4) unless the diff
    is nearly all that one literal put back or taken out (a pinpoint edit of a value the decision set); and
    not a value the decision set tuned to another one its words do not name (S5)."""
    if e.retune:
        return False
    pinpoint = e.literal and e.share is not None and e.share >= PINPOINT_COVERAGE
    return (e.share is None or e.share >= (FOCUS_NAMED if e.named else FOCUS_MIN)) and (
        e.decision_share is None or e.decision_share >= DECISION_SHARE_MIN or pinpoint
    )


def policy(found: list[Evidence], standing: bool) -> Judgement:
    """The label from what fired: contradicts if a contradicting rule fired on a focused part of the diff, else
    related (also for contradicting evidence on a small share of a large diff), else unrelated."""
    contra = [e for e in found if POLICY[e.rule] == "contradicts" and focused(e)]
    unfocused = [e for e in found if POLICY[e.rule] == "contradicts" and not focused(e)]
    related = [e for e in found if POLICY[e.rule] == "related"]
    if contra:
        best = max(contra, key=lambda e: e.score)
        rules = tuple((e.rule, e.why) for e in contra)
        reason = "; ".join(dict.fromkeys(e.why for e in contra))
        if not standing:
            why = "the decision no longer stands (reverted, superseded or withdrawn), so it is not warned on"
            return Judgement(
                "related",
                round(min(best.score, NOT_STANDING_MAX), 4),
                f"{reason}; {why}",
                (*rules, (STANDING_RULE, why)),
            )
        return Judgement("contradicts", round(best.score, 4), reason, rules)
    if unfocused:
        share = max(e.share or 0.0 for e in unfocused)
        dshare = max(e.decision_share or 0.0 for e in unfocused)
        why = (
            f"an edit of code the decision wrote ({share:.0%} of the diff's change, {dshare:.0%} of the "
            f"decision's): not its undo"
        )
        if all(e.retune for e in unfocused):
            why = "numbers the decision set, set to other numbers its words do not name: a retune, not an undo"
        reason = "; ".join(dict.fromkeys(e.why for e in unfocused)) + f"; {why}"
        score = min(RELATED_MAX, max([e.score for e in related] + [0.3]))
        return Judgement(
            "related",
            round(score, 4),
            reason,
            (
                *((e.rule, e.why) for e in unfocused),
                (RETUNE_RULE if all(e.retune for e in unfocused) else FOCUS_RULE, why),
            ),
        )
    if related:
        best = max(related, key=lambda e: e.score)
        return Judgement(
            "related",
            round(best.score, 4),
            "; ".join(dict.fromkeys(e.why for e in related)),
            tuple((e.rule, e.why) for e in related),
        )
    return Judgement("unrelated", 0.0, "no shared change")


def _named(diff_sets: dict[str, ChangeSet], info: DecisionInfo) -> list[str]:
    """Code tokens the diff changes that the decision's quote, summary or title names.

    Only what reads as code counts: text in backticks, literals, or identifiers with ``_``, digits or inner
    capitals; a plain English word (``session``) that happens to be an identifier does not.
    """
    text = " ".join((info.quote, info.summary, info.source_title))
    ticked = " ".join(re.findall(r"`([^`]+)`", text))
    out = []
    for cs in {id(c): c for c in diff_sets.values()}.values():
        if cs.kind == "prose" or cs.test:
            continue
        for t in list(cs.removed) + list(cs.added):
            key = bare(t)
            if not is_specific(t) or len(key) < 3 or key in out:
                continue
            pattern = r"(?<![\w/.-])" + re.escape(key) + r"(?![\w/-])"
            if re.search(pattern, ticked) or (_code_like(t) and re.search(pattern, text)):
                out.append(key)
    return out


def _names(text: str, tok: str) -> bool:
    """Does the decision's text name this code token, also as a dotted part (``hmac.compare_digest``)?"""
    key = bare(tok)
    if not is_specific(tok) or len(key) < 3 or not _code_like(tok):
        return False
    return re.search(r"(?<![\w/-])" + re.escape(key) + r"(?![\w/-])", text) is not None


def _code_like(tok: str) -> bool:
    """A number, an identifier with ``_``/digits/inner capitals, or a literal holding such (``"a/b"``)."""
    if tok[0].isdigit():
        return True
    body = bare(tok)
    return any(c in "_/.-=:;+%" or c.isdigit() for c in body.strip("_")) or (
        any(c.isupper() for c in body[1:]) and (any(c.islower() for c in body) or len(body) >= 3)
    )


def _flip(diff_sets: dict[str, ChangeSet], info: DecisionInfo, touched: bool) -> list[str]:
    """Literal/condition tokens the diff changes that the decision's words name (None, zero, truthiness…)."""
    if not touched:
        return []
    # hyphenated names (``if-none-match``) stay whole, so only a standalone "none" names None
    text = " ".join((info.quote, info.summary, info.source_title))
    words = {w.lower().strip("-") for w in re.findall(r"[A-Za-z0-9_-]+", text)}
    wanted = frozenset().union(*(g for k, g in FLIP_GROUPS.items() if k in words))
    out: list[str] = []
    for cs in {id(c): c for c in diff_sets.values()}.values():
        if cs.kind == "prose" or cs.test or _w(cs.removed) + _w(cs.added) > FLIP_MAX_CHANGE:
            continue
        # a flip replaces code; a new line that happens to hold the token (``if amount <= 0``) flips nothing
        replaced = {t for rem, add in cs.blocks if rem for x in rem + add for t in tokens(x)}
        out += [t for t in list(cs.removed) + list(cs.added) if t in wanted and t in replaced and t not in out]
    return out


def _kind_matches(path: str, cs: ChangeSet) -> bool:
    from .tokens import file_kind

    return file_kind(path) == cs.kind


def _by_weight(c: Counter[str]) -> list[str]:
    return sorted(c, key=lambda t: (-weight(t), t))


def _w(c: Counter[str]) -> float:
    return sum(weight(t) * n for t, n in c.items())


def _list(items: list[str], n: int = 5) -> str:
    shown = [f"`{x}`" for x in items[:n]]
    return ", ".join(shown) + (f" and {len(items) - n} more" if len(items) > n else "")

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
from dataclasses import dataclass, field
from functools import lru_cache

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
from .model import DecisionInfo, FileDiff, Judgement, Label
from .tokens import ChangeSet, bare, change_set, is_specific, literal_body, tokens, weight

UNDO_MIN = 2.0
PATCH_CACHE = 4096
VOCAB_MIN = 3  # a token in this many candidate changes to one file is that file's vocabulary
COVERAGE_MIN = 0.3
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


class OfflineJudge:
    """Deterministic labels from token overlap between the diff and the decision's own change."""

    name = "offline"

    def __init__(self) -> None:
        self._pr_sets: dict[tuple[str, str], ChangeSet] = {}
        self._pr_lines: dict[tuple[str, str], dict[str, DecisionLine]] = {}
        self._vocab: dict[str, Counter[str]] = {}  # path -> in how many candidates' changes each token occurs
        self._writers: dict[str, dict[str, set[int]]] = {}  # path -> added line -> candidate changes adding it

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
        label, score, reason = _decide(local, remote, diff_sets, info, edits, self._vocab)
        if label != "contradicts" and not remote:
            label, score, reason = (_status_withdrawn(diff_sets, info) or _prose_rewrite(self._prose(diff_sets, info))
                                    or (label, score, reason))
        if label != "contradicts":
            label, score, reason = _negated(self._negations(diff_sets, info)) or (label, score, reason)
        if label != "contradicts" and not remote:
            label, score, reason = _unguarded(self._unguarded(diff_sets, info)) or (label, score, reason)
        if not standing and label == "contradicts":
            label, score = "related", min(score, 0.45)
            reason += "; the decision no longer stands (reverted, superseded or withdrawn), so it is not warned on"
        return Judgement(label, round(score, 4), reason)

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
    return Overlap(undo, same, _w(d.removed) + _w(d.added), role, raw, d.code_w, undo_k, same_k)


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


def _decide(
    ovs: list[Overlap], remote: bool, diff_sets: dict[str, ChangeSet], info: DecisionInfo, edits: list[LineEdit],
    vocab: dict[str, Counter[str]] | None = None,
) -> tuple[Label, float, str]:
    named = _named(diff_sets, info)
    code = [o for o in ovs if o.role == "code"]
    tests = [o for o in ovs if o.role == "test"]
    prose = [o for o in ovs if o.role == "prose"]
    undo = sum((o.undo for o in code), Counter())
    same = sum((o.same for o in code), Counter())
    undo_w, same_w = _w(undo), _w(same)
    undo_k = sum((o.undo_k for o in code), Counter())
    kept_w, kept_same_w = _w(undo_k), _w(sum((o.same_k for o in code), Counter()))
    change_w = sum(o.change_w for o in code) or 1.0
    coverage = kept_w / change_w
    raw = sum((o.raw_undo for o in code), Counter())
    specific = [t for t in _by_weight(undo_k) if is_specific(t)]
    need = REMOTE_UNDO_MIN if remote else UNDO_MIN
    broad = bool(specific) and kept_w >= need and coverage >= COVERAGE_MIN and kept_w >= kept_same_w
    # a small edit that is almost all reversal: two tokens swapped back, a literal, or a token its words name
    raw_specific = [t for t in _by_weight(raw) if is_specific(t)]
    raw_cov = _w(raw) / change_w
    pinpoint = not remote and raw_cov >= PINPOINT_COVERAGE and _w(raw) >= same_w and (
        sum(weight(t) * raw[t] for t in raw_specific) >= UNDO_MIN or any(
        literal_body(t) is not None or t[0].isdigit() or bare(t) in named for t in raw_specific))
    if broad or pinpoint:
        cov = coverage if broad else raw_cov
        score = 0.5 + 0.4 * min(1.0, cov) * min(1.0, max(kept_w, _w(raw) if pinpoint else 0) / 6)
        score = (score + (0.1 if named else 0.0)) * (REMOTE_DISCOUNT if remote else 1.0)
        where = "elsewhere in the decision's change" if remote else "in the same file"
        return "contradicts", min(score, 1.0), (
            f"the diff undoes the decision's own change {where}: {_list(specific or raw_specific)} "
            f"({cov:.0%} of the diff's change)")
    code_w = sum(o.code_w for o in code) or 1.0
    decisive = _decisive(edits, named, code_w, " ".join((info.quote, info.summary, info.source_title)), vocab or {})
    if decisive:
        return decisive
    flip = _flip(diff_sets, info, bool(code) and not remote)
    if flip:
        return "contradicts", 0.6, f"the diff flips {_list(flip)}, which the decision's own words name"
    shared = [t for t in undo + same if is_specific(t)]
    if (shared and undo_w + same_w >= RELATED_MIN) or named:
        parts = []
        if undo:
            parts.append(f"partly undoes {_list(_by_weight(undo))}")
        if same:
            parts.append(f"changes the same code ({_list(_by_weight(same))})")
        if named:
            parts.append(f"changes what the decision names: {_list(named)}")
        return "related", 0.2 + 0.25 * min(1.0, (undo_w + same_w) / 6) + (0.05 if named else 0.0), "; ".join(parts)
    test_undo = sum((o.undo for o in tests), Counter())
    test_change = sum(o.change_w for o in tests) or 1.0
    if _w(test_undo) >= TEST_UNDO_MIN and _w(test_undo) / test_change >= 0.5:
        return "related", 0.3, f"the diff undoes test code the decision added: {_list(_by_weight(test_undo))}"
    prose_undo = sum((o.undo for o in prose), Counter())
    prose_change = sum(o.change_w for o in prose) or 1.0
    if _w(prose_undo) >= PROSE_UNDO_MIN and _w(prose_undo) / prose_change >= 0.5:
        return "related", 0.25, f"the diff removes text the decision added: {_list(_by_weight(prose_undo))}"
    return "unrelated", 0.0, "no shared change"


def _decisive(edits: list[LineEdit], named: list[str], change_w: float, info_text: str,
              vocab: dict[str, Counter[str]]) -> tuple[Label, float, str] | None:
    """Contradicts when the diff rewrites the decision's own lines (decisive.py): a token the decision's words
    name, enough weight over the diff's change, or a small edit that is mostly such a rewrite."""
    toks = [t for e in edits for t in e.tokens]
    # a guard the decision wrote (raise, return, ...) that is gone counts as much as a broad rewrite;
    # the file's vocabulary counts less, as in the token overlap
    w = sum(max(_w(_rare(Counter(e.tokens), vocab.get(e.path, Counter()))),
                DECISIVE_MIN if e.exit_removed else 0.0) for e in edits)
    if not toks or not any(is_specific(t) for t in toks):
        return None
    hit = list(dict.fromkeys(bare(t) for t in toks if bare(t) in named or _names(info_text, t)))
    cov = w / max(change_w, 1.0)
    if not (hit or (w >= DECISIVE_MIN and cov >= DECISIVE_COVERAGE) or cov >= DECISIVE_PINPOINT):
        return None
    score = 0.5 + 0.4 * min(1.0, cov) * min(1.0, w / 6) + (0.1 if hit else 0.0)
    taken = list(dict.fromkeys(t for e in edits for t in e.taken if is_specific(t)))
    back = list(dict.fromkeys(t for e in edits for t in e.put_back if is_specific(t)))
    into = list(dict.fromkeys(t for e in edits for t in e.inserted if weight(t) > 0))
    what = "; ".join(x for x in (f"takes out {_list(taken)}" if taken else "",
                                 f"puts {_list(back)} where the decision cut code" if back else "",
                                 f"adds {_list(into)} to a condition the decision wrote" if into else "") if x)
    return "contradicts", min(score, 1.0), (
        f"the diff rewrites {len(edits)} line(s) the decision's change wrote: {what} ({cov:.0%} of the diff's change)")


def _negated(found: list[Negation]) -> tuple[Label, float, str] | None:
    if not found:
        return None
    n = found[0]
    pairs = ", ".join(f"`{a}` -> `{b}`" for a, b in n.swapped[:3])
    return "contradicts", 0.65, f"the diff adds `{n.added.strip()}`, the opposite ({pairs}) of `{n.decision_line}`"


def _unguarded(found: list[UnguardedCopy]) -> tuple[Label, float, str] | None:
    if not found:
        return None
    u = found[0]
    return "contradicts", 0.6, (f"the diff writes {_list(u.copied, 3)} again without the guard the decision put "
                                f"before them (`{u.guard}`)")


def _status_withdrawn(diff_sets: dict[str, ChangeSet], info: DecisionInfo) -> tuple[Label, float, str] | None:
    """A document the decision's change wrote (an ADR) whose ``Status:`` moves away from accepted."""
    for path, cs in diff_sets.items():
        change = status_change(cs) if path in info.patches else None
        if change:
            return "contradicts", 0.7, f"the diff changes the status of {path} from {change[0]} to {change[1]}"
    return None


def _prose_rewrite(words: list[str]) -> tuple[Label, float, str] | None:
    """A document edit that takes the decision's own words out of the text its change wrote."""
    if len(words) < PROSE_QUOTE_MIN:
        return None
    return "contradicts", 0.5 + 0.05 * min(len(words), 8), (
        f"the diff rewrites the text that states the decision, taking out {_list(words)}")


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
        any(c.isupper() for c in body[1:]) and (any(c.islower() for c in body) or len(body) >= 3))


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

"""The token-overlap rules (the bag): U1/U2 (the diff's net tokens reverse the decision's change) and
L1-L3 (related: overlap, tests, text). guard/README.md, "Token overlap (the bag)", gives each reason."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .judge_case import Case, Evidence, Overlap, by_weight, is_literal, listing, weigh
from .ownership import touches_own
from .tokens import ChangeSet, bare, is_specific, literal_body, weight

UNDO_MIN = 2.0
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


def overlap(d: ChangeSet, pr: ChangeSet, vocab: Counter[str] | None = None) -> Overlap:
    role = "prose" if d.kind == "prose" else "test" if d.test else "code"
    if _disjoint(d, pr):
        # nothing shared either way: only the diff's own weights count (a 100-file diff against a decision
        # reached elsewhere pairs every file with every patch; most pairs share no token)
        return Overlap(Counter(), Counter(), d.change_w, role, Counter(), d.code_w, novel_w=_added_w(d))
    # a name the diff newly binds is its own, not the decision's removed code put back (a local `resolve` is
    # not the `.resolve()` an older change took out)
    added = Counter({t: n for t, n in d.added.items() if t not in d.new_locals})
    undo = _shared(d.removed, pr.added) + _shared(added, pr.removed)
    same = _shared(d.added, pr.added) + _shared(d.removed, pr.removed)
    # what the decision changed while the same token stays in use around it was one use among several
    undo_k = _shared(d.removed, pr.added, pr.context) + _shared(added, pr.removed, pr.context)
    same_k = same
    if vocab:
        undo_k, same_k = rare(undo_k, vocab), rare(same, vocab)
    raw = (d.removed & pr.added) + (added & pr.removed)
    novel = weigh(Counter({t: n for t, n in d.added.items() if t not in pr.removed and t not in pr.added}))
    return Overlap(
        undo,
        same,
        d.change_w,
        role,
        raw,
        d.code_w,
        undo_k,
        same_k,
        weigh(_shared(added, pr.removed)),
        weigh(_shared(d.removed, pr.added)),
        novel,
    )


def _disjoint(d: ChangeSet, pr: ChangeSet) -> bool:
    removed, added = d.removed.keys(), d.added.keys()
    return all(k.isdisjoint(c) for k in (removed, added) for c in (pr.added, pr.removed))


def _added_w(d: ChangeSet) -> float:
    return float(d.once("added_w", lambda: weigh(d.added)))


def rare(c: Counter[str], vocab: Counter[str]) -> Counter[str]:
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
    kept_w: float  # undo with kept uses and file vocabulary scaled down (BAG1, BAG2)
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


def bag(case: Case) -> Bag:
    return case.once("bag", _bag_of)  # type: ignore[no-any-return]


def _bag_of(case: Case) -> Bag:
    code = [o for o in case.overlaps if o.role == "code"]
    undo = sum((o.undo for o in code), Counter())
    same = sum((o.same for o in code), Counter())
    undo_k = sum((o.undo_k for o in code), Counter())
    kept_w, kept_same_w = weigh(undo_k), weigh(sum((o.same_k for o in code), Counter()))
    change_w = sum(o.change_w for o in code) or 1.0
    raw = sum((o.raw_undo for o in code), Counter())
    return Bag(
        undo,
        same,
        kept_w,
        kept_same_w,
        kept_w / change_w,
        raw,
        weigh(raw) / change_w,
        change_w,
        sum(o.code_w for o in code) or 1.0,
        tuple(t for t in by_weight(undo_k) if is_specific(t)),
        tuple(t for t in by_weight(raw) if is_specific(t)),
        sum(o.restored_w for o in code),
        sum(o.taken_w for o in code),
        sum(o.novel_w for o in code),
    )


def _bag_score(case: Case, cov: float, w: float) -> float:
    score = 0.5 + 0.4 * min(1.0, cov) * min(1.0, w / 6) + (0.1 if case.named else 0.0)
    return min(1.0, score * (REMOTE_DISCOUNT if case.remote else 1.0))


def _where(case: Case) -> str:
    return "elsewhere in the decision's change" if case.remote else "in the same file"


def u1_broad(case: Case) -> Evidence | None:
    """U1: the diff's net change is largely the decision's change undone (a literal or specific name)."""
    b = bag(case)
    need = REMOTE_UNDO_MIN if case.remote else UNDO_MIN
    if not (b.specific and b.kept_w >= need and b.coverage >= COVERAGE_MIN and b.kept_w >= b.kept_same_w):
        return None
    # an undo puts back what the decision took out, or takes its code out without writing much new code in
    # its place; taking the decision's code out for new code of one's own is a rewrite (related at most)
    if not b.restored_w and b.novel_w > NOVEL_MAX * b.taken_w:
        return None
    if not case.remote and not touches_own(case):
        return None  # the tokens match, the lines are not the decision's (ownership.py)
    return Evidence(
        "U1",
        _bag_score(case, b.coverage, b.kept_w),
        f"the diff undoes the decision's own change {_where(case)}: {listing(list(b.specific))} "
        f"({b.coverage:.0%} of the diff's change)",
        b.kept_w / case.total_w,
        bool(case.named),
        b.kept_w / case.decision_w,
        any(is_literal(t) for t in b.specific),
    )


def u2_pinpoint(case: Case) -> Evidence | None:
    """U2: a small edit that is almost all reversal: a literal, a token its words name, or weight >= UNDO_MIN."""
    if case.remote:
        return None
    b = bag(case)
    if not (
        b.raw_cov >= PINPOINT_COVERAGE
        and weigh(b.raw) >= weigh(b.same)
        and (
            sum(weight(t) * b.raw[t] for t in b.raw_specific) >= UNDO_MIN
            or any(literal_body(t) is not None or t[0].isdigit() or bare(t) in case.named for t in b.raw_specific)
        )
    ):
        return None
    if not touches_own(case) or _only_recounted(case, b.raw_specific):
        return None
    return Evidence(
        "U2",
        _bag_score(case, b.raw_cov, max(b.kept_w, weigh(b.raw))),
        f"the diff undoes the decision's own change {_where(case)}: "
        f"{listing(list(b.specific or b.raw_specific))} ({b.raw_cov:.0%} of the diff's change)",
        weigh(b.raw) / case.total_w,
        bool(case.named),
        weigh(b.raw) / case.decision_w,
        any(is_literal(t) for t in b.raw_specific),
    )


def _only_recounted(case: Case, toks: tuple[str, ...]) -> bool:
    """Every token of a pinpoint undo is still written where the diff writes (a name it takes out of one line
    stays on the line it writes in its place), or was already on a line it takes out (a put-back that is only
    moved): the count changed, nothing went or came back. zod's "Fix brand" took ``& BRAND<B>`` out of a type's
    input and kept ``BRAND<B>`` in its output; "BRAND Record to Non Partial" had written another ``BRAND``."""
    sets = [cs for p, cs in case.diff_sets.items() if p in case.info.patches and not cs.test and cs.kind != "prose"]
    if not toks or not sets:
        return False
    for t in toks:
        gone = any(cs.removed[t] > 0 and t not in cs.added_tokens for cs in sets)
        back = any(cs.added[t] > 0 and t not in cs.removed_tokens for cs in sets)
        if gone or back:
            return False
    return True


def l1_overlap(case: Case) -> Evidence | None:
    """L1: some overlap either way with the decision's change, or the decision's words name what changes."""
    b = bag(case)
    shared = [t for t in b.undo + b.same if is_specific(t)]
    undo_w, same_w = weigh(b.undo), weigh(b.same)
    if not ((shared and undo_w + same_w >= RELATED_MIN) or case.named):
        return None
    parts = []
    if b.undo:
        parts.append(f"partly undoes {listing(by_weight(b.undo))}")
    if b.same:
        parts.append(f"changes the same code ({listing(by_weight(b.same))})")
    if case.named:
        parts.append(f"changes what the decision names: {listing(case.named)}")
    return Evidence(
        "L1", 0.2 + 0.25 * min(1.0, (undo_w + same_w) / 6) + (0.05 if case.named else 0.0), "; ".join(parts)
    )


def l2_tests(case: Case) -> Evidence | None:
    tests = [o for o in case.overlaps if o.role == "test"]
    test_undo = sum((o.undo for o in tests), Counter())
    test_change = sum(o.change_w for o in tests) or 1.0
    if weigh(test_undo) >= TEST_UNDO_MIN and weigh(test_undo) / test_change >= 0.5:
        return Evidence("L2", 0.3, f"the diff undoes test code the decision added: {listing(by_weight(test_undo))}")
    return None


def l3_prose(case: Case) -> Evidence | None:
    prose = [o for o in case.overlaps if o.role == "prose"]
    prose_undo = sum((o.undo for o in prose), Counter())
    prose_change = sum(o.change_w for o in prose) or 1.0
    if weigh(prose_undo) >= PROSE_UNDO_MIN and weigh(prose_undo) / prose_change >= 0.5:
        return Evidence("L3", 0.25, f"the diff removes text the decision added: {listing(by_weight(prose_undo))}")
    return None

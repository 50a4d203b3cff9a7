"""Line rules: reverts (REV1-REV3, revert.py), what the diff does to the decision's own lines (D1-D4,
decisive.py), named flips (F1), documents (A1, A2), negated lines (N1) and guards skipped (G1).
guard/README.md, "The offline judge", gives each reason."""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from .conditions import widens_guard
from .decisive import (
    LineEdit,
    Negation,
    UnguardedCopy,
    decisive_prose,
    negations,
    polar_added,
    polar_lines,
    quote_words,
    status_change,
    unguarded_copies,
)
from .diffparse import patch_hunks
from .judge_bag import bag, rare
from .judge_case import (
    Case,
    Detector,
    Evidence,
    is_literal,
    kind_matches,
    listing,
    patch_guards,
    weigh,
    words_name,
)
from .model import DecisionInfo
from .ownership import decision_names
from .patterns import looks_like_pattern, narrows
from .revert import LineUndo, cosmetic_edit, line_edits, revert_of, undone_edits
from .tokens import ChangeSet, bare, code_lines, file_kind, is_specific, literal_body, tokens, weight

DECISIVE_MIN = 2.0  # weight of decision tokens a rewrite takes out or puts back at the decision's cuts
DECISIVE_COVERAGE = 0.1
DECISIVE_PINPOINT = 0.5  # a small edit that is mostly a rewrite of decision lines
PROSE_QUOTE_MIN = 3  # distinct quote words taken out of the decision's own prose lines
CONDITION_JOINERS = frozenset({"and", "or", "&&", "||"})  # D3 that inserts only these restates conditions
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
        revert_share=ev.got / ev.need if ev.need else None,
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
    edited = 0  # the decision's line edits in the files both touch
    for path, cs in case.diff_sets.items():
        if path in case.info.patches and not cs.test:
            edits = line_edits(case.info.patches[path], path)
            edited += len(edits)
            found += undone_edits(cs, edits, path)
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
        revert_share=min(1.0, len(found) / edited) if edited else None,
    )


def decisive(case: Case) -> Evidence | None:
    """D1-D4: the diff rewrites the decision's own lines (decisive.py); the id says what carried it."""
    return case.once("decisive", _decisive)  # type: ignore[no-any-return]


def _decisive(case: Case) -> Evidence | None:
    vocab = case.vocab
    # a guard the decision wrote, given one more way to refuse (`C` -> `C or X` before a return): stricter
    # nor is a line given back a declaration modifier (`export`) or a function expression's name: no behaviour moves
    edits = [
        e
        for e in case.edits
        if not (e.after and e.path in case.diff_sets and widens_guard(case.diff_sets[e.path], e.before, e.after))
        and not (e.after and cosmetic_edit(e.before, e.after))
    ]
    toks = [t for e in edits for t in e.tokens]
    if not toks or not any(is_specific(t) for t in toks):
        return None
    info = case.info
    info_text = " ".join((info.quote, info.summary, info.source_title))
    # a guard the decision wrote (raise, return, ...) that is gone counts as much as a broad rewrite;
    # the file's vocabulary counts less, as in the token overlap
    w = sum(
        max(weigh(rare(Counter(e.tokens), vocab.get(e.path, Counter()))), DECISIVE_MIN if e.exit_removed else 0.0)
        for e in edits
    )
    hit = list(dict.fromkeys(bare(t) for t in toks if bare(t) in case.named or words_name(info_text, t)))
    cov = w / max(bag(case).code_w, 1.0)
    if not (hit or (w >= DECISIVE_MIN and cov >= DECISIVE_COVERAGE) or cov >= DECISIVE_PINPOINT):
        return None
    score = 0.5 + 0.4 * min(1.0, cov) * min(1.0, w / 6) + (0.1 if hit else 0.0)
    taken = list(dict.fromkeys(t for e in edits for t in e.taken if is_specific(t)))
    back = list(dict.fromkeys(t for e in edits for t in e.put_back if is_specific(t)))
    into = list(dict.fromkeys(t for e in edits for t in e.inserted if weight(t) > 0))
    what = "; ".join(
        x
        for x in (
            f"takes out {listing(taken)}" if taken else "",
            f"puts {listing(back)} where the decision cut code" if back else "",
            f"adds {listing(into)} to a condition the decision wrote" if into else "",
        )
        if x
    )
    rule = "D4" if any(e.exit_removed for e in edits) else "D2" if back else "D1" if taken else "D3"
    if rule == "D3" and into and all(t in CONDITION_JOINERS for t in into):
        return None  # conditions joined, none added: flask's ``if json_available:`` folded into ``x = a and b``
    took = [t for e in edits for t in e.taken if is_specific(t)]
    put = [t for e in edits for t in e.replaced_by + e.inserted if is_specific(t)]
    # numbers only (a query or a key format in a string is behaviour, BAG3), on lines where the decision itself
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
        any(is_literal(t) for t in taken + back),
        retune,
        rule == "D1" and not hit and made_stricter(edits),
    )


def made_stricter(edits: list[LineEdit]) -> bool:
    """Every decision token the diff takes is a regular expression it replaces with one that accepts nothing
    the old one refused (patterns.narrows): a validation tightened, not undone."""
    pairs = 0
    for e in edits:
        took = [t for t in e.taken if is_specific(t)]
        if not took:
            continue
        put = [t for t in e.replaced_by if literal_body(t) is not None]
        if e.put_back or e.inserted or len(took) != 1 or len(put) != 1:
            return False
        old, new = literal_body(took[0]), literal_body(put[0])
        if old is None or new is None or not looks_like_pattern(old):
            return False
        flags = re.IGNORECASE if re.search(r"IGNORECASE|\bre\.I\b", e.after or "") else 0
        if narrows(old, new, flags) is not True:
            return False
        pairs += 1
    return pairs > 0


def only(rule: str) -> Detector:
    def detect(case: Case) -> Evidence | None:
        e = decisive(case)
        return e if e is not None and e.rule == rule else None

    return detect


def f1_flip(case: Case) -> Evidence | None:
    """F1: a literal or condition the decision's words name (None, zero, truthiness) flipped where code is replaced."""
    flip = _flip(case.diff_sets, case.info, any(o.role == "code" for o in case.overlaps) and not case.remote)
    if not flip:
        return None
    return Evidence("F1", 0.6, f"the diff flips {listing(flip)}, which the decision's own words name")


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
    words = _prose(case)
    if len(words) < PROSE_QUOTE_MIN:
        return None
    return Evidence(
        "A2",
        0.5 + 0.05 * min(len(words), 8),
        f"the diff rewrites the text that states the decision, taking out {listing(words)}",
    )


def n1_negated(case: Case) -> Evidence | None:
    found = _negations(case)
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
    found = _unguarded(case)
    if not found:
        return None
    u = found[0]
    share = sum(weight(t) for x in u.copied for t in tokens(x)) / case.total_w
    return Evidence(
        "G1",
        0.6,
        f"the diff writes {listing(u.copied, 3)} again without the guard the decision put before them (`{u.guard}`)",
        share,
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
    seen: set[int] = set()
    for path, cs in diff_sets.items():
        if id(cs) in seen or cs.kind == "prose" or cs.test or weigh(cs.removed) + weigh(cs.added) > FLIP_MAX_CHANGE:
            continue
        seen.add(id(cs))
        # a flip replaces code; a new line that happens to hold the token (``if amount <= 0``) flips nothing. And it
        # replaces the decision's code: a line naming something the decision's change wrote or took out
        # (axios's "type 'null' is not assignable to validateStatus" does not own `message: string | undefined`)
        # A file the decision never touched holds none of its code (flask's merge flipped a teardown's
        # ``exc=None`` in ctx.py; "Set TEMPLATE_AUTO_RELOAD default value to None" changed only app.py).
        if path not in info.patches:
            continue
        own = decision_names(info.patches[path], path)
        blocks = [
            (rem, add)
            for rem, add in cs.blocks
            if rem and any(" ".join(x.split()) in own or n in own for x in rem for n in tokens(x))
        ]
        taken = {t for rem, _ in blocks for x in rem for t in tokens(x)}
        written = {t for _, add in blocks for x in add for t in tokens(x)}
        # and it flips against the decision: takes the named value out of those lines, or writes one the decision
        # took out. flask's "when the host/port argument is None, it will use its default" is not flipped by a
        # later ``def run(self, host=None, port=None)``: that writes the None it reads, which it never removed.
        cut = _cut_tokens(info.patches[path], path)
        flipped = [t for t in cs.removed if t in wanted and t in taken] + [
            t for t in cs.added if t in wanted and t in written and t in cut
        ]
        out += [t for t in flipped if t not in out]
    return out


@lru_cache(maxsize=1024)
def _cut_tokens(patch: str, path: str) -> frozenset[str]:
    """Every token on the code lines a change took out."""
    kind = file_kind(path)
    return frozenset(t for h in patch_hunks(patch) for k, x in code_lines(h, kind) if k == "-" for t in tokens(x))


def _negations(case: Case) -> list[Negation]:
    """Lines the diff adds, in any file, that say the opposite of a line the decision's change wrote in a
    file of the same kind (a new migration granting what the decision's migration revoked)."""
    out: list[Negation] = []
    # only the diff's files that add a line with a polar word can negate anything (read once per diff file)
    sets = [c for c in {id(c): c for c in case.diff_sets.values()}.values() if polar_added(c)]
    if not sets:
        return out
    for p, patch in case.info.patches.items():
        polar = polar_lines(case.lines(p, patch))
        if not polar:
            continue
        for cs in sets:
            if kind_matches(p, cs):
                out += negations(cs, polar)
    return out


def _unguarded(case: Case) -> list[UnguardedCopy]:
    """Code a guard the decision added protects, written again in the same file without the guard."""
    out: list[UnguardedCopy] = []
    for path, cs in case.diff_sets.items():
        if path in case.info.patches:
            out += unguarded_copies(cs, patch_guards(case.info.patches[path], path))
    return out


# a document that records decisions (an ADR, an RFC): its text is the decision's statement. Elsewhere (a README,
# a guide) the prose a change wrote is edited all the time; there only taking out most of the statement counts
_RECORD = re.compile(
    r"(?i)(?:^|/)(?:adrs?|decisions?|rfcs?|architecture)/|(?:^|/)\d{3,4}-[\w.-]+\.(?:md|rst|txt|adoc)$"
)
PROSE_STATEMENT_SHARE = 0.5


def _prose(case: Case) -> list[str]:
    """The decision's quote words the diff takes out of prose its change wrote."""
    words = quote_words(case.info.quote)
    out: list[str] = []
    for path, cs in case.diff_sets.items():
        if path in case.info.patches and cs.kind == "prose":
            found = decisive_prose(cs, patch_hunks(case.info.patches[path]), words)
            if _RECORD.search(path) or len(found) >= PROSE_STATEMENT_SHARE * len(words):
                out += [w for w in found if w not in out]
    return out

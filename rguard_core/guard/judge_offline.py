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

This module is the registry (``RULES``) and the policy (``POLICY``, ``policy``); the detectors live in
judge_bag.py (token overlap), judge_lines.py (reverts, decision lines, documents) and paraphrase.py (the
decision's words against the diff's added code), and what they share in judge_case.py.
"""

from __future__ import annotations

from collections import Counter

from ..ingest.choice import RULES as CHOICE_RULES
from .behaviour import b1_bypassed, g2_gated, g3_defaulted
from .conditions import k3_narrowed, k4_relaxed
from .decisive import DecisionLine, LineEdit, decisive_edits
from .dependencies import DEPENDENCY_RULE, unnamed_dependencies
from .deprecation import DEPRECATION_RULE, deprecation_completed
from .diffparse import patch_hunks
from .dropped import DROPPED_RULE, dropped_with_file
from .exits import f2_not_final
from .handlers import x2_caught
from .in_passing import IN_PASSING_RULE, in_passing
from .judge_bag import PINPOINT_COVERAGE, l1_overlap, l2_tests, l3_prose, overlap, u1_broad, u2_pinpoint
from .judge_case import (
    Case,
    Evidence,
    JudgeRule,
    Overlap,
    diff_change_sets,
    diff_keys,
    diff_renames,
    kind_matches,
    named_tokens,
    patch_lines,
    patch_set,
    total_weight,
)
from .judge_lines import a1_withdrawn, a2_text, f1_flip, g1_unguarded, n1_negated, only, rev1, rev2, rev3
from .limits import k1_bypassed, k2_conditional, w1_disabled, w2_switched_off
from .model import DecisionInfo, Judgement, Label
from .moved import MOVED_RULE, moved_on
from .overwritten import OVERWRITTEN_RULE, Removals, overwritten, removals
from .paraphrase import c1_rejected, e1_eager
from .provisional import PROVISIONAL_RULE, provisional_revert
from .rejected import x1_rejected
from .restored import rev4_restored
from .swaps import t1_swapped_back
from .sweeping import SWEEPING_RULE, sweeping
from .sweeping import why as sweeping_why
from .tokens import ChangeSet

__all__ = [
    "POLICY",
    "RULES",
    "cap_unstated",
    "Case",
    "Evidence",
    "JudgeRule",
    "OfflineJudge",
    "diff_change_sets",
    "patch_hunks",
]


class OfflineJudge:
    """Deterministic labels: every rule of ``RULES`` runs, ``POLICY`` turns what fired into a label."""

    name = "offline"

    def __init__(self) -> None:
        self._pr_sets: dict[tuple[str, str], ChangeSet] = {}
        self._pr_lines: dict[tuple[str, str], dict[str, DecisionLine]] = {}
        self._vocab: dict[str, Counter[str]] = {}  # path -> in how many candidates' changes each token occurs
        self._writers: dict[str, dict[str, set[int]]] = {}  # path -> added line -> candidate changes adding it
        self._total: tuple[dict[str, ChangeSet], float] | None = None  # the diff's whole code change, once
        self._removals: Removals = {}  # what each candidate's change took out of each file, and when (S11)
        self._keys: list[tuple[str, bool]] = []  # the diff's tokens a decision's words could name, once per diff

    def prepare(self, infos: list[DecisionInfo]) -> None:
        """Count, per file, how many of the candidate decisions' changes use each token (their context too):
        a token most changes to a file use is that file's vocabulary, not one decision's intent."""
        self._removals = removals(infos)
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
            self._total = (diff_sets, total_weight(diff_sets))
            self._keys = diff_keys(diff_sets)
        case = Case(
            diff_sets,
            info,
            local,
            remote,
            edits,
            named_tokens(diff_sets, info, self._keys),
            self._vocab,
            lambda path, patch: self._lines(info.source_id, path, patch),
            total_w=self._total[1],
            decision_w=self._decision_w(info),
        )
        found = [e for r in RULES if (e := r.detect(case)) is not None]
        j = policy(found, standing, info.stated, info.explained, info.stated_rule)
        if j.label == "contradicts" and info.explained and sweeping(info):
            held = policy(found, standing, info.stated, False, info.stated_rule)
            if held.label != "contradicts":
                why_s = sweeping_why(info)
                kept = tuple(r for r in held.rules if r[0] != TITLE_ONLY_RULE)
                return Judgement(held.label, held.score, f"{j.reason}; {why_s}", (*kept, (SWEEPING_RULE, why_s)))
        if j.label == "contradicts" and deprecation_completed(case):
            why = "the decision deprecated what the diff now removes, and the diff puts back nothing it replaced: the removal it announced, not its undo"
            return Judgement(
                "related",
                round(min(j.score, RELATED_MAX), 4),
                f"{j.reason}; {why}",
                (*j.rules, (DEPRECATION_RULE, why)),
            )
        for rule, why_not in (
            (IN_PASSING_RULE, in_passing(case, j)),
            (OVERWRITTEN_RULE, overwritten(case, self._removals) if j.label == "contradicts" else None),
            (MOVED_RULE, moved_on(case, j)),
            (DROPPED_RULE, dropped_with_file(case, j)),
            (DEPENDENCY_RULE, unnamed_dependencies(case, j)),
            (PROVISIONAL_RULE, provisional_revert(case, j)),
        ):
            if why_not is not None:
                return Judgement(
                    "related",
                    round(min(j.score, RELATED_MAX), 4),
                    f"{j.reason}; {why_not}",
                    (*j.rules, (rule, why_not)),
                )
        return j

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
                pairs = [(p, x) for p, x in info.patches.items() if kind_matches(p, cs)]
            for p, patch in pairs:
                pr = self._pr_set(info.source_id, p, patch)
                out.append(overlap(cs, pr, self._vocab.get(p)))
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
            for e in decisive_edits(cs, lines, diff_renames(diff_sets), theirs):
                e.path = path
                out.append(e)
        return out

    def _lines(self, source_id: str, path: str, patch: str) -> dict[str, DecisionLine]:
        key = (source_id, path)
        if key not in self._pr_lines:
            self._pr_lines[key] = patch_lines(patch, path)
        return self._pr_lines[key]

    def _pr_set(self, source_id: str, path: str, patch: str) -> ChangeSet:
        key = (source_id, path)
        if key not in self._pr_sets:
            self._pr_sets[key] = patch_set(patch, path)
        return self._pr_sets[key]


# The registry: every offline rule, in the order reasons are shown; name (kebab-case) and summary are what
# `rguard rules` lists (guard/registry.py; the guard README's index is generated from it, its fixtures are
# guard/fixtures/<ID>.yaml). guard/README.md says what fires each and why.
# fmt: off
RULES: tuple[JudgeRule, ...] = (
    JudgeRule("REV1", "exact-revert", "contradicts", "exact revert of the decision's change (line by line)", rev1),
    JudgeRule("REV2", "partial-revert", "contradicts", "partial revert: hunks of the decision's change put back", rev2),
    JudgeRule("REV3", "line-edit-turned-back", "contradicts", "a line edit of the decision turned back (lines since retouched)", rev3),
    JudgeRule("REV4", "removed-line-restored", "contradicts", "a line the decision's change took out, written again", rev4_restored),
    JudgeRule("U1", "broad-undo", "contradicts", "broad undo: most of the diff's net tokens reverse the change", u1_broad),
    JudgeRule("U2", "pinpoint-undo", "contradicts", "pinpoint undo: a small edit that is almost all reversal", u2_pinpoint),
    JudgeRule("D1", "decision-tokens-taken", "contradicts", "decision-own tokens taken out of its lines", only("D1")),
    JudgeRule("D2", "cut-regrown", "contradicts", "tokens put back where the decision cut code", only("D2")),
    JudgeRule("D3", "condition-reshaped", "contradicts", "a decision line's condition reshaped", only("D3")),
    JudgeRule("D4", "guard-removed", "contradicts", "a guard (raise/return/...) the decision wrote removed", only("D4")),
    JudgeRule("F1", "named-value-flipped", "contradicts", "a literal or condition the decision's words name flipped", f1_flip),
    JudgeRule("F2", "early-exit-not-final", "contradicts", "a result the decision returned at once, kept but no longer final", f2_not_final),
    JudgeRule("N1", "negated-line", "contradicts", "a new line saying the opposite of a decision line", n1_negated),
    JudgeRule("G1", "guard-skipped", "contradicts", "guarded code written again without the guard", g1_unguarded),
    JudgeRule("A1", "adr-withdrawn", "contradicts", "the ADR's status withdrawn", a1_withdrawn),
    JudgeRule("A2", "decision-text-rewritten", "contradicts", "the decision's own words taken out of its document", a2_text),
    JudgeRule("E1", "lazy-import-made-eager", "contradicts", "an import the decision made lazy imported at module level again", e1_eager),
    JudgeRule("C1", "allowed-input-rejected", "contradicts", "what the decision's words allow, the diff rejects", c1_rejected),
    JudgeRule("X1", "rejected-alternative-adopted", "contradicts", "code the decision's words reject or removed, written again", x1_rejected),
    JudgeRule("W1", "limit-switched-off", "contradicts", "a limit the decision set (timeout, retries, max ...) switched off", w1_disabled),
    JudgeRule("W2", "keyword-switched-off", "contradicts", "a keyword the decision added to a call, passed as False/None", w2_switched_off),
    JudgeRule("K1", "limit-keyword-bypassed", "contradicts", "a call the decision gave a limit keyword, written again without it", k1_bypassed),
    JudgeRule("K2", "check-made-conditional", "contradicts", "a check the decision wrote put under a new condition", k2_conditional),
    JudgeRule("T1", "swap-turned-back", "contradicts", "a swap the decision's words name turned back in new code", t1_swapped_back),
    JudgeRule("G2", "gated-by-off-flag", "contradicts", "the decision's line made to depend on a new flag that is off", g2_gated),
    JudgeRule("G3", "default-emptied", "contradicts", "the decision's value swapped for a new setting that holds nothing", g3_defaulted),
    JudgeRule("X2", "failure-caught-anyway", "contradicts", "the failure the decision handles caught to go on anyway", x2_caught),
    JudgeRule("K3", "condition-narrowed", "contradicts", "a condition the decision wrote narrowed (a conjunct, a branch before)", k3_narrowed),
    JudgeRule("K4", "restriction-relaxed", "contradicts", "a restriction the decision added to a condition put in an or", k4_relaxed),
    JudgeRule("B1", "choice-bypassed", "contradicts", "a choice the decision made conditional applied regardless", b1_bypassed),
    JudgeRule("L1", "overlap", "related", "overlap with the decision's change, or its words name what changes", l1_overlap),
    JudgeRule("L2", "tests-undone", "related", "test code the decision added undone", l2_tests),
    JudgeRule("L3", "prose-removed", "related", "text the decision added removed", l3_prose),
)
# fmt: on
POLICY: dict[str, Label] = {r.id: r.label for r in RULES}
# Rules about a share of the diff warn only when what they found is a real part of the whole diff: a large
# change that rewrites a few decision lines among much else is an edit of that code (related), not its undo.
# Exact and partial reverts (REV1/REV2), flips, ADR and document rules carry no share and are never demoted.
FOCUS_MIN = 0.15
FOCUS_NAMED = 0.1  # the decision's own words name what the diff changes
FOCUS_RULE = "S3"
DECISION_SHARE_RULE = "S4"  # the same sentence as S3's, when the decision-share gate is what failed
RETUNE_RULE = "S5"
STRICTER_RULE = "S6"
# ...and of the decision: a few lines of a change that rewrote a whole module are not what it decided
DECISION_SHARE_MIN = 0.05
# ...and evidence that is (nearly) the whole of the decision's change is focused, however large the diff (S3
# does not apply: a refactor that also takes out everything a one-token decision did has undone it)
WHOLE_DECISION = 0.9
STANDING_RULE = "S1"  # a decision that no longer stands is at most related
# A decision whose source states no choice (ingest/choice.py: a terse or tidy-up commit, a merge, a docs-only
# change) is a record of a change, not of a choice: only a revert of it warns — REV1, REV2 over PARTIAL_REVERT of
# its changed lines (blocks put back both ways), REV3 over NEAR_REVERT of its line edits (one line of a large
# change set back is an edit, not a revert) — the revert its own evidence; anything else is related (S7).
UNSTATED_RULE = "S7"
REVERT_RULES = frozenset({"REV1", "REV2", "REV3"})
PARTIAL_REVERT = 0.25
NEAR_REVERT = 0.5
# A decision known by its title alone ("Fixing config weirdness": no body, no review) says too little for token
# overlap to be its undo: the overlap rules contradict it only where its words name what the diff changes, and a
# partial or line revert only over the same shares as S7 (S8). On real histories overlap on such decisions
# was the most common wrong warning (a refactor of the lines, an incidental line of a revert set back).
TITLE_ONLY_RULE = "S8"
OVERLAP_RULES = frozenset({"U1", "U2", "D1", "D2", "D3", "D4"})
NOT_STANDING_MAX = 0.45
RELATED_MAX = 0.45


def cap_unstated(j: Judgement, info: DecisionInfo) -> Judgement:
    """S7 for a judge that gives no revert evidence of its own (the LLM judge): a contradiction of a decision whose
    text states no choice stands only on a revert rule. The offline policy applies S7 itself."""
    if info.stated or j.label != "contradicts" or any(r in REVERT_RULES for r, _ in j.rules):
        return j
    why = _unstated_why(info.stated_rule)
    return Judgement(
        "related", round(min(j.score, RELATED_MAX), 4), f"{j.reason}; {why}", (*j.rules, (UNSTATED_RULE, why))
    )


def _unstated_why(rule: str | None) -> str:
    what = CHOICE_RULES.get(rule or "", "its text states no choice")
    return f"the change it cites states no choice ({rule or 'Q'}: {what}): only a revert of it warns"


def holds_without_words(e: Evidence, stated: bool) -> bool:
    """Evidence that stands against a decision that says little (S7: no stated choice; S8: a title alone)."""
    if e.rule == "REV1":
        return True
    if e.rule in ("REV2", "REV3"):
        return (e.revert_share or 0.0) >= (PARTIAL_REVERT if e.rule == "REV2" else NEAR_REVERT)
    if not stated:
        return False
    return e.named if e.rule in OVERLAP_RULES else True


def focused(e: Evidence) -> bool:
    """A real part of the diff (S3), and a real part of what the decision's change did (S4) unless the diff
    is nearly all that one literal put back or taken out (a pinpoint edit of a value the decision set); and
    not a value the decision set tuned to another one its words do not name (S5)."""
    if e.retune or e.stricter:
        return False
    if e.decision_share is not None and e.decision_share >= WHOLE_DECISION:
        return True  # the diff takes out (nearly) all the decision's change: however small a part of the diff
    pinpoint = e.literal and e.share is not None and e.share >= PINPOINT_COVERAGE
    return (e.share is None or e.share >= (FOCUS_NAMED if e.named else FOCUS_MIN)) and (
        e.decision_share is None or e.decision_share >= DECISION_SHARE_MIN or pinpoint
    )


def policy(
    found: list[Evidence], standing: bool, stated: bool = True, explained: bool = True, stated_rule: str | None = None
) -> Judgement:
    """The label from what fired: contradicts if a contradicting rule fired on a focused part of the diff, else
    related (also for contradicting evidence on a small share of a large diff), else unrelated. A decision whose
    text states no choice (``stated`` False, S7) or is a title alone (``explained`` False, S8) is contradicted
    only by the evidence ``holds_without_words`` keeps."""
    contra = [e for e in found if POLICY[e.rule] == "contradicts" and focused(e)]
    unfocused = [e for e in found if POLICY[e.rule] == "contradicts" and not focused(e)]
    if not (stated and explained):
        weak = [e for e in contra if not holds_without_words(e, stated)]
        contra = [e for e in contra if e not in weak]
        if weak and not contra:
            if stated:
                rule = TITLE_ONLY_RULE
                why = "a decision known by its title alone: its words do not name what the diff changes, nor does the diff revert most of its change"
            else:
                rule, why = UNSTATED_RULE, _unstated_why(stated_rule)
            return Judgement(
                "related",
                round(min(RELATED_MAX, max(e.score for e in weak)), 4),
                "; ".join(dict.fromkeys(e.why for e in weak)) + f"; {why}",
                (*((e.rule, e.why) for e in weak), (rule, why)),
            )
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
        elif all(e.stricter for e in unfocused):
            why = "a pattern the decision wrote, made stricter (it accepts nothing the old one refused): not an undo"
        reason = "; ".join(dict.fromkeys(e.why for e in unfocused)) + f"; {why}"
        score = min(RELATED_MAX, max([e.score for e in related] + [0.3]))
        return Judgement(
            "related",
            round(score, 4),
            reason,
            (
                *((e.rule, e.why) for e in unfocused),
                (
                    RETUNE_RULE
                    if all(e.retune for e in unfocused)
                    else STRICTER_RULE
                    if all(e.stricter for e in unfocused)
                    else share_gate(unfocused),
                    why,
                ),
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


def share_gate(unfocused: list[Evidence]) -> str:
    """The gate that demoted contradicting evidence that is not ``focused``: S3 (a small part of the whole diff)
    when any of it is that, else S4 (a small part of the decision's own change)."""
    shares = [e for e in unfocused if not e.retune and not e.stricter]
    if shares and not any(e.share is not None and e.share < (FOCUS_NAMED if e.named else FOCUS_MIN) for e in shares):
        return DECISION_SHARE_RULE
    return FOCUS_RULE

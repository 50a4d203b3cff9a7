"""Every rule by the id it reports, in one place: what ``python -m rguard_core rules`` lists (like ruff's rule
registry). Four families:

  judge       the offline judge's detectors (``judge_offline.RULES``): what a finding's ``rules`` carry
  policy      S1-S12, what turns the judge's evidence into a label (``judge_offline.policy``, ``run.stand_in``)
  choice      Q1-Q5, a decision's source that states no choice (``ingest/choice.py``; ``stated_rule``)
  mechanical  M1-M8, a change that is a source, not a decision (``ingest/mechanical.py``)

Each entry has its id, a kebab-case name, its family, the label it gives (``-``: none), a one-line summary and
the module it lives in. Ids and summaries come from those modules (judge rules: ``JudgeRule.what``; choice and
mechanical: their ``RULES``); names of the judge rules are ``JudgeRule.name``. The policy rules have no summary
elsewhere, and the choice and mechanical rules no name: both are written here, once. Each rule's fixtures (cases
where it must fire, and look-alikes where it must stay quiet) are ``guard/fixtures/<ID>.yaml``. The guard README's
rule index is ``markdown()`` (tests/test_rules_registry.py checks it is).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..ingest import choice, mechanical
from . import (
    dependencies,
    deprecation,
    dropped,
    in_passing,
    judge_offline,
    moved,
    overwritten,
    provisional,
    run,
    sweeping,
)

type Family = Literal["judge", "policy", "choice", "mechanical"]
FAMILIES: tuple[Family, ...] = ("judge", "policy", "choice", "mechanical")
NO_LABEL = "-"


@dataclass(frozen=True)
class Rule:
    id: str
    name: str  # kebab-case
    family: Family
    label: str  # contradicts | related | - (the rule gives no label)
    summary: str
    module: str  # the module the rule lives in, dotted

    def as_dict(self) -> dict[str, str]:
        return {
            "id": self.id,
            "name": self.name,
            "family": self.family,
            "label": self.label,
            "summary": self.summary,
            "module": self.module,
        }


_OFFLINE = judge_offline.__name__
# The policy: ids are judge_offline's (run's for S2) constants; each demotes contradicting evidence to related.
_POLICY: tuple[tuple[str, str, str, str], ...] = (
    (
        judge_offline.STANDING_RULE,
        "not-standing",
        "a decision that no longer stands (reverted, superseded, ADR withdrawn) is at most related",
        _OFFLINE,
    ),
    (
        run.SUPERSEDED_RULE,
        "shown-through-successor",
        "a superseded decision the diff reaches is shown through the decision that superseded it",
        run.__name__,
    ),
    (
        judge_offline.FOCUS_RULE,
        "small-part-of-diff",
        "contradicting evidence that is a small part of the whole diff's change is related",
        _OFFLINE,
    ),
    (
        judge_offline.DECISION_SHARE_RULE,
        "small-part-of-decision",
        "contradicting evidence that is a small part of the decision's own change is related",
        _OFFLINE,
    ),
    (
        judge_offline.RETUNE_RULE,
        "retuned-number",
        "numbers the decision set, set to other numbers its words do not name, are a retune (related)",
        _OFFLINE,
    ),
    (
        judge_offline.STRICTER_RULE,
        "stricter-pattern",
        "a pattern the decision wrote, made stricter (accepting nothing the old one refused), is related",
        _OFFLINE,
    ),
    (
        judge_offline.UNSTATED_RULE,
        "unstated-choice",
        "a decision whose source states no choice (Q1-Q5) warns only on a revert of most of it (REV1, or REV2/REV3 over enough of its change)",
        _OFFLINE,
    ),
    (
        judge_offline.TITLE_ONLY_RULE,
        "title-only",
        "a decision known by its title alone warns on overlap only where its words name what the diff changes, on a partial or line revert only over enough of its change",
        _OFFLINE,
    ),
    (
        deprecation.DEPRECATION_RULE,
        "deprecation-completed",
        "removing what a deprecation added, putting back nothing it replaced, completes the deprecation (related)",
        deprecation.__name__,
    ),
    (
        in_passing.IN_PASSING_RULE,
        "in-passing-revert",
        "a decision that says little, whose lines the diff sets back only in small part of all it changed (its words naming none), is related",
        in_passing.__name__,
    ),
    (
        overwritten.OVERWRITTEN_RULE,
        "overwritten",
        "a decision whose lines in the diff's files a later change already took out is related: what the diff changes is no longer its own",
        overwritten.__name__,
    ),
    (
        sweeping.SWEEPING_RULE,
        "sweeping-change",
        "a decision whose change is sweeping (a rewrite, a major release) is held to what its words name, as a title alone (S8)",
        sweeping.__name__,
    ),
    (
        moved.MOVED_RULE,
        "moved-on",
        "lines a decision only moved into the diff's files, taken out again without being put back where they came from, are related: the move goes on, nothing is undone",
        moved.__name__,
    ),
    (
        dropped.DROPPED_RULE,
        "dropped-with-file",
        "a decision's edit to files the diff deletes whole (files it did not create) is related: it goes with the file, not undone on its own",
        dropped.__name__,
    ),
    (
        dependencies.DEPENDENCY_RULE,
        "unnamed-dependency",
        "a contradiction standing only on dependency versions in a manifest, none of which the decision's words name, is related: an upgrade or a downgrade, not its undo",
        dependencies.__name__,
    ),
    (
        provisional.PROVISIONAL_RULE,
        "provisional-revert",
        "a revert whose own words say the change comes back (re-applied, landed by accident, reverted for now) is related when the change comes back",
        provisional.__name__,
    ),
)
_CHOICE_NAMES = {
    "Q1": "bare-merge",
    "Q2": "tidy-up",
    "Q3": "terse",
    "Q4": "non-product-only",
    "Q5": "metadata-only",
}
_MECHANICAL_NAMES = {
    "M1": "version-bump",
    "M2": "dependency-bump",
    "M3": "typo-fix",
    "M4": "formatting-only",
    "M5": "lockfiles-only",
    "M6": "ci-only",
    "M7": "bot-author",
    "M8": "mechanical-revert",
}


def _build() -> tuple[Rule, ...]:
    out = [Rule(r.id, r.name, "judge", r.label, r.what, r.detect.__module__) for r in judge_offline.RULES]
    out += [Rule(i, n, "policy", "related", s, m) for i, n, s, m in _POLICY]
    out += [Rule(i, _CHOICE_NAMES[i], "choice", NO_LABEL, s, choice.__name__) for i, s in choice.RULES.items()]
    out += [
        Rule(i, _MECHANICAL_NAMES[i], "mechanical", NO_LABEL, s, mechanical.__name__)
        for i, s in mechanical.RULES.items()
    ]
    return tuple(out)


RULES: tuple[Rule, ...] = _build()
BY_ID: dict[str, Rule] = {r.id: r for r in RULES}


def find(key: str) -> Rule | None:
    """A rule by its id (any case: ``rev1``) or its name (``exact-revert``)."""
    key = key.strip()
    return BY_ID.get(key.upper()) or next((r for r in RULES if r.name == key.lower()), None)


MARKDOWN_BEGIN = "<!-- rules:begin: generated by `python -m rguard_core rules --markdown`; do not edit by hand -->"
MARKDOWN_END = "<!-- rules:end -->"
_TITLES: dict[Family, str] = {
    "judge": "Judge rules (`judge_offline.RULES`): what a finding's `rules` carry",
    "policy": "Policy rules (`judge_offline.policy`): what turns the judge's evidence into a label",
    "choice": "Choice rules (`ingest/choice.py`): a decision's source that states no choice (its `stated_rule`)",
    "mechanical": "Mechanical rules (`ingest/mechanical.py`): a change that is a source, not a decision",
}


def markdown(rules: tuple[Rule, ...] = RULES) -> str:
    """The rule index as markdown tables, one per family, between the markers the README keeps it in."""
    parts = [MARKDOWN_BEGIN]
    for family in FAMILIES:
        rows = [r for r in rules if r.family == family]
        if not rows:
            continue
        parts += ["", f"**{_TITLES[family]}**", "", "| id | name | label | summary | module |", "|---|---|---|---|---|"]
        for r in rows:
            module = r.module.removeprefix("rguard_core.").replace(".", "/") + ".py"
            parts.append(f"| {r.id} | `{r.name}` | {r.label} | {_cell(r.summary)} | `{module}` |")
    return "\n".join([*parts, "", MARKDOWN_END]) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")

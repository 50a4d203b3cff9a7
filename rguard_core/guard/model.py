"""Dataclasses that cross the guard's module boundaries: the parsed diff, candidates, findings, the report."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..jsontypes import JSONObject

Label = Literal["contradicts", "related", "unrelated"]
Verdict = Literal["warn", "note", "pass"]


@dataclass
class Hunk:
    """One ``@@`` hunk: ``lines`` are (kind, text) with kind ' ', '-' or '+'; text has no newline."""

    header: str
    lines: list[tuple[str, str]] = field(default_factory=list)

    def removed(self) -> list[str]:
        return [t for k, t in self.lines if k == "-"]

    def added(self) -> list[str]:
        return [t for k, t in self.lines if k == "+"]


@dataclass
class FileDiff:
    """What the diff does to one file; ``old_path`` differs from ``path`` on renames."""

    path: str
    old_path: str | None
    status: Literal["modified", "added", "removed", "renamed"]
    binary: bool = False
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return [self.path] + ([self.old_path] if self.old_path and self.old_path != self.path else [])


@dataclass
class ParsedDiff:
    files: list[FileDiff]
    identifiers: list[str]  # identifiers in changed code lines, most frequent first
    notes: list[str] = field(default_factory=list)  # what was skipped to keep the work bounded
    skipped_files: list[str] = field(default_factory=list)  # files not checked, wholly or in part (limits)
    aliases: dict[str, str] = field(default_factory=dict)  # an earlier name of a file -> its path here (renames.py)

    @property
    def paths(self) -> list[str]:
        out: list[str] = []
        for f in self.files:
            out += [p for p in f.paths if p not in out]
        return out + [p for p in self.aliases if p not in out]


@dataclass
class Candidate:
    """A decision the graph reached from the diff, with how (hop kinds) and through which node ids."""

    decision_id: str
    hops: list[str]
    path: list[str]
    files: list[str]  # diff paths that reached it
    symbols: list[str] = field(default_factory=list)  # symbols that reached it (symbol hop)
    replaces: list[str] = field(default_factory=list)  # superseded decisions this one stands in for


@dataclass
class DecisionInfo:
    """A candidate decision's own fields and the evidence the judge compares the diff against."""

    id: str
    summary: str
    quote: str
    source_id: str
    source_kind: str
    source_number: int | None
    source_path: str | None
    source_url: str
    source_title: str
    status: str
    score_factor: float
    at: str | None = None  # when the decision's source was merged / committed / written
    patches: dict[str, str] = field(default_factory=dict)  # file path -> unified hunks of the decision's change
    rejected: list[str] = field(default_factory=list)  # quotes of the alternatives it rejected (REJECTED_FOR)
    claims: list[str] = field(default_factory=list)  # quotes of the claims it rests on (its premises)
    stated: bool = True  # its source states a choice (ingest/choice.py); False: only a revert of it warns (S7)
    stated_rule: str | None = None  # the choice.py rule (Q1-Q5) that found no stated choice
    explained: bool = True  # its text says more than a title (choice.py); False: overlap must be named (S8)
    changed_lines: int | None = None  # lines its change added and removed in every file it touched (S10)
    # path -> the telling lines (normalised) its change took out of product files the diff does not touch (S13)
    removed_elsewhere: dict[str, frozenset[str]] = field(default_factory=dict)
    text: str = ""  # a revert's own text (PR body, commit message), bounded; S16 reads its reasons there ("" else)


@dataclass
class Judgement:
    label: Label
    score: float
    reason: str
    rules: tuple[tuple[str, str], ...] = ()  # (rule id, why) of every rule behind the label (judge_offline.RULES)


@dataclass
class Finding:
    decision_id: str
    summary: str
    quote: str
    source_url: str
    source: JSONObject
    label: Label
    score: float
    hops: list[str]
    path: list[str]
    premises: list[dict[str, str]] = field(default_factory=list)
    alternatives: list[dict[str, str]] = field(default_factory=list)
    experts: list[JSONObject] = field(default_factory=list)
    bus_factor: int = 0
    learned: list[str] = field(default_factory=list)
    reason: str = ""  # the judge's reason; shown by the CLI and page, not part of the JSON contract
    rules: list[dict[str, str]] = field(default_factory=list)  # {"id", "why"}: the judge rules that fired
    lines_key: str = ""  # the diff's changed lines this finding rests on (what a dismissal is about)
    dismissed: Dismissal | None = None  # set when a reviewer's "wrong" still holds for these lines

    def as_dict(self) -> JSONObject:
        return {
            "decision_id": self.decision_id,
            "summary": self.summary,
            "quote": self.quote,
            "source_url": self.source_url,
            "source": self.source,
            "label": self.label,
            "score": round(self.score, 4),
            "hops": self.hops,
            "path": self.path,
            "premises": self.premises,
            "alternatives": self.alternatives,
            "experts": self.experts,
            "bus_factor": self.bus_factor,
            "learned": self.learned,
            "lines_key": self.lines_key,
            "rules": self.rules,
            **({"dismissed": self.dismissed.as_dict()} if self.dismissed else {}),
        }


@dataclass(frozen=True)
class Dismissal:
    """A reviewer's "wrong" on a decision for these lines (guard/dismissals.py)."""

    correction: str
    by: str
    reason: str
    at: str
    revision: int = 0

    def as_dict(self) -> JSONObject:
        return {"correction": self.correction, "by": self.by, "reason": self.reason, "at": self.at}


@dataclass
class GuardReport:
    """The guard's answer for one diff; ``as_dict()`` is the CLI's JSON contract, exactly."""

    repo: str
    verdict: Verdict
    findings: list[Finding]
    cypher: list[JSONObject]
    timings_ms: dict[str, float]
    notes: list[str] = field(default_factory=list)  # bounded-work and input notes (stderr in the CLI)
    dismissed: list[Finding] = field(default_factory=list)  # findings a reviewer dismissed for these lines
    skipped_files: list[str] = field(default_factory=list)  # not checked (diff limits): the verdict is not a pass
    # for the review view (ui/guard_review.py), not the JSON contract: each statement's parameter values, and the
    # candidates the judge looked at and cleared (decision_id, summary, why)
    cypher_params: list[JSONObject] = field(default_factory=list)
    cleared: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)  # the diff's files (the overview's record of the run)

    @property
    def fails_gate(self) -> bool:
        """What ``--fail-on-warn`` gates (CLI, pre-commit, Action) fail on: a warning, or a file left unchecked."""
        return self.verdict == "warn" or bool(self.skipped_files)

    def as_dict(self) -> JSONObject:
        return {
            "repo": self.repo,
            "verdict": self.verdict,
            "findings": [f.as_dict() for f in self.findings],
            "dismissed": [f.as_dict() for f in self.dismissed],
            "cypher": self.cypher,
            "timings_ms": {k: round(v, 3) for k, v in self.timings_ms.items()},
            "notes": list(self.notes),
            "skipped_files": list(self.skipped_files),
        }

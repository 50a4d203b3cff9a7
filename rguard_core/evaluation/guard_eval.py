"""Guard evaluation: run every labelled case through the real guard and score it.

Definitions (a case is *warned* when the guard's verdict is ``warn``):
- recall = warned contradicting cases / contradicting cases (paraphrases count like any other kind).
- false_positive_rate = warned benign cases / benign cases.
- precision = warned contradicting cases / all warned cases.
- attribution = warned contradicting cases whose contradicts-findings cite the expected source
  / warned contradicting cases. A finding cites the expected source when its source number equals a
  numeric ``expect_source`` (PR or issue), or when a string ``expect_source`` names its decision id,
  source id, doc path (or the path's file name / ADR number).
- a case is ``ok`` when a contradicting case is warned *and* attributed, or a benign case is not warned.
- by_kind: the same counts per case kind; ``ok_rate`` = ok cases / cases of that kind.
- graph_ms / total_ms percentiles: the guard's own ``timings_ms`` per case (linear interpolation).
- by_rule: per judge rule id (guard/judge_offline.RULES), ``hits`` = contradicting cases where the rule is on a
  contradicts finding citing the expected source, ``fired`` = contradicting cases where it is on any contradicts
  finding, ``false_hits`` = benign cases warned with the rule on a contradicts finding.
- by_split: the same recall / false-positive counts for the tuning (``dev``: case ids ending in an odd number)
  and held-out (``holdout``: even) halves, when the ids are numbered; rules are fitted on dev only.
Rates whose denominator is zero are ``None``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from ..config import Settings
from ..db import Store
from ..jsontypes import JSONObject
from .cases import CaseSet, GuardCase
from .history import RunInfo, current_run

Progress = Callable[[int, int, str], None]  # (done, total, case id)


# The metrics block of the CLI's JSON contract (see the module docstring), written as-is to --json and history.
class KindStats(TypedDict):
    label: str
    n: int
    warned: int
    ok: int
    ok_rate: float | None
    recall: float | None
    false_positive_rate: float | None
    attribution: float | None


class RuleStats(TypedDict):
    hits: int
    fired: int
    false_hits: int


class SplitStats(TypedDict):
    cases: int
    contradicts: int
    caught: int
    attributed: int
    benign: int
    false_warnings: int
    recall: float | None
    false_positive_rate: float | None


class CaseCounts(TypedDict):
    cases: int
    contradicts: int
    benign: int
    caught: int
    false_warnings: int
    ok: int


class GuardMetrics(TypedDict):
    recall: float | None
    false_positive_rate: float | None
    precision: float | None
    attribution: float | None
    by_kind: dict[str, KindStats]
    by_rule: dict[str, RuleStats]
    by_split: dict[str, SplitStats]
    graph_ms_p50: float | None
    graph_ms_p95: float | None
    total_ms_p50: float | None
    total_ms_p95: float | None
    counts: CaseCounts


@dataclass(frozen=True)
class CaseResult:
    """One case as the guard saw it."""

    case: GuardCase
    verdict: str
    findings: list[JSONObject]  # the guard report's findings as its --json has them
    timings_ms: dict[str, float]
    cited: list[str] = field(default_factory=list)
    attributed: bool = False

    @property
    def warned(self) -> bool:
        return self.verdict == "warn"

    @property
    def ok(self) -> bool:
        if self.case.label == "contradicts":
            return self.warned and self.attributed
        return not self.warned

    def as_dict(self) -> JSONObject:
        c = self.case
        return {
            "id": c.id,
            "kind": c.kind,
            "label": c.label,
            "verdict": self.verdict,
            "cited": self.cited,
            "ok": self.ok,
            "findings": self.findings,
            "expect_source": c.expect_source,
            "attributed": self.attributed,
            "why": c.why,
            "diff": c.diff,
            "timings_ms": self.timings_ms,
        }


@dataclass(frozen=True)
class GuardEvalResult:
    repo: str
    cases_file: str
    metrics: GuardMetrics
    results: list[CaseResult]
    run: RunInfo

    def as_dict(self) -> JSONObject:
        """The CLI's JSON contract: metrics, cases, run (plus repo and cases_file)."""
        return {
            "metrics": self.metrics,
            "cases": [r.as_dict() for r in self.results],
            "run": self.run.as_dict(),
            "repo": self.repo,
            "cases_file": self.cases_file,
        }

    def history_record(self) -> JSONObject:
        """What history keeps: everything but the findings and diffs (those are in the cases file and graph)."""
        return {
            **self.run.as_dict(),
            "kind": "guard",
            "repo": self.repo,
            "cases_file": self.cases_file,
            "metrics": self.metrics,
            "cases": [
                {
                    "id": r.case.id,
                    "kind": r.case.kind,
                    "label": r.case.label,
                    "verdict": r.verdict,
                    "ok": r.ok,
                    "cited": r.cited,
                }
                for r in self.results
            ],
        }


def run_guard_eval(
    store: Store,
    case_set: CaseSet,
    *,
    judge: str = "offline",
    repo: str | None = None,
    settings: Settings | None = None,
    progress: Progress | None = None,
) -> GuardEvalResult:
    """Run each case through ``run_guard`` on ``repo`` (default: the file's) and compute the metrics."""
    from ..guard import run_guard  # late: keeps loading cases and history free of the guard's imports

    target = repo or case_set.repo
    run = current_run(judge)
    results: list[CaseResult] = []
    total = len(case_set.cases)
    for i, case in enumerate(case_set.cases):
        if progress:
            progress(i, total, case.id)
        report = run_guard(store, target, case.diff, judge=judge, settings=settings).as_dict()
        results.append(score_case(case, report))
    if progress:
        progress(total, total, "")
    return GuardEvalResult(target, case_set.path, compute_metrics(results), results, run)


def score_case(case: GuardCase, report: JSONObject) -> CaseResult:
    """Attach what the guard said (its report dict) to a case: verdict, cited sources, attribution."""
    findings = list(report.get("findings") or [])
    contra = [f for f in findings if f.get("label") == "contradicts"]
    cited = list(dict.fromkeys(source_label(f) for f in contra))
    attributed = case.expect_source is not None and any(cites(f, case.expect_source) for f in contra)
    timings = {k: float(v) for k, v in (report.get("timings_ms") or {}).items()}
    return CaseResult(case, str(report.get("verdict")), findings, timings, cited, attributed)


def source_label(finding: JSONObject) -> str:
    """How a finding's source is shown: ``#N`` for a PR or issue, the path for a doc, else the decision id."""
    src = finding.get("source") or {}
    if src.get("number") is not None:
        return f"#{src['number']}"
    if src.get("path"):
        return str(src["path"])
    return str(finding.get("decision_id"))


_ADR = re.compile(r"(?i)^adr[-_ ]?0*(\d+)$")
_LEADING_NUMBER = re.compile(r"^0*(\d+)")


def cites(finding: JSONObject, expect: int | str) -> bool:
    """Does this finding point at the expected source?"""
    src = finding.get("source") or {}
    if isinstance(expect, int):
        return src.get("number") == expect and src.get("kind") in ("pr", "issue")
    want = expect.strip()
    did = str(finding.get("decision_id") or "")
    path = str(src.get("path") or "")
    names = {did, did.removeprefix("decision:"), path, f"doc:{path}" if path else ""} - {""}
    if want in names or (path and (path.endswith("/" + want) or want.endswith("/" + path))):
        return True
    adr = _ADR.match(want)
    if adr and path:
        num = _LEADING_NUMBER.match(path.rsplit("/", 1)[-1])
        return bool(num) and int(num.group(1)) == int(adr.group(1))  # type: ignore[union-attr]
    return False


def compute_metrics(results: list[CaseResult]) -> GuardMetrics:
    """The metrics block of the contract (see the module docstring for the definitions)."""
    contra = [r for r in results if r.case.label == "contradicts"]
    benign = [r for r in results if r.case.label == "benign"]
    caught = [r for r in contra if r.warned]
    false_warn = [r for r in benign if r.warned]
    warned = [r for r in results if r.warned]
    graph = [r.timings_ms.get("graph", 0.0) for r in results]
    total = [r.timings_ms.get("total", 0.0) for r in results]
    return {
        "recall": _rate(len(caught), len(contra)),
        "false_positive_rate": _rate(len(false_warn), len(benign)),
        "precision": _rate(len(caught), len(warned)),
        "attribution": _rate(sum(r.attributed for r in caught), len(caught)),
        "by_kind": _by_kind(results),
        "by_rule": by_rule(results),
        "by_split": by_split(results),
        "graph_ms_p50": percentile(graph, 50),
        "graph_ms_p95": percentile(graph, 95),
        "total_ms_p50": percentile(total, 50),
        "total_ms_p95": percentile(total, 95),
        "counts": {
            "cases": len(results),
            "contradicts": len(contra),
            "benign": len(benign),
            "caught": len(caught),
            "false_warnings": len(false_warn),
            "ok": sum(r.ok for r in results),
        },
    }


def _by_kind(results: list[CaseResult]) -> dict[str, KindStats]:
    out: dict[str, KindStats] = {}
    for kind in dict.fromkeys(r.case.kind for r in results):
        rs = [r for r in results if r.case.kind == kind]
        labels = sorted({r.case.label for r in rs})
        contra = [r for r in rs if r.case.label == "contradicts"]
        benign = [r for r in rs if r.case.label == "benign"]
        caught = [r for r in contra if r.warned]
        out[kind] = {
            "label": labels[0] if len(labels) == 1 else "mixed",
            "n": len(rs),
            "warned": sum(r.warned for r in rs),
            "ok": sum(r.ok for r in rs),
            "ok_rate": _rate(sum(r.ok for r in rs), len(rs)),
            "recall": _rate(len(caught), len(contra)),
            "false_positive_rate": _rate(sum(r.warned for r in benign), len(benign)),
            "attribution": _rate(sum(r.attributed for r in caught), len(caught)),
        }
    return out


def _rules(finding: JSONObject) -> list[str]:
    return [str(r.get("id")) for r in finding.get("rules") or [] if isinstance(r, dict)]


def by_rule(results: list[CaseResult]) -> dict[str, RuleStats]:
    """Hits and false hits per judge rule (see the module docstring)."""
    out: dict[str, RuleStats] = {}

    def bump(rule: str, key: Literal["hits", "fired", "false_hits"]) -> None:
        out.setdefault(rule, {"hits": 0, "fired": 0, "false_hits": 0})[key] += 1

    for r in results:
        contra = [f for f in r.findings if f.get("label") == "contradicts"]
        if r.case.label == "contradicts":
            cited = {
                x
                for f in contra
                if r.case.expect_source is not None and cites(f, r.case.expect_source)
                for x in _rules(f)
            }
            for rule in dict.fromkeys(x for f in contra for x in _rules(f)):
                bump(rule, "fired")
                if rule in cited:
                    bump(rule, "hits")
        elif r.warned:
            for rule in dict.fromkeys(x for f in contra for x in _rules(f)):
                bump(rule, "false_hits")
    return dict(sorted(out.items()))


_NUMBERED = re.compile(r"(\d+)$")


def split_of(case_id: str) -> str | None:
    """``dev`` for ids ending in an odd number, ``holdout`` for even; None when the id ends in no number."""
    m = _NUMBERED.search(case_id)
    return None if m is None else ("dev" if int(m.group(1)) % 2 else "holdout")


def by_split(results: list[CaseResult]) -> dict[str, SplitStats]:
    """Recall and false warnings of the dev and held-out halves (an empty dict when ids are not numbered)."""
    out: dict[str, SplitStats] = {}
    for split in ("dev", "holdout"):
        rs = [r for r in results if split_of(r.case.id) == split]
        if not rs:
            continue
        contra = [r for r in rs if r.case.label == "contradicts"]
        benign = [r for r in rs if r.case.label == "benign"]
        caught = [r for r in contra if r.warned]
        out[split] = {
            "cases": len(rs),
            "contradicts": len(contra),
            "caught": len(caught),
            "attributed": sum(r.attributed for r in caught),
            "benign": len(benign),
            "false_warnings": sum(r.warned for r in benign),
            "recall": _rate(len(caught), len(contra)),
            "false_positive_rate": _rate(sum(r.warned for r in benign), len(benign)),
        }
    return out


def _rate(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile with linear interpolation between closest ranks (numpy's default)."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return round(xs[lo] + (xs[hi] - xs[lo]) * (pos - lo), 3)

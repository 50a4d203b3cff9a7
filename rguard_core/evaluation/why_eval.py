"""The "why" evaluation: labelled why-questions (eval/why_cases.yaml), scored by hit@3.

Definitions:
- **hit@3**: the share of questions whose expected decision (any of the ids listed) is among the first three
  decisions the answer shows; **hit@1** the same for the first; **MRR** the mean of 1/rank (0 when not shown).
- **tune** cases were used while tuning ``rguard_core/explore/why.py``; **holdout** cases were written with them and
  only run for the reported figures. Both are reported, never merged into one number.
- A case's repository is prepared when its graph is missing: ``demo`` loads the demo seed, ``realdata``
  ingests ``../shared/realdata/github`` (cases for an absent folder are skipped and counted).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TypedDict

import yaml

from ..db import Store
from ..errors import InvalidInput
from ..explore.why import why
from ..jsontypes import JSONObject
from ..resources import CHECKOUT, eval_dir
from .history import RunInfo, current_run
from .pristine import GraphState, graph_state

DEFAULT_WHY_CASES = eval_dir() / "why_cases.yaml"
REALDATA = CHECKOUT.parent / "shared" / "realdata" / "github"  # beside a checkout only
SPLITS = ("tune", "holdout")
TOP = 3


@dataclass(frozen=True)
class WhyCase:
    id: str
    repo: str
    question: str
    expect: tuple[str, ...]  # decision ids
    split: str


class WhyMetrics(TypedDict):
    """One split's block of the --json ``metrics`` (rates are None when the split has no cases)."""

    n: int
    hit_at_3: float | None
    hit_at_1: float | None
    mrr: float | None


@dataclass(frozen=True)
class WhyCaseResult:
    case: WhyCase
    rank: int | None  # 1-based rank of the first expected decision, None when not shown
    got: list[str]  # decision ids in answer order
    ms: float

    @property
    def hit(self) -> bool:
        return self.rank is not None and self.rank <= TOP


@dataclass(frozen=True)
class WhyEvalResult:
    run: RunInfo
    cases_file: str
    results: list[WhyCaseResult] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    graphs: list[GraphState] = field(default_factory=list)  # each graph scored, with the reviewer edits in force

    def metrics(self, split: str | None = None) -> WhyMetrics:
        rs = [r for r in self.results if split is None or r.case.split == split]
        n = len(rs)
        if not n:
            return {"n": 0, "hit_at_3": None, "hit_at_1": None, "mrr": None}
        return {
            "n": n,
            "hit_at_3": round(sum(r.hit for r in rs) / n, 4),
            "hit_at_1": round(sum(r.rank == 1 for r in rs) / n, 4),
            "mrr": round(sum(1 / r.rank for r in rs if r.rank) / n, 4),
        }

    def as_dict(self) -> JSONObject:
        return {
            "run": self.run.as_dict(),
            "cases_file": self.cases_file,
            "skipped": self.skipped,
            "graphs": [g.as_dict() for g in self.graphs],
            "metrics": {s: self.metrics(s) for s in SPLITS} | {"all": self.metrics()},
            "cases": [
                {**asdict(r.case), "rank": r.rank, "hit": r.hit, "got": r.got[:5], "ms": r.ms} for r in self.results
            ],
        }

    def history_record(self) -> JSONObject:
        return {
            **self.run.as_dict(),
            "cases_file": self.cases_file,
            "metrics": {s: self.metrics(s) for s in SPLITS} | {"all": self.metrics()},
        }


def load_why_cases(path: Path | str = DEFAULT_WHY_CASES) -> tuple[dict[str, str], list[WhyCase]]:
    """(repo → how to prepare it, cases); InvalidInput names the first malformed case."""
    p = Path(path)
    if not p.is_file():
        raise InvalidInput(f"no why-cases file at {p}")
    data = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    repos = data.get("repos") or {}
    out, seen = [], set()
    for i, c in enumerate(data.get("cases") or []):
        missing = [k for k in ("id", "repo", "question", "expect", "split") if not c.get(k)]
        if missing or c.get("split") not in SPLITS or c["repo"] not in repos or c["id"] in seen:
            raise InvalidInput(
                f"{p}: case {i + 1} ({c.get('id', '?')}) needs id, a repo listed under repos, "
                f"question, expect and split tune|holdout, and a unique id"
            )
        seen.add(c["id"])
        expect = tuple(e if e.startswith("decision:") else f"decision:{e}" for e in c["expect"])
        out.append(WhyCase(c["id"], c["repo"], " ".join(str(c["question"]).split()), expect, c["split"]))
    return {str(k): str(v) for k, v in repos.items()}, out


def prepare(store: Store, repo: str, how: str, realdata: Path = REALDATA) -> bool:
    """Make sure ``repo``'s graph exists; False when its data is not on this machine."""
    if store.repo_graph(repo).exists():
        return True
    if how == "demo":
        from ..seed import load_demo

        load_demo(store)
        return True
    if how == "realdata" and realdata.is_dir():
        from ..ingest.pipeline import ingest_snapshot

        ingest_snapshot(store, realdata, repo=repo)
        return True
    return False


def run_why_eval(
    store: Store,
    path: Path | str = DEFAULT_WHY_CASES,
    splits: tuple[str, ...] = SPLITS,
    progress: Callable[[int, int, str], None] | None = None,
) -> WhyEvalResult:
    repos, cases = load_why_cases(path)
    res = WhyEvalResult(current_run(None), str(path))
    ready = {
        repo: prepare(store, repo, how)
        for repo, how in repos.items()
        if any(c.repo == repo and c.split in splits for c in cases)
    }
    # like the guard eval: say whether reviewers changed a graph the answers come from (issue 23, item 9)
    res.graphs.extend(graph_state(store, repo, repo) for repo, ok in ready.items() if ok)
    todo = [c for c in cases if c.split in splits]
    for i, c in enumerate(todo):
        if progress:
            progress(i, len(todo), c.id)
        if not ready.get(c.repo):
            res.skipped.append(c.id)
            continue
        t0 = time.perf_counter()
        ans = why(store, c.repo, c.question)
        got = [d.receipt.id for d in ans.decisions]
        rank = next((k + 1 for k, d in enumerate(got) if d in c.expect), None)
        res.results.append(WhyCaseResult(c, rank, got, round((time.perf_counter() - t0) * 1000, 1)))
    if progress:
        progress(len(todo), len(todo), "")
    return res

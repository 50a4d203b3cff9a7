"""Replay: measure the guard on a repository's own history, as its CI would have seen each change.

The history (a local git clone's mainline, or a snapshot folder's merged PRs) is walked once in landing
order. Each sampled change is guarded against the graph *as it was just before it landed*, then appended
to that one graph with incremental ingest (so nothing from the change itself or later is in the graph when
it is guarded: no REVERTS edge to itself, no later PR). Nothing is re-ingested per case.

Cases:
- revert    a change that reverts an earlier one, in any form ingest/reverts.py reads (git's ``This reverts
            commit <sha>`` for a mainline commit, a ``Revert "<title>"`` subject, ``This reverts #N`` /
            ``Reverts #N`` / ``Revert #N``). Caught = verdict ``warn`` with a ``contradicts`` finding that
            cites the reverted change (its decision, its PR number, or an ADR reached through it).
            ``scope`` is ``code`` when the reverted change is not mechanical (ingest/mechanical.py) and
            changed product code (a source file outside tests and docs), else ``other`` (docs, CI, tests,
            bumps: a bump is a source, not a decision, so its revert has nothing to cite).
- ordinary  a seeded sample of the other changes: not a revert, never reverted, not mechanical, with a
            diff. Warned = verdict ``warn``.

What the graph holds at a case: every earlier change with its comments, the issues earlier PRs link (as the
source stores them: a snapshot's issue text and comments may be later than the PR), and the ADRs earlier
PRs added (their text as added, not as it reads today). People appear with their first change.

Metrics: ``catch_rate`` = caught / revert cases of scope ``code`` (the issue's "real reverts of product
code"); ``catch_rate_all`` = caught / all revert cases; ``ordinary_warn_rate`` = warned ordinary cases /
ordinary cases (cases whose guard run failed are counted apart, in ``errors``); ``rules`` = rule ids on the
contradicting findings (per kind); ``guard_ms`` percentiles per case; ``append_s`` = time spent appending.
"""

from __future__ import annotations

import random
import re
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypedDict

from ..db import Store, validate_repo
from ..errors import InvalidInput, RGuardError
from ..guard.diffparse import diff_from_patches
from ..ingest.build import Known
from ..ingest.collect import added_file_text
from ..ingest.extract.base import Extractor
from ..ingest.extract.offline import OfflineExtractor
from ..ingest.links import parse_links
from ..ingest.mechanical import commit_rule, pull_rule
from ..ingest.model import Commit, Doc, FileChange, Issue, Person, PullRequest, RepoHistory
from ..ingest.reverts import RevertIndex, RevertLink, revert_shas
from ..jsontypes import JSONObject
from .guard_eval import percentile
from .history import RunInfo, current_run

Progress = Callable[[int, int, str], None]  # (done, total, what)

DEFAULT_REVERTS = 20
DEFAULT_ORDINARY = 50
DEFAULT_SEED = 7
SCRATCH_OWNER = "replay"


@dataclass(frozen=True)
class Step:
    """One change as it landed: a merged PR (with its merge/squash commit) or a plain mainline commit."""

    id: str  # pr:N | commit:<sha>
    at: str
    title: str
    body: str
    files: tuple[FileChange, ...]
    pull: PullRequest | None = None
    commit: Commit | None = None
    issues: tuple[Issue, ...] = ()
    docs: tuple[Doc, ...] = ()
    brought_in: tuple[str, ...] = ()  # shas of branch commits this merge brought onto the mainline (named by reverts)
    # a branch merge's own commits (and the PRs they merged on the branch), appended with it: they carry its decisions
    branch: tuple[Commit, ...] = ()
    branch_pulls: tuple[PullRequest, ...] = ()

    @property
    def diff(self) -> str:
        rows = [
            {"path": f.path, "status": f.status, "patch": f.patch, "previous_path": f.previous_path}
            for f in self.files
            if f.patch.strip()
        ]
        return diff_from_patches(rows) if rows else ""  # type: ignore[arg-type]


@dataclass(frozen=True)
class ReplayCase:
    """One guarded change and what the guard said about it."""

    id: str  # the change's source id
    kind: str  # revert | ordinary
    title: str
    at: str
    position: int  # index of the change in the walk (0 = oldest)
    target: str | None  # revert: the change it reverts
    target_title: str | None
    form: str | None  # revert: sha | title | number | branch
    scope: str | None  # revert: code | other (see the module docstring)
    verdict: str  # warn | note | pass | error
    caught: bool | None  # revert: warned citing the target; ordinary: None
    cited: tuple[str, ...]  # decisions the contradicting findings name
    rules: tuple[str, ...]  # rule ids on the contradicting findings
    guard_ms: float
    findings: tuple[JSONObject, ...] = ()  # the guard report's findings as its --json has them
    error: str | None = None

    @property
    def warned(self) -> bool:
        return self.verdict == "warn"

    def as_dict(self) -> JSONObject:
        return {
            "id": self.id,
            "kind": self.kind,
            "title": self.title,
            "at": self.at,
            "position": self.position,
            "target": self.target,
            "target_title": self.target_title,
            "form": self.form,
            "scope": self.scope,
            "verdict": self.verdict,
            "caught": self.caught,
            "cited": list(self.cited),
            "rules": list(self.rules),
            "guard_ms": round(self.guard_ms, 1),
            "findings": list(self.findings),
            "error": self.error,
        }


class ReplayEligible(TypedDict):
    revert: int
    ordinary: int


class ReplayCounts(TypedDict):
    revert: int
    revert_code: int
    ordinary: int
    errors: int


class ReplayMetrics(TypedDict):
    """The ``metrics`` block of ``eval replay --json`` and of its history record (see the module docstring)."""

    steps: int
    reverts_found: int
    revert_forms: dict[str, int]
    eligible: ReplayEligible
    counts: ReplayCounts
    caught: int
    caught_code: int
    catch_rate: float | None
    catch_rate_all: float | None
    ordinary_warned: int
    ordinary_warn_rate: float | None
    rules: dict[str, dict[str, int]]  # revert_caught / revert_missed / ordinary_warned -> rule id -> cases
    guard_ms_p50: float | None
    guard_ms_p95: float | None
    guard_ms_max: float | None
    append_s: float
    seconds: float
    seconds_per_case: float | None


@dataclass(frozen=True)
class ReplayResult:
    source: str
    seed: int
    metrics: ReplayMetrics
    cases: tuple[ReplayCase, ...]
    run: RunInfo

    def as_dict(self) -> JSONObject:
        """The CLI's JSON contract: source, seed, metrics, cases, run."""
        return {
            "source": self.source,
            "seed": self.seed,
            "metrics": self.metrics,
            "cases": [c.as_dict() for c in self.cases],
            "run": self.run.as_dict(),
        }

    def history_record(self) -> JSONObject:
        """What eval history keeps: metrics and per-case outcomes, without findings."""
        return {
            **self.run.as_dict(),
            "kind": "replay",
            "source": self.source,
            "seed": self.seed,
            "metrics": self.metrics,
            "cases": [{k: v for k, v in c.as_dict().items() if k != "findings"} for c in self.cases],
        }


# --- reading a history into steps ----------------------------------------------------------------


def git_steps(path: Path | str, max_commits: int = 100_000) -> tuple[RepoHistory, list[Step]]:
    """A clone's mainline (first parent) oldest first: one step per squash/merge PR or plain commit."""
    from ..ingest.gitlocal import landed_with, read_git_history

    hist = read_git_history(Path(path), f"{SCRATCH_OWNER}/history", max_commits=max_commits, first_parent=True)
    by_sha = {p.merge_commit_sha: p for p in hist.pulls}
    docs = _docs_as_added(hist)
    # a revert on the mainline may name a commit a merge brought in from its branch: that merge is what it reverts
    mainline = {c.sha for c in hist.commits if not c.merged_by}
    named = sorted(
        {
            sha
            for c in hist.commits
            for sha in revert_shas(c.message)
            if not any(m.startswith(sha.lower()) for m in mainline)
        }
    )
    merged_in: dict[str, list[str]] = {}
    for sha, merge in (landed_with(Path(path), named, mainline) if named else {}).items():
        merged_in.setdefault(merge, []).append(sha)
    branch: dict[str, list[Commit]] = {}
    for c in reversed(hist.commits):
        if c.merged_by:
            branch.setdefault(c.merged_by, []).append(c)
    steps = []
    for c in reversed(hist.commits):
        if c.merged_by:
            continue  # appended with the merge that brought it in, below
        p = by_sha.get(c.sha)
        extra = tuple(merged_in.get(c.sha, ()))
        if p is not None:
            steps.append(
                Step(
                    f"pr:{p.number}",
                    c.date or "",
                    p.title,
                    p.body,
                    tuple(p.files),
                    pull=p,
                    commit=c,
                    docs=tuple(docs.get(p.number, ())),
                    brought_in=extra,
                )
            )
        else:
            subject = c.message.split("\n", 1)[0].strip()
            own = tuple(branch.get(c.sha, ()))
            steps.append(
                Step(
                    f"commit:{c.sha}",
                    c.date or "",
                    subject,
                    c.message,
                    tuple(c.files),
                    commit=c,
                    brought_in=extra,
                    branch=own,
                    branch_pulls=tuple(by_sha[b.sha] for b in own if b.sha in by_sha),
                )
            )
    return hist, steps


def snapshot_steps(path: Path | str, repo: str | None = None) -> tuple[RepoHistory, list[Step]]:
    """A snapshot folder's merged PRs in merge order, each with the issues it links and the ADRs it added."""
    from ..ingest.collect import collect_history
    from ..ingest.rest import SnapshotSource

    hist = collect_history(SnapshotSource(Path(path), repo), max_prs=1_000_000)
    issues = {i.number: i for i in hist.issues}
    docs = _docs_as_added(hist)
    steps = []
    for p in sorted((p for p in hist.pulls if p.merged), key=lambda p: (p.merged_at or "", p.number)):
        ln = parse_links(p.body, p.title, p.number)
        nums = ln.fixes | ln.references | ln.depends_on
        for c in p.comments:
            nums |= parse_links(c.body).references
        linked = tuple(issues[n] for n in sorted(nums) if n in issues)
        steps.append(
            Step(
                f"pr:{p.number}",
                p.merged_at or "",
                p.title,
                p.body,
                tuple(p.files),
                pull=p,
                issues=linked,
                docs=tuple(docs.get(p.number, ())),
            )
        )
    return hist, steps


def _docs_as_added(hist: RepoHistory) -> dict[int, list[Doc]]:
    """ADRs by the PR that added them, with the text as that PR added it (not as it reads today)."""
    files = {(p.number, f.path): f for p in hist.pulls for f in p.files}
    out: dict[int, list[Doc]] = {}
    for d in hist.docs:
        f = files.get((d.added_by_pr, d.path)) if d.added_by_pr is not None else None
        text = added_file_text(f.patch) if f is not None and f.status == "added" and f.patch else None
        if d.added_by_pr is not None and text:
            out.setdefault(d.added_by_pr, []).append(Doc(d.path, text, d.url, d.added_by_pr))
    return out


def find_reverts(steps: list[Step]) -> dict[str, RevertLink]:
    """Each reverting step's link to the earlier step it reverts (resolved against the steps before it only)."""
    index = RevertIndex()
    out: dict[str, RevertLink] = {}
    for s in steps:
        extra = s.commit.message if s.commit is not None and s.pull is not None else ""
        links = index.resolve(s.id, s.title, f"{s.body}\n{extra}" if extra else s.body)
        if links:
            out[s.id] = links[0]
        number = s.pull.number if s.pull else None
        shas = tuple(
            x for x in ((s.pull.merge_commit_sha if s.pull else None), s.commit.sha if s.commit else None) if x
        )
        shas += s.brought_in + tuple(b.sha for b in s.branch)
        index.add(s.id, s.title, shas, number)
        if s.commit is not None:
            index.add(s.id, s.commit.message.split("\n", 1)[0].strip())  # the subject, "(#N)" and all
    return out


# --- choosing the cases --------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    steps: list[Step]
    reverts: dict[str, RevertLink]  # every revert found
    cases: dict[str, str]  # step id -> revert | ordinary
    eligible_reverts: int
    eligible_ordinary: int
    mechanical: frozenset[str] = frozenset()  # step ids of mechanical changes (and reverts of them)
    code: frozenset[str] = frozenset()  # step ids that changed product code


def plan_cases(
    steps: list[Step], n_reverts: int, n_ordinary: int, seed: int, people: dict[str, Person] | None = None
) -> Plan:
    """Every revert with a diff (a seeded sample of ``n_reverts`` when there are more), and a seeded sample of
    ``n_ordinary`` changes that neither revert nor were reverted nor are mechanical. The first change is never
    a case (there is no graph before it)."""
    if n_reverts < 0 or n_ordinary < 0:
        raise InvalidInput("--reverts and --ordinary must be 0 or more")
    reverts = find_reverts(steps)
    reverted = {rv.target for rv in reverts.values()}
    mech = _mechanical(steps, reverts, people or {})
    code = frozenset(s.id for s in steps if any(is_product_code(f.path) for f in s.files))
    with_diff = [s for s in steps[1:] if s.diff]
    rev_ids = [s.id for s in with_diff if s.id in reverts]
    ord_ids = [s.id for s in with_diff if s.id not in reverts and s.id not in reverted and s.id not in mech]
    rng = random.Random(seed)
    pick_r = rev_ids if len(rev_ids) <= n_reverts else rng.sample(rev_ids, n_reverts)
    pick_o = ord_ids if len(ord_ids) <= n_ordinary else rng.sample(ord_ids, n_ordinary)
    cases = {i: "revert" for i in pick_r} | {i: "ordinary" for i in pick_o}
    return Plan(steps, reverts, cases, len(rev_ids), len(ord_ids), mech, code)


def _mechanical(steps: list[Step], reverts: dict[str, RevertLink], people: dict[str, Person]) -> frozenset[str]:
    out: set[str] = set()
    for s in steps:
        rule = pull_rule(s.pull, people) if s.pull else commit_rule(s.commit, people) if s.commit else None
        if rule or (s.id in reverts and reverts[s.id].target in out):
            out.add(s.id)
    return frozenset(out)


CODE_SUFFIXES = frozenset(
    (
        ".py",
        ".pyx",
        ".js",
        ".mjs",
        ".cjs",
        ".ts",
        ".tsx",
        ".jsx",
        ".go",
        ".rs",
        ".java",
        ".kt",
        ".rb",
        ".php",
        ".c",
        ".h",
        ".cc",
        ".cpp",
        ".hpp",
        ".cs",
        ".swift",
        ".scala",
        ".sql",
        ".sh",
        ".vue",
        ".svelte",
        ".ex",
        ".exs",
        ".erl",
        ".hs",
        ".lua",
        ".m",
        ".dart",
    )
)


def is_product_code(path: str) -> bool:
    """A source file outside tests, docs, examples and CI."""
    from ..guard.tokens import is_test_path
    from ..ingest.mechanical import M6_CI

    name = path.rsplit("/", 1)[-1].lower()
    ext = "." + name.rsplit(".", 1)[-1] if "." in name else ""
    low = path.lower()
    if ext not in CODE_SUFFIXES or is_test_path(path) or M6_CI.search(path):
        return False
    return not any(low.startswith(d) or f"/{d}" in low for d in ("docs/", "doc/", "examples/", "scripts/", "bench"))


# --- the walk ------------------------------------------------------------------------------------


def run_replay(
    store: Store,
    *,
    git: Path | str | None = None,
    snapshot: Path | str | None = None,
    repo: str | None = None,
    reverts: int = DEFAULT_REVERTS,
    ordinary: int = DEFAULT_ORDINARY,
    seed: int = DEFAULT_SEED,
    judge: str = "offline",
    extractor: Extractor | None = None,
    max_commits: int = 100_000,
    progress: Progress | None = None,
    keep_graph: bool = False,
) -> ReplayResult:
    """Replay a git clone (``git``) or a snapshot folder (``snapshot``) and score the guard on it."""
    if (git is None) == (snapshot is None):
        raise InvalidInput("give exactly one history to replay: --git PATH or --snapshot DIR")
    t0 = time.perf_counter()
    if git is not None:
        hist, steps = git_steps(git, max_commits)
        source = f"git:{git}"
    else:
        assert snapshot is not None
        hist, steps = snapshot_steps(snapshot, repo)
        source = f"snapshot:{snapshot}"
    plan = plan_cases(steps, reverts, ordinary, seed, hist.people)
    name = _scratch_repo(Path(str(git or snapshot)).name)
    walker = _Walker(store, name, hist, extractor or OfflineExtractor(), source)
    walker.branch_of = {
        s.id: (*(f"commit:{b.sha}" for b in s.branch), *(f"pr:{p.number}" for p in s.branch_pulls))
        for s in steps
        if s.branch
    }
    titles = {s.id: s.title for s in steps}
    cases: list[ReplayCase] = []
    try:
        pending: list[Step] = []
        for i, step in enumerate(steps):
            kind = plan.cases.get(step.id)
            if kind is not None:
                if progress:
                    progress(i, len(steps), f"{kind} {step.id}: {step.title[:50]}")
                walker.append(pending)
                pending = []
                rv = plan.reverts.get(step.id) if kind == "revert" else None
                scope = (
                    None
                    if rv is None
                    else ("code" if rv.target in plan.code and rv.target not in plan.mechanical else "other")
                )
                cases.append(walker.guard(step, i, kind, rv, titles.get(rv.target) if rv else None, judge, scope))
            pending.append(step)
        if progress:
            progress(len(steps), len(steps), "")
    finally:
        if not keep_graph:
            store.repo_graph(name).delete()
    metrics = _metrics(cases, plan, walker.append_s, time.perf_counter() - t0)
    return ReplayResult(source, seed, metrics, tuple(cases), current_run(judge))


class _Walker:
    """The one graph the walk grows: appended to before each case, guarded against at each case."""

    def __init__(self, store: Store, repo: str, hist: RepoHistory, extractor: Extractor, source: str) -> None:
        self.store, self.repo, self.hist, self.ex, self.source = store, repo, hist, extractor, source
        self.known = Known()
        self.append_s = 0.0
        self.branch_of: dict[str, tuple[str, ...]] = {}  # a branch merge's step id -> its commits' source ids

    def append(self, steps: list[Step]) -> None:
        from ..ingest.pipeline import append_history

        if not steps:
            return
        t = time.perf_counter()
        append_history(self.store, self._delta(steps), self.ex, f"replay:{self.source}", self.known)
        self.append_s += time.perf_counter() - t

    def _delta(self, steps: list[Step]) -> RepoHistory:
        return delta_history(self.hist, steps, self.repo)

    def guard(
        self,
        step: Step,
        pos: int,
        kind: str,
        rv: RevertLink | None,
        target_title: str | None,
        judge: str,
        scope: str | None = None,
    ) -> ReplayCase:
        from ..guard.run import run_guard

        t = time.perf_counter()
        # what every outcome shares; the guard's answer (or its error) fills in the rest
        case = ReplayCase(
            step.id,
            kind,
            step.title,
            step.at,
            pos,
            rv.target if rv else None,
            target_title,
            rv.form if rv else None,
            scope,
            "error",
            False if rv else None,
            (),
            (),
            0.0,
        )
        try:
            if not self.store.repo_graph(self.repo).exists():
                raise InvalidInput("nothing landed before this change")
            report = run_guard(self.store, self.repo, step.diff, judge=judge)
        except Exception as e:  # noqa: BLE001 - one change the guard cannot handle must not lose a long replay
            why = str(e) if isinstance(e, RGuardError) else f"{type(e).__name__}: {e}"
            return replace(case, guard_ms=(time.perf_counter() - t) * 1000, error=why)
        ms = (time.perf_counter() - t) * 1000
        contra = [f for f in report.findings if f.label == "contradicts"]
        caught = None
        if rv is not None:
            targets = (rv.target, *self.branch_of.get(rv.target, ()))  # a branch merge's decisions are its commits'
            caught = report.verdict == "warn" and any(_cites(f.as_dict(), t) for f in contra for t in targets)
        compact = tuple(
            {
                "decision_id": f.decision_id,
                "label": f.label,
                "score": round(f.score, 3),
                "summary": f.summary,
                "source": f.source,
                "hops": f.hops,
                "reason": f.reason,
                "rules": list(finding_rules(f)),
            }
            for f in report.findings[:8]
        )
        return replace(
            case,
            verdict=report.verdict,
            caught=caught,
            cited=tuple(dict.fromkeys(f.decision_id for f in contra)),
            rules=tuple(dict.fromkeys(r for f in contra for r in finding_rules(f))),
            guard_ms=ms,
            findings=compact,
        )


def delta_history(hist: RepoHistory, steps: list[Step], repo: str) -> RepoHistory:
    """The steps as a RepoHistory to append: their PRs, commits, ADRs, linked issues and only their people."""
    delta = RepoHistory(repo=repo, url=hist.url)
    issues: dict[int, Issue] = {}
    for s in steps:
        delta.pulls += list(s.branch_pulls)
        delta.commits += list(s.branch)
        if s.pull is not None:
            delta.pulls.append(s.pull)
        if s.commit is not None:
            delta.commits.append(s.commit)
        delta.docs += list(s.docs)
        for i in s.issues:
            issues[i.number] = i
    delta.issues = list(issues.values())
    logins = {p.author for p in delta.pulls} | {c.author for c in delta.commits} | {i.author for i in delta.issues}
    logins |= {c.author for p in delta.pulls for c in p.comments} | {c.author for i in delta.issues for c in i.comments}
    delta.people = {k: hist.people[k] for k in logins if k and k in hist.people}
    return delta


def finding_rules(f: Any) -> tuple[str, ...]:
    """The rule ids a finding carries (``rules`` / ``rule_ids``), else one coarse id read from its reason."""
    for attr in ("rules", "rule_ids"):
        got = getattr(f, attr, None)
        if got:  # the offline judge's Finding.rules: [{"id", "why"}]
            return tuple(str(r["id"]) if isinstance(r, dict) else str(r) for r in got)
    reason = str(getattr(f, "reason", "") or "")
    for key, rid in _REASON_RULES:
        if key in reason:
            return (rid,)
    return ("other",) if getattr(f, "label", "") == "contradicts" else ()


# Until findings carry rule ids, the offline judge's reason text says which branch fired.
_REASON_RULES = (
    ("undoes the decision's own change", "undo"),
    ("rewrites the text that states", "prose-rewrite"),
    ("line(s) the decision's change wrote", "decisive"),
    ("the opposite (", "negation"),
    ("without the guard", "unguarded"),
    ("changes the status of", "adr-status"),
    ("the diff flips", "flip"),
)


def _cites(finding: JSONObject, target: str) -> bool:
    """Does a contradicting finding cite the reverted change: its decision, its PR, or an ADR reached through it?"""
    if finding.get("decision_id") == f"decision:{target}":
        return True
    src = finding.get("source") or {}
    if target.startswith("pr:") and src.get("kind") == "pr" and str(src.get("number")) == target[3:]:
        return True
    return "adr" in (finding.get("hops") or []) and target in (finding.get("path") or [])


def _scratch_repo(base: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9.-]+", "-", base).strip("-.")[:40] or "history"
    return validate_repo(f"{SCRATCH_OWNER}/{slug}-{secrets.token_hex(4)}")


def _metrics(cases: list[ReplayCase], plan: Plan, append_s: float, seconds: float) -> ReplayMetrics:
    ok = [c for c in cases if c.verdict != "error"]
    rev = [c for c in ok if c.kind == "revert"]
    code = [c for c in rev if c.scope == "code"]
    ordn = [c for c in ok if c.kind == "ordinary"]
    caught = sum(1 for c in rev if c.caught)
    caught_code = sum(1 for c in code if c.caught)
    warned = sum(1 for c in ordn if c.warned)
    rules: dict[str, dict[str, int]] = {
        "revert_caught": dict(Counter(r for c in rev if c.caught for r in c.rules)),
        "revert_missed": dict(Counter(r for c in rev if not c.caught for r in c.rules)),
        "ordinary_warned": dict(Counter(r for c in ordn if c.warned for r in c.rules)),
    }
    times = [c.guard_ms for c in ok]
    return {
        "steps": len(plan.steps),
        "reverts_found": len(plan.reverts),
        "revert_forms": dict(Counter(rv.form for rv in plan.reverts.values())),
        "eligible": {"revert": plan.eligible_reverts, "ordinary": plan.eligible_ordinary},
        "counts": {"revert": len(rev), "revert_code": len(code), "ordinary": len(ordn), "errors": len(cases) - len(ok)},
        "caught": caught,
        "caught_code": caught_code,
        "catch_rate": round(caught_code / len(code), 4) if code else None,
        "catch_rate_all": round(caught / len(rev), 4) if rev else None,
        "ordinary_warned": warned,
        "ordinary_warn_rate": round(warned / len(ordn), 4) if ordn else None,
        "rules": rules,
        "guard_ms_p50": _r(percentile(times, 50)),
        "guard_ms_p95": _r(percentile(times, 95)),
        "guard_ms_max": _r(max(times) if times else None),
        "append_s": round(append_s, 2),
        "seconds": round(seconds, 2),
        "seconds_per_case": round(seconds / len(cases), 3) if cases else None,
    }


def _r(v: float | None) -> float | None:
    return None if v is None else round(v, 1)


__all__ = [
    "ReplayCase",
    "ReplayResult",
    "Step",
    "delta_history",
    "find_reverts",
    "git_steps",
    "plan_cases",
    "run_replay",
    "snapshot_steps",
    "finding_rules",
]

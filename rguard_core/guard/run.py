"""run_guard: parse → candidates (multi-hop Cypher) → premises, alternatives → judge → experts → report."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Literal

from ..config import Settings
from ..db import Graph, QueryLog, Store
from ..errors import InvalidInput, UnknownRepository
from ..graph_state import require_complete
from . import alternatives as alts
from . import candidates as cands
from . import decisions, experts, import_hop, premises, renames
from .diffparse import diff_from_patches, parse_diff
from .dismissals import apply_dismissals
from .judge_offline import OfflineJudge, cap_unstated, diff_change_sets
from .learned import learned
from .model import Candidate, DecisionInfo, Finding, GuardReport, Judgement, ParsedDiff, Verdict
from .request import GuardRequest
from .revert import search_lines
from .tokens import ChangeSet

MIN_SCORE = 0.1  # findings whose score falls below this are not shown
MAX_FINDINGS = 20
SUPERSEDED_SCORE = 0.3
SUPERSEDED_RULE = "S2"
Mode = Literal["concurrent", "sequential"]


def stand_in(j: Judgement, replaces: list[str]) -> Judgement:
    """S2: where the diff touches what a superseded decision covered (``replaces``: the decisions this one
    superseded) and the judge found nothing, the standing decision is shown instead (related)."""
    if j.label != "unrelated" or not replaces:
        return j
    why = f"stands in for superseded {', '.join(replaces)}, which this diff reaches"
    return Judgement("related", SUPERSEDED_SCORE, why, ((SUPERSEDED_RULE, why),))


_POOL = ThreadPoolExecutor(max_workers=6, thread_name_prefix="rguard-guard")

PR_TIME_Q = "MATCH (p:PR {number: $n}) RETURN coalesce(p.created_at, p.merged_at) AS at"
PR_PATCHES_Q = """
MATCH (p:PR {number: $n})-[t:TOUCHES]->(f:File)
WHERE t.status <> 'renamed_from'
RETURN f.path AS path, t.status AS status, t.patch AS patch, t.previous_path AS previous_path
ORDER BY f.path
"""


@dataclass(frozen=True)
class Leads:
    """Stage 1: what the diff's files, lines and symbols reach (independent reads)."""

    touches: list[dict[str, str]]  # decisions whose change touched the diff's files (ranked later)
    issue: list[Candidate]  # reached through an issue linked to a PR on these files
    adr: list[Candidate]  # ADRs naming these files
    known: set[str]  # the diff's paths the graph has seen before
    reverted: list[Candidate]  # decisions whose lines the diff removes (or whose removals it adds back)
    users: dict[str, list[str]]  # rare identifier -> source ids mentioning it


@dataclass(frozen=True)
class Context:
    """Stage 2: what the judge and the report need about each candidate decision (independent reads)."""

    infos: dict[str, DecisionInfo] = field(default_factory=dict)
    alternatives: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    learned: dict[str, list[str]] = field(default_factory=dict)  # feedback still in force, as notes
    premises: dict[str, list[dict[str, str]]] = field(default_factory=dict)  # every rule's rows, in RULES order


@dataclass(frozen=True)
class Gathered:
    """What the graph work of one run hands the judge: the merged candidates and their context."""

    candidates: list[Candidate]
    context: Context


def run_guard(
    store: Store,
    repo: str,
    diff_text: str | None,
    *,
    judge: str = "offline",
    pr: int | None = None,
    settings: Settings | None = None,
    mode: Mode = "sequential",
) -> GuardReport:
    """Guard one diff (or PR ``pr`` as stored in the graph) against the repository's earlier decisions."""
    return run_request(store, GuardRequest(repo, diff_text, pr, judge), settings=settings, mode=mode)


def run_request(
    store: Store, req: GuardRequest, *, settings: Settings | None = None, mode: Mode = "sequential"
) -> GuardReport:
    """Guard what ``req`` names (its repository, judge, diff and size limit are checked when it is built).

    ``mode="concurrent"`` runs each stage's independent reads on a thread pool; bench/guard.py measured it
    slower than one by one at 20,000 PRs on 2 cores (p50 74 vs 59 ms) and about even on the seed, so
    sequential is the default.
    """
    t0 = time.perf_counter()
    repo, diff_text, pr, judge = req.repo, req.diff, req.pr, req.judge
    settings = settings or store.settings
    log = QueryLog()
    graph = store.repo_graph(repo, log)
    if not graph.exists():
        raise UnknownRepository(repo)
    require_complete(graph)
    if diff_text is None or (not diff_text.strip() and pr is not None):
        if pr is None:
            raise InvalidInput("give a diff (--diff FILE or -) or a pull request number (--pr N)")
        diff_text = _pr_diff(graph, pr)
    t_parse0 = time.perf_counter()
    parsed = parse_diff(diff_text)
    diff_sets = diff_change_sets(parsed.files)
    t_parse = (time.perf_counter() - t_parse0) * 1000
    exclude = [f"pr:{pr}"] if pr is not None else []
    renames.follow(parsed, diff_sets, renames.earlier_names(graph, parsed.paths, exclude))  # REV1-3 follow renames
    run = _Run(graph, parsed, diff_sets, exclude, settings, mode)
    if pr is not None:  # a stored PR is guarded against what was decided before it was opened
        rows = graph.read(PR_TIME_Q, {"n": int(pr)}, name="guard.pr_time")
        run.before = rows[0]["at"] if rows else None
    t_graph0 = time.perf_counter()
    gathered = run.gather()
    t_graph = (time.perf_counter() - t_graph0) * 1000
    t_judge0 = time.perf_counter()
    findings = run.judge(gathered, judge)
    t_judge = (time.perf_counter() - t_judge0) * 1000
    t_who0 = time.perf_counter()
    findings = run.who_to_ask(findings)  # only the findings shown: a passing diff reads no one
    t_graph += (time.perf_counter() - t_who0) * 1000
    findings, dismissed = apply_dismissals(
        graph, parsed, findings, {c.decision_id: c.files for c in gathered.candidates}
    )
    verdict: Verdict = "warn" if any(f.label == "contradicts" for f in findings) else "note" if findings else "pass"
    if verdict == "pass" and parsed.skipped_files:
        verdict = "note"  # what was not checked cannot pass: a padded diff must not hide a warning
    timings = {"parse": t_parse, "graph": t_graph, "judge": t_judge, "total": (time.perf_counter() - t0) * 1000}
    params = [c.get("params") or {} for c in log.as_dicts(with_params=True)]
    return GuardReport(
        repo,
        verdict,
        findings,
        log.as_dicts(),
        timings,
        list(parsed.notes),
        dismissed,
        list(parsed.skipped_files),
        params,
        run.cleared,
        list(parsed.paths),
    )


def _pr_diff(graph: Graph, number: int) -> str:
    rows = graph.read(PR_PATCHES_Q, {"n": int(number)}, name="guard.pr_patches")
    if not rows:
        raise InvalidInput(f"pull request #{number} is not in the graph (or touched no files); ingest it first")
    return diff_from_patches(rows)


class _Run:
    """One guard run's graph work, in three stages whose queries run concurrently (or one by one)."""

    def __init__(
        self,
        graph: Graph,
        parsed: ParsedDiff,
        diff_sets: dict[str, ChangeSet],
        exclude: list[str],
        settings: Settings,
        mode: Mode,
    ) -> None:
        self.g, self.diff, self.sets, self.exclude = graph, parsed, diff_sets, exclude
        self.settings, self.mode = settings, mode
        self.cleared: list[dict[str, str]] = []  # candidates judged and let go, for the review view
        self.before: str | None = None

    def _start[T](self, fn: Callable[[], T]) -> Future[T]:
        """Run ``fn`` on the pool (concurrent mode) or now (sequential mode); either way a Future to read."""
        if self.mode == "concurrent":
            return _POOL.submit(fn)
        done: Future[T] = Future()
        done.set_result(fn())
        return done

    def _leads(self) -> Leads:
        g, d, ex, start = self.g, self.diff, self.exclude, self._start
        idents, _ = self._symbol_inputs()
        touches = start(lambda: cands.touch_rows(g, d, ex))
        issue = start(lambda: cands.linked(g, d, ex))
        adr = start(lambda: cands.adrs(g, d, ex))
        known = start(lambda: cands.known_files(g, d))
        reverted = start(lambda: cands.reverted(g, d, ex, search_lines(self.sets)))
        users = start(lambda: cands.symbol_users(g, list(dict.fromkeys(d.identifiers + idents))))
        return Leads(
            touches.result(),
            issue.result(),
            adr.result(),
            known.result(),
            reverted.result(),
            users.result(),
        )

    def _context(self, ids: list[str]) -> Context:
        if not ids:
            return Context()
        g, start = self.g, self._start
        infos = start(lambda: decisions.decision_infos(g, ids))
        alternatives = start(lambda: alts.alternatives(g, ids))
        notes = start(lambda: learned(g, ids))
        rules = [start(partial(premises.run_rule, g, r, ids, self.settings.inactive_days)) for r in premises.RULES]
        prem: dict[str, list[dict[str, str]]] = {}
        for rule in rules:  # in RULES order, as the report lists them
            for did, p in rule.result():
                prem.setdefault(did, []).append(p)
        return Context(infos.result(), alternatives.result(), notes.result(), prem)

    def gather(self) -> Gathered:
        g, d, ex = self.g, self.diff, self.exclude
        _, new_files = self._symbol_inputs()
        a = self._leads()
        rows = cands.touch_rows_by_symbol(g, d, ex, a.users) + a.touches
        found: list[Candidate] = cands.rank_touches(rows, a.users) + a.reverted + a.adr + a.issue
        found += import_hop.candidates(g, d, ex)
        # the symbol hop is for new, renamed or never-seen files
        fresh = [f for f in new_files if f in self._fresh_paths(a.known)]
        if fresh:
            found += cands.symbols(g, self._idents_of(fresh), a.users, fresh, ex)
        merged = cands.merge(cands.resolve_superseded(g, cands.merge(found)))
        ids = [c.decision_id for c in merged]
        everywhere = [c.decision_id for c in merged if not ({"touches", "adr"} & set(c.hops))]
        b = self._context(ids)
        if ids:
            decisions.attach_patches(g, b.infos, d.paths, everywhere, self._new_file_suffixes())
        return Gathered(merged, b)

    def _new_file_suffixes(self) -> list[str]:
        """Extensions of the code files the diff adds (``.sql``): earlier changes to such files are compared too."""
        out = []
        for f in self.diff.files:
            cs = self.sets.get(f.path)
            ext = "." + f.path.rsplit(".", 1)[-1] if "." in f.path.rsplit("/", 1)[-1] else ""
            if f.status == "added" and ext and cs is not None and cs.kind != "prose" and not cs.test and ext not in out:
                out.append(ext)
        return out

    def _symbol_inputs(self) -> tuple[list[str], list[str]]:
        """Identifiers of the diff's code files, and those files (candidates for the symbol hop)."""
        files = [f.path for f in self.diff.files if not f.binary and f.hunks]
        return self._idents_of(files), files

    def _fresh_paths(self, known: set[str]) -> set[str]:
        return {f.path for f in self.diff.files if f.status in ("added", "renamed") or not (set(f.paths) & known)}

    def _idents_of(self, paths: list[str]) -> list[str]:
        idents: list[str] = []
        for p in paths:
            cs = self.sets.get(p)
            if cs is not None and cs.kind != "prose":
                idents += [n for n, _ in cs.changed_idents.most_common(40) if n not in idents]
        return idents[:60]

    def judge(self, gathered: Gathered, judge: str) -> list[Finding]:
        infos, prem = gathered.context.infos, gathered.context.premises
        items = [
            (c, infos[c.decision_id])
            for c in gathered.candidates
            if c.decision_id in infos and not self._later(infos[c.decision_id])
        ]
        for did, alt in gathered.context.alternatives.items():  # the judge reads the rejected alternatives too
            if did in infos:
                infos[did].rejected = [a["quote"] for a in alt]
        standing = {c.decision_id: not premises.no_longer_stands(prem.get(c.decision_id, [])) for c, _ in items}
        labels = self._labels(items, standing, judge)
        findings = []
        for c, info in items:
            j = stand_in(import_hop.cap(c, labels[c.decision_id], self.sets, info), c.replaces)
            score = j.score * info.score_factor
            if j.label == "unrelated" or score < MIN_SCORE:
                self.cleared.append(
                    {
                        "decision_id": c.decision_id,
                        "summary": info.summary,
                        "why": j.reason or f"judged {j.label} (score {score:.2f})",
                    }
                )
                continue
            findings.append(self._finding(c, info, j, score, prem.get(c.decision_id, []), gathered))
        # ties: a PR or commit (the change itself) before the ADR or correction that records it
        order = {"pr": 0, "commit": 1, "doc": 2, "issue": 3, "correction": 4}
        findings.sort(
            key=lambda f: (f.label != "contradicts", -round(f.score, 4), order.get(f.source["kind"], 5), f.decision_id)
        )
        return findings[:MAX_FINDINGS]

    def who_to_ask(self, findings: list[Finding]) -> list[Finding]:
        """Each finding's experts and bus factor: whom to ask about its *decision* (``experts.for_decisions``,
        over every file the decision changed), the same people in the same order as the decision's detail pane,
        whichever of its files the diff touches."""
        ranking = experts.for_decisions(self.g, [f.decision_id for f in findings], self.settings.inactive_days)
        out = []
        for f in findings:
            r = ranking[f.decision_id]
            out.append(replace(f, experts=[e.as_dict() for e in r.experts], bus_factor=r.bus_factor))
        return out

    def _later(self, info: DecisionInfo) -> bool:
        return bool(self.before and info.at and str(info.at) > self.before)

    def _labels(
        self, items: list[tuple[Candidate, DecisionInfo]], standing: dict[str, bool], judge: str
    ) -> dict[str, Judgement]:
        if judge == "llm":
            from .judge_llm import LLMJudge

            llm = LLMJudge(self.settings).judge_all(self.diff, items, standing)
            # the offline policy applies S7 itself; the LLM judge's labels get it here
            return {c.decision_id: cap_unstated(llm[c.decision_id], info) for c, info in items if c.decision_id in llm}
        off = OfflineJudge()
        off.prepare([info for _, info in items])
        return {c.decision_id: off.judge(self.sets, info, standing[c.decision_id]) for c, info in items}

    def _finding(
        self,
        c: Candidate,
        info: DecisionInfo,
        j: Judgement,
        score: float,
        prem: list[dict[str, str]],
        gathered: Gathered,
    ) -> Finding:
        return Finding(
            decision_id=c.decision_id,
            summary=info.summary,
            quote=info.quote,
            source_url=info.source_url,
            source=decisions.source_ref(info),
            label=j.label,
            score=score,
            hops=c.hops,
            path=c.path,
            premises=sorted(prem, key=lambda p: p["rule"]),
            alternatives=gathered.context.alternatives.get(c.decision_id, []),
            learned=gathered.context.learned.get(c.decision_id, []),
            reason=j.reason,
            rules=[{"id": r, "why": w} for r, w in j.rules],
        )

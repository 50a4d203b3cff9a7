"""One ingest pipeline for every source: collect → extract (verbatim rule) → batched write → support.

Nothing is written until collection and extraction have finished, so a 404, a rate limit or a failing
LLM leaves the graph untouched. The write itself is idempotent: after a crash, run the ingest again.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import Settings
from ..db import Store, validate_repo
from ..errors import InvalidInput
from ..graph_state import require_complete
from ..jsontypes import JSONObject
from ..schema import ensure_schema
from .build import Coverage, Known, build_graph
from .clean import clean_history
from .collect import collect_history, collect_pr_history
from .extract.base import Extractor
from .extract.offline import OfflineExtractor
from .model import RepoHistory
from .rest import SnapshotSource
from .skipped import snapshot_skips
from .writer import mark_reverted, write_batch, write_increments

Progress = Callable[[str, int, int], None]
EXTRACTORS = ("offline", "llm")


@dataclass
class IngestResult:
    repo: str
    graph: str
    source: str
    extractor: str
    coverage: Coverage
    timings_s: dict[str, float] = field(default_factory=dict)
    written: dict[str, int] = field(default_factory=dict)
    requests: int | None = None  # GitHub REST requests made (ingest github)
    not_modified: bool = False  # ingest github --since: the listing answered 304, nothing changed

    def as_dict(self) -> JSONObject:
        out: JSONObject = {
            "repo": self.repo,
            "graph": self.graph,
            "source": self.source,
            "extractor": self.extractor,
            "coverage": self.coverage.as_dict(),
            "timings_s": self.timings_s,
            "written": self.written,
        }
        if self.requests is not None:
            out["requests"] = self.requests
            out["not_modified"] = self.not_modified
        return out


def make_extractor(name: str, settings: Settings | None = None) -> Extractor:
    """``offline`` (deterministic, default) or ``llm`` (any OpenAI-compatible endpoint; fails loudly)."""
    if name == "offline":
        return OfflineExtractor()
    if name == "llm":
        from ..llm import LLMClient
        from .extract.llm import LLMExtractor

        return LLMExtractor(LLMClient(settings or Settings.from_env()))
    raise InvalidInput(f"unknown extractor {name!r}; choose one of: {', '.join(EXTRACTORS)}")


def ingest_history(
    store: Store,
    hist: RepoHistory,
    extractor: Extractor,
    source: str,
    progress: Progress | None = None,
    t_collect: float = 0.0,
) -> IngestResult:
    """Extract and write one collected history into the repository's graph."""
    repo = validate_repo(hist.repo)
    t0 = time.perf_counter()
    clean_history(hist)  # no NUL or control character may reach a write (it would fail half way)
    batch, coverage = build_graph(hist, extractor, progress)
    t1 = time.perf_counter()
    graph = store.repo_graph(repo)
    fresh = not graph.exists()
    ensure_schema(graph)
    _mark(graph, repo, source, "writing", url=hist.url)
    written = write_batch(graph, batch, progress, fresh=fresh)
    written["reverted"] = mark_reverted(graph, batch)
    _mark(graph, repo, source, "complete", url=hist.url, coverage=coverage.as_dict())
    t2 = time.perf_counter()
    _recompute_support(graph, fresh)
    t3 = time.perf_counter()
    timings = {
        "collect": round(t_collect, 3),
        "extract": round(t1 - t0, 3),
        "write": round(t2 - t1, 3),
        "support": round(t3 - t2, 3),
    }
    return IngestResult(repo, graph.name, source, extractor.name, coverage, timings, written)


def append_history(
    store: Store,
    hist: RepoHistory,
    extractor: Extractor,
    source: str,
    known: Known,
    progress: Progress | None = None,
    t_collect: float = 0.0,
) -> IngestResult:
    """Append PRs, commits and issues to a graph that already holds earlier history (incremental ingest).

    ``known`` says what the graph holds (``known_from_graph`` reads it for the numbers and titles the new
    items name). Nodes and edges are merged on ids; derived data (people's activity, EDITED, COLLABORATED)
    is added as increments and support is settled for the new decisions only, so the cost of an append
    follows its size, not the history's. ``known`` is updated with what was appended."""
    repo = validate_repo(hist.repo)
    graph = store.repo_graph(repo)
    if not graph.exists():
        res = ingest_history(store, hist, extractor, source, progress, t_collect)
        remember(known, hist)
        return res
    require_complete(graph)  # appending to a half-written graph would mark its missing part complete
    t0 = time.perf_counter()
    clean_history(hist)  # no NUL or control character may reach a write (it would fail half way)
    batch, coverage = build_graph(hist, extractor, progress, known=known)
    t1 = time.perf_counter()
    _mark(graph, repo, source, "writing", url=hist.url)
    written = write_batch(graph, batch, progress, fresh=False)
    written.update(write_increments(graph, batch))
    written["reverted"] = mark_reverted(graph, batch)
    _mark(graph, repo, source, "complete", url=hist.url, coverage=coverage.as_dict())
    t2 = time.perf_counter()
    _settle_new(graph, batch)
    t3 = time.perf_counter()
    remember(known, hist)
    timings = {
        "collect": round(t_collect, 3),
        "extract": round(t1 - t0, 3),
        "write": round(t2 - t1, 3),
        "support": round(t3 - t2, 3),
    }
    return IngestResult(repo, graph.name, source, extractor.name, coverage, timings, written)


def remember(known: Known, hist: RepoHistory) -> None:
    """Add a history's PRs, issues and changes to ``known`` (what the next append may link to)."""
    known.pr_numbers |= {p.number for p in hist.pulls}
    known.issue_numbers |= {i.number for i in hist.issues}
    nums = known.pr_numbers
    from .mechanical import commit_rule, pull_rule

    for p in sorted(hist.pulls, key=lambda p: p.merged_at or p.created_at or ""):
        if p.merged:
            known.reverts.add(f"pr:{p.number}", p.title, (p.merge_commit_sha or "",), p.number)
            if pull_rule(p, hist.people) or _reverts_mechanical(known, f"pr:{p.number}", p.title, p.body):
                known.reverts.mechanical.add(f"pr:{p.number}")
    for c in hist.commits:
        if c.pr_number is not None and c.pr_number in nums:
            known.reverts.add(f"pr:{c.pr_number}", None, (c.sha,))
        else:
            title = c.message.split("\n", 1)[0].strip()
            known.reverts.add(f"commit:{c.sha}", title, (c.sha,))
            if commit_rule(c, hist.people) or _reverts_mechanical(known, f"commit:{c.sha}", title, c.message):
                known.reverts.mechanical.add(f"commit:{c.sha}")


def _reverts_mechanical(known: Known, sid: str, title: str, body: str) -> bool:
    return any(rv.target in known.reverts.mechanical for rv in known.reverts.resolve(sid, title, body))


def known_from_graph(graph: Any, hist: RepoHistory) -> Known:
    """What an existing graph holds that the new items may name: PR and issue numbers, and the titles and
    commits of the changes a revert among them may point at (only those asked about are read)."""
    from .links import parse_links
    from .reverts import revert_numbers

    nums: set[int] = set()
    titles: set[str] = set()
    shas: set[str] = set()
    texts = [(p.title, p.body) for p in hist.pulls] + [(c.message.split("\n", 1)[0], c.message) for c in hist.commits]
    texts += [("", i.body) for i in hist.issues]
    for title, body in texts:
        ln = parse_links(body, title)
        nums |= ln.fixes | ln.references | ln.depends_on | ln.reverts | revert_numbers(body)
        shas |= {s.lower() for s in ln.reverts_shas}
        if ln.reverts_title:
            titles.add(ln.reverts_title.strip())
            titles.add(re.sub(r"\s*\(#\d+\)\s*$", "", ln.reverts_title).strip())
            nums |= {int(x) for x in re.findall(r"\(#(\d+)\)\s*$", ln.reverts_title)}
    nums |= {c.pr_number for c in hist.commits if c.pr_number is not None}
    nums |= {d.added_by_pr for d in hist.docs if d.added_by_pr is not None}
    known = Known()
    for r in graph.read(
        "MATCH (s:PR) WHERE s.number IN $nums RETURN s.number AS n, s.merge_commit_sha AS sha, s.mechanical AS mech",
        {"nums": sorted(nums)},
        name="append.known_prs",
    ):
        known.pr_numbers.add(int(r["n"]))
        known.reverts.add(f"pr:{r['n']}", None, (r["sha"] or "",), int(r["n"]))
        if r["mech"]:
            known.reverts.mechanical.add(f"pr:{r['n']}")
    for r in graph.read(
        "MATCH (s:Issue) WHERE s.number IN $nums RETURN s.number AS n",
        {"nums": sorted(nums)},
        name="append.known_issues",
    ):
        known.issue_numbers.add(int(r["n"]))
    if titles or shas:
        full = sorted(s for s in shas if len(s) == 40)
        short = sorted(s for s in shas if len(s) < 40)
        for r in graph.read(
            "MATCH (s:Source) WHERE (s:PR AND (s.title IN $titles OR s.merge_commit_sha IN $full)) "
            "OR (s:Commit AND (s.sha IN $full OR any(x IN $short WHERE s.sha STARTS WITH x) "
            "OR any(t IN $titles WHERE s.message STARTS WITH t))) "
            "OPTIONAL MATCH (s)-[:PART_OF]->(pr:PR) "
            "RETURN s.id AS id, s:PR AS is_pr, s.number AS n, s.title AS title, s.sha AS sha, pr.id AS part_of, "
            "coalesce(pr.mechanical, s.mechanical) AS mech, "
            "s.merge_commit_sha AS msha, s.message AS message, coalesce(s.merged_at, s.date, '') AS at "
            "ORDER BY at",
            {"titles": sorted(titles), "full": full, "short": short},
            name="append.known_reverts",
        ):
            if r["mech"]:
                known.reverts.mechanical.add(r["part_of"] or r["id"])
            if r["is_pr"]:
                known.pr_numbers.add(int(r["n"]))
                known.reverts.add(r["id"], r["title"], (r["msha"] or "",), int(r["n"]))
            elif r["part_of"]:
                known.reverts.add(r["part_of"], None, (r["sha"] or "",))  # a PR's commit names the PR
            else:
                known.reverts.add(r["id"], (r["message"] or "").split("\n", 1)[0].strip(), (r["sha"] or "",))
    return known


@dataclass(frozen=True)
class Window:
    """Which merged PRs of a snapshot to append: merged after ``since`` and up to ``until`` (ISO times, either
    open). ``--since-pr N`` / ``--until-pr N`` are turned into N's merge time, so "after #N" means "merged
    after #N was", the order PRs landed in (numbers are the order they were opened)."""

    since: str | None = None
    until: str | None = None

    def keep(self, raw: JSONObject) -> bool:
        at = raw.get("merged_at")
        return self.merged(str(at) if at else None)

    def merged(self, at: str | None) -> bool:
        """Whether a PR merged at ``at`` (None: not merged) falls in the window."""
        if not at:
            return False  # an unmerged PR has not landed; it comes with the append after it merges
        return (self.since is None or at > self.since) and (self.until is None or at <= self.until)


def snapshot_window(
    src: SnapshotSource,
    since_pr: int | None = None,
    until_pr: int | None = None,
    merged_after: str | None = None,
    merged_before: str | None = None,
) -> Window:
    """The window from PR numbers or merged-at times (the later bound wins when both name a start)."""

    def merged_at(n: int, what: str) -> str:
        raw = src.pull(n)
        if raw is None:
            raise InvalidInput(f"{what} #{n}: {src.repo} has no pull request #{n} in this snapshot")
        if not raw.get("merged_at"):
            raise InvalidInput(f"{what} #{n}: that pull request was never merged, so it marks no point in history")
        return str(raw["merged_at"])

    for label, v in (("--merged-after", merged_after), ("--merged-before", merged_before)):
        if v is not None and not re.fullmatch(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?Z?)?", v):
            raise InvalidInput(f"{label} needs a date like 2024-05-01 or 2024-05-01T12:00:00Z, got {v!r}")
    starts = [x for x in (merged_at(since_pr, "--since-pr") if since_pr is not None else None, merged_after) if x]
    ends = [x for x in (merged_at(until_pr, "--until-pr") if until_pr is not None else None, merged_before) if x]
    return Window(max(starts) if starts else None, min(ends) if ends else None)


def ingest_snapshot(
    store: Store,
    path: Path | str,
    repo: str | None = None,
    extractor: Extractor | None = None,
    max_prs: int = 100_000,
    progress: Progress | None = None,
    *,
    since_pr: int | None = None,
    until_pr: int | None = None,
    merged_after: str | None = None,
    merged_before: str | None = None,
) -> IngestResult:
    """Ingest a snapshot folder in GitHub REST shapes; with a window, append only the PRs merged in it."""
    t0 = time.perf_counter()
    src = SnapshotSource(Path(path), repo, index_dir=store.settings.data_dir / "cache" / "snapshots")
    if since_pr is None and until_pr is None and merged_after is None and merged_before is None:
        hist = collect_history(src, max_prs=max_prs, progress=progress)
        hist.problems += snapshot_skips(src.dir, hist, max_prs)  # every record file: read, or skipped with why
        return ingest_history(
            store, hist, extractor or OfflineExtractor(), f"snapshot:{path}", progress, time.perf_counter() - t0
        )
    window = snapshot_window(src, since_pr, until_pr, merged_after, merged_before)
    src.only_merged(window.merged)  # PR files remembered as merged outside the window are not read again
    hist = collect_history(src, max_prs=max_prs, progress=progress, keep=window.keep)
    return _append(store, hist, extractor, f"snapshot:{path}", progress, time.perf_counter() - t0)


def _append(
    store: Store,
    hist: RepoHistory,
    extractor: Extractor | None,
    source: str,
    progress: Progress | None,
    t_collect: float,
) -> IngestResult:
    graph = store.repo_graph(validate_repo(hist.repo))
    known = known_from_graph(graph, hist) if graph.exists() else Known()
    return append_history(store, hist, extractor or OfflineExtractor(), source, known, progress, t_collect)


def ingest_github(
    store: Store,
    repo: str,
    *,
    api_url: str | None = None,
    token: str | None = None,
    max_prs: int = 200,
    record_dir: Path | None = None,
    extractor: Extractor | None = None,
    progress: Progress | None = None,
    pr_number: int | None = None,
    since: str | None = None,
) -> IngestResult:
    """Ingest from the GitHub REST API (or any server speaking it): newest PRs, or one PR's history.

    ``since`` (an ISO date, or ``auto`` for where the graph's last GitHub ingest left off) appends only the PRs
    merged since then, read from a listing sorted by update that stops at the first PR not updated since; its first
    page is asked conditionally, so a repository where nothing changed costs two requests, one of them free.
    ``auto`` on a repository without a graph (or without a sync point) is a full ingest."""
    from .github import GitHubSource

    repo = validate_repo(repo)
    settings = store.settings
    t0 = time.perf_counter()
    src = GitHubSource(
        repo,
        api_url=api_url or settings.github_api_url,
        token=token or settings.github_token,
        record_dir=record_dir,
        progress=(lambda msg: progress(msg, 0, 0)) if progress else None,
    )
    where = api_url or settings.github_api_url
    graph = store.repo_graph(repo)
    point = _since(graph, since) if since is not None and pr_number is None else None
    if point is not None:
        src.updated_since, src.list_etag = point
        window = Window(since=point[0])
        hist = collect_history(src, max_prs=max_prs, progress=progress, keep=window.keep)
        res = _append(store, hist, extractor, f"github:{where}", progress, time.perf_counter() - t0)
    else:
        if pr_number is None:
            hist = collect_history(src, max_prs=max_prs, progress=progress)
        else:
            hist = collect_pr_history(src, pr_number, progress=progress)
        res = ingest_history(
            store, hist, extractor or OfflineExtractor(), f"github:{where}", progress, time.perf_counter() - t0
        )
    if pr_number is None:
        # where the next `--since auto` starts: the newest update this listing saw (never earlier than before)
        start = point[0] if point else None
        newest = max(x for x in (src.newest_update, start) if x) if (src.newest_update or start) else None
        etag = src.first_etag if src.updated_since is not None else None
        graph.query(SYNC_SET_Q, {"at": newest, "etag": etag}, name="ingest.github_sync")
    res.requests = src.requests_made
    res.not_modified = src.not_modified
    return res


SYNC_Q = "MATCH (r:Repo {id: 'repo'}) RETURN r.github_synced_at AS at, r.github_etag AS etag, r.ingested_at AS ingested"
SYNC_SET_Q = "MATCH (r:Repo {id: 'repo'}) SET r.github_synced_at = $at, r.github_etag = $etag"
_SINCE = re.compile(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?Z?)?")


def _since(graph: Any, since: str) -> tuple[str, str | None] | None:
    """(the time to list from, the listing's ETag from last time) for ``--since``; None means a full ingest."""
    if since != "auto":
        if not _SINCE.fullmatch(since):
            raise InvalidInput(f"--since needs a date like 2024-05-01, 2024-05-01T12:00:00Z or auto, got {since!r}")
        return (since if "T" in since else since + "T00:00:00Z"), None
    if not graph.exists():
        return None
    rows = graph.read(SYNC_Q, name="ingest.github_sync_point")
    if not rows or not rows[0].get("at"):
        return None
    return str(rows[0]["at"]), rows[0].get("etag")


def ingest_git(
    store: Store,
    path: Path | str,
    repo: str,
    extractor: Extractor | None = None,
    max_commits: int = 5000,
    progress: Progress | None = None,
    *,
    since: str | None = None,
    until: str | None = None,
) -> IngestResult:
    """Ingest a local git clone: commits, squash-merged PRs, ADR files. With ``since`` (a revision the graph
    already holds), append only ``since..until`` (``until`` defaults to HEAD) to the existing graph."""
    from .gitlocal import read_git_history

    t0 = time.perf_counter()
    hist = read_git_history(
        Path(path),
        validate_repo(repo),
        max_commits=max_commits,
        progress=(lambda msg: progress(msg, 0, 0)) if progress else None,
        since=since,
        until=until,
    )
    if since is None and until is None:
        return ingest_history(
            store, hist, extractor or OfflineExtractor(), f"git:{path}", progress, time.perf_counter() - t0
        )
    return _append(store, hist, extractor, f"git:{path}", progress, time.perf_counter() - t0)


def _mark(
    graph: Any, repo: str, source: str, state: str, url: str | None = None, coverage: JSONObject | None = None
) -> None:
    """The one Repo node: which source filled the graph, when, and whether that write finished."""
    import json

    graph.query(
        "MERGE (r:Repo {id: 'repo'}) SET r.full_name = $repo, r.url = $url, r.ingest_source = $src, "
        "r.ingest_state = $state, r.ingested_at = $at" + (", r.coverage = $cov" if coverage is not None else ""),
        {
            "repo": repo,
            "url": url,
            "src": source,
            "state": state,
            "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "cov": json.dumps(coverage, default=str) if coverage is not None else None,
        },
        name="ingest.mark",
    )


def _settle_new(graph: Any, batch: Any) -> None:
    """Support for what an append wrote, without recomputing the graph. In a repository graph, ingest's
    justifications conclude decisions and rest on claims, so the least fixed point restricted to the batch is
    three local steps: a claim holds unless its source is quarantined (or it was corrected away); a
    justification holds when it has premises and all hold; a decision holds when one of its justifications
    does. Each step reads only the batch's nodes and their premises."""
    from ..memory.graphio import STATE_ID

    def ids(label: str) -> list[str]:
        return sorted(k for lbl, rows in batch.nodes.items() if label in lbl for k in rows)

    claims, justs, decisions = ids("Claim"), ids("Justification"), ids("Decision")
    if claims:
        rows = [
            {"c": k, "s": v.get("source_id")}
            for lbl, kv in batch.nodes.items()
            if "Claim" in lbl
            for k, v in kv.items()
        ]
        graph.query(
            "UNWIND $rows AS r MATCH (s:Source {id: r.s}) WHERE s.quarantined = true "
            "MATCH (c:Claim {id: r.c}) SET c.holds = false",
            {"rows": rows},
            name="append.claims",
        )
    if justs:
        graph.query(
            "UNWIND $ids AS jid MATCH (j:Justification {id: jid}) OPTIONAL MATCH (j)-[:PREMISE]->(c:Claim) "
            "WITH j, collect(c) AS ps SET j.holds = size(ps) > 0 AND "
            "all(c IN ps WHERE c.holds = true AND coalesce(c.status, 'active') <> 'superseded')",
            {"ids": justs},
            name="append.justifications",
        )
    if decisions:
        graph.query(
            "UNWIND $ids AS did MATCH (d:Decision {id: did}) OPTIONAL MATCH (d)<-[:JUSTIFIES]-(j:Justification) "
            "WITH d, collect(j) AS js SET d.holds = any(j IN js WHERE j.holds = true)",
            {"ids": decisions},
            name="append.decisions",
        )
    # the graph changed: a reviewer's preview taken before this append must be redone (revision check)
    graph.query(
        "MERGE (m:MemoryState {id: $id}) ON CREATE SET m.rev = 1 ON MATCH SET m.rev = m.rev + 1",
        {"id": STATE_ID},
        name="append.state",
    )


def _recompute_support(graph: Any, fresh: bool) -> None:
    """Settle ``holds`` after a write. In a fresh graph nothing is quarantined or corrected, so every
    observation holds and a decision holds iff it has a justification; otherwise the engine recomputes."""
    from ..memory.graphio import STATE_ID
    from ..memory.recompute import recompute

    if fresh:
        graph.query(
            "MATCH (d:Decision) WHERE NOT (d)<-[:JUSTIFIES]-(:Justification) SET d.holds = false",
            name="ingest.unsupported",
        )
        # support is now computed: record the engine's revision so a later recompute has nothing to redo
        graph.query("MERGE (m:MemoryState {id: $id}) ON CREATE SET m.rev = 1", {"id": STATE_ID}, name="ingest.state")
        return
    recompute(graph)

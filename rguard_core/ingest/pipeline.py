"""One ingest pipeline for every source: collect → extract (verbatim rule) → batched write → support.

Nothing is written until collection and extraction have finished, so a 404, a rate limit or a failing
LLM leaves the graph untouched. The write itself is idempotent: after a crash, run the ingest again.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import Settings
from ..db import Store, validate_repo
from ..errors import InvalidInput
from ..schema import ensure_schema
from .build import Coverage, build_graph
from .clean import clean_history
from .collect import collect_history, collect_pr_history
from .extract.base import Extractor
from .extract.offline import OfflineExtractor
from .model import RepoHistory
from .rest import SnapshotSource
from .writer import write_batch

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

    def as_dict(self) -> dict[str, Any]:
        return {
            "repo": self.repo, "graph": self.graph, "source": self.source, "extractor": self.extractor,
            "coverage": self.coverage.as_dict(), "timings_s": self.timings_s, "written": self.written,
        }


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
    store: Store, hist: RepoHistory, extractor: Extractor, source: str, progress: Progress | None = None,
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
    _mark(graph, repo, source, "complete", url=hist.url, coverage=coverage.as_dict())
    t2 = time.perf_counter()
    _recompute_support(graph, fresh)
    t3 = time.perf_counter()
    timings = {"collect": round(t_collect, 3), "extract": round(t1 - t0, 3), "write": round(t2 - t1, 3),
               "support": round(t3 - t2, 3)}
    return IngestResult(repo, graph.name, source, extractor.name, coverage, timings, written)


def ingest_snapshot(
    store: Store, path: Path | str, repo: str | None = None, extractor: Extractor | None = None,
    max_prs: int = 100_000, progress: Progress | None = None,
) -> IngestResult:
    """Ingest a snapshot folder in GitHub REST shapes."""
    t0 = time.perf_counter()
    src = SnapshotSource(Path(path), repo)
    hist = collect_history(src, max_prs=max_prs, progress=progress)
    return ingest_history(store, hist, extractor or OfflineExtractor(), f"snapshot:{path}", progress,
                          time.perf_counter() - t0)


def ingest_github(
    store: Store, repo: str, *, api_url: str | None = None, token: str | None = None, max_prs: int = 200,
    record_dir: Path | None = None, extractor: Extractor | None = None, progress: Progress | None = None,
    pr_number: int | None = None,
) -> IngestResult:
    """Ingest from the GitHub REST API (or any server speaking it): newest PRs, or one PR's history."""
    from .github import GitHubSource

    repo = validate_repo(repo)
    settings = store.settings
    t0 = time.perf_counter()
    src = GitHubSource(repo, api_url=api_url or settings.github_api_url, token=token or settings.github_token,
                       record_dir=record_dir, progress=(lambda msg: progress(msg, 0, 0)) if progress else None)
    if pr_number is None:
        hist = collect_history(src, max_prs=max_prs, progress=progress)
    else:
        hist = collect_pr_history(src, pr_number, progress=progress)
    where = api_url or settings.github_api_url
    return ingest_history(store, hist, extractor or OfflineExtractor(), f"github:{where}", progress,
                          time.perf_counter() - t0)


def ingest_git(
    store: Store, path: Path | str, repo: str, extractor: Extractor | None = None, max_commits: int = 5000,
    progress: Progress | None = None,
) -> IngestResult:
    """Ingest a local git clone: commits, squash-merged PRs, ADR files."""
    from .gitlocal import read_git_history

    t0 = time.perf_counter()
    hist = read_git_history(Path(path), validate_repo(repo), max_commits=max_commits,
                            progress=(lambda msg: progress(msg, 0, 0)) if progress else None)
    return ingest_history(store, hist, extractor or OfflineExtractor(), f"git:{path}", progress,
                          time.perf_counter() - t0)


def _mark(graph: Any, repo: str, source: str, state: str, url: str | None = None,
          coverage: dict[str, Any] | None = None) -> None:
    """The one Repo node: which source filled the graph, when, and whether that write finished."""
    import json

    graph.query(
        "MERGE (r:Repo {id: 'repo'}) SET r.full_name = $repo, r.url = $url, r.ingest_source = $src, "
        "r.ingest_state = $state, r.ingested_at = $at" + (", r.coverage = $cov" if coverage is not None else ""),
        {"repo": repo, "url": url, "src": source, "state": state,
         "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
         "cov": json.dumps(coverage, default=str) if coverage is not None else None},
        name="ingest.mark",
    )


def _recompute_support(graph: Any, fresh: bool) -> None:
    """Settle ``holds`` after a write. In a fresh graph nothing is quarantined or corrected, so every
    observation holds and a decision holds iff it has a justification; otherwise the engine recomputes."""
    from ..memory.engine import recompute_all
    from ..memory.graphio import STATE_ID

    if fresh:
        graph.query("MATCH (d:Decision) WHERE NOT (d)<-[:JUSTIFIES]-(:Justification) SET d.holds = false",
                    name="ingest.unsupported")
        # support is now computed: record the engine's revision so a later recompute has nothing to redo
        graph.query("MERGE (m:MemoryState {id: $id}) ON CREATE SET m.rev = 1", {"id": STATE_ID}, name="ingest.state")
        return
    recompute_all(graph)

"""One entry for every ingest the dashboard or CLI can ask for: validate the request, then dispatch."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..db import Store, validate_repo
from ..errors import InvalidInput
from ..pr_url import parse_pr_url
from .pipeline import EXTRACTORS, IngestResult, ingest_git, ingest_github, ingest_snapshot, make_extractor

KINDS = ("github", "snapshot", "git")


@dataclass(frozen=True)
class IngestRequest:
    kind: str  # github | snapshot | git
    target: str  # OWNER/NAME or PR URL (github); a folder (snapshot, git)
    repo: str | None = None  # required for git; optional for snapshot
    extractor: str = "offline"
    max_prs: int = 200
    max_commits: int = 5000
    api_url: str | None = None
    record_dir: Path | None = None
    # incremental ingest (append to the existing graph): git revisions, or a snapshot's merged-at window
    since: str | None = None
    until: str | None = None
    since_pr: int | None = None
    until_pr: int | None = None
    merged_after: str | None = None
    merged_before: str | None = None


def run_ingest(
    store: Store, req: IngestRequest, progress: Callable[[str, int, int], None] | None = None
) -> IngestResult:
    """Check the request, then run the matching pipeline; errors are typed and nothing is half-written."""
    _check_types(req)
    if req.kind not in KINDS:
        raise InvalidInput(f"unknown source {req.kind!r}; choose one of: {', '.join(KINDS)}")
    if req.extractor not in EXTRACTORS:
        raise InvalidInput(f"unknown extractor {req.extractor!r}; choose one of: {', '.join(EXTRACTORS)}")
    target = (req.target or "").strip()
    if not target:
        raise InvalidInput("nothing to ingest: give a repository, PR URL or folder")
    if req.max_prs < 1 or req.max_commits < 1:
        raise InvalidInput("--max-prs and --max-commits must be at least 1")
    ex = make_extractor(req.extractor, store.settings)
    if req.kind == "github":
        if target.startswith(("http://", "https://")):
            repo, number = parse_pr_url(target)
            return ingest_github(
                store,
                repo,
                api_url=req.api_url,
                record_dir=req.record_dir,
                extractor=ex,
                progress=progress,
                pr_number=number,
            )
        return ingest_github(
            store,
            validate_repo(target),
            api_url=req.api_url,
            max_prs=req.max_prs,
            record_dir=req.record_dir,
            extractor=ex,
            progress=progress,
            since=req.since,
        )
    path = Path(target).expanduser()
    if not path.exists():
        raise InvalidInput(f"no such folder: {path}")
    if req.kind == "snapshot":
        return ingest_snapshot(
            store,
            path,
            repo=req.repo or None,
            extractor=ex,
            max_prs=req.max_prs,
            progress=progress,
            since_pr=req.since_pr,
            until_pr=req.until_pr,
            merged_after=req.merged_after,
            merged_before=req.merged_before,
        )
    if not req.repo:
        raise InvalidInput("a local git clone needs --repo OWNER/NAME to name its graph")
    return ingest_git(
        store,
        path,
        req.repo,
        extractor=ex,
        max_commits=req.max_commits,
        progress=progress,
        since=req.since,
        until=req.until,
    )


def _check_types(req: IngestRequest) -> None:
    """Callers of the Python API get a typed error naming the field, not a TypeError from deep inside."""
    for name in ("kind", "target", "extractor"):
        if not isinstance(getattr(req, name), str):
            raise InvalidInput(f"IngestRequest.{name} must be text, got {type(getattr(req, name)).__name__}")
    for name in ("repo", "api_url", "since", "until", "merged_after", "merged_before"):
        if getattr(req, name) is not None and not isinstance(getattr(req, name), str):
            raise InvalidInput(f"IngestRequest.{name} must be text or None, got {type(getattr(req, name)).__name__}")
    for name in ("max_prs", "max_commits", "since_pr", "until_pr"):
        v = getattr(req, name)
        if (v is not None or name.startswith("max")) and (not isinstance(v, int) or isinstance(v, bool)):
            raise InvalidInput(f"IngestRequest.{name} must be a whole number, got {v!r}")
    if req.record_dir is not None and not isinstance(req.record_dir, (str, Path)):
        raise InvalidInput(f"IngestRequest.record_dir must be a folder path, got {type(req.record_dir).__name__}")

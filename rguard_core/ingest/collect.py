"""Collect a repository's history from a REST-shaped source (GitHub or a snapshot) into a RepoHistory."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .links import parse_links
from .model import Comment, Doc, FileChange, Issue, PullRequest, RepoHistory
from .rest import Json, RestSource

ADR_DIRS = (
    "docs/adr/",
    "docs/decisions/",
    "adr/",
    "doc/adr/",
    "docs/architecture/decisions/",
    "architecture/decisions/",
)

Progress = Callable[[str, int, int], None]  # (stage, done, total)


def is_adr_path(path: str) -> bool:
    p = path.lower()
    return p.endswith((".md", ".markdown", ".rst", ".txt")) and any(p.startswith(d) or f"/{d}" in p for d in ADR_DIRS)


def collect_history(
    src: RestSource, max_prs: int = 200, progress: Progress | None = None, keep: Callable[[Json], bool] | None = None
) -> RepoHistory:
    """Newest ``max_prs`` PRs with files and comments, every issue they link, and the ADRs they add.
    ``keep`` selects PRs by their listing (incremental ingest: a merged-at window) before anything is fetched."""
    info = src.repo_info()  # raises RepoNotFound before anything is written
    hist = RepoHistory(repo=src.repo, url=info.get("html_url") or f"https://github.com/{src.repo}")
    raw_pulls = [p for p in src.list_pulls(max_prs) if keep is None or keep(p)]
    _add_pulls(src, hist, raw_pulls, progress)
    _add_linked_issues(src, hist, progress)
    _add_docs(src, hist)
    hist.problems += getattr(src, "problems", [])  # snapshot oddities: shown in the coverage report
    return hist


def collect_pr_history(
    src: RestSource,
    number: int,
    max_files: int = 20,
    months: int = 18,
    max_prs: int = 30,
    scan: int = 300,
    progress: Progress | None = None,
) -> RepoHistory:
    """The history behind one PR: earlier PRs (last ``months``) that touched its files, then the PR itself."""
    info = src.repo_info()
    hist = RepoHistory(repo=src.repo, url=info.get("html_url") or f"https://github.com/{src.repo}")
    target = src.pull(number)
    if target is None:
        from ..errors import GitHubError

        raise GitHubError(f"{src.repo} has no pull request #{number}", 404)
    paths = {f["filename"] for f in src.pull_files(number)[:max_files]}
    # "the last 18 months" is counted back from the PR itself, so an old PR gets its own history
    anchor = _parse_time(target.get("created_at") or target.get("merged_at")) or dt.datetime.now(dt.UTC)
    cutoff = (anchor - dt.timedelta(days=30 * months)).strftime("%Y-%m-%dT%H:%M:%SZ")
    until = anchor.strftime("%Y-%m-%dT%H:%M:%SZ")
    chosen: list[Json] = []
    for i, pr in enumerate(src.list_pulls(scan)):
        if progress:
            progress("scan PRs for the changed files", i + 1, scan)
        when = pr.get("created_at") or pr.get("merged_at") or ""
        if pr["number"] == number or not (cutoff <= when <= until):
            continue  # only the PR's own history: opened in the window before it
        files = src.pull_files(pr["number"])
        if paths & {f.get("filename") for f in files} or paths & {f.get("previous_filename") for f in files}:
            chosen.append(pr)
            if len(chosen) >= max_prs:
                break
    _add_pulls(src, hist, [*chosen, target], progress)
    _add_linked_issues(src, hist, progress)
    _add_docs(src, hist)
    hist.problems += getattr(src, "problems", [])
    return hist


FETCH_WORKERS = 6  # per-PR and per-issue requests are independent; a few in flight hide latency and retries


def _workers(src: RestSource) -> int:
    return FETCH_WORKERS if getattr(src, "parallel_fetch", True) else 1


def _add_pulls(src: RestSource, hist: RepoHistory, raw_pulls: list[Json], progress: Progress | None) -> None:
    def fetch(n: int) -> tuple[list[Json], list[Json], list[Json]]:
        return src.pull_files(n), src.issue_comments(n), src.pull_review_comments(n)

    total = len(raw_pulls)
    with ThreadPoolExecutor(_workers(src)) as pool:
        fetched = pool.map(fetch, [int(raw["number"]) for raw in raw_pulls])
        for i, (raw, (files, conv, reviews)) in enumerate(zip(raw_pulls, fetched, strict=True)):
            n = int(raw["number"])
            pr = pull_from_rest(hist, raw)
            pr.files = [file_from_rest(f) for f in files]
            for j, c in enumerate(conv):
                pr.comments.append(comment_from_rest(hist, c, f"comment:pr:{n}:{j}", f"pr:{n}", False))
            for j, c in enumerate(reviews):
                pr.comments.append(comment_from_rest(hist, c, f"review:pr:{n}:{j}", f"pr:{n}", True))
            hist.pulls.append(pr)
            if progress:
                progress("pull requests", i + 1, total)


def _add_linked_issues(src: RestSource, hist: RepoHistory, progress: Progress | None) -> None:
    have_prs = {p.number for p in hist.pulls}
    wanted: set[int] = set()
    for pr in hist.pulls:
        links = parse_links(pr.body, pr.title, pr.number)
        wanted |= links.fixes | links.references | links.depends_on
        for c in pr.comments:
            wanted |= parse_links(c.body).references
    numbers = sorted(wanted - have_prs)

    def fetch(n: int) -> tuple[Json | None, list[Json]]:
        raw = src.issue(n)
        if raw is None or raw.get("pull_request"):
            return raw, []
        return raw, src.issue_comments(n)

    with ThreadPoolExecutor(_workers(src)) as pool:
        for i, (n, (raw, comments)) in enumerate(zip(numbers, pool.map(fetch, numbers), strict=True)):
            if progress:
                progress("linked issues", i + 1, len(numbers))
            if raw is None:
                hist.problems.append(f"#{n} is linked but could not be fetched (not found)")
                continue
            if raw.get("pull_request"):
                continue  # a PR outside the window: the link stays as a reference to a PR we do not hold
            issue = issue_from_rest(hist, raw)
            for j, rc in enumerate(comments):
                issue.comments.append(comment_from_rest(hist, rc, f"comment:issue:{n}:{j}", f"issue:{n}", False))
            hist.issues.append(issue)


def _add_docs(src: RestSource, hist: RepoHistory) -> None:
    seen: set[str] = set()
    for pr in sorted(hist.pulls, key=lambda p: p.merged_at or p.created_at or ""):
        for f in pr.files:
            if not is_adr_path(f.path) or f.status == "removed" or f.path in seen:
                continue
            text = src.file_text(f.path)
            if text is None and f.status == "added" and f.patch:
                text = added_file_text(f.patch)
            if text is None:
                hist.problems.append(f"ADR {f.path} changed by #{pr.number} but its text is not available")
                continue
            seen.add(f.path)
            first = next(
                (
                    p.number
                    for p in sorted(hist.pulls, key=lambda p: p.merged_at or "")
                    if any(x.path == f.path and x.status == "added" for x in p.files)
                ),
                pr.number,
            )
            url = f"{hist.url}/blob/HEAD/{f.path}" if hist.url else None
            hist.docs.append(Doc(path=f.path, text=text, url=url, added_by_pr=first))


def added_file_text(patch: str) -> str | None:
    """A newly added file's full text from its patch (every line is an addition)."""
    lines = []
    for line in patch.splitlines():
        if line.startswith("@@") or line.startswith("\\"):
            continue
        if not line.startswith("+"):
            return None
        lines.append(line[1:])
    return "\n".join(lines) + "\n" if lines else None


def pull_from_rest(hist: RepoHistory, raw: Json) -> PullRequest:
    user = raw.get("user") or {}
    author = hist.person(user.get("login"), user.get("type") == "Bot")
    return PullRequest(
        number=int(raw["number"]),
        title=raw.get("title") or "",
        body=raw.get("body") or "",
        author=author,
        state=raw.get("state") or "closed",
        merged=bool(raw.get("merged_at")),
        url=raw.get("html_url"),
        created_at=raw.get("created_at"),
        merged_at=raw.get("merged_at"),
        closed_at=raw.get("closed_at"),
        merge_commit_sha=raw.get("merge_commit_sha"),
    )


def issue_from_rest(hist: RepoHistory, raw: Json) -> Issue:
    user = raw.get("user") or {}
    return Issue(
        number=int(raw["number"]),
        title=raw.get("title") or "",
        body=raw.get("body") or "",
        author=hist.person(user.get("login"), user.get("type") == "Bot"),
        state=raw.get("state") or "open",
        url=raw.get("html_url"),
        state_reason=raw.get("state_reason"),
        created_at=raw.get("created_at"),
        closed_at=raw.get("closed_at"),
        labels=[_label(x) for x in raw.get("labels") or []],
    )


def comment_from_rest(hist: RepoHistory, raw: Json, cid: str, parent: str, is_review: bool) -> Comment:
    user = raw.get("user") or {}
    return Comment(
        id=cid,
        parent=parent,
        author=hist.person(user.get("login"), user.get("type") == "Bot"),
        body=raw.get("body") or "",
        url=raw.get("html_url"),
        path=raw.get("path"),
        created_at=raw.get("created_at"),
        is_review=is_review,
    )


def file_from_rest(raw: Json) -> FileChange:
    return FileChange(
        path=raw.get("filename") or "",
        status=raw.get("status") or "modified",
        additions=int(raw.get("additions") or 0),
        deletions=int(raw.get("deletions") or 0),
        patch=raw.get("patch") or "",
        previous_path=raw.get("previous_filename"),
    )


def _parse_time(raw: str | None) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(raw.replace("Z", "+00:00")) if raw else None
    except ValueError:
        return None


def _label(x: Any) -> str:
    return x.get("name", "") if isinstance(x, dict) else str(x)

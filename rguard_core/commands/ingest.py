"""``rguard ingest github|snapshot|git``: read a repository's history into its graph."""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path

from ..db import open_store
from ..ingest.pipeline import EXTRACTORS, IngestResult
from ..ingest.request import IngestRequest, run_ingest
from .output import print_json

MAX_PROBLEMS_SHOWN = 10


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("ingest", help="ingest a repository's history (GitHub, snapshot folder, local git clone)")
    isub = p.add_subparsers(dest="source", required=True, metavar="SOURCE")

    gh = isub.add_parser("github", help="GitHub REST: OWNER/NAME (newest PRs) or a PR URL (that PR's file history)")
    gh.add_argument("target", help="OWNER/NAME or https://github.com/OWNER/NAME/pull/N")
    gh.add_argument("--api-url", help="REST base URL (default GITHUB_API_URL or https://api.github.com)")
    gh.add_argument("--max-prs", type=int, default=200, help="newest PRs to read (default 200)")
    gh.add_argument("--record", type=Path, metavar="DIR", help="also write every response as a snapshot folder")
    gh.add_argument(
        "--since",
        metavar="DATE|auto",
        help="append only PRs merged since DATE (ISO), or since the graph's last GitHub ingest (auto: a full "
        "ingest when there is no graph yet); reads only PRs updated since, asking GitHub conditionally",
    )
    _common(gh)
    gh.set_defaults(func=run_github)

    sn = isub.add_parser("snapshot", help="a folder in GitHub REST shapes (repos/<owner>/<name>/...)")
    sn.add_argument("path", type=Path)
    sn.add_argument("--repo", help="OWNER/NAME when the folder holds several repositories")
    sn.add_argument("--max-prs", type=int, default=100_000)
    sn.add_argument("--since-pr", type=int, metavar="N", help="append only PRs merged after PR N was merged")
    sn.add_argument("--until-pr", type=int, metavar="N", help="... and up to PR N's merge (inclusive)")
    sn.add_argument("--merged-after", metavar="DATE", help="append only PRs merged after DATE (ISO)")
    sn.add_argument("--merged-before", metavar="DATE", help="... and merged at or before DATE (ISO)")
    _common(sn)
    sn.set_defaults(func=run_snapshot)

    gi = isub.add_parser("git", help="a local git clone: commits, squash-merged PRs, ADR files")
    gi.add_argument("path", type=Path)
    gi.add_argument("--repo", required=True, help="OWNER/NAME the graph is named after")
    gi.add_argument("--max-commits", type=int, default=5000)
    gi.add_argument("--since", metavar="REV", help="append only commits after REV (the graph already holds REV)")
    gi.add_argument("--until", metavar="REV", help="... up to REV (default HEAD)")
    _common(gi)
    gi.set_defaults(func=run_git)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--extractor", choices=EXTRACTORS, default="offline", help="offline (default) or llm")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _progress(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    if args.quiet:
        return None
    last: dict[str, int] = {}
    lock = threading.Lock()  # fetches report from several threads

    def report(stage: str, done: int, total: int) -> None:
        step = max(1, total // 10) if total else 1
        with lock:
            if total and done != total and done - last.get(stage, -step) < step:
                return
            last[stage] = done
            print(f"  {stage}: {done}/{total}" if total else f"  {stage}", file=sys.stderr, flush=True)

    return report


def run_github(args: argparse.Namespace) -> int:
    req = IngestRequest(
        "github",
        args.target,
        extractor=args.extractor,
        max_prs=args.max_prs,
        api_url=args.api_url,
        record_dir=args.record,
        since=args.since,
    )
    return _report(run_ingest(open_store(), req, _progress(args)), args)


def run_snapshot(args: argparse.Namespace) -> int:
    req = IngestRequest(
        "snapshot",
        str(args.path),
        repo=args.repo,
        extractor=args.extractor,
        max_prs=args.max_prs,
        since_pr=args.since_pr,
        until_pr=args.until_pr,
        merged_after=args.merged_after,
        merged_before=args.merged_before,
    )
    return _report(run_ingest(open_store(), req, _progress(args)), args)


def run_git(args: argparse.Namespace) -> int:
    req = IngestRequest(
        "git",
        str(args.path),
        repo=args.repo,
        extractor=args.extractor,
        max_commits=args.max_commits,
        since=args.since,
        until=args.until,
    )
    return _report(run_ingest(open_store(), req, _progress(args)), args)


def _report(res: IngestResult, args: argparse.Namespace) -> int:
    if args.json:
        print_json(res.as_dict())
        return 0
    c = res.coverage
    print(f"ingested {res.repo} into graph {res.graph} ({res.extractor} extractor)")
    print(
        f"  {c.pulls} PRs, {c.issues} issues, {c.comments} comments, {c.docs} docs, {c.commits} commits, "
        f"{c.people} people + {c.bots} bots, {c.files} files"
    )
    print(f"  {c.decisions} decisions, {c.claims} claims, {c.alternatives} alternatives, {c.actions} actions")
    rejected = ", ".join(f"{k}: {v}" for k, v in c.quotes_rejected.items()) or "none"
    print(f"  quotes kept {c.quotes_kept}; rejected {rejected}; unresolved links {len(c.unresolved_links)}")
    print(f"  timings (s): {res.timings_s}")
    if c.problems:
        print(f"  problems: {len(c.problems)} (all of them with --json)")
        for problem in c.problems[:MAX_PROBLEMS_SHOWN]:
            print(f"    {problem}")
    return 0

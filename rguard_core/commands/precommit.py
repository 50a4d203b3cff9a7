"""``rguard precommit [--repo R] [--fail-on-warn]``: guard the staged diff (a pre-commit hook)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from ..cli_errors import user_message
from ..config import Settings
from ..db import open_store
from ..errors import ConnectionFailed, DiffParseError, IncompleteGraph, RGuardError, UnknownRepository
from ..guard import run_guard
from ..guard.diffparse import parse_diff
from ..guard.request import JUDGES
from ..precommit import CONFIG_FILE, report_lines, staged_change
from .guard import EXIT_WARN
from .output import print_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("precommit", help="guard the staged diff of the git repository you are in (pre-commit hook)")
    p.add_argument(
        "--repo", help=f"OWNER/NAME of the graph (default: 'repo:' in {CONFIG_FILE}, else the origin remote)"
    )
    p.add_argument(
        "--fail-on-warn",
        action="store_true",
        help=f"exit {EXIT_WARN} when the verdict is warn or the diff limits left a file unchecked (blocks the commit)",
    )
    p.add_argument("--judge", choices=JUDGES, default="offline")
    p.add_argument("--data-dir", help="RGuard's data dir (default: $RGUARD_DATA_DIR, else the user data folder)")
    p.add_argument(
        "--strict",
        action="store_true",
        help="block the commit (exit 2) when the guard cannot run: no graph, no engine, no git. Without it such "
        "a commit goes through with a one-line hint",
    )
    p.add_argument("--json", action="store_true", help="print the guard report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        change = staged_change(Path.cwd(), args.repo)
        if not change.diff.strip():
            print("rguard: nothing staged", file=sys.stderr)
            return 0
        settings = Settings.from_env()
        if args.data_dir:
            settings = dataclasses.replace(settings, data_dir=Path(args.data_dir).expanduser())
        report = run_guard(open_store(settings), change.repo, change.diff, judge=args.judge)
    except DiffParseError:
        raise  # the staged change itself cannot be judged (too large, unreadable): never let it through unseen
    except RGuardError as e:
        # A hook that cannot run must not stop people committing (fail open): one line saying why and what to do.
        # --strict (a team that wants every commit checked) keeps the error and exit 2.
        if args.strict:
            raise
        print(f"rguard: commit not checked: {user_message(e)}. {setup_hint(e)}", file=sys.stderr)
        return 0
    if args.json:
        print_json(report.as_dict())
    else:
        paths = parse_diff(change.diff).paths
        print("\n".join(report_lines(report, change, paths)))
    return EXIT_WARN if args.fail_on_warn and report.fails_gate else 0


def setup_hint(e: RGuardError) -> str:
    """The next step for the setup errors a hook meets."""
    if isinstance(e, UnknownRepository):
        return "Ingest it first: rguard ingest git . --repo OWNER/NAME (or set repo: in .rguard.yaml)"
    if isinstance(e, IncompleteGraph):
        return "Its last ingest did not finish: run the ingest again"
    if isinstance(e, ConnectionFailed):
        return "Check FALKORDB_URL or RGUARD_DATA_DIR (rguard engine status)"
    return "Run with --strict to block commits the guard cannot check"

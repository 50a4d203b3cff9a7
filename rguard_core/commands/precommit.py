"""``rguard precommit [--repo R] [--fail-on-warn]``: guard the staged diff (a pre-commit hook)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from ..config import Settings
from ..db import open_store
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
    p.add_argument("--data-dir", help="RGuard's data dir (default: $RGUARD_DATA_DIR, else ./.rguard of the repository)")
    p.add_argument("--json", action="store_true", help="print the guard report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    change = staged_change(Path.cwd(), args.repo)
    if not change.diff.strip():
        print("rguard: nothing staged", file=sys.stderr)
        return 0
    settings = Settings.from_env()
    if args.data_dir:
        settings = dataclasses.replace(settings, data_dir=Path(args.data_dir).expanduser())
    report = run_guard(open_store(settings), change.repo, change.diff, judge=args.judge)
    if args.json:
        print_json(report.as_dict())
    else:
        paths = parse_diff(change.diff).paths
        print("\n".join(report_lines(report, change, paths)))
    return EXIT_WARN if args.fail_on_warn and report.fails_gate else 0

"""``rguard action``: the GitHub Action's step (guard the PR, sticky comment, check run, /rguard commands)."""

from __future__ import annotations

import argparse
import os

from ..config import Settings
from ..db import open_store
from ..errors import ConfigError
from ..guard.request import JUDGES
from .output import print_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "action", help="GitHub Action step: guard a pull request, upsert the sticky comment, add a check run"
    )
    p.add_argument("--repo", help="OWNER/NAME of the graph to guard against (default: --github-repo)")
    p.add_argument("--github-repo", help="OWNER/NAME on GitHub (default: $GITHUB_REPOSITORY)")
    p.add_argument("--pr", type=int, help="pull request number (default: from $GITHUB_EVENT_PATH)")
    p.add_argument("--judge", choices=JUDGES, default="offline")
    p.add_argument(
        "--comment-author",
        metavar="LOGIN",
        help="the token's login, when it is not a bot (a personal token): whose comment is the sticky one",
    )
    p.add_argument("--fail-on-warn", action="store_true", help="exit 3 when the verdict is warn")
    p.add_argument("--json", action="store_true", help="print what the run did as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..action import ActionClient, pr_from_event, run_action
    from ..untrusted import one_line
    from .guard import EXIT_WARN

    settings = Settings.from_env()
    gh_repo = args.github_repo or os.environ.get("GITHUB_REPOSITORY")
    if not gh_repo:
        raise ConfigError("give --github-repo OWNER/NAME (GitHub Actions sets GITHUB_REPOSITORY)")
    pr = args.pr or pr_from_event(os.environ.get("GITHUB_EVENT_PATH"))
    if pr is None:
        print("rguard: this event is not about a pull request; nothing to do")
        return 0
    if not settings.github_token:
        raise ConfigError("GITHUB_TOKEN is needed to comment on the pull request (pass it to the step's env)")
    client = ActionClient(settings.github_api_url, gh_repo, settings.github_token)
    res = run_action(
        open_store(settings), client, args.repo or gh_repo, pr, judge=args.judge, comment_author=args.comment_author
    )
    from ..action.workflow import print_annotations, write_outputs

    write_outputs(res)
    if args.json:
        print_json(res.as_dict())
    else:
        for command in print_annotations(res):
            print(command)
        verb = "created" if res.comment_created else "updated"
        comment = f"{verb} comment {res.comment_id}" if res.comment_id else "no comment"
        print(
            f"rguard: {res.verdict} on #{res.pr} ({res.head_sha[:12]}); {comment}; "
            f"check run {res.check_run_id or 'not created'}"
        )
        for line in res.finding_lines:
            print(f"  {line}")
        for o in res.outcomes:
            print(f"  /rguard {o.kind} by {one_line(o.login, 60)}: {o.status} ({one_line(o.detail)})")
    return EXIT_WARN if args.fail_on_warn and (res.verdict == "warn" or res.skipped_files) else 0

"""``rguard guard`` (check a diff or a stored PR against earlier decisions) and ``rguard feedback``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..activity import record_guard_run
from ..db import open_store
from ..errors import DiffTooLarge, InvalidInput
from ..feedback_keys import REVIEW_KINDS
from ..guard import GuardRequest, request, run_request
from ..guard.model import GuardReport
from ..guard.request import JUDGES
from .output import print_json

EXIT_WARN = 3


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("guard", help="warn before a diff undoes an earlier decision")
    p.add_argument("--repo", required=True, help="OWNER/NAME (must be ingested)")
    p.add_argument("--diff", metavar="FILE|-", help="a unified diff file, or - for stdin")
    p.add_argument(
        "--pr",
        metavar="N|URL",
        help="guard PR N (a number or its https://github.com/OWNER/NAME/pull/N URL) as stored in the graph "
        "(when no --diff is given); with --diff, PR N's own decision is left out of the candidates",
    )
    p.add_argument("--judge", choices=JUDGES, default="offline", help="offline (default, deterministic) or llm")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--fail-on-warn",
        action="store_true",
        help=f"exit {EXIT_WARN} when the verdict is warn, or when any file "
        "was left unchecked by the diff limits (CI gates)",
    )
    p.set_defaults(func=run_guard_cmd)

    f = sub.add_parser("feedback", help="ack, mark wrong, or override a guard finding's decision")
    f.add_argument("--repo", required=True)
    f.add_argument("--decision", required=True, help="decision_id from a guard finding")
    f.add_argument("--kind", required=True, choices=REVIEW_KINDS)
    f.add_argument("--by", required=True, help="your login")
    f.add_argument("--reason", required=True, help="why; for override, the new decision in your own words")
    f.add_argument("--lines", metavar="KEY", help="for wrong: the finding's lines_key from `guard --json`")
    f.add_argument(
        "--diff", metavar="FILE|-", help="for wrong: the diff the guard judged (guarded again to find the lines)"
    )
    f.add_argument("--json", action="store_true")
    f.set_defaults(func=run_feedback_cmd)


def read_diff(arg: str | None) -> str | None:
    """The diff text from a file or stdin (``-``), read at most one byte past the guard's input limit; None when
    no --diff was given."""
    if arg is None:
        return None
    limit = request.MAX_DIFF_BYTES
    if arg == "-":
        data = sys.stdin.buffer.read(limit + 1)
    else:
        path = Path(arg)
        if not path.exists():
            raise InvalidInput(f"--diff {arg}: no such file")
        if not path.is_file():  # a folder, FIFO or device: never read it
            raise InvalidInput(f"--diff {arg} is not a regular file; pass a diff file, or - to read stdin")
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
    if len(data) > limit:  # only the first limit + 1 bytes were read: say "over", not a size
        raise DiffTooLarge(f"--diff {arg}: the diff", limit)
    return request.decode_diff(data, f"--diff {arg}: the diff")


def run_guard_cmd(args: argparse.Namespace) -> int:
    if args.diff is None and args.pr is None:
        raise InvalidInput("give --diff FILE (or - for stdin) or --pr N")
    req = GuardRequest.of(args.repo, read_diff(args.diff), args.pr, args.judge)
    store = open_store()
    report = run_request(store, req)
    record_guard_run(store.settings, report, "cli", req.pr)  # the overview lists recent runs
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    if args.json:
        print_json(report.as_dict())
    else:
        print_text(report)
    if args.fail_on_warn and report.skipped_files and report.verdict != "warn":
        print(
            f"error: {len(report.skipped_files)} file(s) were not checked (diff limits); failing because an "
            "unchecked file could undo a decision: guard a smaller diff",
            file=sys.stderr,
        )
        return EXIT_WARN
    return EXIT_WARN if args.fail_on_warn and report.fails_gate else 0


def print_text(report: GuardReport) -> None:
    print(
        f"{report.repo}: {report.verdict.upper()} ({len(report.findings)} finding(s), "
        f"{report.timings_ms['total']:.0f} ms)"
    )
    for f in report.findings:
        print(f"\n[{f.label}] {f.decision_id}  score {f.score:.2f}  via {' + '.join(f.hops)}")
        print(f'  "{f.quote}"\n  {f.source_url}')
        if f.reason:
            print(f"  why: {f.reason}")
        for p in f.premises:
            print(f"  {p['rule']} {p['status']}: {p['detail']}")
        for a in f.alternatives:
            print(f'  rejected: "{a["quote"]}"')
        if f.experts:
            print(
                "  ask: "
                + ", ".join(f"{e['login']} ({e['score']:.2f})" for e in f.experts)
                + f"; bus factor {f.bus_factor}"
            )
        for n in f.learned:
            print(f"  learned: {n}")
    for f in report.dismissed:
        d = f.dismissed
        assert d is not None
        print(
            f"\n[dismissed] {f.decision_id} ({f.label}) by {d.by} on {d.at[:10]}: {d.reason}  "
            f"(undo: memory revert {d.correction})"
        )


def run_feedback_cmd(args: argparse.Namespace) -> int:
    if args.kind == "wrong" and not (args.lines or args.diff):
        raise InvalidInput(
            "--kind wrong dismisses the finding on the lines it was judged on: give --lines KEY "
            "(a finding's lines_key from `guard --json`) or --diff FILE"
        )
    from ..guard.feedback import record_feedback  # the memory engine, loaded only to write feedback

    res = record_feedback(
        open_store(),
        args.repo,
        args.decision,
        args.kind,
        args.by,
        args.reason,
        lines_key=args.lines,
        diff=read_diff(args.diff) if args.diff else None,
    )
    if args.json:
        print_json(res)
    else:
        extra = f"; new decision {res['new_decision']}" if res.get("new_decision") else ""
        verb = "recorded" if res["recorded"] == "recorded" else "already recorded"
        print(
            f"{verb} {res['kind']} on {res['decision_id']} by {res['by']} ({res['correction']}){extra}; "
            f"undo with: python -m rguard_core memory revert {res['correction']} --repo {args.repo} --by LOGIN"
        )
    return 0

"""One Action run on one pull request: commands, guard, sticky comment, check run.

1. read the PR (head SHA), its diff and its comments;
2. guard the diff against the graph (the PR's own decision, if ingested, is left out);
3. honour new ``/rguard`` commands from users with write permission (commands.py); when any was recorded,
   guard again so the comment shows what the feedback changed;
4. upsert ONE sticky comment: the first comment by a bot (or by ``--comment-author``, for a personal token)
   whose body starts with ``<!-- rguard -->``;
5. create a neutral check run on the head SHA with one annotation per finding.
A check run the token may not create (a fork's read-only token) is reported, not fatal.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..db import Store, validate_repo
from ..errors import GitHubError, InvalidInput, UnknownRepository
from ..guard import record_feedback, run_guard
from ..guard.diffparse import parse_diff
from ..guard.learned import ever_given
from ..guard.model import GuardReport, ParsedDiff
from ..jsontypes import JSONObject
from ..precommit import finding_line
from .client import ActionClient
from .commands import Command, Outcome, decode_state, handle, parse_command
from .comment import MARKER, CheckAnnotation, check_annotations, check_summary, render_body

CHECK_NAME = "RGuard"


@dataclass(frozen=True)
class ActionResult:
    pr: int
    head_sha: str
    verdict: str
    comment_id: int
    comment_created: bool
    check_run_id: int | None
    outcomes: list[Outcome] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    finding_lines: list[str] = field(default_factory=list)  # one line per finding, terminal-safe (the job log)
    skipped_files: list[str] = field(default_factory=list)  # left unchecked by the diff limits: fails the gate
    comment_url: str = ""
    contradicts: int = 0
    related: int = 0
    annotations: list[CheckAnnotation] = field(default_factory=list)  # also printed as ::warning lines
    summary: str = ""  # Markdown for the job summary ($GITHUB_STEP_SUMMARY)

    def as_dict(self) -> JSONObject:
        return {
            "pr": self.pr,
            "head_sha": self.head_sha,
            "verdict": self.verdict,
            "comment_id": self.comment_id,
            "comment_created": self.comment_created,
            "check_run_id": self.check_run_id,
            "outcomes": [o.__dict__ for o in self.outcomes],
            "notes": self.notes,
            "findings": self.finding_lines,
            "skipped_files": self.skipped_files,
            "comment_url": self.comment_url,
            "contradicts": self.contradicts,
            "related": self.related,
        }


def pr_from_event(event_path: str | None) -> int | None:
    """The pull request number of a ``pull_request``/``pull_request_target``/``issue_comment`` event file."""
    if not event_path:
        return None
    try:
        event = json.loads(Path(event_path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise InvalidInput(f"cannot read the event file {event_path}: {e}") from e
    pr = event.get("pull_request") if isinstance(event, dict) else None
    if isinstance(pr, dict) and isinstance(pr.get("number"), int):
        return int(pr["number"])
    issue = event.get("issue") if isinstance(event, dict) else None
    if isinstance(issue, dict) and issue.get("pull_request") and isinstance(issue.get("number"), int):
        return int(issue["number"])
    return None


def find_sticky(comments: list[JSONObject], author: str | None = None) -> JSONObject | None:
    """The first comment starting with the marker by ``author`` (default: any bot, as the Actions token is)."""
    for c in comments:
        user = c.get("user") or {}
        if not isinstance(user, dict) or not str(c.get("body") or "").startswith(MARKER):
            continue
        if (user.get("login") == author) if author else (user.get("type") == "Bot"):
            return c
    return None


def run_action(
    store: Store,
    client: ActionClient,
    graph_repo: str,
    pr: int,
    *,
    judge: str = "offline",
    comment_author: str | None = None,
) -> ActionResult:
    graph_repo = validate_repo(graph_repo)
    pull = client.pull(pr)
    head_sha = str((pull.get("head") or {}).get("sha") or "")
    if not head_sha:
        raise GitHubError(f"pull request #{pr} has no head SHA in GitHub's answer", 200)
    diff_text = client.pull_diff(pr)
    comments = client.issue_comments(pr)
    sticky = find_sticky(comments, comment_author)
    earlier = decode_state(sticky.get("body") if sticky else None)
    report = _guard(store, graph_repo, diff_text, judge, pr)
    # Feedback recorded by an earlier run but missing from this graph (a cache miss gave the job a fresh one) is
    # given again from its comment, which is still on the pull request: a "/rguard wrong" holds across caches.
    lost = {o.comment_id for o in earlier if _lost(store, graph_repo, o)}
    earlier = [o for o in earlier if o.comment_id not in lost]
    handled = {o.comment_id for o in earlier}

    todo: list[Command] = []
    for c in comments:
        cmd = parse_command(c)
        if cmd is not None and cmd.comment_id not in handled and cmd.login != comment_author:
            todo.append(cmd)

    # a "wrong" dismisses the finding on the lines this pull request changes (its lines_key in this report)
    lines_of = {f.decision_id: f.lines_key for f in [*report.findings, *report.dismissed]}

    def record(cmd: Command, decision: str) -> JSONObject:
        return record_feedback(
            store,
            graph_repo,
            decision,
            cmd.kind,
            cmd.login,
            cmd.reason,
            lines_key=lines_of.get(decision),
            diff=diff_text,
        )

    default = report.findings[0].decision_id if report.findings else None
    outcomes = handle(todo, client.permission, record, default)
    if any(o.status == "recorded" for o in outcomes):
        report = _guard(store, graph_repo, diff_text, judge, pr)

    body = render_body(report, head_sha, earlier + outcomes)
    notes = list(report.notes)
    created = sticky is None
    try:
        comment = client.create_comment(pr, body) if sticky is None else client.update_comment(int(sticky["id"]), body)
    except GitHubError as e:
        if e.status != 403:
            raise
        # a fork's pull request gets a read-only token: the findings still reach the job log
        comment, created = {}, False
        notes.append(f"no comment: {e} (the token needs 'pull-requests: write'; fork PRs get a read-only token)")
        print(f"rguard: {notes[-1]}", file=sys.stderr)
    parsed = parse_diff(diff_text) if diff_text.strip() else ParsedDiff([], [])
    check_id = _check_run(client, report, parsed, head_sha, notes)
    lines = [finding_line(f, parsed.paths) for f in report.findings]
    return ActionResult(
        pr,
        head_sha,
        report.verdict,
        int(comment.get("id") or 0),
        created,
        check_id,
        outcomes,
        notes,
        lines,
        list(report.skipped_files),
        str(comment.get("html_url") or ""),
        sum(f.label == "contradicts" for f in report.findings),
        sum(f.label != "contradicts" for f in report.findings),
        check_annotations(report, parsed),
        check_summary(report),
    )


def _lost(store: Store, repo: str, o: Outcome) -> bool:
    if o.status != "recorded" or not o.decision_id:
        return False
    return not ever_given(store.repo_graph(repo), o.decision_id, o.kind, o.login)


def _guard(store: Store, repo: str, diff_text: str, judge: str, pr: int) -> GuardReport:
    if diff_text.strip():
        return run_guard(store, repo, diff_text, judge=judge, pr=pr)
    # a pull request without file changes: nothing to guard (the guard itself refuses an empty diff)
    if not store.repo_graph(repo).exists():
        raise UnknownRepository(repo)
    return GuardReport(
        repo,
        "pass",
        [],
        [],
        {"parse": 0.0, "graph": 0.0, "judge": 0.0, "total": 0.0},
        [f"pull request #{pr} changes no files"],
    )


def _check_run(
    client: ActionClient, report: GuardReport, diff: ParsedDiff, head_sha: str, notes: list[str]
) -> int | None:
    anns = check_annotations(report, diff)
    title = {
        "warn": "contradicts an earlier decision",
        "note": "touches earlier decisions",
        "pass": "no earlier decision affected",
    }[report.verdict]
    payload = {
        "name": CHECK_NAME,
        "head_sha": head_sha,
        "status": "completed",
        "conclusion": "neutral",
        "output": {"title": f"RGuard: {title}", "summary": check_summary(report), "annotations": anns},
    }
    try:
        return int(client.create_check_run(payload).get("id") or 0)
    except GitHubError as e:
        if e.status in (403, 404):  # e.g. a fork's read-only token: the comment still carries the findings
            notes.append(f"no check run: {e} (give the workflow 'checks: write')")
            print(f"rguard: {notes[-1]}", file=sys.stderr)
            return None
        raise

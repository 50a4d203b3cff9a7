"""The sticky pull-request comment and the check run's annotations, rendered from a guard report.

Everything that came from a source or a person (quotes, summaries, premise details, reasons, logins, paths)
goes through untrusted.md_code / md_block, so none of it renders as Markdown or HTML (no links, images,
@mentions or a stray ``<!-- rguard -->``); people to ask are written as code, so nobody is pinged.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from ..guard.model import Finding, GuardReport, ParsedDiff
from ..untrusted import md_block, md_code, md_link, one_line
from .commands import Outcome, encode_state


class CheckAnnotation(TypedDict):
    """One entry of a check run's ``output.annotations``, as GitHub's REST API takes it."""

    path: str
    start_line: int
    end_line: int
    annotation_level: Literal["notice", "warning", "failure"]
    title: str
    message: str


MARKER = "<!-- rguard -->"
MAX_BODY = 60_000  # GitHub refuses comments over 65,536 characters
MAX_ANNOTATIONS = 50  # per check-run request
MAX_OUTCOMES_SHOWN = 30
VERDICT_LINE = {
    "warn": "**warn**: this change contradicts an earlier decision",
    "note": "**note**: this change touches earlier decisions; nothing contradicts them",
    "pass": "**pass**: no earlier decision is affected",
}


def source_name(f: Finding) -> str:
    s = f.source or {}
    kind, number, path = s.get("kind"), s.get("number"), s.get("path")
    if kind == "pr" and number is not None:
        return f"PR #{int(number)}"
    if kind == "issue" and number is not None:
        return f"issue #{int(number)}"
    if path:
        return f"{kind or 'source'} {md_code(str(path), 120)}"
    return str(kind or "source")


def render_finding(i: int, f: Finding) -> str:
    lines = [
        f"#### {i}. {f.label}: {md_code(f.decision_id, 120)} from {source_name(f)} (score {f.score:.2f})",
        "",
        f"Decision: {md_code(f.summary)}",
        "",
        "Quoted from the source:",
        "",
        md_block(f.quote, 1500),
        "",
        f"Link: {md_link(f.source_url)}",
    ]
    for p in f.premises:
        lines.append(
            f"- premise {md_code(p.get('rule', ''), 10)} {md_code(p.get('status', ''), 20)}: "
            f"{md_code(p.get('detail', ''))}"
        )
    for a in f.alternatives[:3]:
        lines.append(f"- rejected alternative: {md_code(a.get('quote', ''))}")
    if f.experts:
        who = ", ".join(md_code(str(e.get("login", "")), 60) for e in f.experts)
        lines.append(f"- ask: {who} (bus factor {f.bus_factor})")
    for n in f.learned[:5]:
        lines.append(f"- learned: {md_code(n)}")
    lines += [
        "",
        f"Reply {md_code(f'/rguard ack {f.decision_id} <reason>', 200)}, "
        f"{md_code(f'/rguard wrong {f.decision_id} <reason>', 200)} or "
        f"{md_code(f'/rguard override {f.decision_id} <the new decision>', 200)} (write permission needed).",
    ]
    return "\n".join(lines)


def render_outcome(o: Outcome) -> str:
    target = md_code(o.decision_id, 120) if o.decision_id else "(no decision)"
    return f"- {md_code(o.login or '?', 60)}: {o.kind} on {target} **{o.status}**: {md_code(o.detail)}"


def render_body(report: GuardReport, head_sha: str, outcomes: list[Outcome]) -> str:
    """The whole sticky comment: marker, verdict, findings, feedback, and the hidden record of outcomes."""
    # The record comes first, right after the marker, before any quoted text: decode_state reads it only there,
    # so nothing a source or a commenter wrote (an HTML comment in a PR body, quoted below) can stand in for it.
    head = [
        MARKER,
        encode_state(outcomes),
        f"### RGuard: {VERDICT_LINE[report.verdict]}",
        "",
        f"Checked {md_code(head_sha[:12], 20)} against the recorded decisions of {md_code(report.repo, 120)}: "
        f"{len(report.findings)} finding(s).",
    ]
    tail = []
    if report.dismissed:  # reviewers' "wrong" on these lines: listed, not counted in the verdict
        tail += ["", "#### Dismissed by reviewers"]
        tail += [
            f"- {md_code(f.decision_id, 120)}: dismissed by {md_code(f.dismissed.by, 60)}: "
            f"{md_code(f.dismissed.reason)}"
            for f in report.dismissed
            if f.dismissed is not None
        ]
    if outcomes:
        tail += ["", "#### Feedback", *[render_outcome(o) for o in outcomes[-MAX_OUTCOMES_SHOWN:]]]
    body = head
    used = sum(len(x) + 1 for x in head + tail)
    for i, f in enumerate(report.findings, 1):
        part = "\n" + render_finding(i, f)
        if used + len(part) > MAX_BODY:
            body.append(f"\n({len(report.findings) - i + 1} more finding(s) not shown: the comment would be too long)")
            break
        body.append(part)
        used += len(part) + 1
    return "\n".join(body + tail)


def annotation_lines(diff: ParsedDiff) -> dict[str, int]:
    """For each file of the diff, the line (in the new file) of its first change: where an annotation goes."""
    out: dict[str, int] = {}
    for fd in diff.files:
        for h in fd.hunks:
            start = _new_start(h.header)
            offset = 0
            for kind, _ in h.lines:
                if kind in "+-":
                    break
                offset += 1
            out[fd.path] = max(1, start + offset)
            break
    return out


def _new_start(header: str) -> int:
    try:
        plus = header.split("+", 1)[1]
        return int(plus.split(",", 1)[0].split(" ", 1)[0])
    except (IndexError, ValueError):
        return 1


def check_annotations(report: GuardReport, diff: ParsedDiff) -> list[CheckAnnotation]:
    """One annotation per finding, on the first changed line of the diff file that reached its decision."""
    lines = annotation_lines(diff)
    out: list[CheckAnnotation] = []
    for f in report.findings:
        files = [p[len("file:") :] for p in f.path if p.startswith("file:") and p[len("file:") :] in lines]
        path = files[0] if files else next(iter(lines), None)
        if path is None:
            continue
        out.append(
            {
                "path": path,
                "start_line": lines[path],
                "end_line": lines[path],
                "annotation_level": "warning" if f.label == "contradicts" else "notice",
                "title": one_line(f"{f.label}: {f.decision_id}", 255),
                "message": one_line(f'{f.summary} | quote: "{f.quote}" | {f.source_url}', 4000),
            }
        )
    return out[:MAX_ANNOTATIONS]


def check_summary(report: GuardReport) -> str:
    lines = [VERDICT_LINE[report.verdict], ""]
    for i, f in enumerate(report.findings, 1):
        lines.append(f"{i}. {f.label} {md_code(f.decision_id, 120)}: {md_code(f.summary)} ({md_link(f.source_url)})")
    return "\n".join(lines)[:MAX_BODY]

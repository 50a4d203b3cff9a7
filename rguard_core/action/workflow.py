"""What a GitHub Actions step hands back besides the comment: step outputs (``$GITHUB_OUTPUT``), the job summary
(``$GITHUB_STEP_SUMMARY``) and ``::warning file=…,line=…::`` annotations in the log. The annotations need no token,
so a fork's pull request (read-only token, no comment, no check run) still shows each finding on its line."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from .comment import CheckAnnotation
from .run import ActionResult

# https://docs.github.com/actions/reference/workflow-commands-for-github-actions: property values escape these
# too, messages only the first three.
_DATA = {"%": "%25", "\r": "%0D", "\n": "%0A"}
_PROPERTY = {**_DATA, ":": "%3A", ",": "%2C"}


def _escape(text: str, table: dict[str, str]) -> str:
    for raw, coded in table.items():  # "%" first: dict order
        text = text.replace(raw, coded)
    return text


def annotation_command(a: CheckAnnotation) -> str:
    level = "warning" if a["annotation_level"] == "warning" else "notice"
    props = ",".join(
        f"{k}={_escape(str(v), _PROPERTY)}"
        for k, v in (("file", a["path"]), ("line", a["start_line"]), ("title", a["title"]))
    )
    return f"::{level} {props}::{_escape(a['message'], _DATA)}"


def outputs(res: ActionResult) -> dict[str, str]:
    return {
        "verdict": res.verdict,
        "findings": str(res.contradicts + res.related),
        "contradicts": str(res.contradicts),
        "related": str(res.related),
        "comment-url": res.comment_url,
        "check-run-id": str(res.check_run_id or ""),
    }


def write_outputs(res: ActionResult, env: dict[str, str] | None = None) -> None:
    """Append the step outputs and the job summary where the runner says (nothing outside Actions)."""
    e = os.environ if env is None else env
    out_file, summary_file = e.get("GITHUB_OUTPUT"), e.get("GITHUB_STEP_SUMMARY")
    if out_file:
        with Path(out_file).open("a", encoding="utf-8") as fh:
            for key, value in outputs(res).items():
                # the multi-line form with a random delimiter: no value can end the record early
                delim = f"RGUARD_{uuid.uuid4().hex}"
                fh.write(f"{key}<<{delim}\n{value}\n{delim}\n")
    if summary_file:
        with Path(summary_file).open("a", encoding="utf-8") as fh:
            link = f" · [the comment]({res.comment_url})" if res.comment_url.startswith("https://") else ""
            fh.write(f"## RGuard on #{res.pr}{link}\n\n{res.summary}\n\n")


def print_annotations(res: ActionResult) -> list[str]:
    """The ::warning / ::notice lines for the log. Printed between stop-commands markers would hide them, so each
    line is built here and nothing untrusted starts a line of its own (every value is escaped onto this one)."""
    return [annotation_command(a) for a in res.annotations]

"""The Guard page's input: exactly one of a pasted diff, an uploaded patch or a stored PR, named in the verdict.

No Streamlit here: the page reads its widgets and hands them to ``read_input``, so what is judged is exactly
the input the user chose (an earlier upload never overrides a pasted diff), and tests can call it directly.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from rguard_core.errors import InvalidInput
from rguard_core.guard.model import GuardReport
from rguard_core.guard.request import check_diff_size, decode_diff, pr_number, text_size

INPUTS = {"paste": "Paste a diff", "upload": "Upload .diff / .patch", "pr": "A stored PR"}


@dataclass(frozen=True)
class GuardInput:
    kind: str  # paste | upload | pr
    label: str  # what the verdict names: "the pasted diff (12 changed lines, 3f2a…)"
    diff: str | None
    pr: int | None


@dataclass(frozen=True)
class GuardRun:
    """A verdict and the input it judged, kept together so the page can never show one with another."""

    input: GuardInput
    report: GuardReport


def _changed_lines(diff: str) -> int:
    return sum(1 for line in diff.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---")))


def _digest(diff: str) -> str:
    return hashlib.sha256(diff.encode()).hexdigest()[:8]


def read_input(
    kind: str,
    repo: str,
    *,
    pasted: str = "",
    upload_name: str | None = None,
    upload_bytes: bytes | None = None,
    pr_text: str = "",
) -> GuardInput:
    """The one input the user chose, validated; the others are ignored whatever they hold."""
    if kind == "paste":
        if not pasted.strip():
            raise InvalidInput("nothing to guard: paste a diff (or choose another input above)")
        check_diff_size(text_size(pasted), "the pasted diff")  # the guard's one input limit (guard/request.py)
        return GuardInput(
            "paste", f"the pasted diff ({_changed_lines(pasted)} changed lines, {_digest(pasted)})", pasted, None
        )
    if kind == "upload":
        if upload_bytes is None:
            raise InvalidInput("nothing to guard: choose a .diff or .patch file (or another input above)")
        text = decode_diff(upload_bytes, "the uploaded patch")
        return GuardInput(
            "upload",
            f"the uploaded file {upload_name or 'patch'} ({_changed_lines(text)} changed lines, {_digest(text)})",
            text,
            None,
        )
    if kind == "pr":
        if not pr_text.strip():
            raise InvalidInput("nothing to guard: give a PR number or URL (or choose another input above)")
        number = pr_number(pr_text, repo)
        return GuardInput("pr", f"PR #{number} as stored in the graph", None, number)
    raise InvalidInput(f"unknown input {kind!r}")

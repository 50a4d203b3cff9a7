"""``/rguard ack|wrong|override [decision:ID] <reason>`` comments on a pull request.

A command is honoured only from a user whose collaborator permission is write, maintain or admin (GitHub's
``GET /repos/{o}/{r}/collaborators/{user}/permission``); anyone else's is refused and the refusal shown in the
sticky comment. Without a decision id, the command is about the first finding of the current report.
Each comment is handled once: the sticky comment keeps every outcome so far in a hidden base64 record, so a
re-run never records the same feedback twice and the comment keeps showing it. Comments by bots are never commands.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import asdict, dataclass
from typing import Any

from ..errors import RGuardError
from ..jsontypes import JSONObject

# At most three spaces of indent: four make a Markdown code block, which shows a command rather than giving it.
_COMMAND = re.compile(
    r"^ {0,3}/rguard[ \t]+(?P<kind>ack|wrong|override)\b[ \t]*(?P<rest>.*)$", re.IGNORECASE | re.MULTILINE | re.DOTALL
)
_DECISION = re.compile(r"^(?P<id>decision:\S+)\s*")
STATE = re.compile(r"<!-- rguard-state: (?P<data>[A-Za-z0-9+/=]*) -->")


@dataclass(frozen=True)
class Command:
    comment_id: int
    login: str
    kind: str
    decision_id: str | None
    reason: str


@dataclass(frozen=True)
class Outcome:
    comment_id: int
    login: str
    kind: str
    decision_id: str | None
    status: str  # recorded | refused | failed
    detail: str


def parse_command(comment: JSONObject) -> Command | None:
    """The comment's first ``/rguard`` command, or None (not a command, or written by a bot)."""
    user = comment.get("user") or {}
    if not isinstance(user, dict) or user.get("type") == "Bot" or not isinstance(comment.get("id"), int):
        return None
    m = _COMMAND.search(commands_text(str(comment.get("body") or "")))
    if not m:
        return None
    rest = m["rest"].strip()
    d = _DECISION.match(rest)
    decision = d["id"] if d else None
    reason = rest[d.end() :].strip() if d else rest
    return Command(int(comment["id"]), str(user.get("login") or ""), m["kind"].lower(), decision, reason)


_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})[^\n]*\n.*?(?:^ {0,3}(?P=fence)[ \t]*$|\Z)", re.M | re.S)
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_QUOTED_LINE = re.compile(r"^ {0,3}>.*$", re.M)


def commands_text(body: str) -> str:
    """The part of a comment that can give a command: without fenced code blocks, inline code, HTML comments
    and quoted lines (``> /rguard ack`` quotes someone else's command; a code block shows one)."""
    body = body.replace("\r\n", "\n")
    for pattern in (_FENCE, _HTML_COMMENT, _INLINE_CODE, _QUOTED_LINE):
        body = pattern.sub("", body)
    return body


def encode_state(outcomes: list[Outcome]) -> str:
    """The hidden record of every outcome so far (base64 JSON: cannot end the HTML comment early)."""
    data = base64.b64encode(json.dumps([asdict(o) for o in outcomes]).encode("utf-8")).decode("ascii")
    return f"<!-- rguard-state: {data} -->"


def decode_state(body: str | None) -> list[Outcome]:
    """Outcomes recorded by earlier runs in the sticky comment; a damaged record counts as none.

    The record is the comment's second line, after the marker (comment.render_body puts it there), and is read
    nowhere else: a look-alike further down (quoted source text) is ignored."""
    lines = (body or "").split("\n", 2)
    m = STATE.fullmatch(lines[1].strip()) if len(lines) > 1 and lines[0].strip() == "<!-- rguard -->" else None
    if not m or not m["data"]:
        return []
    try:
        rows = json.loads(base64.b64decode(m["data"], validate=True).decode("utf-8"))
        return [
            Outcome(
                int(r["comment_id"]),
                str(r["login"]),
                str(r["kind"]),
                None if r.get("decision_id") is None else str(r["decision_id"]),
                str(r["status"]),
                str(r["detail"]),
            )
            for r in rows
        ]
    except (ValueError, KeyError, TypeError):
        return []


def handle(commands: list[Command], permission: Any, record: Any, default_decision: str | None) -> list[Outcome]:
    """Check each author's permission, then record; ``permission(login) -> str``, ``record(cmd, decision)``."""
    out = []
    for c in commands:
        decision = c.decision_id or default_decision
        perm = permission(c.login) if c.login else "none"
        if perm not in ("admin", "maintain", "write"):
            out.append(
                Outcome(
                    c.comment_id,
                    c.login,
                    c.kind,
                    decision,
                    "refused",
                    f"needs write permission on the repository; {c.login or 'the author'} has {perm}",
                )
            )
            continue
        if decision is None:
            out.append(
                Outcome(
                    c.comment_id,
                    c.login,
                    c.kind,
                    None,
                    "refused",
                    "no finding to apply it to; name one: /rguard " + c.kind + " decision:ID <reason>",
                )
            )
            continue
        if not c.reason:
            out.append(
                Outcome(
                    c.comment_id,
                    c.login,
                    c.kind,
                    decision,
                    "refused",
                    f"say why after the command: /rguard {c.kind} {decision} <reason>",
                )
            )
            continue
        try:
            res = record(c, decision)
        except RGuardError as e:
            out.append(Outcome(c.comment_id, c.login, c.kind, decision, "failed", str(e)))
            continue
        extra = f"; new decision {res['new_decision']}" if res.get("new_decision") else ""
        out.append(
            Outcome(c.comment_id, c.login, c.kind, decision, "recorded", f"recorded as {res['correction']}{extra}")
        )
    return out

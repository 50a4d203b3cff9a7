"""The shapes a GitHub REST record must have before ingest reads it; one schema for both REST-shaped sources.

``GitHubSource`` (live answers) and ``SnapshotSource`` (files on disk) call these checks on every record they
hand to ``collect``, with ``where`` naming the URL or file. A record of the wrong shape raises BadRecord naming
the file (or URL), the field and what is wrong, before anything is written. Only the fields collect reads are
checked; anything else GitHub sends is left alone.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..errors import BadRecord
from ..jsontypes import JSONObject

Json = JSONObject  # a GitHub answer or snapshot record, checked field by field here

MAX_NUMBER = 2**31 - 1  # GitHub's numbers are 32-bit; a larger one would also overflow the graph's integers
_PULL_TEXT = ("title", "body", "state", "html_url", "merge_commit_sha")
_ISSUE_TEXT = ("title", "body", "state", "html_url", "state_reason")
_TIMES = ("created_at", "merged_at", "closed_at")
_COMMENT_TEXT = ("body", "html_url", "path")


def repo_info(raw: Any, where: str) -> Json:
    obj = _object(raw, where, "the repository record")
    _text(obj, "html_url", where)
    _text(obj, "full_name", where)
    return obj


def pull(raw: Any, where: str) -> Json:
    """A pull request object (``GET /pulls/{n}`` or one item of ``GET /pulls``)."""
    obj = _object(raw, where, "a pull request")
    _number(obj, where)
    for name in _PULL_TEXT:
        _text(obj, name, where)
    for name in _TIMES:
        _time(obj, name, where)
    _user(obj, where)
    return obj


def issue(raw: Any, where: str) -> Json:
    """An issue object (``GET /issues/{n}``; a PR answers here too, with ``pull_request``)."""
    obj = _object(raw, where, "an issue")
    _number(obj, where)
    for name in _ISSUE_TEXT:
        _text(obj, name, where)
    for name in ("created_at", "closed_at"):
        _time(obj, name, where)
    _user(obj, where)
    labels = obj.get("labels")
    if labels is not None:
        if not isinstance(labels, list):
            raise BadRecord(where, "field 'labels'", f"must be a list, got {_shown(labels)}")
        for i, x in enumerate(labels):
            if not isinstance(x, (dict, str)) or (isinstance(x, dict) and not isinstance(x.get("name", ""), str)):
                raise BadRecord(where, f"labels item {i}", f"must be a label object or a name, got {_shown(x)}")
    return obj


def files(raw: Any, where: str) -> list[Json]:
    """``GET /pulls/{n}/files``: a list of file objects."""
    items = _list(raw, where, "file objects")
    for i, raw_item in enumerate(items):
        at = f"item {i}"
        f = _object(raw_item, where, "a file object", at)
        name = f.get("filename")
        if not isinstance(name, str) or not name.strip():
            raise BadRecord(where, f"{at} field 'filename'", f"must be a non-empty path, got {_shown(name)}")
        repo_path(name, where, f"{at} field 'filename'")
        if f.get("previous_filename") is not None:
            _text(f, "previous_filename", where, at)
            repo_path(f["previous_filename"], where, f"{at} field 'previous_filename'")
        for key in ("status", "patch"):
            _text(f, key, where, at)
        for key in ("additions", "deletions"):
            v = f.get(key)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= MAX_NUMBER):
                raise BadRecord(where, f"{at} field {key!r}", f"must be a whole number of lines, got {_shown(v)}")
    return items


def comments(raw: Any, where: str) -> list[Json]:
    """``GET /issues/{n}/comments`` or ``GET /pulls/{n}/comments``: a list of comment objects."""
    items = _list(raw, where, "comment objects")
    for i, raw_item in enumerate(items):
        at = f"item {i}"
        c = _object(raw_item, where, "a comment object", at)
        for key in _COMMENT_TEXT:
            _text(c, key, where, at)
        _time(c, "created_at", where, at)
        _user(c, where, at)
    return items


def repo_path(path: str, where: str, field: str) -> str:
    """A path inside the repository: relative, no ``..`` part, no NUL (git itself allows no other)."""
    parts = path.replace("\\", "/").split("/")
    if path.startswith(("/", "\\")) or (len(path) > 1 and path[1] == ":") or ".." in parts or "\x00" in path:
        raise BadRecord(where, field, f"must be a relative path inside the repository, got {_shown(path)}")
    return path


# ---- field checks ------------------------------------------------------------------------------


def _object(raw: Any, where: str, what: str, at: str = "") -> Json:
    if not isinstance(raw, dict):
        raise BadRecord(where, at or "the record", f"must be {what} (a JSON object), got {_shown(raw)}")
    return raw


def _list(raw: Any, where: str, what: str) -> list[Any]:
    if not isinstance(raw, list):
        raise BadRecord(where, "the record", f"must be a list of {what}, got {_shown(raw)}")
    return raw


def _number(obj: Json, where: str) -> None:
    n = obj.get("number")
    if not isinstance(n, int) or isinstance(n, bool) or not 0 < n <= MAX_NUMBER:
        raise BadRecord(where, "field 'number'", f"must be a positive whole number, got {_shown(n)}")


def _text(obj: Json, name: str, where: str, at: str = "") -> None:
    v = obj.get(name)
    if v is not None and not isinstance(v, str):
        raise BadRecord(where, _field(at, name), f"must be text or null, got {_shown(v)}")


def _time(obj: Json, name: str, where: str, at: str = "") -> None:
    v = obj.get(name)
    if v is None:
        return
    ok = isinstance(v, str)
    if ok:
        try:
            dt.datetime.fromisoformat(v.replace("Z", "+00:00"))
        except ValueError:
            ok = False
    if not ok:
        raise BadRecord(
            where, _field(at, name), f"must be an ISO 8601 time like 2024-05-01T12:00:00Z or null, got {_shown(v)}"
        )


def _user(obj: Json, where: str, at: str = "") -> None:
    u = obj.get("user")
    if u is None:
        return
    if not isinstance(u, dict):
        raise BadRecord(
            where, _field(at, "user"), f'must be a user object like {{"login": "octocat"}} or null, got {_shown(u)}'
        )
    for key in ("login", "type"):
        v = u.get(key)
        if v is not None and not isinstance(v, str):
            raise BadRecord(where, _field(at, f"user.{key}"), f"must be text or null, got {_shown(v)}")


def _field(at: str, name: str) -> str:
    return f"{at} field {name!r}" if at else f"field {name!r}"


def _shown(v: Any) -> str:
    kind = {
        dict: "an object",
        list: "a list",
        str: "text",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(v), type(v).__name__)
    text = repr(v)
    return f"{kind} {text[:60] + '…' if len(text) > 60 else text}" if v is not None else kind

"""The one edit format shared by the demo seed (seeds/story/) and the labelled cases (eval/case_edits/).

An edit is a small mapping in a YAML data file; its first key names the operation:

    - sub: PATH          replace the only occurrence of `old` with `new` (fails on 0 or 2+ occurrences)
      old: TEXT
      new: TEXT
    - put: PATH          create PATH or overwrite it whole
      text: TEXT
    - create: PATH       create PATH, which must not exist yet
      text: TEXT
    - remove: PATH       delete PATH
    - rename: OLD        move OLD to `to`
      to: NEW
    - revert: KEY        undo every file change of an earlier merged PR (seed history only)

Edits apply to a tree held as ``{path: text}``. Stdlib and PyYAML only: both generators run as plain scripts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any


class EditError(ValueError):
    """An edit is malformed or does not apply to the tree it was given."""


@dataclass(frozen=True)
class Sub:
    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Put:
    path: str
    text: str


@dataclass(frozen=True)
class Create:
    path: str
    text: str


@dataclass(frozen=True)
class Remove:
    path: str


@dataclass(frozen=True)
class Rename:
    old: str
    new: str


@dataclass(frozen=True)
class RevertOf:
    key: str


Edit = Sub | Put | Create | Remove | Rename | RevertOf

# operation -> (the other keys it takes, how to build it)
_SHAPES: dict[str, tuple[tuple[str, ...], Callable[..., Edit]]] = {
    "sub": (("old", "new"), Sub),
    "put": (("text",), Put),
    "create": (("text",), Create),
    "remove": ((), Remove),
    "rename": (("to",), Rename),
    "revert": ((), RevertOf),
}


def parse_edit(raw: Any, where: str) -> Edit:
    """One edit from its data-file mapping; ``where`` names the case or PR for the error message."""
    if not isinstance(raw, Mapping) or not raw:
        raise EditError(f"{where}: an edit must be a mapping such as {{sub: PATH, old: ..., new: ...}}, got {raw!r}")
    op = next(iter(raw))
    if op not in _SHAPES:
        raise EditError(f"{where}: unknown edit {op!r}; use one of {', '.join(_SHAPES)}")
    keys, make = _SHAPES[op]
    if set(raw) != {op, *keys}:
        raise EditError(f"{where}: a {op!r} edit takes exactly the keys {[op, *keys]}, got {list(raw)}")
    values = [raw[op], *(raw[k] for k in keys)]
    if not all(isinstance(v, str) for v in values):
        raise EditError(f"{where}: every value of a {op!r} edit must be a string")
    return make(*values)


def parse_edits(raw: Any, where: str) -> list[Edit]:
    if not isinstance(raw, list):
        raise EditError(f"{where}: edits must be a list")
    return [parse_edit(item, where) for item in raw]


def apply_edits(
    tree: dict[str, str],
    edits: Iterable[Edit],
    *,
    resolve: Callable[[str], str] = lambda s: s,
    revert: Callable[[str, dict[str, str]], None] | None = None,
    renames: dict[str, str] | None = None,
) -> dict[str, str]:
    """A new tree with ``edits`` applied in order. ``resolve`` rewrites texts (the seed's placeholders);
    ``revert`` undoes an earlier change in place; ``renames`` collects new path -> old path."""
    out = dict(tree)
    for edit in edits:
        _apply_one(edit, out, resolve, revert, renames if renames is not None else {})
    return out


def _apply_one(
    edit: Edit,
    out: dict[str, str],
    resolve: Callable[[str], str],
    revert: Callable[[str, dict[str, str]], None] | None,
    renames: dict[str, str],
) -> None:
    if isinstance(edit, Sub):
        old, new = resolve(edit.old), resolve(edit.new)
        text = out.get(edit.path)
        found = 0 if text is None else text.count(old)
        if text is None or found != 1:
            raise EditError(f"sub on {edit.path}: expected the old text once, found it {found} times: {old[:60]!r}")
        out[edit.path] = text.replace(old, new)
    elif isinstance(edit, Put):
        out[edit.path] = resolve(edit.text)
    elif isinstance(edit, Create):
        if edit.path in out:
            raise EditError(f"create {edit.path}: the file already exists")
        out[edit.path] = resolve(edit.text)
    elif isinstance(edit, Remove):
        if edit.path not in out:
            raise EditError(f"remove {edit.path}: no such file")
        del out[edit.path]
    elif isinstance(edit, Rename):
        if edit.old not in out or edit.new in out:
            raise EditError(f"rename {edit.old} -> {edit.new}: the source is missing or the target exists")
        out[edit.new] = out.pop(edit.old)
        renames[edit.new] = edit.old
    else:
        if revert is None:
            raise EditError(f"revert {edit.key}: only the seed history can revert an earlier PR")
        revert(edit.key, out)

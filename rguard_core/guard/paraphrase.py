"""Paraphrased undos: the same intent undone with other code, read from the decision's change and words.

E1  lazy import made eager: the decision's change moved an import into a function (it took a top-level
    ``import m`` / ``from m import x`` out, or added an indented one); the diff adds that import at module
    level again
C1  a permission revoked: the decision's words allow/accept/support a code name (``str``, ``None``,
    ``bytes``...), and the diff adds a check on that name followed by a raise/throw (rejecting it)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .judge_case import PATCH_CACHE, Case, Evidence, patch_hunks
from .tokens import ChangeSet, tokens, weight

_IMPORT = re.compile(r"^(\s*)(?:from\s+([\w.]+)\s+import\b|import\s+([\w.]+))")
_ALLOW = re.compile(
    r"(?i)\b(?:allow|allows|allowed|accept|accepts|accepted|support|supports|supported|permit|"
    r"permits|permitted|take|takes)\b[^.;\n]{0,40}?`?([A-Za-z_][\w.]*)`?"
)
_EXIT = re.compile(r"^\s*(?:raise|throw)\b")
_COND = re.compile(r"^\s*(?:if|elif|unless|assert)\b|\bif\s*\(")
_STOP = frozenset("a an the any all it them this that to be for of in on with as and or both also more".split())


@dataclass(frozen=True)
class EagerImport:
    module: str
    line: str


@dataclass(frozen=True)
class Rejected:
    name: str
    check: str
    words: str


def _module(line: str) -> tuple[str, str] | None:
    m = _IMPORT.match(line)
    if not m:
        return None
    return m.group(1), (m.group(2) or m.group(3) or "")


_LAZY_WORDS = re.compile(r"(?i)\b(?:lazy|lazily|deferred|defer|circular|import (?:time|cost)|start-?up)\b")


def lazy_modules(hunks: list[list[tuple[str, str]]], words: str = "") -> set[str]:
    """Modules a change made lazy: it moved a top-level import into a function (removed the one, added the
    other), or added an import inside a function while its words speak of lazy/deferred/circular imports."""
    removed_top: set[str] = set()
    added_inner: set[str] = set()
    added_top: set[str] = set()
    for h in hunks:
        for k, text in h:
            mod = _module(text)
            if mod is None or not mod[1]:
                continue
            indent, name = mod
            if k == "-" and not indent:
                removed_top.add(name)
            elif k == "+":
                (added_inner if indent else added_top).add(name)
    moved = removed_top & added_inner
    said = added_inner if _LAZY_WORDS.search(words) else set()
    return (moved | said) - added_top


def eager_imports(diff: ChangeSet, lazy: set[str] | frozenset[str]) -> list[EagerImport]:
    """E1: module-level imports the diff adds of modules the decision made lazy (raw hunk lines: moving an
    import out of a function is a move by text, which the net change set does not show)."""
    if not lazy:
        return []
    out = []
    for h in diff.hunks:
        for k, line in h:
            mod = _module(line) if k == "+" else None
            if mod and not mod[0] and mod[1] in lazy:
                out.append(EagerImport(mod[1], line.strip()))
    return out


def allowed_names(text: str) -> set[str]:
    """Code names the decision's words say are allowed/accepted/supported (``allow `str` values``)."""
    out = set()
    for m in _ALLOW.finditer(text):
        name = m.group(1)
        if name.lower() not in _STOP and (("`" in m.group(0)) or name in _TYPES or "_" in name):
            out.add(name)
    return out


_TYPES = frozenset("str bytes int float None bool list dict tuple set Path string number object null".split())


def rejections(diff: ChangeSet, names: set[str]) -> list[Rejected]:
    """C1: a check on an allowed name that the diff adds, followed by a raise/throw it adds."""
    if not names:
        return []
    out = []
    for h in diff.hunks:
        prev: str | None = None  # the line before, as the file reads after the diff (context or added)
        for k, line in h:
            if k == "-":
                continue
            if k == "+" and prev is not None and _EXIT.match(line) and _COND.search(prev):
                for name in names:
                    if re.search(r"(?<![\w.])" + re.escape(name) + r"(?![\w])", prev):
                        out.append(Rejected(name, prev.strip(), line.strip()))
            prev = line
    return out


@lru_cache(maxsize=PATCH_CACHE)
def _lazy(patch: str, words: str) -> frozenset[str]:
    return frozenset(lazy_modules(patch_hunks(patch), words))


def e1_eager(case: Case) -> Evidence | None:
    """E1: an import the decision made lazy (moved into a function) imported at module level again."""
    if case.remote:
        return None
    for path, cs in case.diff_sets.items():
        if path in case.info.patches and not cs.test and cs.kind != "prose":
            words = " ".join((case.info.quote, case.info.summary, case.info.source_title))
            found = eager_imports(cs, _lazy(case.info.patches[path], words))
            if found:
                return Evidence(
                    "E1",
                    0.6,
                    f"the diff imports `{found[0].module}` at module level again "
                    f"(`{found[0].line}`); the decision's change made that import lazy",
                )
    return None


def c1_rejected(case: Case) -> Evidence | None:
    """C1: what the decision's words allow (``accept `str` values``), the diff now rejects (check + raise)."""
    if case.remote:
        return None
    names = allowed_names(" ".join((case.info.quote, case.info.summary, case.info.source_title)))
    for path, cs in case.diff_sets.items():
        if path in case.info.patches and not cs.test and cs.kind != "prose":
            found = rejections(cs, names)
            if found:
                r = found[0]
                share = sum(weight(t) for t in tokens(r.check) + tokens(r.words)) / case.total_w
                return Evidence(
                    "C1",
                    0.6,
                    f"the decision allows `{r.name}`; the diff rejects it (`{r.check}` then `{r.words}`)",
                    share,
                    True,
                )
    return None

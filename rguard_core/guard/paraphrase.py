"""Paraphrased undos: the same intent undone with other code, read from the decision's change and words.

E1  lazy import made eager: the decision's change moved an import into a function (it took a top-level
    ``import m`` / ``from m import x`` out, or added an indented one), or its words speak of lazy/deferred
    imports and it took a top-level import out; the diff adds that module (or a part or parent of it) at module
    level again (column 0, or inside a module-level ``try:``)
C1  a permission revoked: the decision's words allow/accept/support a code name (``str``, ``None``,
    ``bytes``...), and the diff adds a check on that name followed by a raise/throw (rejecting it), or a
    negated type check (``not isinstance(v, bytes)``, ``assert isinstance(v, bytes)``) that leaves the allowed
    type out, on a name the decision's change checked or annotated with that type
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .diffparse import patch_hunks
from .judge_case import PATCH_CACHE, Case, Evidence
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


# JavaScript/TypeScript: a static import or a require at the top, or a dynamic import()/require() in a function
_JS_STATIC = re.compile(
    r"""^(\s*)(?:import\s+(?:type\s+)?(?:[^'"]*?\s+from\s+)?|(?:const|let|var)\s+[^=]+=\s*require\()['"]([^'"]+)['"]"""
)
_JS_DYNAMIC = re.compile(r"""^(\s*)\S.*?\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)""")


def _module(line: str) -> tuple[str, str] | None:
    """(indent, module) of an import line (Python, or JavaScript/TypeScript), None for other lines; a dynamic
    ``import('m')`` reads as an import inside a function (never module level)."""
    m = _IMPORT.match(line)
    if m and not re.match(r"\s*import\s+[\w.]+\s+from\b|\s*import\s*[{*]", line):
        return m.group(1), (m.group(2) or m.group(3) or "")
    js = _JS_STATIC.match(line)
    if js:
        return js.group(1), js.group(2)
    dyn = _JS_DYNAMIC.match(line)
    if dyn:
        return (dyn.group(1) or " "), dyn.group(2)
    return None


_LAZY_WORDS = re.compile(
    r"(?i)\b(?:lazy|lazily|deferred|defer|circular|import[- ](?:time|cost)|start-?up|on[- ]demand|only when needed|"
    r"optional dependenc(?:y|ies)|heavy import|slow import)"
)


def lazy_modules(hunks: list[list[tuple[str, str]]], words: str = "") -> set[str]:
    """Modules a change made lazy: it moved a top-level import into a function (removed the one, added the
    other), or added an import inside a function while its words speak of lazy/deferred/circular imports."""
    removed_top: set[str] = set()
    removed_inner: set[str] = set()
    added_inner: set[str] = set()
    added_top: set[str] = set()
    for h in hunks:
        for k, text in h:
            mod = _module(text)
            if mod is None or not mod[1]:
                continue
            indent, name = mod
            if k == "-":
                (removed_inner if indent else removed_top).add(name)
            elif k == "+":
                (added_inner if indent else added_top).add(name)
    # The module now imported inside a function, when a top-level import of it (or its package) went and it was
    # not imported inside a function already: flask's "Switch to explicit Werkzeug imports" rewrote an inner
    # ``from werkzeug import run_simple`` as ``from werkzeug.serving import run_simple`` and made nothing lazy.
    moved = {
        x
        for x in added_inner
        if any(_same_module(m, x) for m in removed_top) and not any(_same_module(r, x) for r in removed_inner)
    }
    said = added_inner | removed_top if _LAZY_WORDS.search(words) else set()
    return (moved | said) - added_top


def eager_imports(diff: ChangeSet, lazy: set[str] | frozenset[str]) -> list[EagerImport]:
    """E1: module-level imports the diff adds of modules the decision made lazy (raw hunk lines: moving an
    import out of a function is a move by text, which the net change set does not show)."""
    if not lazy:
        return []
    out = []
    for h in diff.hunks:
        for i, (k, line) in enumerate(h):
            mod = _module(line) if k == "+" else None
            if mod and _module_level(h, i, mod[0]) and any(_same_module(mod[1], m) for m in lazy):
                out.append(EagerImport(mod[1], line.strip()))
    return out


def _same_module(a: str, b: str) -> bool:
    """``a.b`` is ``a.b``, a part of it (``a.b.c``) or its package (``a``)."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def _module_level(hunk: list[tuple[str, str]], i: int, indent: str) -> bool:
    """An import at column 0, or indented under a column-0 ``try:``/``except ...:`` (an optional dependency)."""
    if not indent:
        return True
    for _, text in reversed(hunk[:i]):
        if not text.strip():
            continue
        lead = len(text) - len(text.lstrip())
        if lead < len(indent):
            return lead == 0 and re.match(r"(?:try|except\b[^:]*|else)\s*:", text) is not None
    return False


def allowed_names(text: str) -> set[str]:
    """Code names the decision's words say are allowed/accepted/supported (``allow `str` values``): the first name
    after the verb, and every backticked one in the rest of its clause; plain type words count as their type
    (``strings`` -> ``str``)."""
    out = set()
    for m in _ALLOW.finditer(text):
        clause = re.split(r"[.;\n]", text[m.start(1) :], maxsplit=1)[0][:80]
        for name in [m.group(1), *re.findall(r"`([A-Za-z_][\w.]*)`", clause)]:
            name = _TYPE_WORDS.get(name.lower(), name) if "`" not in name else name
            if name.lower() not in _STOP and (f"`{name}`" in m.group(0) + clause or name in _TYPES or "_" in name):
                out.add(name)
    return out


_TYPE_WORDS = {
    "strings": "str",
    "string": "str",
    "integers": "int",
    "ints": "int",
    "floats": "float",
    "bytestrings": "bytes",
}
_TYPES = frozenset("str bytes int float None bool list dict tuple set Path string number object null".split())


def rejections(diff: ChangeSet, names: set[str], checked: dict[str, set[str]] | None = None) -> list[Rejected]:
    """C1: a check on an allowed name that the diff adds, followed by a raise/throw it adds; or a negated type
    check (or an assert) on a variable the decision's change typed with an allowed name (``checked``: name ->
    variables) that leaves that name out."""
    if not names:
        return []
    out = []
    for h in diff.hunks:
        for k, line in h:
            if k == "+" and _ASSERT_TYPE.search(line):
                out += _narrowed(line, line, checked or {})
        for cond, exit_ in _guards(h):
            kept = _listed(cond)  # ``if not isinstance(v, (str, Path)): raise`` keeps str allowed
            for name in names - kept:
                if re.search(r"(?<![\w.])" + re.escape(name) + r"(?![\w])", cond):
                    out.append(Rejected(name, cond.strip(), exit_.strip()))
            if _NOT_TYPE.search(cond):
                out += _narrowed(cond, exit_, checked or {})
    return out


_INLINE_EXIT = re.compile(r"(?::|\))\s*\{?\s*(?:raise|throw)\b")


def _guards(hunk: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(condition, raise/throw) pairs the diff adds: the exit on the line after a condition, or on its line
    (``if (typeof v !== "string") throw …``, ``if not ok: raise …``)."""
    out = []
    prev: str | None = None  # the line before, as the file reads after the diff (context or added)
    for k, line in hunk:
        if k == "-":
            continue
        if k == "+" and _COND.search(line) and _INLINE_EXIT.search(line):
            out.append((line, line))
        elif k == "+" and prev is not None and _EXIT.match(line) and _COND.search(prev):
            out.append((prev, line))
        prev = line
    return out


_TYPE_CHECK = r"isinstance\(\s*([\w.]+)\s*,\s*(\([^)]*\)|[\w.]+)\s*\)"
_NOT_TYPE = re.compile(
    r"\bnot\s+" + _TYPE_CHECK + r"|!\s*\(?\s*([\w.]+)\s+instanceof\s+([\w.]+)"
    r"""|typeof\s+([\w.]+)\s*!==?\s*['"](\w+)['"]"""
)
_ASSERT_TYPE = re.compile(r"^\s*assert\s+" + _TYPE_CHECK)


def _listed(check: str) -> set[str]:
    """The types a negated type check lets through."""
    m = _NOT_TYPE.search(check)
    return set(re.findall(r"[\w.]+", [g for g in m.groups() if g][1])) if m else set()


def _narrowed(check: str, then: str, checked: dict[str, set[str]]) -> list[Rejected]:
    """A type check on a variable the decision typed with an allowed name, leaving that name out."""
    m = _NOT_TYPE.search(check) or _ASSERT_TYPE.search(check)
    if m is None:
        return []
    var, types = [g for g in m.groups() if g][:2]
    listed = set(re.findall(r"[\w.]+", types))
    return [
        Rejected(name, check.strip(), then.strip())
        for name, variables in checked.items()
        if var.split(".")[-1] in variables and name not in listed
    ]


def typed_with(hunks: list[list[tuple[str, str]]], names: set[str]) -> dict[str, set[str]]:
    """Variables the change's added lines type-check or annotate with an allowed name (``isinstance(v, str)``,
    ``v: str | bytes``): name -> variables."""
    out: dict[str, set[str]] = {}
    for h in hunks:
        for k, line in h:
            if k != "+":
                continue
            for name in names:
                n = re.escape(name)
                for m in re.finditer(r"isinstance\(\s*([\w.]+)\s*,\s*\(?[^)]*\b" + n + r"\b", line):
                    out.setdefault(name, set()).add(m.group(1).split(".")[-1])
                for m in re.finditer(r"\b(\w+)\s*:\s*[^=,)]*(?<![\w.])" + n + r"\b", line):
                    out.setdefault(name, set()).add(m.group(1))
    return out


@lru_cache(maxsize=PATCH_CACHE)
def _lazy(patch: str, words: str) -> frozenset[str]:
    return frozenset(lazy_modules(patch_hunks(patch), words))


@lru_cache(maxsize=PATCH_CACHE)
def _typed(patch: str, names: frozenset[str]) -> dict[str, set[str]]:
    return typed_with(patch_hunks(patch), set(names))


def e1_eager(case: Case) -> Evidence | None:
    """E1: an import the decision made lazy (moved into a function) imported at module level again."""
    if case.remote:
        return None
    for path, cs in case.diff_sets.items():
        if path in case.info.patches and not cs.test and cs.kind != "prose":
            words = " ".join((case.info.quote, case.info.summary, case.info.source_title, *case.info.claims))
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
    """C1: what the decision's words allow (``accept `str` values``) or its change widened a parameter's type to
    (``max_age: int`` -> ``Optional[int]``), the diff now rejects (check + raise)."""
    if case.remote:
        return None
    names = allowed_names(" ".join((case.info.quote, case.info.summary, case.info.source_title, *case.info.claims)))
    for path, cs in case.diff_sets.items():
        if path in case.info.patches and not cs.test and cs.kind != "prose":
            patch = case.info.patches[path]
            found = rejections(cs, names, _typed(patch, frozenset(names))) if names else []
            found = found or widened_rejections(cs, _widened(patch))
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


_ANNOTATION = re.compile(r"(?<![\w.])(\w+)\s*:\s*([^=,)#]+?)\s*(?:=|,|\)|$)")


def _types(annotation: str) -> set[str]:
    """The types an annotation lets through: ``Optional[int]`` -> {int, None}, ``str | Path`` -> {str, Path}."""
    out = {t.rsplit(".", 1)[-1] for t in re.findall(r"[A-Za-z_][\w.]*", annotation)}
    if "Optional" in out:
        out.add("None")
    return out - {"Optional", "Union", "typing", "Any"}


@lru_cache(maxsize=PATCH_CACHE)
def _widened(patch: str) -> dict[str, frozenset[str]]:
    """Parameters whose annotation the change widened: variable -> the types it added (``None`` for Optional)."""
    out: dict[str, frozenset[str]] = {}
    for h in patch_hunks(patch):
        before = {m.group(1): _types(m.group(2)) for k, x in h if k == "-" for m in _ANNOTATION.finditer(x)}
        for k, x in h:
            if k != "+":
                continue
            for m in _ANNOTATION.finditer(x):
                var = m.group(1)
                if var in before and before[var]:
                    extra = _types(m.group(2)) - before[var]
                    if extra:
                        out[var] = frozenset(extra)
    return out


def widened_rejections(diff: ChangeSet, widened: dict[str, frozenset[str]]) -> list[Rejected]:
    """C1 from code: the diff adds a check + raise that refuses a type the decision's change widened a
    parameter to (``if not isinstance(max_age, int): raise``, ``if max_age is None: raise``)."""
    if not widened:
        return []
    out: list[Rejected] = []
    checked: dict[str, set[str]] = {}
    for var, extra in widened.items():
        for name in extra:
            checked.setdefault(name, set()).add(var)
    for h in diff.hunks:
        for cond, exit_ in _guards(h):
            out += _narrowed(cond, exit_, checked) if _NOT_TYPE.search(cond) else []
            for var in checked.get("None", set()):
                if re.search(r"\b" + re.escape(var) + r"\s+(?:is\s+None|===?\s*(?:null|undefined))\b", cond):
                    out.append(Rejected("None", cond.strip(), exit_.strip()))
    return out

"""Paraphrased undos of a limit or check the decision set: switched off, left out of a new call, or made
skippable, read from the decision's words and its change against the code the diff adds.

K1  a limit bypassed: its words speak of a limit, its change added a keyword argument carrying that word to
    a call (``fetch(url, timeout=10)``), and the diff adds a new call to the same function, in a file the
    change touched, without it (and without ``**kwargs``)
W1  a limit disabled: the decision's words speak of a limit (timeout, retry, max, size, expiry, check...),
    its change bound a name carrying that word (``timeout=30``, ``max_retries = 3``), and the diff binds that
    name to a value that switches it off (None, 0, False, -1, infinity)
W2  a keyword switched off: the decision's change added a keyword argument to a call (``Environment(loader=l,
    autoescape=select_autoescape())``: one the call did not have), and the diff adds a new call to the same
    function, in a file the change touched, passing that keyword as False or None; no words needed, the
    keyword is what the change added
K2  a check made skippable: the decision's words speak of a limit or a check, its change wrote a checking
    line (a raise/throw/assert, or a call named check/validate/verify/ensure/enforce/limit/guard/require), and
    the diff re-indents that very line under a condition it adds
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .judge_case import Case, Evidence, patch_set, share_of
from .rejected import decision_code_lines, decision_words

_LIMIT_WORDS = re.compile(
    r"(?i)\b(?:time-?outs?|timed?[\s-]+out|deadlines?|limits?|limited|max(?:imum)?|caps?|capped|retr(?:y|ies|ied)|"
    r"attempts?|ttl|expir\w*|quotas?|thresholds?|throttl\w*|bounded|verif\w*|validat\w*)\b"
)
_LIMIT_NAME = re.compile(
    r"(?i)(?:timeout|deadline|limit|max|cap\b|retr(?:y|ies)|attempts|ttl|expir|quota|threshold|verify|validate)"
)
_BINDING = re.compile(
    r"(?<![\w])((?:self\.|this\.)?[A-Za-z_][\w]*)\s*(?::\s*[\w\[\], .|]+)?\s*(?<![=!<>])=(?!=)\s*([^,)\n#]+)"
)
_SIGNATURE = re.compile(r"^\s*(?:async\s+)?(?:def|function|fn|func)\s")
_DISABLED = re.compile(
    r"""^(?:None|null|nil|undefined|0|0\.0|False|false|-1|float\(["']inf["']\)|math\.inf|Infinity|"""
    r"""sys\.maxsize|Number\.MAX_SAFE_INTEGER)$"""
)


@dataclass(frozen=True)
class Disabled:
    name: str
    decided: str  # the decision's binding
    line: str  # the diff's binding
    path: str


def _bindings(lines: list[str]) -> list[tuple[str, str, str]]:
    out = []
    for line in lines:
        for m in _BINDING.finditer(line):
            out.append((m.group(1), m.group(2).strip(), line.strip()))
    return out


def disabled_limits(case: Case) -> list[Disabled]:
    """W1: a limit the decision's change bound (its words speak of limits), bound by the diff to a value
    that switches it off."""
    if not _LIMIT_WORDS.search(decision_words(case)):
        return []
    set_by: dict[str, str] = {}
    for path, patch in case.info.patches.items():
        pr = patch_set(patch, path)
        if pr.test or pr.kind == "prose":
            continue
        for name, value, line in _bindings(pr.added_lines):
            if _LIMIT_NAME.search(name) and not _DISABLED.match(value):
                set_by.setdefault(name, line)
    if not set_by:
        return []
    out: list[Disabled] = []
    for path, cs in case.diff_sets.items():
        if cs.test or cs.kind == "prose" or path not in case.info.patches:
            continue
        was_bound = {name for name, _, _ in _bindings([x for x in cs.removed_lines if _SIGNATURE.match(x)])}
        for name, value, line in _bindings(cs.added_lines):
            # a parameter default in a new signature (``def _cookie(self, *, max_age=None)``) is a helper's
            # option, not the limit switched off: only a default the diff changes counts
            if _SIGNATURE.match(line) and name not in was_bound:
                continue
            if name in set_by and _DISABLED.match(value):
                out.append(Disabled(name, set_by[name], line, path))
    return out


def w1_disabled(case: Case) -> Evidence | None:
    """W1: a limit the decision set (timeout, retries, max size ...) switched off by the diff."""
    if case.remote:
        return None
    found = disabled_limits(case)
    if not found:
        return None
    d = found[0]
    share = share_of(case, [x.line for x in found])
    return Evidence(
        "W1",
        0.65,
        f"the diff switches off `{d.name}` (`{d.line}` in {d.path}); the decision set it (`{d.decided}`)",
        share,
        True,
    )


def _calls(lines: list[str]) -> list[tuple[str, str, str]]:
    """(callee's last name, argument text, first line) of the calls written on ``lines`` (joined, so a call
    spread over lines is one call)."""
    text = "\n".join(lines)
    out = []
    for m in re.finditer(r"(?<![\w.])([A-Za-z_][\w.]*)\(", text):
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        if depth:
            continue  # the call goes on past what the hunk shows
        first = text[m.start() : text.find("\n", m.start()) if "\n" in text[m.start() :] else len(text)]
        out.append((m.group(1).rsplit(".", 1)[-1], text[m.end() : j - 1], first.strip()))
    return out


_KEYWORD = re.compile(r"(?<![\w.=])([A-Za-z_]\w*)\s*=(?!=)")
_NOT_CALLS = frozenset("if while for return print dict list set tuple len str int float bool isinstance".split())


@dataclass(frozen=True)
class Bypass:
    callee: str
    keyword: str
    line: str
    path: str


_KEYWORD_SUFFIXES = (".py", ".pyi", ".pyx")


def bypasses(case: Case) -> list[Bypass]:
    """K1: new calls, in files the decision's change touched, to a function the change gave a limit keyword,
    without that keyword."""
    if not _LIMIT_WORDS.search(decision_words(case)):
        return []
    out: list[Bypass] = []
    for path, cs in case.diff_sets.items():
        patch = case.info.patches.get(path)
        # keyword arguments are Python's: in JavaScript/TypeScript `max = 5` inside parentheses is a parameter's
        # default (zod's "Fast unions" read as calling `map` without `max=`: blind round 11, wrong)
        if patch is None or cs.test or cs.kind == "prose" or not path.endswith(_KEYWORD_SUFFIXES):
            continue
        added, removed, _ = decision_code_lines(patch, path)
        before = {(c, k) for c, args, _ in _calls(removed) for k in _KEYWORD.findall(args)}
        limits = {
            (c, k)
            for c, args, _ in _calls(added)
            for k in _KEYWORD.findall(args)
            if _LIMIT_NAME.search(k) and (c, k) not in before and c not in _NOT_CALLS
        }
        if not limits:
            continue
        old_calls = {(c, args) for c, args, _ in _calls(cs.removed_lines)}
        for _, add in cs.blocks:
            for c, args, first in _calls(add):
                if (c, args) in old_calls or "**" in args:
                    continue
                out += [Bypass(c, k, first, path) for lc, k in limits if lc == c and k not in _KEYWORD.findall(args)]
    return out


def k1_bypassed(case: Case) -> Evidence | None:
    """K1: a call the decision gave a limit keyword (``timeout=``) written again without it."""
    if case.remote:
        return None
    found = bypasses(case)
    if not found:
        return None
    b = found[0]
    share = share_of(case, [x.line for x in found])
    return Evidence(
        "K1",
        0.6,
        f"the diff calls `{b.callee}` without `{b.keyword}=` (`{b.line}` in {b.path}); the decision's change "
        f"added `{b.keyword}=` to its calls",
        share,
        True,
    )


# a line that checks: a raise/throw, an assert, or a call whose name says it checks or limits
_CHECK_LINE = re.compile(
    r"^\s*(?:raise|throw|assert)\b|(?<![\w.])[\w.]*(?:check|validat|verif|ensure|enforce|limit|guard|require)\w*\("
)
_NEW_COND = re.compile(r"^\s*(?:if|elif|unless)\b.*:\s*$|^\s*if\s*\(.*\)\s*\{?\s*$")


@dataclass(frozen=True)
class Skippable:
    condition: str
    line: str
    path: str


def made_conditional(case: Case) -> list[Skippable]:
    """K2: a check the decision's change wrote, put by the diff under a new condition (re-indented under an
    added ``if``), so it can now be skipped."""
    if not _LIMIT_WORDS.search(decision_words(case)) and not _CHECK_WORDS.search(decision_words(case)):
        return []
    out: list[Skippable] = []
    for path, cs in case.diff_sets.items():
        patch = case.info.patches.get(path)
        if patch is None or cs.test or cs.kind == "prose":
            continue
        mine = {x.strip() for x in decision_code_lines(patch, path)[0] if _CHECK_LINE.search(x)}
        if not mine:
            continue
        for h in cs.hunks:
            removed = {x.strip(): _indent(x) for k, x in h if k == "-"}
            cond: str | None = None
            for k, x in h:
                if k == "+" and _NEW_COND.match(x):
                    cond = x
                    continue
                text = x.strip()
                deeper = cond is not None and _indent(x) > _indent(cond)
                if k == "+" and deeper and text in mine and text in removed and removed[text] < _indent(x):
                    out.append(Skippable(cond.strip() if cond else "", text, path))
                elif k != "+" or not deeper:
                    cond = None
    return out


_CHECK_WORDS = re.compile(r"(?i)\b(?:check\w*|guard\w*|always|every|must|enforc\w*|requir\w*|reject\w*|refus\w*)\b")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def k2_conditional(case: Case) -> Evidence | None:
    """K2: a check the decision wrote (raise, assert, a check/validate/limit call) put under a new condition."""
    if case.remote:
        return None
    found = made_conditional(case)
    if not found:
        return None
    s = found[0]
    share = share_of(case, [y for x in found for y in (x.condition, x.line)])
    return Evidence(
        "K2",
        0.6,
        f"the diff puts the decision's check `{s.line}` under a new condition (`{s.condition}` in {s.path}), so it "
        f"can be skipped",
        share,
        True,
    )


_KEYWORD_VALUE = re.compile(r"(?<![\w.=])([A-Za-z_]\w*)\s*=(?!=)\s*([^,)\n]+)")
_OFF = frozenset(("False", "false", "None", "null", "nil", "undefined"))


@dataclass(frozen=True)
class SwitchedOff:
    callee: str
    keyword: str
    decided: str  # the decision's call, first line
    line: str
    path: str


def switched_off_keywords(case: Case) -> list[SwitchedOff]:
    """W2: new calls passing False/None for a keyword the decision's change added to calls of that function."""
    out: list[SwitchedOff] = []
    for path, cs in case.diff_sets.items():
        patch = case.info.patches.get(path)
        if patch is None or cs.test or cs.kind == "prose":
            continue
        added, removed, _ = decision_code_lines(patch, path)
        before = {(c, k) for c, args, _ in _calls(removed) for k in _KEYWORD.findall(args)}
        decided = {
            (c, k): first
            for c, args, first in _calls(added)
            for k, v in _KEYWORD_VALUE.findall(args)
            if (c, k) not in before and c not in _NOT_CALLS and v.strip() not in _OFF and not _DISABLED.match(v.strip())
        }
        if not decided:
            continue
        old_calls = {(c, args) for c, args, _ in _calls(cs.removed_lines)}
        for _, add in cs.blocks:
            for c, args, first in _calls(add):
                if (c, args) in old_calls:
                    continue
                out += [
                    SwitchedOff(c, k, decided[(c, k)], first, path)
                    for k, v in _KEYWORD_VALUE.findall(args)
                    if (c, k) in decided and v.strip() in _OFF
                ]
    return out


def w2_switched_off(case: Case) -> Evidence | None:
    """W2: a keyword the decision added to a call, passed as False/None by a new call to that function."""
    if case.remote:
        return None
    found = switched_off_keywords(case)
    if not found:
        return None
    x = found[0]
    share = share_of(case, [y.line for y in found])
    return Evidence(
        "W2",
        0.65,
        f"the diff calls `{x.callee}` with `{x.keyword}` off (`{x.line}` in {x.path}); the decision's change added "
        f"it (`{x.decided}`)",
        share,
        True,
    )

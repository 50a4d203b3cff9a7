"""Paraphrased undos read from what the decision's code *does*, not from its tokens: the behaviour it
established switched off by a new flag or setting, or a choice it made conditional applied regardless. Also the
line helpers the other behaviour modules share (``decision_files``, ``decision_statements``, ``logical``,
``is_decision_line``, ``new_flags``).

G2  switched off: the diff binds a new name to a falsy value (``use_pathsend = False``, ``strict: bool =
    False``, a TypeScript field) and, in the same file, rewrites a code line the decision's change added so that
    line only acts when that name is true (``flag and <line's condition>``, or the line re-indented under ``if
    flag:``). ``not flag and ...`` or a truthy default keeps the decision: an opt-in, not an undo.
G3  defaulted away: on a line the decision wrote, its value is swapped for a new setting (a parameter or an
    attribute) that holds nothing by default (``excluded_content_types=()``), or a boolean it passed for a setting
    that defaults to the other value, or a name it bound to a value is bound to nothing; not when the diff feeds
    the decision's value into that setting.
B1  a choice bypassed: the decision's change bound a name in both arms of an ``if``/``else`` through two
    different calls (``full_path = abspath(...)`` / ``realpath(...)``), and the diff applies one arm's call to
    that name outside the branch (``realpath(full_path)``), so the other arm no longer counts.

Each reads the diff's hunks with their context lines (what a reviewer sees), nothing beyond them. The same kind
of reading for exceptions is in handlers.py (X2), for conditions in conditions.py (K3, K4), for early returns in
exits.py (F2) and for lines taken out in restored.py (REV4).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from .diffparse import patch_hunks
from .judge_case import Case, Evidence, share_of
from .tokens import ChangeSet, code_lines, file_kind, is_specific, tokens

GATE_SCORE = 0.65
BYPASS_SCORE = 0.6
# a rewritten decision line keeps at least this share of its tokens around the new flag
GATE_KEEP = 0.8
SETTING_LINE_MIN = 3  # G3: tokens of the decision's line besides its value (a lone literal is no line to keep)
# a removed line is the decision's line (retouched since) when it keeps this share of that line's tokens
DECISION_LINE_KEEP = 0.7

# a TypeScript/JavaScript class field's modifiers (``private readonly usePathsend = false;``)
_MODIFIERS = r"(?:(?:public|private|protected|readonly|static|declare|override)\s+)*"
_FALSY = r"(?:False|false|None|null|0|\"\"|'')"
# a name bound to a falsy value: class attribute / constant / keyword default, with or without a type
_FLAG_BINDING = re.compile(
    r"^\s*"
    + _MODIFIERS
    + r"(?:(?:self|this)\.)?([A-Za-z_]\w*)\??\s*(?::\s*[\w\[\], .|<>]+)?\s*=\s*"
    + _FALSY
    + r"\s*[,;]?\s*(?:(?:#|//).*)?$"
)
# ... or a parameter with such a default, in a signature written on one line
_FLAG_PARAM = re.compile(r"[(,]\s*([A-Za-z_]\w*)\s*(?::\s*[\w\[\], .|]+?)?\s*=\s*" + _FALSY + r"\s*(?=[,)])")
# ... and the same with an empty collection: a setting that holds nothing (``excluded_content_types=()``)
_EMPTY = r"(?:" + _FALSY + r"|\(\)|\[\]|\{\}|(?:set|tuple|frozenset|list|dict)\(\))"
_EMPTY_BINDING = re.compile(
    r"^\s*"
    + _MODIFIERS
    + r"(?:(?:self|this)\.)?([A-Za-z_]\w*)\??\s*(?::\s*[\w\[\], .|<>]+)?\s*=\s*"
    + _EMPTY
    + r"\s*[,;]?\s*(?:(?:#|//).*)?$"
)
_EMPTY_PARAM = re.compile(r"[(,]\s*([A-Za-z_]\w*)\s*(?::\s*[\w\[\], .|]+?)?\s*=\s*" + _EMPTY + r"\s*(?=[,)])")
_VALUE_BINDING = re.compile(
    r"^\s*(?:(?:self|this)\.)?([A-Za-z_]\w*)\s*(?::\s*[\w\[\], .|]+)?\s*=(?!=)\s*(.+?)\s*,?\s*$"
)
# a literal that holds something: a non-empty tuple, list, set or dict, a non-empty string, a non-zero number
# (``field(default_factory=list)`` or a call is no value the decision chose to hold)
_FILLED = re.compile(r"""^(?:[(\[{]\s*[^\s)\]}]|[rbuRBU]?["'][^"']|[1-9]|0\.\d*[1-9])""")
_SIGNATURE = re.compile(r"^\s*(?:async\s+)?(?:def|function|fn|func)\s")
_IF = re.compile(r"^\s*if\s+(.+):\s*$")
_ELSE = re.compile(r"^\s*else\s*:\s*$")
_ASSIGN_CALL = re.compile(r"^\s*((?:self\.)?[A-Za-z_]\w*)\s*=\s*([A-Za-z_][\w.]*)\s*\(")


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip())


def code_file(cs: ChangeSet) -> bool:
    return not cs.test and cs.kind != "prose"


def logical(lines: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(kind, text) lines with a statement spread over lines joined into one (a formatter's ``if (`` /
    ``a`` / ``and b`` / ``):`` is ``if (a and b):``), within runs of one kind; brackets balance the join."""
    out: list[tuple[str, str]] = []
    buf: list[str] = []
    kind = ""
    depth = 0
    for k, x in lines:
        if buf and k != kind:
            out.append((kind, _joined(buf)))
            buf, depth = [], 0
        kind = k
        buf.append(x.strip())
        depth += sum(x.count(c) for c in "([{") - sum(x.count(c) for c in ")]}")
        if depth <= 0:
            out.append((kind, _joined(buf)))
            buf, depth = [], 0
    if buf:
        out.append((kind, _joined(buf)))
    return out


def _joined(parts: list[str]) -> str:
    text = " ".join(parts)
    return re.sub(r"\s+([)\]}])", r"\1", re.sub(r"([(\[{])\s+", r"\1", re.sub(r",\s*([)\]}])", r"\1", text)))


@lru_cache(maxsize=4096)
def decision_statements(patch: str, path: str) -> tuple[str, ...]:
    """The code lines the decision's change added, a statement spread over lines joined into one."""
    kind = file_kind(path)
    return tuple(x for h in patch_hunks(patch) for k, x in logical(code_lines(h, kind)) if k == "+" and x.strip())


def decision_files(case: Case) -> Iterator[tuple[str, ChangeSet, str]]:
    """(path, the diff's change, the decision's patch) for each code file both changed (tests and prose aside)."""
    for path, cs in case.diff_sets.items():
        patch = case.info.patches.get(path)
        if patch is not None and code_file(cs):
            yield path, cs, patch


# --- G2 ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Gated:
    flag: str
    binding: str
    line: str  # the decision's line as the diff now writes it
    path: str


def new_flags(cs: ChangeSet, empty: bool = False) -> dict[str, str]:
    """Names the diff binds to a falsy value (``empty``: or an empty collection) that its removed lines did
    not bind."""
    removed = " ".join(cs.removed_lines)
    binding, param = (_EMPTY_BINDING, _EMPTY_PARAM) if empty else (_FLAG_BINDING, _FLAG_PARAM)
    out: dict[str, str] = {}
    for line in cs.added_lines:
        names = [m.group(1)] if (m := binding.match(line)) else param.findall(line)
        for name in names:
            if not re.search(r"(?<![\w])" + re.escape(name) + r"\s*(?::[^=]*)?=", removed):
                out.setdefault(name, line.strip())
    return out


def gates(text: str, flag: str) -> bool:
    """Does ``text`` make what follows depend on ``flag`` being true (``flag and``, ``and flag``, ``&&``)?"""
    name = r"(?:(?:self|this)\.)?" + re.escape(flag)
    if re.search(r"(?<![\w.!])(?<!not )" + name + r"\s*(?:and\b|&&)", text):
        return True
    return re.search(r"(?:\band|&&)\s+" + name + r"(?![\w.(])", text) is not None


def gated_off(case: Case) -> list[Gated]:
    """G2: decision lines the diff makes depend on a new flag that defaults to off."""
    out: list[Gated] = []
    for path, cs, patch in decision_files(case):
        flags = new_flags(cs)
        if not flags:
            continue
        mine = list(decision_statements(patch, path))
        for removed, added in cs.blocks:
            gone = [r for r in removed if is_decision_line(r, mine)]
            if not gone:
                continue
            text = " ".join(" ".join(x.split()) for x in added)
            for flag, binding in flags.items():
                if not gates(text, flag):
                    continue
                kept = [r for r in gone if _only_gated(r, text, flag)]
                if kept:
                    out.append(Gated(flag, binding, kept[0].strip(), path))
        out += _wrapped(cs, mine, flags, path)
    return out


def is_decision_line(line: str, mine: list[str]) -> bool:
    """``line`` is one the decision's change added, or that line retouched since (most of its tokens kept)."""
    have = set(tokens(line))
    for d in mine:
        toks = set(tokens(d))
        if toks and len(toks & have) / len(toks) >= DECISION_LINE_KEEP and len(have - toks) <= len(toks):
            return True
    return False


def _only_gated(line: str, text: str, flag: str) -> bool:
    """The decision line kept whole with only ``flag and`` put in front of (or behind) it: nearly all its
    tokens still there and nothing else added (``modified or (flag and accessed)`` adds an alternative the flag
    gates, and leaves the decision's own condition acting)."""
    toks = Counter(tokens(line))
    have = Counter(tokens(text))
    if not toks or sum((toks & have).values()) / sum(toks.values()) < GATE_KEEP:
        return False
    extra = have - toks
    extra.pop(flag, None)
    for t in ("self", "this", "and", "&&"):
        extra.pop(t, None)
    return not extra


def _wrapped(cs: ChangeSet, mine: list[str], flags: dict[str, str], path: str) -> list[Gated]:
    """Decision lines re-indented under an added ``if flag:`` (the flag true, never ``if not flag``)."""
    out: list[Gated] = []
    for h in cs.hunks:
        removed = {" ".join(x.split()): indent_of(x) for k, x in h if k == "-"}
        cond: tuple[str, str, int] | None = None  # (flag, line, indent)
        for k, x in h:
            m = _IF.match(x) if k == "+" else None
            if m:
                cond = next(
                    ((f, x.strip(), indent_of(x)) for f in flags if gates(m.group(1) + " and", f)),
                    None,
                )
                continue
            key = " ".join(x.split())
            if cond and k == "+" and indent_of(x) > cond[2]:
                if key in removed and removed[key] < indent_of(x) and is_decision_line(x, mine):
                    out.append(Gated(cond[0], flags[cond[0]], x.strip(), path))
            elif x.strip():
                cond = None
    return out


def g2_gated(case: Case) -> Evidence | None:
    """G2: what the decision's line does made to depend on a new flag that defaults to off."""
    if case.remote:
        return None
    found = gated_off(case)
    if not found:
        return None
    g = found[0]
    return Evidence(
        "G2",
        GATE_SCORE,
        f"the diff makes the decision's `{g.line}` depend on `{g.flag}`, a new flag that is off by default "
        f"(`{g.binding}` in {g.path})",
        share_of(case, [g.binding, g.line]),
        True,
    )


# --- B1 ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Branch:
    """The decision bound ``name`` through ``calls`` (one per arm) under ``condition``."""

    name: str
    calls: frozenset[str]
    condition: str


@lru_cache(maxsize=4096)
def decision_branches(patch: str, path: str) -> tuple[Branch, ...]:
    """Names the decision's added ``if``/``else`` binds in both arms through different calls."""
    out: list[Branch] = []
    for h in patch_hunks(patch):
        added = [x for k, x in h if k == "+"]
        for i, line in enumerate(added):
            m = _IF.match(line)
            if not m:
                continue
            arms: list[dict[str, str]] = [{}]
            for x in added[i + 1 :]:
                if not x.strip():
                    continue
                if indent_of(x) <= indent_of(line):
                    if _ELSE.match(x) and indent_of(x) == indent_of(line) and len(arms) == 1:
                        arms.append({})
                        continue
                    break
                a = _ASSIGN_CALL.match(x)
                if a:
                    arms[-1].setdefault(a.group(1), a.group(2).rsplit(".", 1)[-1])
            if len(arms) == 2:
                for name in arms[0].keys() & arms[1].keys():
                    if arms[0][name] != arms[1][name]:
                        out.append(Branch(name, frozenset((arms[0][name], arms[1][name])), m.group(1).strip()))
    return tuple(out)


@dataclass(frozen=True)
class Bypassed:
    branch: Branch
    call: str
    line: str
    path: str


def bypassed_branches(case: Case) -> list[Bypassed]:
    """B1: one arm's call applied by the diff to the name the decision's branch binds."""
    out: list[Bypassed] = []
    for path, cs, patch in decision_files(case):
        for b in decision_branches(patch, path):
            for line in cs.added_lines:
                for call in b.calls:
                    pattern = r"(?<![\w])" + re.escape(call) + r"\(\s*" + re.escape(b.name) + r"\s*\)"
                    if re.search(pattern, line):
                        out.append(Bypassed(b, call, line.strip(), path))
    return out


def b1_bypassed(case: Case) -> Evidence | None:
    """B1: a choice the decision made conditional, applied by the diff regardless of the condition."""
    if case.remote:
        return None
    found = bypassed_branches(case)
    if not found:
        return None
    x = found[0]
    return Evidence(
        "B1",
        BYPASS_SCORE,
        f"the decision chose how to compute `{x.branch.name}` by `{x.branch.condition}`; the diff applies "
        f"`{x.call}` to it regardless (`{x.line}` in {x.path})",
        share_of(case, [y.line for y in found]),
        True,
    )


# --- G3 ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Defaulted:
    value: str  # what the decision wrote there
    setting: str
    binding: str
    line: str
    path: str


def replaced_by_empty_setting(case: Case) -> list[Defaulted]:
    """G3: a value the decision wrote, replaced on its line by a new setting that defaults to nothing."""
    out: list[Defaulted] = []
    for path, cs, patch in decision_files(case):
        mine = list(decision_statements(patch, path))
        out += _emptied(cs, mine, path)
        out += _flipped(cs, mine, path)
        settings = {n: b for n, b in new_flags(cs, empty=True).items() if _is_setting(b)}
        if not settings:
            continue
        wrote = {t for x in mine for t in tokens(x) if is_specific(t)}
        for removed, added in cs.blocks:
            for r in removed:
                if not is_decision_line(r, mine):
                    continue
                gone = Counter(tokens(r))
                for a in added:
                    now = Counter(tokens(a))
                    lost = [t for t in gone - now if is_specific(t) and t in wrote]
                    new = [t for t in now - gone if t in settings and not re.search(rf"\b{re.escape(t)}\s*=(?!=)", a)]
                    rest = sum(gone.values()) - 1  # the line around the value: most of it must stay
                    if (
                        len(lost) == 1
                        and new
                        and rest >= SETTING_LINE_MIN
                        and sum((gone & now).values()) >= GATE_KEEP * rest
                    ):
                        if not _fed(cs, new[0], lost[0]):
                            out.append(Defaulted(lost[0], new[0], settings[new[0]], a.strip(), path))
    return out


_OPPOSITE = {"False": "True", "True": "False", "false": "true", "true": "false"}
_BOOL_BINDING = re.compile(
    r"^\s*"
    + _MODIFIERS
    + r"(?:(?:self|this)\.)?([A-Za-z_]\w*)\??\s*(?::\s*bool(?:ean)?)?\s*=\s*(True|False|true|false)"
    r"\s*[,;]?\s*(?:(?:#|//).*)?$"
)


def _flipped(cs: ChangeSet, mine: list[str], path: str) -> list[Defaulted]:
    """A boolean the decision passed on its line (``ensure_ascii=False``) replaced by a new setting that
    defaults to the other value (``json_ensure_ascii: bool = True`` read as ``self.json_ensure_ascii``)."""
    removed = " ".join(cs.removed_lines)
    added_text = " ".join(cs.added_lines)
    found: dict[str, tuple[str, str]] = {}
    for x in cs.added_lines:
        m = _BOOL_BINDING.match(x)
        if not m or re.search(r"(?<![\w])" + re.escape(m.group(1)) + r"\s*(?::[^=]*)?=", removed):
            continue
        own = re.search(r"\b(?:self|this|cls)\." + re.escape(m.group(1)) + r"\b", added_text)
        if _is_setting(x) or own:
            found.setdefault(m.group(1), (m.group(2), x.strip()))
    out: list[Defaulted] = []
    if not found:
        return out
    for removed_lines, added in cs.blocks:
        for r in removed_lines:
            if not is_decision_line(r, mine):
                continue
            for a in added:
                gone, now = Counter(tokens(r)), Counter(tokens(a))
                lost = [t for t in gone - now if t in _OPPOSITE]
                new = [t for t in now - gone if t in found and found[t][0] == _OPPOSITE.get(lost[0] if lost else "")]
                if len(lost) == 1 and new and sum((gone & now).values()) >= GATE_KEEP * (sum(gone.values()) - 1):
                    out.append(Defaulted(lost[0], new[0], found[new[0]][1], a.strip(), path))
    return out


def _emptied(cs: ChangeSet, mine: list[str], path: str) -> list[Defaulted]:
    """A name the decision's change bound to a value (``EXCLUDED = ("text/event-stream",)``), bound by the diff
    to nothing (``EXCLUDED: tuple[str, ...] = ()``)."""
    decided = {m.group(1): x.strip() for x in mine if (m := _VALUE_BINDING.match(x)) and _FILLED.match(m.group(2))}
    out: list[Defaulted] = []
    for x in cs.added_lines:
        m = _EMPTY_BINDING.match(x)
        if m and m.group(1) in decided:
            out.append(Defaulted(decided[m.group(1)], m.group(1), x.strip(), x.strip(), path))
    return out


def _is_setting(binding: str) -> bool:
    """A parameter (a signature written on one line, or one parameter line of a longer one) or an attribute:
    what a caller or subclass sets. A local that starts empty (``found: dict[str, list] = {}``) collects."""
    line = binding.strip()
    return bool(_SIGNATURE.match(line)) or line.endswith(",") or line.startswith(("self.", "this.", "cls."))


def _fed(cs: ChangeSet, setting: str, value: str) -> bool:
    """Does the diff bind the setting to the decision's value somewhere (``self.x = DEFAULT + tuple(x)``, a
    parameter defaulting to it)? Then the value still flows there: an opt-in on top of the decision."""
    bound = re.compile(r"(?<![\w])" + re.escape(setting) + r"\b[^=\n]*=(?!=)[^\n]*(?<![\w])" + re.escape(value) + r"\b")
    return any(bound.search(x) for x in cs.added_lines)


def g3_defaulted(case: Case) -> Evidence | None:
    """G3: the decision's value swapped, where it is used, for a new setting whose default is empty or off."""
    if case.remote:
        return None
    found = replaced_by_empty_setting(case)
    if not found:
        return None
    d = found[0]
    return Evidence(
        "G3",
        GATE_SCORE,
        f"the diff uses `{d.setting}` where the decision wrote `{d.value}` (`{d.line}` in {d.path}); `{d.setting}` "
        f"is new, and by default it holds nothing or the other value (`{d.binding}`)",
        share_of(case, [d.binding, d.line]),
        True,
    )

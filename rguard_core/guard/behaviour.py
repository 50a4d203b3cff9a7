"""Paraphrased undos read from what the decision's code *does*, not from its tokens: the behaviour it
established switched off by a new flag, the failure it handles caught to take the path it refused, or a
choice it made conditional applied regardless.

G2  switched off: the diff binds a new name to a falsy value (``use_pathsend = False``, ``strict: bool =
    False``) and, in the same file, rewrites a code line the decision's change added so that line only acts
    when that name is true (``flag and <line's condition>``, or the line re-indented under ``if flag:``).
    ``not flag and ...`` or a truthy default keeps the decision: an opt-in, not an undo.
X2  caught to accept: the decision's change handles an exception by name (``except (BadTimeSignature,
    SignatureExpired):`` resets the session) and the diff adds a handler for that exception whose body does
    what the ``try`` body does (loads the payload anyway) and raises nothing: what the decision refused is
    now taken.
K3  a condition narrowed: a condition line the decision's change wrote (``if C:``, or that line retouched
    since) gets a conjunct (``if C and X:``) or a new branch before it that turns it into ``elif C:``, so what
    the decision made happen under C now happens in fewer cases (a guard that skips, an origin echoed).
    ``or`` (a stricter guard, a wider feature) is not narrowing.
B1  a choice bypassed: the decision's change bound a name in both arms of an ``if``/``else`` through two
    different calls (``full_path = abspath(...)`` / ``realpath(...)``), and the diff applies one arm's call to
    that name outside the branch (``realpath(full_path)``), so the other arm no longer counts.

Each reads the diff's hunks with their context lines (what a reviewer sees), nothing beyond them.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from .diffparse import patch_hunks
from .judge_case import Case, Evidence
from .rejected import decision_code_lines
from .tokens import ChangeSet, tokens, weight

GATE_SCORE = 0.65
CAUGHT_SCORE = 0.65
BYPASS_SCORE = 0.6
# a handler "does what the try body does" when it repeats this many of the try body's call names
ACCEPT_CALLS_MIN = 2
# a rewritten decision line keeps at least this share of its tokens around the new flag
GATE_KEEP = 0.8
# a removed line is the decision's line (retouched since) when it keeps this share of that line's tokens
DECISION_LINE_KEEP = 0.7

_FALSY = r"(?:False|false|None|null|0|\"\"|'')"
# a name bound to a falsy value: class attribute / constant / keyword default, with or without a type
_FLAG_BINDING = re.compile(
    r"^\s*(?:(?:self|this)\.)?([A-Za-z_]\w*)\s*(?::\s*[\w\[\], .|]+)?\s*=\s*" + _FALSY + r"\s*,?\s*(?:#.*)?$"
)
# ... or a parameter with such a default, in a signature written on one line
_FLAG_PARAM = re.compile(r"[(,]\s*([A-Za-z_]\w*)\s*(?::\s*[\w\[\]. |]+)?\s*=\s*" + _FALSY + r"\s*(?=[,)])")
_EXCEPT = re.compile(r"^\s*except\s*\(?\s*([\w., ]+?)\s*\)?\s*(?:as\s+\w+\s*)?:\s*$")
_TRY = re.compile(r"^\s*try\s*:\s*$")
_CALL = re.compile(r"(?<![\w])([A-Za-z_][\w.]*)\s*\(")
_RAISES = re.compile(r"^\s*(?:raise|throw)\b")
_IF = re.compile(r"^\s*if\s+(.+):\s*$")
_ELSE = re.compile(r"^\s*else\s*:\s*$")
_ASSIGN_CALL = re.compile(r"^\s*((?:self\.)?[A-Za-z_]\w*)\s*=\s*([A-Za-z_][\w.]*)\s*\(")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _code(cs: ChangeSet) -> bool:
    return not cs.test and cs.kind != "prose"


def _share(case: Case, lines: list[str]) -> float:
    return sum(weight(t) for x in lines for t in tokens(x)) / case.total_w


# --- G2 ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Gated:
    flag: str
    binding: str
    line: str  # the decision's line as the diff now writes it
    path: str


def _new_flags(cs: ChangeSet) -> dict[str, str]:
    """Names the diff binds to a falsy value that its removed lines did not bind."""
    removed = " ".join(cs.removed_lines)
    out: dict[str, str] = {}
    for line in cs.added_lines:
        names = [m.group(1)] if (m := _FLAG_BINDING.match(line)) else _FLAG_PARAM.findall(line)
        for name in names:
            if not re.search(r"(?<![\w])" + re.escape(name) + r"\s*(?::[^=]*)?=", removed):
                out.setdefault(name, line.strip())
    return out


def _gates(text: str, flag: str) -> bool:
    """Does ``text`` make what follows depend on ``flag`` being true (``flag and``, ``and flag``, ``&&``)?"""
    name = r"(?:(?:self|this)\.)?" + re.escape(flag)
    if re.search(r"(?<![\w.!])(?<!not )" + name + r"\s*(?:and|&&)\b", text):
        return True
    return re.search(r"(?:\band|&&)\s+" + name + r"(?![\w.(])", text) is not None


def gated_off(case: Case) -> list[Gated]:
    """G2: decision lines the diff makes depend on a new flag that defaults to off."""
    out: list[Gated] = []
    for path, cs in case.diff_sets.items():
        patch = case.info.patches.get(path)
        if patch is None or not _code(cs):
            continue
        flags = _new_flags(cs)
        if not flags:
            continue
        mine = [x for x in decision_code_lines(patch, path)[0] if x.strip()]
        for removed, added in cs.blocks:
            gone = [r for r in removed if _is_decision_line(r, mine)]
            if not gone:
                continue
            text = " ".join(" ".join(x.split()) for x in added)
            for flag, binding in flags.items():
                if not _gates(text, flag):
                    continue
                kept = [r for r in gone if _only_gated(r, text, flag)]
                if kept:
                    out.append(Gated(flag, binding, kept[0].strip(), path))
        out += _wrapped(cs, mine, flags, path)
    return out


def _is_decision_line(line: str, mine: list[str]) -> bool:
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
        removed = {" ".join(x.split()): _indent(x) for k, x in h if k == "-"}
        cond: tuple[str, str, int] | None = None  # (flag, line, indent)
        for k, x in h:
            m = _IF.match(x) if k == "+" else None
            if m:
                cond = next(
                    ((f, x.strip(), _indent(x)) for f in flags if _gates(m.group(1) + " and", f)),
                    None,
                )
                continue
            key = " ".join(x.split())
            if cond and k == "+" and _indent(x) > cond[2]:
                if key in removed and removed[key] < _indent(x) and _is_decision_line(x, mine):
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
        _share(case, [g.binding, g.line]),
        True,
    )


# --- X2 ------------------------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def handled_exceptions(patch: str, path: str) -> frozenset[str]:
    """Exception names the decision's change added an ``except`` clause for."""
    out: set[str] = set()
    for line in decision_code_lines(patch, path)[0]:
        m = _EXCEPT.match(line)
        if m:
            out.update(n.strip().rsplit(".", 1)[-1] for n in m.group(1).split(",") if n.strip())
    out.discard("Exception")
    return frozenset(out)


@dataclass(frozen=True)
class Accepted:
    exception: str
    handler: str
    calls: tuple[str, ...]
    path: str


def _try_body(lines: list[tuple[str, str]], at: int, indent: int) -> list[str]:
    """The new side's lines of the ``try`` body that the handler at ``at`` belongs to (context or added)."""
    body: list[str] = []
    for k, x in reversed(lines[:at]):
        if k == "-" or not x.strip():
            continue
        if _indent(x) == indent and _TRY.match(x):
            return body
        if _indent(x) == indent and _EXCEPT.match(x):
            body = []  # what was read so far belongs to an earlier handler of the same try
            continue
        if _indent(x) <= indent:
            return []  # left the statement without meeting its try
        if _indent(x) > indent:
            body.append(x)
    return []


def _handler_body(lines: list[tuple[str, str]], at: int, indent: int) -> list[str]:
    """The handler's lines on the new side. git may align the handler's last line with an old one (a context
    line), so context lines count; the handler needs one added line of its own."""
    body: list[str] = []
    added = False
    for k, x in lines[at + 1 :]:
        if not x.strip():
            continue
        if _indent(x) <= indent:
            break
        added = added or k == "+"
        body.append(x)
    return body if added else []


def _calls(lines: list[str]) -> set[str]:
    return {m.group(1).rsplit(".", 1)[-1] for x in lines for m in _CALL.finditer(x)}


def caught_to_accept(case: Case) -> list[Accepted]:
    """X2: handlers the diff adds for an exception the decision handles, doing what the try body does."""
    out: list[Accepted] = []
    for path, cs in case.diff_sets.items():
        patch = case.info.patches.get(path)
        if patch is None or not _code(cs):
            continue
        names = handled_exceptions(patch, path)
        if not names:
            continue
        for h in cs.hunks:
            new_side = [(k, x) for k, x in h if k != "-"]
            for i, (k, x) in enumerate(new_side):
                m = _EXCEPT.match(x) if k == "+" else None
                caught = {n.strip().rsplit(".", 1)[-1] for n in m.group(1).split(",")} & names if m else set()
                if not caught:
                    continue
                handler = _handler_body(new_side, i, _indent(x))
                if not handler or any(_RAISES.match(b) for b in handler):
                    continue
                same = _calls(handler) & _calls(_try_body(new_side, i, _indent(x)))
                if len(same) >= ACCEPT_CALLS_MIN:
                    out.append(Accepted(sorted(caught)[0], x.strip(), tuple(sorted(same)), path))
    return out


def x2_caught(case: Case) -> Evidence | None:
    """X2: the failure the decision handles caught by the diff to do what the try body does anyway."""
    if case.remote:
        return None
    found = caught_to_accept(case)
    if not found:
        return None
    a = found[0]
    calls = ", ".join(f"`{c}`" for c in a.calls[:4])
    return Evidence(
        "X2",
        CAUGHT_SCORE,
        f"the diff catches `{a.exception}` (`{a.handler}` in {a.path}), which the decision's change handles, and "
        f"goes on as if nothing failed ({calls} as in the try body)",
        None,
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
                if _indent(x) <= _indent(line):
                    if _ELSE.match(x) and _indent(x) == _indent(line) and len(arms) == 1:
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
    for path, cs in case.diff_sets.items():
        patch = case.info.patches.get(path)
        if patch is None or not _code(cs):
            continue
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
        _share(case, [y.line for y in found]),
        True,
    )


# --- K3 ------------------------------------------------------------------------------------------------

NARROW_SCORE = 0.6
_COND = re.compile(r"^\s*(?:\}\s*)?(if|elif|else if|while)\b\s*(.+?)\s*[:{]\s*$")


@dataclass(frozen=True)
class Narrowed:
    decided: str  # the decision's condition line as the diff found it
    line: str  # what the diff wrote
    how: str  # "conjunct" | "preempted"
    path: str


def _condition(line: str) -> tuple[str, str] | None:
    m = _COND.match(line)
    if not m:
        return None
    cond = " ".join(m.group(2).split())
    if line.rstrip().endswith("{") and cond.startswith("(") and cond.endswith(")"):
        cond = cond[1:-1].strip()  # if (C) {
    return m.group(1), cond


def _conjoined(old: str, new: str) -> bool:
    """``new`` is ``old`` with a conjunct put before or after it (``C and X``, ``X and C``, ``(C) && X``)."""
    for a in (old, f"({old})"):
        for op in (" and ", " && "):
            if new.startswith(a + op) or new.endswith(op + a):
                return True
    return False


def narrowed(case: Case) -> list[Narrowed]:
    """K3: condition lines of the decision that the diff narrows."""
    out: list[Narrowed] = []
    for path, cs in case.diff_sets.items():
        patch = case.info.patches.get(path)
        if patch is None or not _code(cs):
            continue
        mine = [x for x in decision_code_lines(patch, path)[0] if _condition(x)]
        if not mine:
            continue
        for removed, added in cs.blocks:
            for r in removed:
                old = _condition(r)
                if old is None or not _is_decision_line(r, mine):
                    continue
                out += [Narrowed(r.strip(), a.strip(), how, path) for a, how in _narrowings(old, added)]
    return out


def _narrowings(old: tuple[str, str], added: list[str]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    opened = False  # an added `if` before the decision's condition, which now reads `elif`
    for a in added:
        new = _condition(a)
        if new is None:
            continue
        if new[1] == old[1] and new[0] in ("elif", "else if") and old[0] == "if" and opened:
            out.append((a, "preempted"))
        elif new[0] == old[0] and _conjoined(old[1], new[1]):
            out.append((a, "conjunct"))
        opened = opened or new[0] == "if"
    return out


def k3_narrowed(case: Case) -> Evidence | None:
    """K3: a condition the decision wrote narrowed by a conjunct or by a new branch before it."""
    if case.remote:
        return None
    found = narrowed(case)
    if not found:
        return None
    n = found[0]
    how = "adds a condition to" if n.how == "conjunct" else "puts a new branch before"
    return Evidence(
        "K3",
        NARROW_SCORE,
        f"the diff {how} the decision's `{n.decided}` (`{n.line}` in {n.path}), so what it decided happens in "
        f"fewer cases",
        _share(case, [x.line for x in found]),
        True,
    )

"""Paraphrased undos read from the conditions the decision's code wrote (statements a formatter spread over
lines are read as one: ``behaviour.logical``).

K3  a condition narrowed, so what the decision made happen under C happens in fewer cases: a condition line the
    decision's change wrote (``if C:``, or that line retouched since) gets a conjunct (``if C and X:``); or a new
    branch before it turns it into ``elif C:``; or a new ``if X: raise`` stands right before a line the decision
    wrote that acts, X reading that line's names (a 416 raised before the clamp the decision wrote). ``or`` is not
    narrowing (a stricter guard, a wider feature), nor a bare ``return`` that skips work.
K4  a restriction relaxed: the decision's change edited a condition by adding a conjunct of its own (``if
    scope["session"]:`` became ``if session.modified and session:``), and the diff puts that conjunct in an ``or``
    with something else (``session and (session.modified or refresh_expiry)``) or drops it (``if session:``, here
    or in a helper the diff writes), before a line that acts — not a guard that refuses (raise, continue, break, a
    return of nothing), where ``or`` is stricter. An alternative gated by a new flag that is off is an opt-in.
    Also: a new branch before the decision's ``else`` (or next ``elif``) doing what its ``if`` branch does, and a
    new ``elif`` after the statement a decision's condition guards making the same call (the excluded cases
    given the action).

``widens_guard`` is the opposite reading the D rules use: a guard given one more way to refuse (``C or X``,
``x == A`` -> ``x in (A, B)``) before a refusal is made stricter, not undone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .behaviour import (
    decision_files,
    decision_statements,
    gates,
    indent_of,
    is_decision_line,
    logical,
    new_flags,
)
from .diffparse import patch_hunks
from .judge_case import Case, Evidence, share_of
from .tokens import ChangeSet, code_lines, file_kind, is_specific, tokens

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
    if cond.startswith("(") and cond.endswith(")") and _wraps(cond):
        cond = cond[1:-1].strip()  # if (C) {, or a formatter's if (a and b):
    return m.group(1), cond


def _wraps(cond: str) -> bool:
    """Does the opening parenthesis close at the very end (``(a and b)``, not ``(a) and (b)``)?"""
    depth = 0
    for i, ch in enumerate(cond):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and i < len(cond) - 1:
            return False
    return True


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
    for path, cs, patch in decision_files(case):
        written = list(decision_statements(patch, path))
        out += _exit_before(cs, written, path)
        mine = [x for x in written if _condition(x)]
        if not mine:
            continue
        for removed, added in cs.blocks:
            for r in removed:
                old = _condition(r)
                if old is None or not is_decision_line(r, mine):
                    continue
                out += [Narrowed(r.strip(), a.strip(), how, path) for a, how in _narrowings(old, added)]
    return out


EXIT_NAMES_MIN = 2  # names of the decision's line the new exit's condition reads


def _exit_before(cs: ChangeSet, written: list[str], path: str) -> list[Narrowed]:
    """A new ``if C: raise`` put right before a line the decision wrote that acts (not itself a condition or
    an exit), with C reading that line's names: the cases C covers are refused instead of reaching it. A bare
    ``return`` (skipping work: throttled progress, a cache hit) is everyday code; before a guard of the
    decision's, one more refusal is a stricter check, not this."""
    out: list[Narrowed] = []
    for h in cs.hunks:
        side = [(k, x) for k, x in h if k != "-" and x.strip() and not x.lstrip().startswith(("#", "//"))]
        side = [(k, x) for k, x in side if not re.fullmatch(r"\s*[)}\]]+[;,)]*\s*", x)]  # a block's closing brace
        for i in range(len(side) - 2):
            (k1, cond_line), (k2, exit_line) = side[i], side[i + 1]
            # the line the exit now stands before, past a `try:` that opens around it
            rest = [x for _, x in side[i + 2 : i + 4] if not re.fullmatch(r"\s*(?:try\s*:|try\s*\{)\s*", x)]
            if not rest:
                continue
            target = rest[0]
            cond = _condition(cond_line) if k1 == "+" and k2 == "+" else None
            if (
                cond is None
                or cond[0] != "if"
                or not _RAISE.match(exit_line)
                or indent_of(target) < indent_of(cond_line)
            ):
                continue
            if _condition(target) or _REFUSE.match(target) or not is_decision_line(target, written):
                continue
            names = {t for t in tokens(target) if is_specific(t)} & set(tokens(cond[1]))
            if len(names) >= EXIT_NAMES_MIN:
                out.append(Narrowed(target.strip(), f"{cond_line.strip()} {exit_line.strip()}", "exit", path))
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
    how = {"conjunct": "adds a condition to", "exit": "puts a new early exit before"}.get(
        n.how, "puts a new branch before"
    )
    return Evidence(
        "K3",
        NARROW_SCORE,
        f"the diff {how} the decision's `{n.decided}` (`{n.line}` in {n.path}), so what it decided happens in "
        f"fewer cases",
        share_of(case, [x.line for x in found]),
        True,
    )


# --- K4 ------------------------------------------------------------------------------------------------

RELAX_SCORE = 0.6
# a line that refuses: an error, a skip, or a return of nothing (``return``, ``return None``, ``return "", None``);
# ``return True`` grants, and one more way to grant is no stricter guard
_FALSY_VALUE = r"(?:None|null|undefined|False|false|0|\"\"|''|\[\]|\{\}|\(\))"
_RAISE = re.compile(r"^\s*(?:raise|throw)\b")  # an error where the decision's line handled the case
_REFUSE = re.compile(r"^\s*(?:raise|throw|return|continue|break)\b")
_ASSIGN = re.compile(r"^\s*((?:self\.)?[A-Za-z_]\w*)\s*=(?!=)\s*(.+)$")
_EXIT = re.compile(
    r"^\s*(?:raise|throw|continue|break)\b|^\s*return\s*(?:"
    + _FALSY_VALUE
    + r"(?:\s*,\s*"
    + _FALSY_VALUE
    + r")*)?\s*;?\s*$"
)


@dataclass(frozen=True)
class Relaxed:
    conjunct: str
    decided: str
    line: str
    path: str


def _conjuncts(cond: str) -> list[str]:
    """Top-level ``and``/``&&`` parts of a condition (parentheses respected)."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(cond):
        ch = cond[i]
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(ch, 0)
        for op in (" and ", " && "):
            if depth == 0 and cond.startswith(op, i):
                parts.append(cond[start:i].strip())
                start = i + len(op)
                i += len(op) - 1
                break
        i += 1
    parts.append(cond[start:].strip())
    return [p for p in parts if p]


@lru_cache(maxsize=4096)
def decision_restrictions(patch: str, path: str) -> tuple[tuple[str, str], ...]:
    """(conjunct, line): conjuncts of a condition the decision's change wrote that carry a token none of the
    lines it took out of that hunk had: a restriction it added (``session.modified`` in ``if session.modified
    and session:``, where the old line read ``if scope["session"]:``). Only in hunks that took lines out: a
    condition written into new code restricts nothing that was there."""
    kind = file_kind(path)
    out: list[tuple[str, str]] = []
    for h in patch_hunks(patch):
        lines = logical(code_lines(h, kind))
        had = {t for k, x in lines if k == "-" for t in tokens(x)}
        if not had:
            continue
        for k, x in lines:
            cond = _condition(x) if k == "+" else None
            parts = _conjuncts(cond[1]) if cond else []
            if len(parts) >= 2:
                out += [(p, x.strip()) for p in parts if any(is_specific(t) and t not in had for t in tokens(p))]
    return tuple(out)


def _next_line(cs: ChangeSet, line: str) -> str:
    """The line that follows ``line`` on the diff's new side (what the condition guards)."""
    for h in cs.hunks:
        new_side = [x for k, x in h if k != "-" and x.strip() and not x.lstrip().startswith("#")]
        for i, x in enumerate(new_side[:-1]):
            if x.strip() == line.strip():
                return new_side[i + 1]
    return ""


def relaxed(case: Case) -> list[Relaxed]:
    """K4: conjuncts the decision added to a condition, put in an ``or`` by the diff before a line that acts."""
    out: list[Relaxed] = []
    for path, cs, patch in decision_files(case):
        conds = [x for x in decision_statements(patch, path) if _condition(x)]
        out += another_way_in(cs, conds, path) + action_elsewhere(cs, patch, path)
        mine = decision_restrictions(patch, path)
        if not mine:
            continue
        flags = new_flags(cs)
        for removed, added in cs.blocks:
            for r in removed:
                old = _condition(r)
                if old is None or not is_decision_line(r, [line for _, line in mine]):
                    continue
                # the block's own lines, then every added line of the file: the condition may have moved into
                # a helper the diff writes elsewhere (and lost the conjunct on the way)
                for a in dict.fromkeys(added + cs.added_lines):
                    new = _condition(a)
                    if new is None or _EXIT.match(_next_line(cs, a)):
                        continue
                    for c, line in mine:
                        if c not in _conjuncts(old[1]):
                            continue
                        alt = _alternative(c, new[1]) if a in added else None
                        # moved to an enclosing `if c:`, into an expression or a helper is kept, not dropped
                        dropped = _conjuncts(new[1]) == [p for p in _conjuncts(old[1]) if p != c] and not any(
                            _spaced(c) in _spaced(x) for x in cs.added_lines if x is not a
                        )
                        if (alt is not None and not any(gates(alt + " and", f) for f in flags)) or dropped:
                            out.append(Relaxed(c, line, a.strip(), path))
    return out


def _alternative(conjunct: str, cond: str) -> str | None:
    """What ``cond`` puts in an ``or`` with ``conjunct`` (``(c or X)``, ``X or c``), or None."""
    c = re.escape(conjunct)
    for pattern in (
        c + r"\s+(?:or|\|\|)\s+([^()]+?|\([^()]*\))\s*(?:\)|$)",
        r"([^()]+?|\([^()]*\))\s+(?:or|\|\|)\s+" + c + r"(?![\w.])",
    ):
        m = re.search(pattern, cond)
        if m:
            return m.group(1).strip()
    return None


def _spaced(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _body(side: list[tuple[str, str]], at: int) -> list[str]:
    level = indent_of(side[at][1])
    out: list[str] = []
    for _, x in side[at + 1 :]:
        if indent_of(x) <= level:
            break
        out.append(" ".join(x.split()))
    return out


def another_way_in(cs: ChangeSet, mine: list[str], path: str) -> list[Relaxed]:
    """A new ``elif X:`` in a chain the decision's ``if C:`` heads, doing what the decision's branch does,
    before its ``else``: ``if C or X`` written as a branch."""
    out: list[Relaxed] = []
    for h in cs.hunks:
        side = [(k, x) for k, x in h if k != "-" and x.strip() and not x.lstrip().startswith(("#", "//"))]
        for i, (k, x) in enumerate(side):
            new = _condition(x) if k == "+" else None
            if new is None or new[0] not in ("elif", "else if"):
                continue
            level = indent_of(x)
            head = next(
                (j for j in range(i - 1, -1, -1) if indent_of(side[j][1]) == level and _condition(side[j][1])), None
            )
            if head is None or side[head][0] == "+" or not is_decision_line(side[head][1], mine):
                continue
            chain = _condition(side[head][1])
            after = next((y for _, y in side[i + 1 :] if indent_of(y) <= level), "")
            more = after.strip() in ("else:", "} else {") or (_condition(after) or ("", ""))[0] in ("elif", "else if")
            if chain and chain[0] == "if" and more and _same_work(_body(side, i), _body(side, head)):
                out.append(Relaxed(chain[1], side[head][1].strip(), x.strip(), path))
    return out


def _same_work(new: list[str], decided: list[str]) -> bool:
    """The new branch does what the decision's branch does: the same lines, or (one line each) the same
    assignment target from the same value (``netloc = host_header`` / ``netloc = host_header.strip()``)."""
    if not new or not decided:
        return False
    if new == decided:
        return True
    if len(new) != 1 or len(decided) != 1:
        return False
    a, b = _ASSIGN.match(new[0]), _ASSIGN.match(decided[0])
    if not a or not b or a.group(1) != b.group(1):
        return False
    value = {t for t in tokens(b.group(2)) if is_specific(t)}
    return bool(value) and value <= set(tokens(a.group(2)))


def _statement(line: str) -> str | None:
    """A call statement's callee and first argument (``raw_headers.append((b"content-length",``), or None."""
    m = re.match(r"^\s*([A-Za-z_][\w.]*)\(\(?\s*([^,()]+)", line)
    return f"{m.group(1)}({m.group(2).strip()}" if m else None


@lru_cache(maxsize=4096)
def guarded_actions(patch: str, path: str) -> frozenset[str]:
    """Call statements a condition the decision's change wrote guards: the lines right after an added line
    that opens a block (``if (...):``, ``):``), as the stored patch shows them (added or context)."""
    out: set[str] = set()
    for h in patch_hunks(patch):
        lines = [(k, x) for k, x in h if k != "-" and x.strip() and not x.lstrip().startswith(("#", "//"))]
        for i, (k, x) in enumerate(lines):
            if k != "+" or not x.rstrip().endswith((":", "{")):
                continue
            for _, y in lines[i + 1 : i + 4]:
                if indent_of(y) <= indent_of(x):
                    break
                if (st := _statement(y)) is not None:
                    out.add(st)
    return frozenset(out)


def action_elsewhere(cs: ChangeSet, patch: str, path: str) -> list[Relaxed]:
    """A new ``elif`` right after the decision's guarded action that does that action too (the same call
    on the same first argument): what the decision's condition kept from some cases, given to them."""
    actions = guarded_actions(patch, path)
    out: list[Relaxed] = []
    if not actions:
        return out
    for h in cs.hunks:
        side = [(k, x) for k, x in h if k != "-" and x.strip() and not x.lstrip().startswith(("#", "//"))]
        for i, (k, x) in enumerate(side):
            new = _condition(x) if k == "+" else None
            if new is None or new[0] not in ("elif", "else if") or i == 0:
                continue
            prev = _statement(side[i - 1][1])
            if side[i - 1][0] == "+" or prev not in actions:
                continue
            if any(_statement(y) == prev for y in _body(side, i)):
                out.append(Relaxed(prev or "", side[i - 1][1].strip(), x.strip(), path))
    return out


def k4_relaxed(case: Case) -> Evidence | None:
    """K4: a restriction the decision added to a condition put in an ``or`` with something else."""
    if case.remote:
        return None
    found = relaxed(case)
    if not found:
        return None
    x = found[0]
    return Evidence(
        "K4",
        RELAX_SCORE,
        f"the diff lets `{x.conjunct}`, which the decision added to `{x.decided}`, be bypassed (`{x.line}` in "
        f"{x.path}), so what it restricted happens in more cases",
        share_of(case, [y.line for y in found]),
        True,
    )


def widens_guard(cs: ChangeSet, before: str, after: str) -> bool:
    """``after`` is the guard condition ``before`` with an alternative added (``C or X``), guarding a refusal
    (raise, continue, break, a return of nothing): the guard made stricter, which keeps what the decision
    refused refused. A guard that grants (``return True``) given one more way in is wider, not stricter."""
    old, new = _condition(before), _condition(after)
    if old is None or new is None or old[0] != new[0]:
        return False
    widened = any(
        new[1].startswith(a + op) or new[1].endswith(op + a) for a in (old[1], f"({old[1]})") for op in (" or ", " || ")
    ) or _more_values(old[1], new[1])
    return widened and bool(_EXIT.match(_next_line(cs, after)))


def _more_values(old: str, new: str) -> bool:
    """``x == A`` became ``x in (A, B)``: the same test, one more value it refuses."""
    m = re.fullmatch(r"(.+?)\s*==\s*(.+)", old)
    n = re.fullmatch(r"(.+?)\s+in\s+[(\[{](.+)[)\]}]", new)
    if not m or not n or _spaced(m.group(1)) != _spaced(n.group(1)):
        return False
    return _spaced(m.group(2)) in {_spaced(v) for v in n.group(2).split(",")}

"""Paraphrased undos read from the conditions the decision's code wrote.

K3  a condition narrowed: a condition line the decision's change wrote (``if C:``, or that line retouched
    since) gets a conjunct (``if C and X:``) or a new branch before it that turns it into ``elif C:``, so what
    the decision made happen under C now happens in fewer cases (a guard that skips, an origin echoed).
    ``or`` (a stricter guard, a wider feature) is not narrowing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .behaviour import code_file, is_decision_line, share_of
from .judge_case import Case, Evidence
from .rejected import decision_code_lines

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
        if patch is None or not code_file(cs):
            continue
        mine = [x for x in decision_code_lines(patch, path)[0] if _condition(x)]
        if not mine:
            continue
        for removed, added in cs.blocks:
            for r in removed:
                old = _condition(r)
                if old is None or not is_decision_line(r, mine):
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
        share_of(case, [x.line for x in found]),
        True,
    )

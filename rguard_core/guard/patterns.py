"""Is a regular expression the diff edits stricter or looser than the decision's? Read by sampling: strings
the new pattern accepts, generated from its parse tree, tried against the old one.

A decision that validates input with a pattern (``_HOST_RE``) is undone by a pattern that accepts what it
rejected, and kept by one that only rejects more (``[0-9]+`` -> ``[0-9]{1,5}``). Token rules see both as the
decision's literal taken out; this tells them apart. Sampling cannot prove a subset, so the answer is "no
string the new pattern produced in SAMPLES tries is refused by the old one", and anything the generator does
not model (back-references, look-arounds, unknown opcodes) answers None: not known, judged as before.
"""

from __future__ import annotations

import random
import re
from typing import Any

SAMPLES = 400
REPEAT_EXTRA = 3  # an open-ended repeat (`+`, `*`) generates at most min + this many
SEED = 7

_parser: Any = getattr(re, "_parser", None)  # the stdlib's own regex parser (sre_parse before 3.11)
_C: Any = getattr(re, "_constants", None)

_CATEGORY_CHARS = {
    "CATEGORY_DIGIT": "0123456789",
    "CATEGORY_NOT_DIGIT": "aZ_-./ ?#@",
    "CATEGORY_SPACE": " \t",
    "CATEGORY_NOT_SPACE": "aZ09_-./?#@:[]",
    "CATEGORY_WORD": "aZ09_",
    "CATEGORY_NOT_WORD": "-./ ?#@:[]",
}
# characters tried for "any" and negated classes: the ones validation patterns are usually about
_PROBE = "aZ09_-./ ?#@:[]%\\\t"


class _Unknown(Exception):
    """A construct the generator does not model."""


def _class_chars(items: list[tuple[Any, Any]]) -> str:
    chars: list[str] = []
    negate = False
    for op, av in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            chars.append(chr(av))
        elif name == "RANGE":
            lo, hi = av
            chars += [chr(lo), chr(hi), chr((lo + hi) // 2)]
        elif name == "CATEGORY":
            chars += list(_CATEGORY_CHARS.get(str(av), ""))
        else:
            raise _Unknown(name)
    if negate:
        return "".join(c for c in _PROBE if c not in chars)
    return "".join(chars)


def _gen(tree: Any, rnd: random.Random) -> str:
    out: list[str] = []
    for op, av in tree:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(av))
        elif name == "NOT_LITERAL":
            out.append(rnd.choice([c for c in _PROBE if c != chr(av)]))
        elif name == "ANY":
            out.append(rnd.choice(_PROBE.replace("\n", "")))
        elif name == "IN":
            chars = _class_chars(list(av))
            if not chars:
                raise _Unknown("empty class")
            out.append(rnd.choice(chars))
        elif name == "BRANCH":
            out.append(_gen(rnd.choice(av[1]), rnd))
        elif name == "SUBPATTERN":
            out.append(_gen(av[-1], rnd))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            lo, hi, sub = av
            top = lo + REPEAT_EXTRA if hi == _C.MAXREPEAT else hi
            out.append("".join(_gen(sub, rnd) for _ in range(rnd.randint(lo, max(lo, top)))))
        elif name == "AT":
            continue  # anchors add no characters
        elif name == "ATOMIC_GROUP":
            out.append(_gen(av, rnd))
        else:
            raise _Unknown(name)
    return "".join(out)


def samples(pattern: str, flags: int = 0, n: int = SAMPLES) -> list[str] | None:
    """Strings ``pattern`` accepts (checked), or None when it cannot be parsed or generated from."""
    if _parser is None or _C is None:
        return None
    try:
        compiled = re.compile(pattern, flags)
        tree = _parser.parse(pattern, flags)
        rnd = random.Random(SEED)
        made = {_gen(tree, rnd) for _ in range(n)}
    except (re.error, _Unknown, RecursionError, ValueError, TypeError, IndexError):
        return None
    return [s for s in sorted(made) if compiled.search(s)]


def narrows(old: str, new: str, flags: int = 0) -> bool | None:
    """True: every sampled string the new pattern accepts, the old one accepts too (the edit only rejects
    more); False: the new one accepts a string the old one refused; None: not known."""
    if old == new:
        return None
    got = samples(new, flags)
    if not got:
        return None
    try:
        before = re.compile(old, flags)
    except re.error:
        return None
    return all(before.search(s) for s in got)


def looks_like_pattern(text: str) -> bool:
    """A literal that reads as a regular expression (anchors, classes, groups, escapes, quantifiers)."""
    return bool(re.search(r"\[[^\]]+\]|\(\?|\\[dswDSW.]|[+*?]\)|\{\d+(?:,\d*)?\}|^\^|\$$", text))

"""Which lines of a file are a decision's own: the lines its change wrote, and the lines that name something it
brought in (or, for what a diff writes, something it took out).

Token rules read a file's change as a bag, and a bag has no place: axios's CSRF fix (#6028) took
``config.withCredentials`` out of the XSRF-header condition, and "fix ignore set withCredentials false" (#2582)
had written ``config.withCredentials`` into another condition of the same file. The tokens match; the lines are
not the same code. F1 (a named value flipped) and U1/U2 (the diff's tokens reverse the change) read only what the
diff does to lines the decision owns.
"""

from __future__ import annotations

from functools import lru_cache

from .diffparse import patch_hunks
from .judge_case import Case, is_literal
from .tokens import code_lines, file_kind, is_specific, tokens, weight

# Names every file of a language uses, which a change's context rarely shows: writing one owns nothing (axios's
# "Don't add null values to query string" typed a serializer ``Record<string, any>``; a later edit that lets an
# interceptor take ``null`` touches another ``any``, not its choice).
COMMON_TYPE_NAMES = frozenset(
    "any unknown never void string number boolean object symbol bigint Record Partial Readonly Promise Array "
    "Map Set Function Object String Number Boolean Error str int float bool bytes dict list tuple set None "
    "Optional Union Any Callable".split()
)
# A line it wrote owns what it says only when it says something: ``else:`` or ``}`` is anyone's (flask's "Set
# TEMPLATE_AUTO_RELOAD default value to None" wrote an ``else:``, which owned a teardown's ``exc=None``).
OWN_LINE_MIN_TOKENS = 2
# A literal a change brought in is its own only when it says something (a message, a key, a number other than
# 0 or 1): tokens.weight gives those 1.5.
OWN_LITERAL_MIN_WEIGHT = 1.5


def norm(line: str) -> str:
    return " ".join(line.split())


def _lines(patch: str, path: str) -> list[tuple[str, str]]:
    kind = file_kind(path)
    return [(k, x) for h in patch_hunks(patch) for k, x in code_lines(h, kind)]


@lru_cache(maxsize=1024)
def decision_names(patch: str, path: str) -> frozenset[str]:
    """The names a change brought into a file (specific tokens, not literals, on the lines it added and on none it
    took out or kept around them), and the lines it added (whitespace-normalised): a line it wrote is its own
    whatever it names (``return None``). A name the file used already (``self``, ``app``) owns nothing."""
    lines = _lines(patch, path)
    before = {t for k, x in lines if k != "+" for t in tokens(x)} | COMMON_TYPE_NAMES
    names = {t for k, x in lines if k == "+" for t in tokens(x) if is_specific(t) and not is_literal(t)} - before
    wrote = {norm(x) for k, x in lines if k == "+" and len(tokens(x)) >= OWN_LINE_MIN_TOKENS}
    return frozenset(names | wrote)


@lru_cache(maxsize=1024)
def owned(patch: str, path: str) -> tuple[frozenset[str], frozenset[str]]:
    """What a diff's removed lines must touch (the change's own names and lines, and the telling literals it
    brought in), and what its added lines must (the names, telling literals and lines the change took out)."""
    lines = _lines(patch, path)
    kept = {t for k, x in lines if k == " " for t in tokens(x)} | COMMON_TYPE_NAMES
    put = {t for k, x in lines if k == "+" for t in tokens(x)}
    cut = {t for k, x in lines if k == "-" for t in tokens(x)}

    def telling(t: str) -> bool:
        return is_specific(t) and (not is_literal(t) or weight(t) >= OWN_LITERAL_MIN_WEIGHT)

    mine = {t for t in put - cut - kept if telling(t)}
    gone = {t for t in cut - put - kept if telling(t)}
    wrote = {norm(x) for k, x in lines if k == "+" and len(tokens(x)) >= OWN_LINE_MIN_TOKENS}
    took = {norm(x) for k, x in lines if k == "-" and len(tokens(x)) >= OWN_LINE_MIN_TOKENS}
    return frozenset(mine | wrote), frozenset(gone | took)


def _hits(lines: list[str], own: frozenset[str]) -> bool:
    return any(norm(x) in own or any(t in own for t in tokens(x)) for x in lines)


def touches_own(case: Case) -> bool:
    """The diff takes out a line the decision owns, or writes one that names what the decision took out, in a
    product file both change. True when the decision's patch is not at hand for any such file (nothing to read
    the place from)."""
    read = False
    for path, cs in case.diff_sets.items():
        patch = case.info.patches.get(path)
        if patch is None or cs.test or cs.kind == "prose":
            continue
        read = True
        mine, gone = owned(patch, path)
        for rem, add in cs.blocks:
            if _hits(rem, mine) or _hits(add, gone):
                return True
    return not read

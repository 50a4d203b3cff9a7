"""Paraphrased undos read from the decision's own words: what they say was rejected or removed, against the
code the diff adds.

X1  rejected code brought back: the decision's words (its quote, summary, title, the claims it rests on and
    the quotes of the alternatives it rejected, REJECTED_FOR) name code on the losing side of a polarity phrase
    (``instead of `X```, ``rather than X``, ``we considered X but``, ``no longer X``, ``removed X``,
    ``don't use X`` ...) or judge it badly (```X` is deprecated/insecure/slow``), and
    the diff's added code, in a file the decision's change touched, writes that code again. Only names that
    read as code count (backticks, ``_``/digits/inner capitals, a dotted name); a name the decision's change
    added, or left in use on its context lines without removing it, is the file's vocabulary, not the
    rejected alternative; a bare number or type word (``500``, ``float``) counts only where the change took
    it out.

W1, K1 and K2 (a limit switched off, left out, made skippable) are in limits.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .diffparse import patch_hunks
from .judge_case import PATCH_CACHE, Case, Evidence, code_like
from .tokens import ChangeSet, code_lines, file_kind, is_specific, tokens, weight

# a polarity phrase, and what it puts on the losing side (up to the next clause boundary)
_LOSING = re.compile(
    r"(?i)\b(?:instead\s+of|rather\s+than|rather\s+not|in\s+place\s+of|no\s+longer|never|"
    r"(?:we|i)\s+considered|(?:we|i)\s+rejected|rejected|dropp?(?:s|ed|ing)?|remov(?:e|es|ed|ing)|"
    r"deprecat(?:e|es|ed|ing)|replac(?:e|es|ed|ing)|stop(?:s|ped)?\s+using|avoid(?:s|ed|ing)?|"
    r"(?:switch|switched|switches|move|moved|moves|migrate|migrated)\s+(?:away\s+)?from|"
    r"(?:prefer|prefers|preferred|favou?r|chose|choose|picked)\s+[^.;,\n]{1,40}?\s+over|,\s+not|"
    r"(?:don't|do\s+not|must\s+not|mustn't|should\s+not|shouldn't)\s+(?:use|call))\s+"
    r"(?P<what>[^.;,:!?\n()]{1,80})"
)
# where the losing side ends: the next clause or the winning side
_CLAUSE_END = re.compile(
    r"(?i)\s(?:but|because|since|so|we|which|that|with|for|when|if|while|as|to\s+use|in\s+favou?r)\s"
)
_TICKED = re.compile(r"`([^`\n]{1,60})`|'([\w.]{3,40})'|\"([\w.]{3,40})\"")
# literal-ish names too common to be a rejected alternative on their own
_WEAK = frozenset(
    "None null nil true false True False self this it 0 1 * str int".split()
    # a keyword alone names no alternative: flask's "Remove an extra `if` clause to clarify sentence" was a docstring
    # edit, and every later `if` read as that clause brought back (blind round 12: wrong)
    + "if else elif for while return def class function const let var import from and or not in is".split()
)
_TYPES = frozenset("float bytes bytearray list dict tuple set frozenset Decimal datetime Path".split())  # named bare
REJECTED_MIN_W = 1.0  # weight of the rejected code the diff writes again


@dataclass(frozen=True)
class Brought:
    """Rejected or removed code (``what``) written again on ``line`` of ``path``; ``words``: the phrase."""

    what: str
    line: str
    path: str
    words: str
    weight: float


def decision_words(case: Case) -> str:
    """The decision's own words: its quote, summary, its source's title and the claims it rests on."""
    info = case.info
    return " ".join((info.quote, info.summary, info.source_title, *info.claims))


@dataclass(frozen=True)
class Losing:
    """Code a polarity phrase puts on the losing side; ``weak``: names that count only where the decision's
    change took them out (a bare number, a type word, a plain lowercase name)."""

    phrase: str
    code: tuple[str, ...]
    weak: frozenset[str] = frozenset()


def losing_side(text: str) -> list[Losing]:
    """The code each polarity phrase in ``text`` names on the losing side: a backticked or quoted span (kept
    whole when it is several tokens: `` `if not price` ``), a word that reads as code, a number or type word,
    or a plain lowercase name when it is all the losing side says (``instead of requests``)."""
    out: list[Losing] = []
    for m in _LOSING.finditer(text):
        what = re.sub(r"#\d+|\b[A-Z]{2,}-\d+\b", "", m.group("what"))  # an issue or ADR reference is no code
        if re.match(r"(?i)(?:by|with)\s", what):
            continue  # "replaced by X": X is the winner, the loser is named before
        end = _CLAUSE_END.search(" " + what + " ")
        if end and end.start() > 0:
            what = what[: end.start()]
        if re.search(r"(?i)from\s*$", m.group(0)[: m.start("what") - m.start()]):
            what = re.split(r"(?i)\sto\s", what, maxsplit=1)[0]  # "switched from A to B": B is the winner
        code = [next(x for x in m2 if x).strip() for m2 in _TICKED.findall(what)]
        weak: set[str] = set()
        if not code:
            words = re.findall(r"[A-Za-z_][\w.]*(?:\(\))?|\b\d+\b", what.replace("`", ""))
            code = [w for w in words if code_like(w) or w in _TYPES]
            weak = {w for w in code if w[0].isdigit() or w in _TYPES}
            content = [w for w in words if w.lower() not in _FILLER]
            lead = m.group(0)[: m.start("what") - m.start()]
            if (
                not code
                and len(content) == 1
                and _NOUN_LEAD.search(lead)
                and re.fullmatch(r"[a-z][a-z0-9]{2,}", content[0])
            ):
                code = weak_word = [content[0]]
                weak |= set(weak_word)
        code = [c.removesuffix("()").strip() for c in code if c.removesuffix("()").strip() not in _WEAK]
        if code:
            out.append(Losing(m.group(0)[:100], tuple(code), frozenset(weak)))
    return out


# phrases whose losing side is a thing (a module, a function), not an action: only these name a plain word
_NOUN_LEAD = re.compile(r"(?i)(?:instead\s+of|rather\s+than|in\s+place\s+of|from|over|stop\w*\s+using|,\s+not)\s*$")
_LOG_CALL = re.compile(r"^\s*(?:[\w.]*(?:log|logger|logging|console|warnings))\.\w+\(|^\s*print\(")
_FILLER = frozenset("the a an using use calling call of our its their this that plain".split())


# code the words judge badly: "`pickle` is insecure", "`utcnow()` is deprecated"
_BAD = re.compile(
    r"`([^`\n]{1,60})`\s+(?:is|are|was|were)\s+(?:now\s+|considered\s+)?(?:deprecated|insecure|unsafe|"
    r"slow|broken|buggy|discouraged|wrong|not\s+thread-?safe|dangerous|vulnerable)\b"
)


def judged_bad(text: str) -> list[Losing]:
    return [Losing(m.group(0)[:100], (m.group(1).removesuffix("()").strip(),)) for m in _BAD.finditer(text)]


def rejected_code(case: Case) -> list[Losing]:
    """The decision's losing-side code, from its own words, its claims and its rejected alternatives' quotes."""
    info = case.info
    texts = [info.quote, info.summary, info.source_title, *info.claims, *info.rejected]
    out: list[Losing] = []
    for text in texts:
        out += [x for x in losing_side(text) + judged_bad(text) if x not in out]
    return out


def _phrase_tokens(code: str) -> list[str]:
    return [t for t in tokens(code) if t not in ("(", ")")]


def _holds(line: str, want: list[str]) -> bool:
    """The line writes the code: its tokens in a row, or a single name also inside a string (SQL, a header)."""
    toks = tokens(line)
    n = len(want)
    if any(toks[i : i + n] == want for i in range(len(toks) - n + 1)):
        return True
    return n == 1 and re.search(r"(?<![\w.])" + re.escape(want[0]) + r"(?![\w])", line) is not None


# What a line writes right after one of these it rules out or bounds: a version exclusion or bound
# (python_requires='>=2.7,!=3.3.*' writes 2 and 3.3 to keep them out; flask's "Remove python 2.6 and 3.3
# everywhere" is kept, not undone), a negated test.
_EXCLUDING = re.compile(r"(?:!==?|[<>]=?|~=|\bnot(?:\s+in)?|\bexcept)\s*['\"]?\s*$")


def _excluded(line: str, want: list[str]) -> bool:
    """Every place the line writes ``want``'s first token follows an exclusion or a bound (``!=``, ``>=``,
    ``not``, ``not in``)."""
    hits = [m.start() for m in re.finditer(r"(?<![\w.])" + re.escape(want[0]) + r"(?![\w])", line)]
    return bool(hits) and all(_EXCLUDING.search(line[:i]) for i in hits)


def _count(lines: list[str], want: list[str]) -> int:
    return sum(_holds(x, want) for x in lines)


def brought_back(case: Case) -> list[Brought]:
    """X1: lines the diff adds, in files the decision's change touched, that write its rejected code again."""
    wanted = rejected_code(case)
    if not wanted:
        return []
    out: list[Brought] = []
    for path, cs in case.diff_sets.items():
        patch = case.info.patches.get(path)
        if patch is None or cs.test or cs.kind == "prose":
            continue
        mine = decision_code_lines(patch, path)
        words = decision_words(case)
        for lose in wanted:
            for c in lose.code:
                want = _phrase_tokens(c)
                weak = c in lose.weak and not _winner_taken(c, words, mine, cs)
                if not want or _chosen_or_kept(want, mine, weak):
                    continue
                # a log line's words are a message; a line of a docstring or comment block a hunk shows without its
                # opening quotes reads as a sentence (flask's "this will contain the parsed JSON data.")
                added = [x for x in cs.added_lines if not _LOG_CALL.match(x) and not prose_line(x)]
                if _count(added, want) <= _count(cs.removed_lines, want):
                    continue  # the diff does not write it more than it already was
                if all(_excluded(x, want) for x in added if _holds(x, want)):
                    continue  # `!=3.3.*`, `not in (...)`: written to keep the rejected code out, not to bring it back
                line = next(x for x in added if _holds(x, want))
                out.append(Brought(c, line.strip(), path, lose.phrase, _block_weight(cs, line)))
    return out


_ROLE_OR_TICKS = re.compile(r":\w+:`[^`]*`|`[^`]*`")
_CODE_MARK = re.compile(r"[=;{}\[\]<>\"'%*#]|[\w$]\(|^\s*(?:def|class|return|import|from|if|for|while|const|let|var)\b")


def prose_line(line: str) -> bool:
    """A line that reads as a sentence, not code: four or more words and, once reST roles and backticked spans are
    taken out, no assignment, call, bracket, quote or keyword."""
    text = _ROLE_OR_TICKS.sub(" ", line)
    return len(re.findall(r"[A-Za-z]{2,}", text)) >= 4 and not _CODE_MARK.search(text)


def _winner_taken(loser: str, words: str, mine: tuple[list[str], list[str], list[str]], cs: ChangeSet) -> bool:
    """The diff takes out, in this file, a value of the same kind that the decision's words name and its change
    wrote (``303`` of "303 status_code instead of 307"), so a bare loser (``307``) written now is a swap back,
    even where the change never had the loser in code (it was an implicit default)."""
    number = loser.isdigit()
    added, removed, _ = mine
    for t in dict.fromkeys(re.findall(r"[A-Za-z_]\w*|\d+", words)):
        if t == loser or t.isdigit() != number or not is_specific(t):
            continue
        if _count(added, [t]) > _count(removed, [t]) and cs.removed[t] > 0 and cs.added[t] == 0:
            return True
    return False


def _block_weight(cs: ChangeSet, line: str) -> float:
    """The weight of the run of added lines that holds ``line``: the code written around the rejected name
    (a new method paging with OFFSET) is what brings the alternative back, not the one line alone."""
    for _, add in cs.blocks:
        if line in add:
            return sum(weight(t) for x in add for t in tokens(x))
    return sum(weight(t) for t in tokens(line))


def _chosen_or_kept(want: list[str], mine: tuple[list[str], list[str], list[str]], weak: bool) -> bool:
    """The decision's change chose this code (wrote it more than it took it out), or it is the file's
    vocabulary (left in use on the change's context lines, not taken out)."""
    added, removed, context = mine
    a, r = _count(added, want), _count(removed, want)
    if weak and r == 0:
        return True  # a bare number, type or plain word counts only where the change took it out (`500`, `float`)
    return a > r or (len(want) == 1 and r == 0 and _count(context, want) > 0)


@lru_cache(maxsize=PATCH_CACHE)
def decision_code_lines(patch: str, path: str) -> tuple[list[str], list[str], list[str]]:
    """The decision's code lines added, removed and shown as context (comments and docstrings dropped)."""
    out: tuple[list[str], list[str], list[str]] = ([], [], [])
    kind = file_kind(path)
    for h in patch_hunks(patch):
        for k, x in code_lines(h, kind):
            out["+- ".index(k)].append(x)
    return out


def x1_rejected(case: Case) -> Evidence | None:
    """X1: code the decision's words put on the losing side (rejected, removed, instead of) written again."""
    if case.remote:
        return None
    found = brought_back(case)
    total = sum(b.weight for b in found)
    if not found or total < REJECTED_MIN_W:
        return None
    b = found[0]
    return Evidence(
        "X1",
        0.65,
        f'the diff writes `{b.what}` (`{b.line}` in {b.path}), which the decision\'s words reject: "{b.words}"',
        total / case.total_w,
        True,
    )

"""Decisive lines: code lines a decision's change put in that the diff now rewrites or deletes.

Bag-of-token overlap misses a paraphrase that keeps the decision's words but changes what they do
(``.get(key)`` -> ``.get(key, default())``). This module works per line and per position instead:

* a decision line is a code line its change added. When the change edited an older line (paired by
  similarity inside one hunk block), only the tokens it put in are *its* tokens, and the places where it
  only took tokens out are its *cut points*; a line it wrote from scratch is its tokens throughout.
* the diff *takes* a decision token when it deletes or replaces it (a deleted line takes all of them),
  *puts back* when it inserts at one of the decision's cut points, and *reshapes* the line when it
  inserts into a condition, or inserts a number or a condition of its own. Other insertions extend the
  line (a new parameter, a new list entry) and are no evidence.
* only net changes of the file count (``ChangeSet.removed`` / ``added``): moved or re-wrapped code does not.

Also here: the document rules (an ADR's status withdrawn, the decision's own words taken out of the text
its change wrote), negated lines (a new line saying the opposite of a decision line) and guarded code
written again without the guard the decision put before it. See guard/README.md for each rule's reason.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import cast

from .tokens import _IMPORT, ChangeSet, _blocks, code_lines, code_string, file_kind, is_specific, literal_body, weight

PAIR_MIN = 0.5  # lines this similar (token sequence ratio) are one line edited, not one replaced
CONTAINED = 0.8
CONTAINED_MIN_TOKENS = 3
LINEAGE_MIN = 0.75  # a head line this alike to a decision line is that line, edited by a later change
LINEAGE_MIN_TOKENS = 4
LINEAGE_SCAN = 40
_FINE = re.compile(
    r"""[rbfuRBFU]{0,2}(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)"""
    r"""|\b\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?\b|[A-Za-z_$][A-Za-z0-9_$]*"""
    r"""|===|!==|==|!=|<=|>=|:=|&&|\|\||\?\?|\*\*|//|->|=>|[^\s\w]"""
)
_MEANINGFUL_OPS = frozenset("=== !== == != <= >= < > ! && || ?? not and or".split())
CONDITION_TOKENS = frozenset("=== !== == != <= >= < > && || not and or is in if elif while unless until assert".split())
_LOCAL_BINDING = re.compile(
    r"^\s*(?:(?:let|var|const|val|auto|final|my|local)\s+)?([A-Za-z_]\w*)\s*(?::\s*[^=]+)?(?::=|=(?!=))"
)
EXITS = frozenset("raise throw return break continue".split())
ERROR_EXITS = frozenset(("raise", "throw"))
DEFINITIONS = frozenset("def class function fn func fun sub async".split())


def fine_tokens(line: str) -> list[str]:
    """Tokens with punctuation kept, so positions inside a line can be compared."""
    return _FINE.findall(line)


def meaningful(tok: str) -> bool:
    """A token that can carry a decision: not punctuation, not ``self``."""
    if tok in _MEANINGFUL_OPS:
        return True
    return (
        tok[0].isalnum() or tok[0] in "_$\"'`" or tok[:2].lower() in ('f"', "f'", 'b"', "b'", 'r"', "r'")
    ) and weight(tok) > 0


@dataclass
class DecisionLine:
    """One line the decision's change added: which token positions are its own, where it cut tokens out."""

    tokens: list[str]
    own: set[int]
    cuts: set[int]  # gap indices (0..len) where the decision removed tokens and put nothing in their place
    # a string the decision edited (not wrote): its own and cut positions among the string's inner tokens
    inner: dict[int, tuple[set[int], set[int]]] = field(default_factory=dict)
    guard: bool = False  # an exit the decision wrote as a guard: raise/throw, or right after a condition it added
    edited: bool = False  # the decision edited an older line into this one (not written from scratch)

    @property
    def condition(self) -> bool:
        """Does the line decide something (a comparison, a boolean operator, an ``if``/``while``/``assert``)?
        The angle brackets of a type's parameters (``AxiosResponse<T = never>``) compare nothing."""
        return bool(condition_tokens(self.tokens) & set(self.tokens))


@dataclass
class LineEdit:
    """What the diff did to one decision line."""

    before: str
    after: str | None  # None: the line was deleted
    taken: list[str] = field(default_factory=list)
    put_back: list[str] = field(default_factory=list)
    replaced_by: list[str] = field(default_factory=list)  # what the diff wrote over decision tokens
    inserted: list[str] = field(default_factory=list)  # added inside a condition the decision wrote
    exit_removed: bool = False  # the line was a raise/return/throw/break/continue and is gone
    path: str = ""
    edited_line: bool = False  # the decision line was itself an edit of an older line

    @property
    def tokens(self) -> list[str]:
        return self.taken + self.put_back + self.replaced_by + self.inserted


def decision_lines(hunks: list[list[tuple[str, str]]], path: str) -> dict[str, DecisionLine]:
    """The code lines a stored patch added (by normalised text), each with its own tokens and cut points."""
    kind = file_kind(path)
    if kind == "prose":
        return {}
    out: dict[str, DecisionLine] = {}
    for rem, add in _blocks([x for h in hunks for x in code_lines(h, kind)]):
        pairs = _pair(rem, add)
        for j, a in enumerate(add):
            key = _norm(a)
            if key in out:
                continue
            at = fine_tokens(a)
            guard = bool(at) and at[0] in EXITS and (at[0] in ERROR_EXITS or (j > 0 and _is_condition(add[j - 1])))
            i = pairs.get(j)
            if i is None:
                out[key] = DecisionLine(at, set(range(len(at))), set(), guard=guard)
                continue
            rt = fine_tokens(rem[i])
            own, cuts = _ownership(rt, at)
            inner = {
                j1 + k: _ownership(fine_tokens(x or ""), fine_tokens(y or ""))
                for tag, i1, i2, j1, j2 in SequenceMatcher(None, rt, at, autojunk=False).get_opcodes()
                if tag == "replace" and i2 - i1 == j2 - j1
                for k, (x, y) in enumerate(zip(map(literal_body, rt[i1:i2]), map(literal_body, at[j1:j2]), strict=True))
                if x is not None and y is not None
            }
            out[key] = DecisionLine(at, own, cuts, inner, guard=guard, edited=True)
    return out


def _ownership(old: list[str], new: list[str]) -> tuple[set[int], set[int]]:
    """Positions of ``new`` that an edit from ``old`` put in, and the gaps where it only took tokens out."""
    own: set[int] = set()
    cuts: set[int] = set()
    for tag, _, _, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            own.update(range(j1, j2))
        elif tag == "delete":
            cuts.add(j1)
    return own, cuts


def decisive_edits(
    diff: ChangeSet,
    lines: dict[str, DecisionLine],
    renames: dict[str, str] | None = None,
    theirs: set[str] | frozenset[str] = frozenset(),
) -> list[LineEdit]:
    """The diff's edits to decision lines, with the decision tokens it took and what it put back at cuts.
    ``theirs``: lines other changes wrote too (``cur.execute(``); whose they are at head is unknown, so skip."""
    if not lines or diff.kind == "prose":
        return []
    gone = Counter(_norm(x) for x in diff.removed_lines)
    index = _index(lines)
    # a local name the decision bound (``joined_path = os.path.join(...)``) carries its lines' values: when the
    # diff extracts that code into a helper it defines, the name goes with it and is not what the decision chose
    local = {m.group(1) for key in lines if (m := _LOCAL_BINDING.match(key))} if diff.defined else set()
    out: list[LineEdit] = []
    for rem, add in diff.blocks:
        by_rem = _pair(add, rem)  # removed line index -> the added line it became
        for i, r in enumerate(rem):
            key = _norm(r)
            if not gone[key] or _IMPORT.match(r) or key in theirs:
                continue  # import lines follow the code that uses them
            dl = lines.get(key) or _descendant(r, lines, index)
            if dl is None:
                continue
            gone[key] -= 1
            j = by_rem.get(i)
            edit = _edit(dl, r, add[j] if j is not None else None, renames or diff.renames)
            edit.edited_line = dl.edited
            # a token written again on another added line moved (into a helper, a property, a constant), and a
            # call to a helper the diff defines is that helper, not something the decision cut put back
            edit.taken = [
                t for t in edit.taken if diff.removed[t] > 0 and t not in diff.added_tokens and t not in local
            ]
            edit.put_back = [
                t for t in edit.put_back if diff.added[t] > 0 and t not in diff.defined and t not in diff.new_locals
            ]
            if edit.after and _calls_helper(edit.after, diff.defined):
                # the line now hands its work to a helper the diff defines: what it passes is the helper's input
                edit.put_back, edit.inserted = [], []
            edit.inserted = [t for t in edit.inserted if diff.added[t] > 0]
            edit.replaced_by = [t for t in edit.replaced_by if diff.added[t] > 0] if edit.taken else []
            edit.exit_removed = edit.exit_removed and bool(edit.taken)
            if edit.tokens:
                out.append(edit)
    return out


def _calls_helper(line: str, defined: frozenset[str]) -> bool:
    return any(re.search(r"(?<![\w])" + re.escape(name) + r"\s*\(", line) for name in defined)


def _index(lines: dict[str, DecisionLine]) -> dict[str, list[str]]:
    """Decision lines by the specific tokens they own (to find a line a later change edited)."""
    out: dict[str, list[str]] = {}
    for key, dl in lines.items():
        for k in dl.own:
            t = dl.tokens[k]
            if is_specific(t):
                out.setdefault(t, []).append(key)
    return out


def _descendant(line: str, lines: dict[str, DecisionLine], index: dict[str, list[str]]) -> DecisionLine | None:
    """The decision line a later change edited into ``line`` (LINEAGE_MIN alike, sharing one of its own
    specific tokens), with its own tokens and cuts carried over to the line's positions."""
    toks = fine_tokens(line)
    if len(toks) < LINEAGE_MIN_TOKENS:
        return None
    keys = dict.fromkeys(k for t in toks if is_specific(t) for k in index.get(t, ()))
    best_ratio, best = 0.0, None
    for key in list(keys)[:LINEAGE_SCAN]:
        sm = SequenceMatcher(None, lines[key].tokens, toks, autojunk=False)
        if sm.real_quick_ratio() < LINEAGE_MIN or sm.quick_ratio() < LINEAGE_MIN:
            continue
        ratio = sm.ratio()
        if ratio >= LINEAGE_MIN and ratio > best_ratio:
            best_ratio, best = ratio, (lines[key], sm.get_opcodes())
    if best is None:
        return None
    dl, ops = best
    own: set[int] = set()
    cuts: set[int] = set()
    for tag, i1, i2, j1, _ in ops:
        if tag != "equal":
            continue
        own.update(j1 + k - i1 for k in dl.own if i1 <= k < i2)
        cuts.update(j1 + g - i1 for g in dl.cuts if i1 <= g <= i2)
    return DecisionLine(toks, own, cuts)


def _edit(dl: DecisionLine, before: str, after: str | None, renames: dict[str, str]) -> LineEdit:
    edit = LineEdit(before, after)
    if after is None:
        edit.taken = [dl.tokens[k] for k in sorted(dl.own) if meaningful(dl.tokens[k])]
        edit.exit_removed = dl.guard  # a return among others the decision wrote is no guard (refactors move them)
        return edit
    after_toks = fine_tokens(after)
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, dl.tokens, after_toks, autojunk=False).get_opcodes():
        old, new = dl.tokens[i1:i2], after_toks[j1:j2]
        if tag == "replace" and _same_meaning(old, new, dl.tokens[i2 : i2 + 1], renames):
            continue
        spared = _spared_strings(dl, i1, i2, new)
        taken = [dl.tokens[k] for k in range(i1, i2) if k in dl.own and meaningful(dl.tokens[k]) and k not in spared]
        new = [t for k, t in enumerate(new) if k not in spared.values()]
        taken, new = _drop_extended(taken, new)
        edit.taken += taken
        if tag in ("replace", "insert") and any(g in dl.cuts for g in range(i1, i2 + 1)):
            edit.put_back += [t for t in new if meaningful(t)]
        elif tag == "replace" and taken:
            edit.replaced_by += [t for t in new if meaningful(t)]
        elif tag == "insert" and _reshapes(dl, new) and not _extends_enumeration(dl.tokens, i1, new):
            edit.inserted += [t for t in new if meaningful(t)]
    return edit


ENUM_REACH = 2  # tokens either side of an insertion searched for a sibling literal


def _literal_kind(tok: str) -> str | None:
    if tok[:1].isdigit():
        return "number"
    return "string" if literal_body(tok) is not None else None


def _extends_enumeration(toks: list[str], at: int, new: list[str]) -> bool:
    """``in (204, 304)`` -> ``in (204, 205, 304)``: one more literal, of the kind its neighbours are, between
    commas. A list of values the decision wrote grows in the decision's direction; taking one out (or putting
    back one it took out) is what the other rules read."""
    lits = [t for t in new if t != ","]
    if not lits or len(new) != 2 * len(lits) or new.count(",") != len(lits):
        return False
    kinds = {_literal_kind(t) for t in lits}
    if len(kinds) != 1 or None in kinds:
        return False
    near = toks[max(0, at - ENUM_REACH) : at + ENUM_REACH]
    return "," in near and any(_literal_kind(t) in kinds for t in near)


def _spared_strings(dl: DecisionLine, i1: int, i2: int, new: list[str]) -> dict[int, int]:
    """Strings the decision edited whose replacement leaves the decision's part of them alone (it edited
    ``Max-Age=%d`` into a cookie template; the diff changes ``path=/``): old index -> new index."""
    out: dict[int, int] = {}
    if i2 - i1 != len(new):
        return out
    for k in range(i1, i2):
        body, other = literal_body(dl.tokens[k]), literal_body(new[k - i1])
        if k not in dl.inner or body is None or other is None:
            continue
        own, cuts = dl.inner[k]
        ops = SequenceMatcher(None, fine_tokens(body), fine_tokens(other), autojunk=False).get_opcodes()
        touched = any(
            tag != "equal" and (own & set(range(a1, a2)) or cuts & set(range(a1, a2 + 1))) for tag, a1, a2, _, _ in ops
        )
        if not touched:
            out[k] = k - i1
    return out


def _reshapes(dl: DecisionLine, new: list[str]) -> bool:
    """An insertion that changes what a decision line does rather than extending it: into a condition, or
    bringing a number or a condition of its own (``x[:16]``, ``a or b``). Signatures only grow (a new
    parameter with a default leaves every existing call as it was), and a line the decision only moved
    is not its statement."""
    if not dl.own or not dl.tokens or dl.tokens[0] in DEFINITIONS or dl.tokens[0] == "@":
        return False
    cond = condition_tokens(dl.tokens)
    return dl.condition or any(t[0].isdigit() or t in cond for t in new)


_ANGLES = frozenset({"<", ">"})


def condition_tokens(toks: list[str]) -> frozenset[str]:
    """CONDITION_TOKENS, less ``<``/``>`` on a line where they pair up, each ``<`` right after a name: type
    parameters (``interface AxiosResponse<T = never, D = any>``, ``Promise<R>``), not comparisons."""
    opens = [i for i, t in enumerate(toks) if t == "<"]
    if (
        opens
        and len(opens) == toks.count(">")
        and all(i and (toks[i - 1][0].isalnum() or toks[i - 1][0] in "_$") for i in opens)
    ):
        return CONDITION_TOKENS - _ANGLES
    return CONDITION_TOKENS


def _same_meaning(old: list[str], new: list[str], after: list[str], renames: dict[str, str]) -> bool:
    """A replacement that keeps the meaning: a name the diff renames where it is defined, or another
    qualifier for the same attribute (``hmac.compare_digest`` -> ``secrets.compare_digest``: a drop-in)."""
    if len(old) == len(new) and all(renames.get(a) == b for a, b in zip(old, new, strict=True) if a != b):
        return True
    if _marker_renamed(old, new):
        return True
    return len(old) == len(new) == 1 and after == ["."] and old[0].isidentifier() and new[0].isidentifier()


def _marker_renamed(old: list[str], new: list[str]) -> bool:
    """A private field renamed by its marker only (zod's "Remove usage of private fields": ``#cache`` ->
    ``_cache``): the same name, the same use."""
    a, b = "".join(old), "".join(new)
    return a != b and a.lstrip("#_") == b.lstrip("#_") != "" and a.lstrip("#_").isidentifier()


def _drop_extended(taken: list[str], new: list[str]) -> tuple[list[str], list[str]]:
    """A literal replaced by one that keeps all its tokens in order (a column added to a query, a format
    spec added to a template) is extended, not taken; a message reworded is not taken either: drop both."""
    keep = list(new)
    out = []
    for t in taken:
        body = literal_body(t)
        ext = next(
            (
                n
                for n in keep
                if body is not None
                and literal_body(n) is not None
                and (
                    _subsequence(fine_tokens(body), fine_tokens(literal_body(n) or ""))
                    or _message(body)
                    and _message(literal_body(n) or "")
                )
            ),
            None,
        )
        if ext is None:
            out.append(t)
        else:
            keep.remove(ext)
    return out, keep


def _message(body: str) -> bool:
    """Words for people (two or more, not code): an error message, a log line, a label."""
    return len(body.split()) >= 2 and not code_string(body)


def _subsequence(a: list[str], b: list[str]) -> bool:
    it = iter(b)
    return bool(a) and all(x in it for x in a)


def _pair(rem: list[str], add: list[str]) -> dict[int, int]:
    """Greedy best pairs (add index -> rem index) of lines that are one line edited (see _alike)."""
    scored = []
    rt = [_spelled(r) for r in rem]
    for j, a in enumerate(add):
        at = _spelled(a)
        for i, r in enumerate(rt):
            score = _alike(r, at)
            if score:
                scored.append((-score, j, i))
    out: dict[int, int] = {}
    used: set[int] = set()
    for _, j, i in sorted(scored):
        if j not in out and i not in used:
            out[j] = i
            used.add(i)
    return out


def _spelled(line: str) -> list[str]:
    """Fine tokens with string literals opened up, so two lines that differ inside one string still pair."""
    out: list[str] = []
    for t in fine_tokens(line):
        body = literal_body(t)
        out += [t] if body is None or not body.strip() else ['"', *fine_tokens(body), '"']
    return out


def _alike(a: list[str], b: list[str]) -> float:
    """Similarity of two token lines, or 0: at least PAIR_MIN alike, or the shorter (3+ tokens) nearly all
    kept in order inside the longer (a line wrapped in a call or given another argument)."""
    sm = SequenceMatcher(None, a, b, autojunk=False)
    ratio = sm.ratio()
    if ratio >= PAIR_MIN:
        return ratio
    short = min(len(a), len(b))
    kept = sum(m.size for m in sm.get_matching_blocks())
    return ratio if short >= CONTAINED_MIN_TOKENS and kept >= CONTAINED * short else 0.0


def _norm(line: str) -> str:
    return " ".join(line.split())


PROSE_STOP = frozenset(
    "that this with when from into than then there their they them these those which while where have has had "
    "were been being will would should could must shall does done also only just each every some such other "
    "because about after before over under more most very what whom whose your ours".split()
)


def quote_words(text: str) -> set[str]:
    """Content words of a decision's quote (lower case, 4+ letters, common function words dropped)."""
    return {w for w in re.findall(r"[a-z0-9_'-]+", text.lower()) if len(w) >= 4 and w not in PROSE_STOP}


def decisive_prose(diff: ChangeSet, hunks: list[list[tuple[str, str]]], words: set[str]) -> list[str]:
    """The decision's quote words the diff takes out of prose lines the decision's change wrote."""
    if diff.kind != "prose" or not words:
        return []
    wrote = {_norm(t) for h in hunks for k, t in h if k == "+" and t.strip()}
    out: list[str] = []
    for line in diff.removed_lines:
        if _norm(line) not in wrote:
            continue
        for w in re.findall(r"[A-Za-z0-9_'-]+", line):
            w = w.lower()
            if w in words and diff.removed[w] > 0 and w not in out:
                out.append(w)
    return out


_STATUS = re.compile(r"^\s*(?:[-*]\s*)?(?:\*\*)?status(?:\*\*)?\s*:\s*(?:\*\*)?\s*([A-Za-z]+)", re.I)
STANDING = frozenset({"accepted", "approved", "adopted", "active"})


def status_change(diff: ChangeSet) -> tuple[str, str] | None:
    """(old, new) when a prose diff moves a ``Status:`` line away from accepted (an ADR withdrawn)."""
    if diff.kind != "prose":
        return None
    old = [m.group(1).lower() for m in map(_STATUS.match, diff.removed_lines) if m]
    new = [m.group(1).lower() for m in map(_STATUS.match, diff.added_lines) if m]
    if any(o in STANDING for o in old) and not any(n in STANDING for n in new):
        return old[0], new[0] if new else "removed"
    return None


# Words with a clear opposite; a line that says the opposite of a line the decision wrote negates it.
ANTONYMS: tuple[tuple[str, str], ...] = (
    ("grant", "revoke"),
    ("allow", "deny"),
    ("allow", "disallow"),
    ("allowed", "denied"),
    ("enable", "disable"),
    ("enabled", "disabled"),
    ("true", "false"),
    ("include", "exclude"),
    ("accept", "reject"),
    ("permit", "forbid"),
    ("lock", "unlock"),
    ("encrypt", "decrypt"),
    ("always", "never"),
    ("allowlist", "denylist"),
    ("whitelist", "blacklist"),
    ("public", "private"),
    ("strict", "lax"),
    ("secure", "insecure"),
)
_COMPANIONS = (("to", "from"),)  # swap along with a real opposite (GRANT ... TO / REVOKE ... FROM)
_CANON = {b: a for a, b in ANTONYMS + _COMPANIONS} | {a: a for a, _ in ANTONYMS + _COMPANIONS}
_POLAR = {a for pair in ANTONYMS for a in pair}
NEGATION_MIN = 0.7
SUBJECT_MIN = 0.5


@dataclass
class Negation:
    """A line the diff adds that says the opposite of a line the decision's change wrote."""

    added: str
    decision_line: str
    swapped: list[tuple[str, str]]


def polar_added(diff: ChangeSet) -> list[tuple[str, list[str], list[str]]]:
    """The diff's added lines holding a polar word, with their tokens and canonical tokens: read once per diff
    file, however many decisions are judged against it (a 100-file diff, 40 candidates). Empty for tests and
    prose, which negate nothing."""
    if diff.kind == "prose" or diff.test:
        return []

    def find() -> list[tuple[str, list[str], list[str]]]:
        out = []
        for line in diff.added_lines:
            toks = fine_tokens(line)
            if any(t.lower() in _POLAR for t in toks):
                out.append((line, toks, [_CANON.get(t.lower(), t.lower()) for t in toks]))
        return out

    return cast(list[tuple[str, list[str], list[str]]], diff.once("polar_added", find))


def polar_lines(lines: dict[str, DecisionLine]) -> list[tuple[str, DecisionLine]]:
    """The decision lines holding a polar word (what a negation can say the opposite of)."""
    return [(k, dl) for k, dl in lines.items() if any(t.lower() in _POLAR for t in dl.tokens)]


def negations(diff: ChangeSet, polar: list[tuple[str, DecisionLine]]) -> list[Negation]:
    """Added lines equal (NEGATION_MIN alike) to a decision line (of ``polar_lines``) once one word is swapped
    for its opposite."""
    added = polar_added(diff)
    if not polar or not added:
        return []
    out: list[Negation] = []
    for line, toks, canon in added:
        declares = bool(_DECLARATION.match(line))
        for key, dl in polar:
            if declares and not _DECLARATION.match(key):
                continue  # `let invalid = false;` starts a flag off; it does not say the opposite of `invalid = true;`
            sm = SequenceMatcher(None, [_CANON.get(t.lower(), t.lower()) for t in dl.tokens], canon, autojunk=False)
            if sm.ratio() < NEGATION_MIN:
                continue
            swapped = [
                (dl.tokens[b.a + k], toks[b.b + k])
                for b in sm.get_matching_blocks()
                for k in range(b.size)
                if dl.tokens[b.a + k].lower() != toks[b.b + k].lower()
            ]
            if any(a.lower() in _POLAR for a, _ in swapped) and _same_subject(dl.tokens, toks):
                out.append(Negation(line, key, swapped))
                break
    return out


# a declaration with its first value: JavaScript/TypeScript `let x = …`, `const x: T = …`; Python `x: bool = …`
_DECLARATION = re.compile(
    r"^\s*(?:export\s+)?(?:(?:let|const|var)\s+[\w$]+\s*(?::[^=]+)?=(?!=)|\w+\s*:\s*[\w.\[\], |]+=(?!=))"
)


def _same_subject(decision: list[str], line: list[str]) -> bool:
    """The two lines are about the same things: most of the decision line's names and literals (its polar
    word aside) are in the line too. ``self.a = True`` and ``self.b = False`` are not one statement."""
    names = {t for t in decision if is_specific(t) and _CANON.get(t.lower()) is None}
    return bool(names) and len(names & set(line)) >= SUBJECT_MIN * len(names)


GUARDED_SPAN = 6  # unchanged lines after a guard the decision added that the guard protects
GUARDED_MIN = 2
_MUTATION = re.compile(
    r"^[\w.\[\]\"']+\s*(?:[-+*/%|&]?=)(?!=)|\.(?:append|extend|insert|update|pop|remove|delete|"
    r"add|discard|clear|execute|save|write)\("
)


@dataclass
class UnguardedCopy:
    """Lines a guard the decision added protects, which the diff writes again without that guard."""

    guard: str
    copied: list[str]


def guarded_lines(hunks: list[list[tuple[str, str]]], path: str) -> list[tuple[str, list[str]]]:
    """(guard condition, the unchanged lines right after it) for each condition + exit pair a patch added."""
    kind = file_kind(path)
    if kind == "prose":
        return []
    out: list[tuple[str, list[str]]] = []
    for h in hunks:
        lines = code_lines(h, kind)
        for i in range(len(lines) - 1):
            (k1, cond), (k2, exit_) = lines[i], lines[i + 1]
            if k1 == k2 == "+" and _is_condition(cond) and fine_tokens(exit_)[:1] and fine_tokens(exit_)[0] in EXITS:
                rest = lines[i + 2 :]
                while rest and rest[0][0] == "+":
                    rest = rest[1:]
                kept = [_norm(t) for k, t in rest[:GUARDED_SPAN] if k == " "]
                out.append((_norm(cond), kept))
    return out


def unguarded_copies(diff: ChangeSet, guards: list[tuple[str, list[str]]]) -> list[UnguardedCopy]:
    """Guarded lines the diff adds again (at least GUARDED_MIN, one of them a write) without their guard."""
    if not guards or diff.kind == "prose" or diff.test:
        return []
    added = Counter(_norm(x) for x in diff.added_lines)
    out: list[UnguardedCopy] = []
    for cond, kept in guards:
        if added[cond]:
            continue
        copied = [x for x in kept if added[x] and any(is_specific(t) for t in fine_tokens(x))]
        if len(copied) >= GUARDED_MIN and any(_MUTATION.search(x) for x in copied):
            out.append(UnguardedCopy(cond, copied))
    return out


def _is_condition(line: str) -> bool:
    toks = fine_tokens(line)
    return (
        bool(toks) and toks[0] in ("if", "elif", "unless", "when", "guard") and line.rstrip().endswith((":", "{", ")"))
    )

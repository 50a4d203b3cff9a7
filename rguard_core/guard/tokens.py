"""Code-aware tokens of changed lines: comments, docstrings and renames drop out; what is left is what changed.

Language-agnostic on purpose: a token is an identifier, a number, a string literal or an operator, and
comment syntax is picked by file extension. Weights say how much a token tells about a decision:
a literal or a specific identifier a lot, a keyword or an operator a little, prose strings almost nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_TOKEN = re.compile(
    r"""(?P<str>[rbfuRBFU]{0,2}(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`))"""
    r"""|(?P<num>\b\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?\b)"""
    r"""|(?P<id>[A-Za-z_$][A-Za-z0-9_$]*)"""
    r"""|(?P<op>===|!==|==|!=|<=|>=|:=|&&|\|\||\?\?|[<>!])"""
)
_STRING_OR_HASH = re.compile(r""""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|#""")
_STRING_OR_SLASH = re.compile(r""""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`|//""")
_STRING_OR_DASH = re.compile(r""""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|--""")
# import lines, CommonJS ``var settle = require('./settle')`` too: they follow code changes and file moves
# (axios's "Moving settle & transformData from helpers/ -> core/" rewrote every require of them)
_IMPORT = re.compile(
    r"^\s*(?:import|from\s+[\w.]+\s+import|#\s*include|using|use|require)\b"
    r"|^\s*(?:var|let|const)\s+(?:[\w$]+|\{[^}]*\})\s*=\s*require\(\s*['\"][^'\"]+['\"]\s*\)[\s;,]*$"
)
_TRIPLE = re.compile(r'^[rbuRBU]{0,2}("""|\'\'\')')

HASH_COMMENTS = frozenset(
    ".py .pyi .pyx .rb .sh .bash .zsh .yaml .yml .toml .cfg .ini .conf .pl .pm .r .cmake .mk .tf .ex .exs "
    ".jl .nim .cr .ps1 .coffee .gd".split()
)
SLASH_COMMENTS = frozenset(
    ".js .jsx .mjs .cjs .ts .tsx .java .c .h .cc .cpp .cxx .hpp .cs .go .rs .swift .kt .kts .scala .php "
    ".dart .groovy .gradle .m .mm .proto .zig .v .sol .css .scss .less .json5 .jsonc".split()
)
DASH_COMMENTS = frozenset(".sql .lua .hs .elm .ada .adb".split())
PROSE = frozenset(".md .mdx .markdown .rst .txt .adoc .asciidoc .org .rdoc .textile".split())
PROSE_NAMES = frozenset("readme license licence changelog changes authors contributing notice copying history".split())
HASH_NAMES = frozenset("makefile dockerfile gemfile rakefile procfile justfile .gitignore .dockerignore".split())

# Keywords and operators that carry a condition's meaning: worth a little, never enough alone.
CONDITION_WORDS = frozenset("not and or is in None True False null nil true false undefined NULL nullptr".split())
CONTROL_WORDS = frozenset(
    "if else elif elsif unless then return for while do try except catch finally raise throw with as def fn "
    "func function class struct let var val const pass break continue yield await async "
    "switch import from package public private protected static final".split()
)
NOISE_IDENTS = frozenset("self this cls super f r b u rb br fr rf".split())
MIN_SPECIFIC_IDENT = 3
CODE_STRING_SHARE = 0.4


_TEST_PATH = re.compile(
    r"(?:^|/)(?:tests?|__tests__|spec|specs|testing|testdata|fixtures|testsuite)/|(?:^|/)test_[^/]*$|_tests?\.[A-Za-z]+$"
    r"|\.(?:test|spec)\.[A-Za-z]+$|(?:^|/)[^/]*Tests?\.(?:java|cs|kt|swift|scala)$|(?:^|/)conftest\.py$"
)


# Files around the product that are not it: scratch files a project edits in every commit (zod's play.ts), the
# docs site's and examples' code, benchmarks, CI and tool configuration. Undoing a line there undoes no
# decision about how the software behaves; on real histories they were behind a quarter of the warnings on
# ordinary commits (zod: a playground rewritten, "Make stalebot a bit more chill", "Fix rollup build"; flask's
# MANIFEST.in, which says what a source release ships, read as "exclude" negating "include").
_SUPPORT_PATH = re.compile(
    r"(?:^|/)(?:play|playground|scratch|sandbox)(?:\.[\w]+)?$|(?:^|/)dist/|\.min\.[cm]?js$|\.map$"
    r"|(?:^|/)(?:docs?|documentation|website|examples?|sandbox|playground|bench(?:mark)?s?|\.github|\.circleci|\.husky)/"
    r"|(?:^|/)(?:[\w.-]+\.config\.[cm]?[jt]s|karma\.conf\.js|[Gg]runtfile\.js|[Gg]ulpfile\.js|tsconfig[\w.-]*\.json"
    r"|\.eslintrc[\w.]*|\.prettierrc[\w.]*|\.travis\.yml|\.?azure-pipelines\.ya?ml|tox\.ini|noxfile\.py"
    r"|\.pre-commit-config\.ya?ml|\.stale\.ya?ml|stale\.ya?ml|\.gitignore|\.npmignore|\.gitattributes|\.editorconfig"
    r"|package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|pnpm-workspace\.yaml|bun\.lockb?"
    r"|poetry\.lock|uv\.lock|pdm\.lock|Pipfile\.lock|Cargo\.lock|go\.sum|Gemfile\.lock|requirements[\w.-]*\.(?:txt|in)"
    r"|constraints[\w.-]*\.txt|[\w.-]+\.workspace\.[cm]?[jt]s|MANIFEST\.in"
    # toolchain pins: which Node or Python a contributor's shell picks (zod's .nvmrc 22 -> 24)
    r"|\.nvmrc|\.node-version|\.python-version|\.ruby-version|\.tool-versions)$"
    r"|(?:^|/)requirements/[^/]+\.(?:txt|in)$"
    # build scripts at the repository's root (zod's deno-build.mjs lists the tests a Deno build skips)
    r"|^[\w.-]*build[\w.-]*\.[cm]?[jt]s$"
    # coverage reports and badges a CI job regenerates (zod's coverage.svg changes with every test run)
    r"|(?:^|/)(?:coverage|badges?)[\w.-]*\.(?:svg|json|xml|lcov)$|(?:^|/)(?:coverage|badges)/"
)


# A compiler's or bundler's output checked in (tsc's ``exports.__esModule``, its ``__extends`` helper, babel's
# interop helper, webpack's banner): its lines restate source kept elsewhere, so it is not the product either.
# zod's "Added files" committed tsc's output beside the .ts it came from; "Removed js" took it out again.
_EMITTED_SUFFIXES = (".js", ".cjs", ".mjs")
_EMITTED = re.compile(
    r"exports\.__esModule\s*=|Object\.defineProperty\(exports,\s*[\"']__esModule"
    r"|\(this && this\.__(?:extends|awaiter|generator|importDefault|importStar|assign|decorate|rest)\)"
    r"|^//# sourceMappingURL=|function _interopRequireDefault\(obj\)|^/\*{6}/"
)
EMITTED_SCAN_LINES = 60  # the helpers open a file: the first lines of each hunk are enough


def is_emitted(path: str, hunks: list[list[tuple[str, str]]]) -> bool:
    """A JavaScript file whose lines (any hunk's first ones) carry a compiler's or bundler's marks."""
    if not path.endswith(_EMITTED_SUFFIXES):
        return False
    return any(_EMITTED.search(x.strip()) for h in hunks for _, x in h[:EMITTED_SCAN_LINES])


def is_test_path(path: str) -> bool:
    """Tests mirror the code they check, and support files (``_SUPPORT_PATH``) are not the product: their overlap
    supports ``related`` but never a contradiction alone."""
    return bool(_TEST_PATH.search(path) or _SUPPORT_PATH.search(path))


def file_kind(path: str) -> str:
    """``prose``, ``hash``, ``slash``, ``dash`` (comment syntax) or ``code`` (no known comment syntax)."""
    name = path.rsplit("/", 1)[-1].lower()
    ext = "." + name.rsplit(".", 1)[-1] if "." in name else ""
    stem = name.split(".", 1)[0]
    if ext in PROSE or (not ext and stem in PROSE_NAMES) or stem in PROSE_NAMES and ext in ("", ".txt"):
        return "prose"
    if ext in HASH_COMMENTS or name in HASH_NAMES:
        return "hash"
    if ext in SLASH_COMMENTS:
        return "slash"
    if ext in DASH_COMMENTS:
        return "dash"
    return "code"


def strip_comment(line: str, kind: str) -> str:
    """The code part of one line (trailing comment removed), or '' for a comment-only line."""
    s = line.strip()
    if not s:
        return ""
    if kind == "slash" and s.startswith(("/*", "*", "*/")):
        return ""
    pattern = {"hash": _STRING_OR_HASH, "slash": _STRING_OR_SLASH, "dash": _STRING_OR_DASH}.get(kind)
    if pattern is None:
        return s
    for m in pattern.finditer(s):
        if m.group(0) in ("#", "//", "--"):
            return s[: m.start()].rstrip()
    return s


def code_lines(lines: list[tuple[str, str]], kind: str) -> list[tuple[str, str]]:
    """(kind, code) for every hunk line that is code, tracking docstrings over context lines too."""
    out: list[tuple[str, str]] = []
    in_doc: str | None = None
    seen_triple = False
    prev = ""
    for k, text in lines:
        s = text.strip()
        if in_doc is not None:
            if in_doc in s:
                in_doc = None
            continue
        if kind in ("hash", "code"):
            m = _TRIPLE.match(s)
            if m:
                q = m.group(1)
                if not seen_triple and s == q and prev and not prev.endswith((":", "=", "(", ",")):
                    # a hunk that starts inside a docstring: this bare delimiter closes it, so what came
                    # before was documentation and what follows is code
                    out.clear()
                elif s.count(q) % 2 == 1:
                    in_doc = q
                seen_triple = True
                continue  # a docstring line (opening, closing or one-line) is documentation
        code = strip_comment(text, kind)
        if s:
            prev = s
        if code:
            out.append((k, code))
    return out


def tokens(code: str) -> list[str]:
    return [m.group(0) for m in _TOKEN.finditer(code)]


_LITERAL = re.compile(r"""^[rbfuRBFU]{0,2}(["'`])(.*)\1$""", re.S)


def literal_body(tok: str) -> str | None:
    """The text inside a string literal token (prefix and quotes removed); None for any other token."""
    m = _LITERAL.match(tok)
    return m.group(2) if m else None


def bare(tok: str) -> str:
    """A token as prose would name it: a literal's text, anything else as is."""
    body = literal_body(tok)
    return tok if body is None else body


def weight(tok: str) -> float:
    """How much one token says about intent (see the module doc)."""
    c = tok[0]
    body = literal_body(tok)
    if body is not None:
        if not body:
            return 0.8
        if len(body.split()) >= 2 and not code_string(body):
            return 0.2  # a message or prose, not data
        return 1.5
    if c.isdigit():
        return 1.0 if tok in ("0", "1") else 1.5
    if c.isalpha() or c in "_$":
        if tok in NOISE_IDENTS:
            return 0.0
        if tok in CONDITION_WORDS:
            return 0.6
        if tok in CONTROL_WORDS:
            return 0.4
        return 1.0 if len(tok) >= MIN_SPECIFIC_IDENT else 0.3
    return 0.5  # comparison / logical operator


_PROSE_WORD = re.compile(r"^[(\"']?[A-Za-z][a-z]*(?:'[a-z]+)?[.,;:!?)\"']*$")


def code_string(body: str) -> bool:
    """A multi-word string that is code, not a message: at least CODE_STRING_SHARE of its words are not
    plain words (SQL keywords in capitals, operators, placeholders, snake_case names)."""
    words = body.split()
    plain = sum(1 for w in words if _PROSE_WORD.match(w) and not (w.isupper() and len(w) > 1))
    return (len(words) - plain) >= CODE_STRING_SHARE * len(words)


def is_specific(tok: str) -> bool:
    """A literal or a non-keyword identifier: something a decision can be about."""
    return weight(tok) >= 1.0


def is_identifier(tok: str) -> bool:
    return (tok[0].isalpha() or tok[0] == "_") and weight(tok) >= 1.0 and not any(q in tok for q in "\"'`")


@dataclass
class ChangeSet:
    """Net token changes of one file's hunks: what the change took out and what it put in."""

    kind: str
    test: bool = False
    removed: Counter[str] = field(default_factory=Counter)
    added: Counter[str] = field(default_factory=Counter)
    removed_lines: list[str] = field(default_factory=list)  # code lines taken out (not moved, not renamed)
    added_lines: list[str] = field(default_factory=list)
    renames: dict[str, str] = field(default_factory=dict)
    changed_idents: Counter[str] = field(default_factory=Counter)  # identifiers on any changed code line
    blocks: list[tuple[list[str], list[str]]] = field(default_factory=list)  # (removed, added) runs, renames dropped
    import_w: float = 0.0  # weight of the net change that sits on import lines
    moved_w: float = 0.0  # weight of code moved to or from another file of the diff (out of removed/added)
    deleted: bool = False  # the diff deletes the whole file (set for a diff's files, diff_change_sets)
    context: Counter[str] = field(default_factory=Counter)  # tokens on the unchanged code lines shown around
    hunks: list[list[tuple[str, str]]] = field(default_factory=list)  # the hunks as given, (kind, text) lines
    # work the judge's rules derive from this diff once per run, not once per candidate decision
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def once(self, key: str, fn: Callable[[], Any]) -> Any:
        if key not in self.memo:
            self.memo[key] = fn()
        return self.memo[key]

    @property
    def code_w(self) -> float:
        """Weight of the net change without import lines (they follow code changes, they carry no intent).
        Read once the change set is final (the judge's run: diff_change_sets has applied renames by then)."""
        return float(
            self.once(
                "code_w",
                lambda: (
                    max(0.0, self.weight_of(self.removed) + self.weight_of(self.added) - self.import_w) + self.moved_w
                ),
            )
        )

    @property
    def added_tokens(self) -> frozenset[str]:
        """Every token on the lines the diff adds to this file (presence, not net count): a decision token
        the diff takes off one line and writes on another (into a helper, a property, a constant) is moved."""
        return frozenset(self.once("added_tokens", lambda: {t for x in self.added_lines for t in tokens(x)}))

    @property
    def removed_tokens(self) -> frozenset[str]:
        """Every token on the lines the diff takes out of this file (presence, not net count)."""
        return frozenset(self.once("removed_tokens", lambda: {t for x in self.removed_lines for t in tokens(x)}))

    @property
    def new_locals(self) -> frozenset[str]:
        """Names the diff binds on its added lines that none of its removed lines bound (a local it introduces,
        ``resolve = os.path.abspath if ... else os.path.realpath``): a new name, whatever older code called so."""

        def find() -> set[str]:
            before = {m for x in self.removed_lines for m in _declared(x)}
            return {m for x in self.added_lines for m in _declared(x)} - before

        return frozenset(self.once("new_locals", find))

    @property
    def defined(self) -> frozenset[str]:
        """Functions, methods and classes the diff defines in this file (a helper it extracts)."""
        return frozenset(self.once("defined", lambda: {m for x in self.added_lines for m in _DEFINES.findall(x)}))

    def weight_of(self, which: Counter[str]) -> float:
        return sum(weight(t) * n for t, n in which.items())

    @property
    def change_w(self) -> float:
        """Weight of the whole net change, imports included (the token overlap's denominator), once per run."""
        return float(self.once("change_w", lambda: self.weight_of(self.removed) + self.weight_of(self.added)))

    @property
    def empty(self) -> bool:
        return not self.removed and not self.added


def change_set(hunks: list[list[tuple[str, str]]], path: str) -> ChangeSet:
    """Build the ChangeSet of one file from its hunks' (kind, text) lines."""
    kind = file_kind(path)
    cs = ChangeSet(kind, is_test_path(path) or is_emitted(path, hunks), hunks=hunks)
    rem: list[str] = []
    add: list[str] = []
    coded = [lines if kind == "prose" else code_lines(lines, kind) for lines in hunks]
    blocks = [b for lines in coded for b in _blocks(lines)]
    cs.context = Counter(t for lines in coded for k, x in lines if k == " " for t in _toks(x, kind))
    declared = {m for r, _ in blocks for x in r for m in _declared(x)} if kind != "prose" else set()
    for block_rem, block_add in blocks:
        block_rem, block_add = _drop_renames(block_rem, block_add, declared, cs.renames)
        if block_rem or block_add:
            cs.blocks.append((block_rem, block_add))
        rem += block_rem
        add += block_add
    norm_add = Counter(_norm(x) for x in add)
    norm_rem = Counter(_norm(x) for x in rem)
    cs.removed_lines = [x for x in rem if not _take(norm_add, _norm(x))]
    cs.added_lines = [x for x in add if not _take(norm_rem, _norm(x))]
    r = Counter(t for x in cs.removed_lines for t in _toks(x, kind))
    a = Counter(t for x in cs.added_lines for t in _toks(x, kind))
    cs.removed, cs.added = r - a, a - r
    ir = Counter(t for x in cs.removed_lines if _IMPORT.match(x) for t in _toks(x, kind))
    ia = Counter(t for x in cs.added_lines if _IMPORT.match(x) for t in _toks(x, kind))
    cs.import_w = cs.weight_of(ir & cs.removed) + cs.weight_of(ia & cs.added)
    for x in rem + add:
        cs.changed_idents.update(t for t in _toks(x, kind) if is_identifier(t))
    return cs


def _toks(line: str, kind: str) -> list[str]:
    if kind == "prose":
        return [w.lower() for w in re.findall(r"[A-Za-z0-9_'-]+", line)]
    return tokens(line)


def _take(counter: Counter[str], key: str) -> bool:
    if counter[key] > 0:
        counter[key] -= 1
        return True
    return False


def _norm(line: str) -> str:
    return " ".join(line.split())


def _blocks(lines: list[tuple[str, str]]) -> list[tuple[list[str], list[str]]]:
    """Maximal runs of changed lines, split into what they removed and what they added."""
    out: list[tuple[list[str], list[str]]] = []
    rem: list[str] = []
    add: list[str] = []
    for k, text in lines:
        if k == "-":
            rem.append(text)
        elif k == "+":
            add.append(text)
        elif rem or add:
            out.append((rem, add))
            rem, add = [], []
    if rem or add:
        out.append((rem, add))
    return out


_DEFINES = re.compile(r"\b(?:def|fn|func|function|class)\s+([A-Za-z_$][\w$]*)")
_DECL = re.compile(
    r"^\s*(?:(?:let|var|const|val|auto|final|my|local)\s+)?([A-Za-z_]\w*)\s*(?::\s*[^=]+)?(?::=|=(?!=))"
    r"|\b(?:def|fn|func|function|class)\s+([A-Za-z_]\w*)"
)


# an attribute of the object itself bound on the line (``self.started = False``): renaming it where it is
# bound and everywhere it is read is a rename, as for a local name
_SELF_ATTR = re.compile(r"^\s*(?:self|this)\.([A-Za-z_]\w*)\s*(?::\s*[^=]+)?=(?!=)")


def _declared(line: str) -> list[str]:
    """Names a line binds locally (assignment targets, own attributes, function and class names)."""
    return [a or b for a, b in _DECL.findall(line)] + _SELF_ATTR.findall(line)


def _drop_renames(
    rem: list[str], add: list[str], declared: set[str], renames: dict[str, str]
) -> tuple[list[str], list[str]]:
    """Drop line pairs that differ only by renaming a locally declared name (a -> b everywhere).

    Swapping a called function or an attribute (``.match`` for ``.fullmatch``) is not a rename:
    the old name must be bound in the removed code and never be used after a dot (but ``self.``/``this.``).
    """
    if not rem or len(rem) != len(add):
        return rem, add
    mapping: dict[str, str] = {}
    for r, a in zip(rem, add, strict=True):
        tr, ta = tokens(r), tokens(a)
        if len(tr) != len(ta):
            return rem, add
        for x, y in zip(tr, ta, strict=True):
            if x == y:
                continue
            if not (is_identifier(x) and is_identifier(y)) or mapping.setdefault(x, y) != y:
                return rem, add
    if not mapping or len(set(mapping.values())) != len(mapping) or not set(mapping) <= declared:
        return rem, add
    if any(re.search(r"(?<!\bself)(?<!\bthis)\.\s*" + re.escape(old) + r"\b", r) for old in mapping for r in rem):
        return rem, add
    renames.update(mapping)
    return [], []

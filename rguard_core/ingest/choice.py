"""Decision-worthiness: does a PR's or commit's text state a choice? Each rule has an id and its constants beside it.

A change whose text states no choice — a terse or tidy-up commit, a merge with nothing of its own, a change of
tests, docs or CI only — is still ingested whole (its text, files, hunks, Action and Decision node, so a revert of
it is found, and `why`/who-to-ask can explain history), but its Decision is stored with ``stated = false`` and the
rule that said so (``stated_rule``). The guard then warns on it only for a revert of most of it (REV1, or
REV2/REV3 over enough of its change: a revert is its own evidence); overlap and paraphrase rules alone are at most
``related`` (guard rule S7). A stated choice known by its title alone (``explained = false``) needs its words to
name what overlap finds (S8). Version and dependency bumps, formatting, bots and the like never become a Decision
at all (mechanical.py, M1–M8).

  Q1  a merge with no text of its own ("Merge branch 'x'", "Merged in changes from y")
  Q2  a tidy-up: a refactor, move, rename, clean-up, style, docs, tests, examples or tooling change — by its
      conventional-commit type (refactor:, docs:, test:, chore:, ci:, build:, style:) or its title's first words
  Q3  terse: fewer than ``TERSE_WORDS`` words of its own in the title (issue refs, svn-era prefixes and PR numbers
      aside) and no body that says more ("Truckin' on", "Fix #452", "[svn r45547] remove global")
  Q4  only tests, docs, examples, changelogs or CI changed (a decision record — ``adr/``, ``decisions/``,
      ``rfcs/`` — is not "docs" here)
  Q5  package metadata only: keywords, description, author, homepage, repository or files fields of a manifest

Known misses (guard/fixtures/Q*.yaml): a two-word title that does name a behaviour ("Strict origins") reads as
terse; a "refactor:" that in fact changes behaviour is quiet; a body of squashed branch commits
("* wip * fix") is read as a body when its lines carry enough words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .model import FileChange

RULES: dict[str, str] = {
    "Q1": "a merge with no text of its own",
    "Q2": "a tidy-up (refactor, move, rename, clean-up, style, docs, tests, tooling)",
    "Q3": "terse: too few words to state what was chosen",
    "Q4": "only tests, docs, examples, changelogs or CI changed",
    "Q5": "package metadata only",
}

TERSE_WORDS = 3  # words of the title's own (refs and prefixes aside) below which a bare title states nothing
BODY_WORDS = 8  # a body line of its own with at least this many words says more than the title

Q1_MERGE = re.compile(
    r"^\s*(?:merge(?:d)?\s+(?:(?:remote[- ]tracking\s+)?branch(?:es)?\b|(?:in\s+)?changes\b|tag\b|"
    r"pull\s+request\b|(?:\S+\s+)?into\b|from\b|master\b|main\b|['\"]|\S+/\S+)|merging\b)",
    re.I,
)
Q2_TYPES = frozenset(
    "refactor refactors refactoring style chore chores docs doc documentation test tests testing build ci "
    "release tooling lint format types typo wip cleanup".split()
)
Q2_CONVENTIONAL = re.compile(r"^\s*(?P<type>[A-Za-z]+)(?:\([^)]*\))?!?\s*:\s*")
Q2_LEAD = re.compile(
    r"^\s*(?:refactor\w*|clean(?:ed|s|ing)?[- ]?up\b|cleanups?\b|tid(?:y|ied|ies|ying)\b|mov(?:e|ed|es|ing)\b|"
    r"renam(?:e|ed|es|ing)\b|reorgani[sz]\w*|restructur\w*|reformat\w*|re-?indent\w*|reorder(?:ed|ing)?\s+imports|"
    r"(?:re)?format(?:ted|ting)?\b|lint(?:ing)?\b|cosmetic\w*|whitespace\b|typos?\b|wip\b|minor\b|misc\b|"
    r"polish\w*|tweaks?\b|docs?\b|documentation\b|document(?:ed|ing|s)?\b|comments?\b|"
    r"(?:add(?:ed|s|ing)?|updat(?:e|ed|es|ing)|improv(?:e|ed|es|ing)|fix(?:ed|es|ing)?|expand(?:ed)?|more|"
    r"new|better|clarif(?:y|ied|ies)|correct(?:ed)?|rewr(?:ite|ote)|split|simplif(?:y|ied))\s+(?:the\s+|a\s+|an\s+|"
    r"some\s+|more\s+|missing\s+|failing\s+|broken\s+|flaky\s+)?(?:unit\s+|integration\s+|type\s+)?"
    r"(?:tests?|testsuite|test\s+suite|test\s+coverage|coverage|docs?|documentation|docstrings?|comments?|"
    r"examples?|readme|changelog|changes\.\w+|typos?|spelling|links?|badges?|screenshots?|tutorial|"
    r"ci|travis|workflows?|build\s+script|makefile|gitignore|editorconfig|lint(?:ing|er)?|formatting|"
    r"imports?|benchmarks?|playground)\b|"
    r"test(?:s|ing)?\s+(?:for|of|that|with)\b|tests?\s*$|bump\b|releas\w*\b|"
    r"remov(?:e|ed|es|ing)\s+(?:an?\s+|the\s+|some\s+)?(?:unused|unnecessary|useless|dead|redundant|obsolete|old|stale|"
    r"leftover|duplicated?|debug(?:ging)?|commented)\b|(?:more\s+)?work(?:ed|ing)?\s+on\b|tried\b|trying\b|"
    r"start(?:ed|ing)?\s+(?:version\s+|v)?\d|head\s+is\b|this\s+is\s+v?\d|back\s+to\s+dev|rm\b|"
    r"fix(?:ed|es|ing)?\s+(?:\w+\s+)?(?:tests?|build(?:\s+process)?|merge\s+conflicts?|issues\s+created\s+when\s+merging)\b|"
    r"(?:set(?:ting)?\s+up|hook(?:ing|ed)?\s+(?:things\s+)?up)\b)",
    re.I,
)
# a title about the project's tooling, wherever the word stands ("Fix SauceLabs config", "Using more strict eslint
# rules"): a choice about how the code is checked, not how it behaves
Q2_TOOLING = re.compile(
    r"\b(?:sauce\s?labs|travis|appveyor|azure\s+pipelines|circle\s?ci|github\s+actions|eslint|prettier|tslint|"
    r"karma|jest\s+config|coveralls|codecov|tox|pre-commit|mypy|flake8|pylint|black|ruff|isort|dependabot|renovate|"
    r"gitignore|npmignore|husky|lint-staged|commitlint|sphinx|readthedocs)\b",
    re.I,
)
# a two-word title can still name a choice when its verb is one ("Deprecate before_first_request", "Drop ts4.1")
Q3_CHOICE_VERB = re.compile(
    r"^\s*(?:deprecat\w*|drop(?:s|ped|ping)?|disallow\w*|forbid\w*|requir\w*|reject\w*|allow\w*|disabl\w*|"
    r"enabl\w*|lazy|lazily|always|never|don'?t|do\s+not|stop\w*|prefer\w*|default\w*|restrict\w*|"
    r"escap\w*|sanitiz\w*|validat\w*)\b",
    re.I,
)
Q3_PREFIX = re.compile(r"^\s*(?:\[svn\s+r\d+\]|svn\s+r\d+:?|git-svn-id:\S*)\s*", re.I)
Q3_REF = re.compile(
    r"(?:\(#\d+\)|\b(?:(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?|refs?|see|for|issue|gh)\s*:?\s*)?(?:#|gh-)\d+\b|"
    r"\b(?:issue|pr|bug)\s+\d+\b)",
    re.I,
)
Q3_WORD = re.compile(r"[A-Za-z_][\w.'`/-]*")
Q3_TRAILERS = re.compile(
    r"^\s*(?:co-authored-by|signed-off-by|reviewed-by|acked-by|cc|change-id|git-svn-id|closes|fixes|resolves|"
    r"refs?|see)\b.*$|^\s*-{3,}\s*$|^\s*\*\s*(?:wip|fix|fixes|update|updates|cleanup|clean up|lint|tests?|"
    r"typo|format|fixlint|tweak|tweak test|merge\b.*|address review.*|review|pr feedback|apply suggestions.*)\s*$",
    re.I | re.M,
)
Q4_TEST = re.compile(
    r"(?:^|/)(?:tests?|__tests__|spec|specs|testing|fixtures)/|(?:^|/)(?:test_[^/]*|[^/]*_test\.\w+|"
    r"[^/]*\.(?:test|spec)\.\w+|conftest\.py)$",
    re.I,
)
Q4_DOC = re.compile(
    r"(?:^|/)(?:docs?|documentation|examples?|sandbox|playground|website|site)/|"
    r"\.(?:md|mdx|rst|txt|markdown|adoc)$|(?:^|/)(?:changelog|changes|history|news|authors|"
    r"contributors|license|copying|readme)[\w.-]*$",
    re.I,
)
Q4_CI = re.compile(
    r"^(?:\.github/|\.circleci/|\.gitlab-ci|\.travis\.yml|azure-pipelines|\.buildkite/|Jenkinsfile|"
    r"\.pre-commit-config\.ya?ml|renovate\.json|codecov\.ya?ml|\.codecov\.ya?ml|tox\.ini|noxfile\.py|"
    r"\.editorconfig|\.gitignore|\.gitattributes|\.eslintrc[\w.]*|\.prettierrc[\w.]*|"
    r"\.npmignore|Makefile|\.azure-pipelines|azure-pipelines|karma\.conf|\.?jest\.config|tsconfig[\w.-]*\.json$|"
    r"\.nycrc|\.babelrc|Gruntfile|Gulpfile)",
    re.I,
)
Q4_RECORD = re.compile(r"(?:^|/)(?:adrs?|decisions?|rfcs?|architecture)/|(?:^|/)\d{3,4}-[\w-]+\.md$", re.I)
Q5_MANIFESTS = frozenset({"package.json", "bower.json", "composer.json", "setup.cfg", "pyproject.toml", "setup.py"})
Q5_LINE = re.compile(
    r"""^\s*["']?(?:keywords|description|author|authors|maintainers?|contributors|homepage|repository|url|bugs|"""
    r"""license|classifiers|funding|project_urls|long_description\w*|readme)["']?\s*[:=]""",
    re.I,
)


@dataclass(frozen=True)
class Worthiness:
    """Whether a change's text states a choice; when not, the rule id (``RULES``) and its words."""

    stated: bool
    rule: str | None = None
    why: str = ""
    explained: bool = True  # the text says more than its title (a body line or review of its own)


STATED = Worthiness(True)


def states_choice(title: str, body: str, files: Sequence[FileChange] = (), extra: Sequence[str] = ()) -> Worthiness:
    """Read a PR's or commit's title and body (``extra``: its review comments) for a stated choice."""
    raw_title = (title or "").strip()
    explained = _own_words(body, extra)
    if Q1_MERGE.match(raw_title) and not explained:
        return Worthiness(False, "Q1", RULES["Q1"], False)
    head = Q3_PREFIX.sub("", raw_title)
    m = Q2_CONVENTIONAL.match(head)
    if m and m["type"].lower() in Q2_TYPES:
        return Worthiness(False, "Q2", f"{RULES['Q2']}: a {m['type'].lower()}: change", explained)
    rest = head[m.end() :] if m else head
    if Q2_LEAD.match(rest) or Q2_TOOLING.search(rest):
        return Worthiness(False, "Q2", f"{RULES['Q2']}: {rest[:60]!r}", explained)
    paths = [f.path for f in files if f.path]
    if paths and all(_non_product(p) for p in paths):
        return Worthiness(False, "Q4", RULES["Q4"], explained)
    if paths and _metadata_only(files):
        return Worthiness(False, "Q5", RULES["Q5"], explained)
    words = _words(Q3_REF.sub(" ", rest))
    terse = len(words) < TERSE_WORDS and not (len(words) == TERSE_WORDS - 1 and Q3_CHOICE_VERB.match(rest))
    if terse and not explained:
        return Worthiness(False, "Q3", f"{RULES['Q3']}: {raw_title[:60]!r}", explained)
    return STATED if explained else Worthiness(True, explained=False)


def _words(text: str) -> list[str]:
    return Q3_WORD.findall(text)


def _own_words(body: str, extra: Sequence[str]) -> bool:
    """A body line (or a review comment) of its own that says something: trailers, separators and the one-word
    lines of squashed branch commits aside."""
    for text in (body or "", *extra):
        for line in Q3_TRAILERS.sub("", text).splitlines():
            if len(_words(Q3_REF.sub(" ", line))) >= BODY_WORDS:
                return True
    return False


def _non_product(path: str) -> bool:
    if Q4_RECORD.search(path):
        return False
    return bool(Q4_TEST.search(path) or Q4_DOC.search(path) or Q4_CI.search(path))


def _metadata_only(files: Sequence[FileChange]) -> bool:
    if not all(f.path.rsplit("/", 1)[-1].lower() in Q5_MANIFESTS for f in files):
        return False
    changed = [
        line[1:]
        for f in files
        for line in (f.patch or "").splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---")) and line[1:].strip()
    ]
    if not changed:
        return False
    # lines inside a list the field opened ("keywords": [ "a", "b" ]) are bare strings, brackets or commas
    return all(Q5_LINE.match(x) or re.fullmatch(r"""\s*(?:["'][^"']*["'],?|[\[\](){},]+)\s*""", x) for x in changed)

"""Mechanical changes are sources, not decisions: each rule has an ID and its constants beside it.

A PR or commit one of these rules matches is kept (its text, files and links are in the graph, so a why
answer or the guard's experts can still use it) but no Decision is extracted from it, so the guard never
warns that a later change "contradicts" a version bump.

  M1  version bump or release: a release/version title, or every changed line sets a version
  M2  dependency bump: "Bump x from a to b", chore(deps)/build(deps), pre-commit autoupdate, or only
      requirement files changed
  M3  typo, spelling or wording fix: such a title on a docs-only or tiny change; README/CHANGELOG/copyright chores
  M4  formatting only: a formatter/lint title, or every changed line is the same text with other whitespace
  M5  lockfiles only
  M6  CI configuration only (workflows, CI files, pre-commit and bot configuration)
  M7  written by a bot (dependabot, renovate, pre-commit-ci, ...)
  M8  a revert of a mechanical change (decided by the revert resolution in build.py)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from .model import Commit, FileChange, Person, PullRequest

RULES: dict[str, str] = {
    "M1": "version bump or release",
    "M2": "dependency bump",
    "M3": "typo, spelling or wording fix",
    "M4": "formatting only",
    "M5": "lockfiles only",
    "M6": "CI configuration only",
    "M7": "bot author",
    "M8": "revert of a mechanical change",
}

_REVERT_WRAP = r"^\s*(?:revert\s+\"\s*)?"
M1_TITLE = re.compile(
    _REVERT_WRAP + r"(?:release\b|releasing\b|version\s+v?\d|v?\d+\.\d+(?:\.\d+)?\S*\s*\"?\s*$|"
    r"bump\s+(?:the\s+)?(?:package\s+)?version|prepare\s+(?:for\s+)?(?:release|v?\d)|"
    r"(?:chore|build)(?:\([^)]*\))?:\s*release|"
    # axios's "chore: v1.2.0 pre-release": a version, then only the word for what kind of release it is
    r"v?\d+\.\d+(?:\.\d+)?\S*\s+(?:pre-?release|release\s+candidate|rc|beta|alpha)\s*$|"
    r"(?:chore|build)(?:\([^)]*\))?:\s*v?\d+\.\d+\S*\s*$)",
    re.I,
)
M1_LINE = re.compile(
    r"""^\s*(?:(?:export\s+)?(?:const|let|var)\s+VERSION\s*=|(?:__version__|version|"version"|'version')\s*[:=])"""
    r"""\s*["']?v?\d+(?:\.\d+)+""",
    re.I,
)
M2_TITLE = re.compile(
    _REVERT_WRAP
    + r"(?:(?:chore|build|fix)\(deps(?:-dev)?\)|bump\b|updat(?:e|es|ed|ing)\s+(?:the\s+|all\s+)?(?:dev\s*)?dependenc|"
    r"upgrad(?:e|es|ed|ing)\s+(?:the\s+|all\s+)?(?:dev\s*)?dependenc|\[?pre-commit(?:\.ci)?\]?|pin\s+\S+\s+(?:to|at)\s|"
    r"update\s+\S+\s+requirement\s+from\s)",
    re.I,
)
M2_FILES = re.compile(r"(?:^|/)(?:requirements[\w.-]*\.(?:txt|in)|constraints[\w.-]*\.txt)$", re.I)
M3_TITLE = re.compile(r"\b(?:typos?|spelling|misspell\w*|grammar|wording|rephrase|reword)\b", re.I)
M3_CHORE = re.compile(_REVERT_WRAP + r"update\s+(?:the\s+)?(?:readme|changelog|copyright|authors|license\s+year)", re.I)
M3_MAX_LINES = 10  # a "typo" title on a change bigger than this changes more than spelling
M4_TITLE = re.compile(
    r"^\s*(?:style(?:\([^)]*\))?:|(?:re)?format\b|run\s+(?:black|ruff\s+format|prettier|isort|gofmt)|"
    r"apply\s+(?:black|prettier|ruff|isort)|lint\b|fix\s+(?:lint|linting|formatting)\b)",
    re.I,
)
M5_LOCKFILES = frozenset(
    {
        "poetry.lock",
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "uv.lock",
        "pipfile.lock",
        "cargo.lock",
        "go.sum",
        "composer.lock",
        "gemfile.lock",
        "pdm.lock",
        "bun.lockb",
    }
)
M6_CI = re.compile(
    r"^(?:\.github/(?:workflows|actions|ISSUE_TEMPLATE)/|\.github/(?:dependabot|renovate|FUNDING|CODEOWNERS)|"
    r"\.circleci/|\.gitlab-ci|\.travis\.yml|azure-pipelines|\.buildkite/|Jenkinsfile|"
    r"\.pre-commit-config\.ya?ml|renovate\.json|\.mergify|codecov\.ya?ml|\.codecov\.ya?ml)",
    re.I,
)
DOC_SUFFIXES = (".md", ".rst", ".txt", ".markdown", ".adoc")
CHANGELOG = re.compile(r"(?:^|/)(?:changelog|changes|history|news|release[-_]?notes)[\w.-]*$", re.I)


def mechanical_rule(title: str, files: Sequence[FileChange], bot: bool = False) -> str | None:
    """The first rule a change matches (its id), or None when it may carry a decision."""
    paths = [f.path for f in files if f.path]
    if bot:
        return "M7"
    if M1_TITLE.search(title or "") or _only_versions(files):
        return "M1"
    if M2_TITLE.search(title or "") or (
        paths and all(M2_FILES.search(p) or _lockfile(p) for p in paths) and not all(_lockfile(p) for p in paths)
    ):
        return "M2"
    if paths and all(_lockfile(p) for p in paths):
        return "M5"
    if M3_CHORE.search(title or "") or (
        M3_TITLE.search(title or "")
        and (all(p.lower().endswith(DOC_SUFFIXES) for p in paths) or _changed_lines(files) <= M3_MAX_LINES)
    ):
        return "M3"
    if M4_TITLE.search(title or "") or _whitespace_only(files):
        return "M4"
    if paths and all(M6_CI.search(p) for p in paths):
        return "M6"
    return None


def pull_rule(pr: PullRequest, people: dict[str, Person]) -> str | None:
    bot = bool(pr.author and (pr.author.endswith("[bot]") or (pr.author in people and people[pr.author].is_bot)))
    return mechanical_rule(pr.title, pr.files, bot)


def commit_rule(c: Commit, people: dict[str, Person]) -> str | None:
    bot = bool(c.author and (c.author.endswith("[bot]") or (c.author in people and people[c.author].is_bot)))
    return mechanical_rule(c.message.split("\n", 1)[0], c.files, bot)


def _lockfile(path: str) -> bool:
    return path.rsplit("/", 1)[-1].lower() in M5_LOCKFILES


def _lines(files: Sequence[FileChange]) -> tuple[list[str], list[str]]:
    removed, added = [], []
    for f in files:
        for line in (f.patch or "").splitlines():
            if line.startswith("-") and not line.startswith("---"):
                removed.append(line[1:])
            elif line.startswith("+") and not line.startswith("+++"):
                added.append(line[1:])
    return removed, added


def _changed_lines(files: Sequence[FileChange]) -> int:
    removed, added = _lines(files)
    return max(len(removed), len(added))


def _only_versions(files: Sequence[FileChange]) -> bool:
    """Every changed line outside changelogs sets a version (and there is at least one)."""
    code = [f for f in files if not CHANGELOG.search(f.path)]
    if not code or any(not f.patch for f in code):
        return False
    removed, added = _lines(code)
    changed = [x for x in removed + added if x.strip()]
    return bool(changed) and all(M1_LINE.match(x) for x in changed)


def _whitespace_only(files: Sequence[FileChange]) -> bool:
    if not files or any(not f.patch for f in files):
        return False
    removed, added = _lines(files)
    if not removed and not added:
        return False
    return _squash(removed) == _squash(added)


def _squash(lines: Sequence[str]) -> Counter[str]:
    """The non-blank lines with their whitespace removed, counted."""
    return Counter("".join(x.split()) for x in lines if x.strip())

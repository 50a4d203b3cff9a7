"""One guard request, whoever asks: the CLI, the Guard page, the MCP server, the pre-commit hook, the Action.

A request names the repository, the diff (or a stored pull request), the PR the diff belongs to and the judge.
Two different bounds apply to a diff, and only one of them refuses input:

- ``MAX_DIFF_BYTES`` (64 MB) is the **input limit**: a larger diff is refused with ``DiffTooLarge`` before it is
  read any further, on every surface (the CLI and the hook read at most one byte past it). It exists so a
  mistaken ``git diff`` of a vendored tree cannot fill the memory of a CI runner or the dashboard.
- ``diffparse.PARSE_BUDGET_CHARS`` / ``PARSE_BUDGET_FILES`` (1.5 MB, 300 files) are the guard's **work budget**
  on an accepted diff: the files past it are skipped, listed in ``skipped_files`` and noted, which makes the
  verdict at least ``note`` and fails ``--fail-on-warn``.

Every surface calls ``check_diff_size`` / ``decode_diff`` (in its own words for ``what``) and builds a
``GuardRequest``, which checks the same again, so a Python caller of ``run_guard`` is bounded too.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..db import validate_repo
from ..errors import DiffParseError, DiffTooLarge, InvalidInput
from ..pr_url import parse_pr_url

MAX_DIFF_BYTES = 64 * 1024 * 1024  # the one input limit (UTF-8 bytes of the diff)
JUDGES = ("offline", "llm")


def check_diff_size(size: int, what: str = "the diff", hint: str = "") -> None:
    """Refuse ``size`` bytes of diff when it is over the input limit; ``what`` names it in the caller's words."""
    if size > MAX_DIFF_BYTES:
        raise DiffTooLarge(what, MAX_DIFF_BYTES, size, hint)


def decode_diff(data: bytes, what: str = "the diff", hint: str = "") -> str:
    """Diff bytes (a file, stdin, an upload, git's or GitHub's answer) as text, once they pass the input limit."""
    check_diff_size(len(data), what, hint)
    return data.decode("utf-8", errors="replace")


def text_size(text: str) -> int:
    """The UTF-8 size of ``text``, without encoding it when its length alone decides (most diffs are ASCII)."""
    if len(text) > MAX_DIFF_BYTES or len(text) * 4 <= MAX_DIFF_BYTES:
        return len(text)  # over by characters alone, or under even at 4 bytes a character
    return len(text.encode("utf-8", errors="surrogatepass"))


def pr_number(value: int | str, repo: str) -> int:
    """A pull request given as ``12``, ``"12"``, ``"#12"`` or its URL; a URL must belong to ``repo``."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise InvalidInput(f"a pull request is a number or its URL, got {type(value).__name__}")
    if isinstance(value, int):
        number = value
    else:
        text = value.strip().lstrip("#")
        if text.isdigit():
            number = int(text)
        else:
            url_repo, number = parse_pr_url(text)
            if url_repo.lower() != repo.lower():
                raise InvalidInput(
                    f"that PR belongs to {url_repo}, not {repo}; guard it against {url_repo}'s graph (ingest it first)"
                )
    if number < 1:
        raise InvalidInput(f"a pull request number is at least 1, got {number}")
    return number


@dataclass(frozen=True)
class GuardRequest:
    """What to guard: ``diff`` against ``repo``'s earlier decisions, or, without a diff, PR ``pr`` as stored.

    With a diff, ``pr`` names the pull request it belongs to (its own decision is left out of the candidates).
    Built by every surface; invalid values raise InvalidInput (DiffTooLarge over the input limit).
    """

    repo: str
    diff: str | None = None
    pr: int | None = None
    judge: str = "offline"

    def __post_init__(self) -> None:
        object.__setattr__(self, "repo", validate_repo(self.repo))
        if self.judge not in JUDGES:
            raise InvalidInput(f"unknown judge {self.judge!r}; choose one of: {', '.join(JUDGES)}")
        diff: object = self.diff
        if isinstance(diff, bytes):  # Python callers may hand over bytes, as parse_diff accepts them
            object.__setattr__(self, "diff", decode_diff(diff))
        elif isinstance(diff, str):
            check_diff_size(text_size(diff))
        elif diff is not None:
            raise DiffParseError(f"the diff must be text (str or bytes), got {type(diff).__name__}")
        if self.pr is not None:
            object.__setattr__(self, "pr", pr_number(self.pr, self.repo))

    @classmethod
    def of(
        cls, repo: str, diff: str | None = None, pr: int | str | None = None, judge: str = "offline"
    ) -> GuardRequest:
        """A request from what a person typed: the pull request may be ``N``, ``#N`` or its URL."""
        repo = validate_repo(repo)
        return cls(repo, diff, None if pr is None or pr == "" else pr_number(pr, repo), judge)

"""Which earlier change a PR or commit reverts, in every common form, resolved against the history walked so far.

Forms (``RevertLink.form``):
  sha     git's ``This reverts commit <sha>`` naming a mainline commit (a PR's merge/squash commit or a
          plain commit); a sha that is not in the history being walked is a branch-internal commit a squash
          folded in, and is *not* a revert of history
  title   a ``Revert "<title>"`` subject (git's default; ``Reapply "<title>"`` for a revert of a revert is
          found by its sha line), resolved to the newest earlier change with that title, or to PR N when the
          quoted title ends in ``(#N)``
  number  ``This reverts #N`` / ``Reverts #N`` / ``Revert #N`` / ``reverts PR #N`` / a pull URL in the body
  branch  a merge commit ``Merge pull request #M from owner/revert-N-…`` (GitHub's Revert button's branch)
One index serves ingest (build.py) and replay (evaluation/replay.py), so both read reverts the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# "This reverts #N", "Reverts owner/name#N", "Revert #N", "revert PR #N", "This PR reverts the bump I did on <pull URL>"
_NUM_FORMS = re.compile(
    r"\b(?:reverts\b[^.\n#]{0,60}?|revert\s+(?:pr\s+|pull\s+request\s+)?)"
    r"(?:[\w.-]+/[\w.-]+)?(?:#|https?://github\.com/[\w.-]+/[\w.-]+/pull/)(\d{1,7})\b",
    re.I,
)
_TITLE = re.compile(r'^\s*Revert\s+"(.+)"\s*$', re.I)
_SHA = re.compile(r"\bThis reverts commit ([0-9a-f]{7,40})\b", re.I)
_SQUASH_NUM = re.compile(r"\(#(\d{1,7})\)\s*$")
# GitHub's "Revert" button names the branch revert-<N>-<branch>: a merge commit of that branch reverts PR N
_BRANCH = re.compile(r"^Merge pull request #\d+ from \S+?/revert-(\d{1,7})-", re.M)
_SHA_MIN = 7


@dataclass(frozen=True)
class RevertLink:
    """``source`` reverts ``target`` (graph source ids: ``pr:N`` or ``commit:<sha>``); ``form`` says how we know."""

    source: str
    target: str
    form: str  # sha | title | number | branch


@dataclass
class RevertIndex:
    """The changes seen so far, by title, by PR number and by commit sha (for resolving revert mentions)."""

    by_title: dict[str, str] = field(default_factory=dict)  # title -> newest source id with it
    numbers: set[int] = field(default_factory=set)  # PR numbers known
    shas: dict[str, str] = field(default_factory=dict)  # full commit sha -> source id (pr:N or commit:sha)
    mechanical: set[str] = field(default_factory=set)  # source ids of mechanical changes (ingest/mechanical.py)

    def add(self, source_id: str, title: str | None, shas: tuple[str, ...] = (), number: int | None = None) -> None:
        if title and title.strip():
            self.by_title[title.strip()] = source_id
        if number is not None:
            self.numbers.add(number)
        for s in shas:
            if s:
                self.shas[s.lower()] = source_id

    def _by_sha(self, prefix: str) -> str | None:
        prefix = prefix.lower()
        if prefix in self.shas:
            return self.shas[prefix]
        if len(prefix) < _SHA_MIN:
            return None
        hits = {sid for s, sid in self.shas.items() if s.startswith(prefix)}
        return hits.pop() if len(hits) == 1 else None

    def resolve(self, source_id: str, title: str, body: str) -> list[RevertLink]:
        """Every earlier change ``source_id`` reverts, at most once each (the first form found wins)."""
        found: dict[str, str] = {}
        for sha in _SHA.findall(body or ""):
            target = self._by_sha(sha)
            if target:
                found.setdefault(target, "sha")
        m = _TITLE.match((title or "").strip())
        if m:
            quoted = m.group(1).strip()
            n = _SQUASH_NUM.search(quoted)
            target = f"pr:{n.group(1)}" if n and int(n.group(1)) in self.numbers else self.by_title.get(quoted)
            if target is None and n:
                target = self.by_title.get(quoted[: n.start()].strip())
            if target:
                found.setdefault(target, "title")
        for raw in _NUM_FORMS.findall(body or ""):
            if int(raw) in self.numbers:
                found.setdefault(f"pr:{int(raw)}", "number")
        for raw in _BRANCH.findall(body or ""):
            if int(raw) in self.numbers:
                found.setdefault(f"pr:{int(raw)}", "branch")
        found.pop(source_id, None)
        return [RevertLink(source_id, t, form) for t, form in found.items()]


def revert_shas(body: str) -> set[str]:
    """Commit shas named by ``This reverts commit <sha>`` lines."""
    return {s.lower() for s in _SHA.findall(body or "")}


def revert_numbers(body: str) -> set[int]:
    """PR numbers named by the number forms (for fetching or resolving them before an index exists)."""
    return {int(x) for x in _NUM_FORMS.findall(body or "")}

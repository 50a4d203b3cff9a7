#!/usr/bin/env python3
"""Write the demo seed: the fictional repository acme/tollgate as a GitHub REST snapshot.

The story is data in seeds/story/ (see seeds/story_model.py for the layout); this script is its engine. Every
merged PR's edits (seeds/edits.py) are applied in merge order to an in-memory tree and its patch is computed
with difflib, so the patches and the final tree agree by construction.
``python seeds/build_demo.py [--out DIR]`` rewrites DIR (default seeds/demo) deterministically.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # run as a script or loaded by path: the sibling data modules are importable

from edits import EditError, RevertOf, Sub, apply_edits  # noqa: E402
from story_checks import check_links, check_people_and_times, check_stories  # noqa: E402
from story_model import PR, Issue, Note, Person, Review, Story, StoryError, default_story  # noqa: E402
from story_report import story_json, story_md  # noqa: E402

__all__ = ["PR", "Issue", "Person", "RevertOf", "Story", "StoryError", "Sub", "Builder", "build", "main"]

STORY = default_story()
REPO = STORY.full_name
WEB = f"https://github.com/{REPO}"
DEFAULT_OUT = HERE / "demo"
GENERATED = ("github", "tree", "STORY.md", "story.json")  # everything the script owns inside --out
INITIAL_TREE = STORY.initial_tree

# --------------------------------------------------------------------------------------------------------------
# The engine: numbers, placeholders, the tree replay, patches
# --------------------------------------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"<<(?:(n|sha):)?([a-z0-9_]+)>>")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def unwrap(text: str) -> str:
    """Join hard-wrapped lines (as people type them in GitHub's box); blank lines, list items and headings stay."""
    out: list[str] = []
    for line in text.split("\n"):
        starts_block = not line.strip() or line.lstrip().startswith(("- ", "* ", "#", "|", "```"))
        if out and out[-1].strip() and not starts_block:
            out[-1] = out[-1].rstrip() + " " + line.strip()
        else:
            out.append(line)
    return "\n".join(out)


def iso(stamp: str | None) -> str | None:
    """'2024-01-08 09:12' -> '2024-01-08T09:12:00Z'."""
    return None if stamp is None else stamp.replace(" ", "T") + ":00Z"


def merge_sha(number: int, title: str, merged: str) -> str:
    return hashlib.sha1(f"{REPO}#{number}\n{title}\n{merged}".encode()).hexdigest()


def unified(before: str, after: str) -> str:
    """GitHub's ``patch`` field: unified hunks (3 lines of context) from the first @@, no file headers."""
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), n=3, lineterm=""))
    return "\n".join(lines[2:])


def count_changes(patch: str) -> tuple[int, int]:
    body = [line for line in patch.split("\n") if not line.startswith("@@")]
    return sum(line.startswith("+") for line in body), sum(line.startswith("-") for line in body)


def locate(patch: str, anchor: str) -> tuple[int, str]:
    """The new-side line number of the first added/context line containing ``anchor``, and its diff_hunk."""
    hunk: list[str] = []
    new_line = 0
    for line in patch.split("\n"):
        m = _HUNK.match(line)
        if m:
            hunk, new_line = [line], int(m.group(3))
            continue
        hunk.append(line)
        if line.startswith("-"):
            continue
        if anchor in line[1:]:
            return new_line, "\n".join(hunk)
        new_line += 1
    raise StoryError(f"review anchor {anchor!r} is on no added or context line of the patch")


class Builder:
    """Replays the history once and keeps what the writers need."""

    def __init__(self, events: list[PR | Issue], initial_tree: dict[str, str] | None = None) -> None:
        self.events = events
        self.initial_tree = INITIAL_TREE if initial_tree is None else initial_tree
        self.numbers: dict[str, int] = {}
        for i, event in enumerate(events, start=1):
            if event.key in self.numbers:
                raise StoryError(f"duplicate key {event.key}")
            self.numbers[event.key] = i
            if i > 1 and event.created <= events[i - 2].created:
                raise StoryError(f"{event.key}: created {event.created} is not after the previous event")
        self.by_key = {event.key: event for event in events}
        self.shas = {
            pr.key: merge_sha(self.numbers[pr.key], pr.title, pr.merged)
            for pr in events
            if isinstance(pr, PR) and pr.merged
        }
        self.files: dict[str, list[dict]] = {}  # PR key -> files.json rows
        self.applied: dict[str, dict[str, tuple[str | None, str | None]]] = {}  # merged PR -> path -> (before, after)
        self.head: dict[str, str] = {}
        self.merge_order: list[str] = []

    def resolve(self, text: str) -> str:
        def one(m: re.Match[str]) -> str:
            kind, key = m.group(1), m.group(2)
            if key not in self.numbers:
                raise StoryError(f"unknown key in placeholder {m.group(0)}")
            if kind == "sha":
                if key not in self.shas:
                    raise StoryError(f"{key} has no merge commit")
                return self.shas[key]
            return str(self.numbers[key]) if kind == "n" else f"#{self.numbers[key]}"

        return _PLACEHOLDER.sub(one, text)

    def body(self, text: str) -> str:
        """A PR or issue body as GitHub stores it: placeholders resolved, hard-wrapped lines joined."""
        return unwrap(self.resolve(text)).rstrip("\n")

    def prs(self) -> list[PR]:
        return [e for e in self.events if isinstance(e, PR)]

    def issues(self) -> list[Issue]:
        return [e for e in self.events if isinstance(e, Issue)]

    def run(self) -> None:
        """Apply merged PRs in merge order; compute every PR's patch against the tree of its moment."""
        tree = dict(self.initial_tree)

        def moment(pr: PR) -> tuple[str, int]:
            return (pr.merged or pr.closed or pr.created, self.numbers[pr.key])

        for pr in sorted(self.prs(), key=moment):
            after, renames = self.apply(pr, tree)
            self.files[pr.key] = self.file_rows(pr.key, tree, after, renames)
            if pr.merged:
                changed = {row["filename"] for row in self.files[pr.key]}
                changed |= set(renames.values())
                self.applied[pr.key] = {p: (tree.get(p), after.get(p)) for p in changed}
                self.merge_order.append(pr.key)
                tree = after
        self.head = tree

    def apply(self, pr: PR, tree: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
        renames: dict[str, str] = {}  # new path -> old path
        try:
            out = apply_edits(tree, pr.edits, resolve=self.resolve, revert=self.revert, renames=renames)
        except (EditError, StoryError) as e:
            raise StoryError(f"{pr.key}: {e}") from None
        for path, text in out.items():
            if text and not text.endswith("\n"):
                raise StoryError(f"{pr.key}: {path} must end with a newline")
        return out, renames

    def revert(self, key: str, out: dict[str, str]) -> None:
        """Undo every file change of the merged PR ``key``; its files must be unchanged since."""
        if key not in self.applied:
            raise StoryError(f"revert of {key}: not a PR merged before this one")
        for path, (before, after) in self.applied[key].items():
            if out.get(path) != after:
                raise StoryError(f"revert of {key}: {path} changed since")
            if before is None:
                del out[path]
            else:
                out[path] = before

    def file_rows(self, key: str, before: dict[str, str], after: dict[str, str], renames: dict[str, str]) -> list[dict]:
        rows = []
        gone = set(renames.values())
        for path in sorted(set(before) | set(after)):
            if path in gone or (before.get(path) == after.get(path) and path not in renames):
                continue
            old_path = renames.get(path, path)
            old_text, new_text = before.get(old_path), after.get(path)
            status = (
                "renamed"
                if path in renames
                else "added"
                if old_text is None
                else "removed"
                if new_text is None
                else "modified"
            )
            patch = unified(old_text or "", new_text or "")
            adds, dels = count_changes(patch)
            row: dict = {
                "filename": path,
                "status": status,
                "additions": adds,
                "deletions": dels,
                "changes": adds + dels,
                "patch": patch,
            }
            if status == "renamed":
                row["previous_filename"] = old_path
            rows.append(row)
        if not rows:
            raise StoryError(f"{key} changes no file")
        return rows


# --------------------------------------------------------------------------------------------------------------
# GitHub REST shapes
# --------------------------------------------------------------------------------------------------------------


def user(login: str) -> dict:
    return {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"}


class Writer:
    """Turns the replayed history into the snapshot's JSON documents, with stable comment ids."""

    def __init__(self, b: Builder) -> None:
        self.b = b
        self.review_id = 1_600_000_000
        self.note_id = 2_100_000_000

    def pull(self, pr: PR) -> dict:
        n = self.b.numbers[pr.key]
        ended = pr.merged or pr.closed
        comments: list[Review | Note] = [*pr.review, *pr.notes]
        times = [pr.created, ended or pr.created] + [c.at for c in comments]
        return {
            "number": n,
            "title": self.b.resolve(pr.title),
            "body": self.b.body(pr.body),
            "state": "closed" if ended else "open",
            "merged_at": iso(pr.merged),
            "created_at": iso(pr.created),
            "closed_at": iso(ended),
            "updated_at": iso(max(times)),
            "user": user(pr.author),
            "html_url": f"{WEB}/pull/{n}",
            "merge_commit_sha": self.b.shas.get(pr.key),
            "base": {"ref": "main"},
            "labels": [{"name": name} for name in pr.labels],
        }

    def issue(self, issue: Issue) -> dict:
        n = self.b.numbers[issue.key]
        times = [issue.created, issue.closed or issue.created] + [c.at for c in issue.notes]
        return {
            "number": n,
            "title": issue.title,
            "body": self.b.body(issue.body),
            "state": "closed" if issue.closed else "open",
            "state_reason": issue.state_reason,
            "created_at": iso(issue.created),
            "closed_at": iso(issue.closed),
            "updated_at": iso(max(times)),
            "user": user(issue.author),
            "html_url": f"{WEB}/issues/{n}",
            "labels": [{"name": name} for name in issue.labels],
        }

    def review_comments(self, pr: PR) -> list[dict]:
        n = self.b.numbers[pr.key]
        patches = {row["filename"]: row["patch"] for row in self.b.files[pr.key]}
        out = []
        for r in pr.review:
            if r.path not in patches:
                raise StoryError(f"{pr.key}: review comment on {r.path}, which the PR does not change")
            line, hunk = locate(patches[r.path], self.b.resolve(r.anchor))
            self.review_id += 1
            out.append(
                {
                    "id": self.review_id,
                    "user": user(r.author),
                    "body": self.b.resolve(r.body),
                    "path": r.path,
                    "line": line,
                    "diff_hunk": hunk,
                    "created_at": iso(r.at),
                    "html_url": f"{WEB}/pull/{n}#discussion_r{self.review_id}",
                }
            )
        return out

    def notes(self, event: PR | Issue) -> list[dict]:
        n = self.b.numbers[event.key]
        page = "pull" if isinstance(event, PR) else "issues"
        out = []
        for note in event.notes:
            self.note_id += 1
            out.append(
                {
                    "id": self.note_id,
                    "user": user(note.author),
                    "body": self.b.resolve(note.body),
                    "created_at": iso(note.at),
                    "html_url": f"{WEB}/{page}/{n}#issuecomment-{self.note_id}",
                }
            )
        return out


def dump(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def write_snapshot(b: Builder, out: Path) -> None:
    base = out / "github" / "repos" / REPO
    dump(
        base / "repo.json",
        {
            "full_name": REPO,
            "name": REPO.split("/")[1],
            "owner": {"login": REPO.split("/")[0], "type": "Organization"},
            "description": STORY.repo["description"],
            "default_branch": "main",
            "html_url": WEB,
            "private": False,
            "created_at": STORY.repo["created_at"],
        },
    )
    w = Writer(b)
    for event in b.events:
        n = b.numbers[event.key]
        if isinstance(event, PR):
            dump(base / "pulls" / f"{n}.json", w.pull(event))
            dump(base / "pulls" / str(n) / "files.json", b.files[event.key])
            dump(base / "pulls" / str(n) / "comments.json", w.review_comments(event))
        else:
            dump(base / "issues" / f"{n}.json", w.issue(event))
        dump(base / "issues" / str(n) / "comments.json", w.notes(event))
    for path, text in b.head.items():
        if path.startswith("docs/adr/"):
            (base / "contents" / path).parent.mkdir(parents=True, exist_ok=True)
            (base / "contents" / path).write_text(text, encoding="utf-8")
    for path, text in b.head.items():
        (out / "tree" / path).parent.mkdir(parents=True, exist_ok=True)
        (out / "tree" / path).write_text(text, encoding="utf-8")


# --------------------------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------------------------


def build(out: Path) -> Builder:
    """Replay the story, check it, and (re)write everything the script owns under ``out``."""
    b = Builder(STORY.events)
    b.run()
    check_people_and_times(b)
    check_links(b)
    check_stories(b)
    out.mkdir(parents=True, exist_ok=True)
    for name in GENERATED:
        target = out / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    write_snapshot(b, out)
    data = story_json(b)
    dump(out / "story.json", data)
    (out / "STORY.md").write_text(story_md(b, data), encoding="utf-8")
    return b


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: seeds/demo)")
    args = parser.parse_args(argv)
    b = build(args.out)
    print(f"wrote {args.out}: {len(b.prs())} PRs, {len(b.issues())} issues, {len(b.head)} files at HEAD")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

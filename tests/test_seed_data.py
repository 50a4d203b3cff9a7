"""The demo seed (seeds/demo, acme/tollgate) is complete, self-consistent and reproducible. No database needed."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "seeds" / "demo"
BASE = SEED / "github" / "repos" / "acme" / "tollgate"
TREE = SEED / "tree"
SCRIPT = ROOT / "seeds" / "build_demo.py"

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
CLOSES = re.compile(r"\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\s+#(\d+)\b", re.I)
REFS = re.compile(r"\b(?:refs?|see)\s+#(\d+)\b", re.I)
DEPENDS = re.compile(r"\bdepends\s+on\s+#(\d+)\b", re.I)
BARE = re.compile(r"(?<![\w/&])#(\d+)\b")


class PatchError(ValueError):
    pass


@dataclass
class Snapshot:
    pulls: dict[int, dict[str, Any]]
    files: dict[int, list[dict[str, Any]]]
    reviews: dict[int, list[dict[str, Any]]]
    issues: dict[int, dict[str, Any]]
    notes: dict[int, list[dict[str, Any]]]

    def merged(self) -> list[dict[str, Any]]:
        return sorted((p for p in self.pulls.values() if p["merged_at"]), key=lambda p: (p["merged_at"], p["number"]))


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def snap() -> Snapshot:
    pulls = {int(p.stem): _json(p) for p in (BASE / "pulls").glob("*.json")}
    issues = {int(p.stem): _json(p) for p in (BASE / "issues").glob("*.json")}
    return Snapshot(
        pulls=pulls,
        files={n: _json(BASE / "pulls" / str(n) / "files.json") for n in pulls},
        reviews={n: _json(BASE / "pulls" / str(n) / "comments.json") for n in pulls},
        issues=issues,
        notes={n: _json(BASE / "issues" / str(n) / "comments.json") for n in [*pulls, *issues]},
    )


@pytest.fixture(scope="module")
def build_demo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_demo", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_demo"] = module  # dataclasses look their module up while the class body runs
    spec.loader.exec_module(module)
    return module


def apply_patch(text: str, patch: str) -> str:
    """Apply GitHub-style unified hunks strictly: every context and removed line must match where it says."""
    old = text.splitlines()
    out: list[str] = []
    pos = 0
    lines = patch.split("\n")
    i = 0
    while i < len(lines):
        m = HUNK.match(lines[i])
        if not m:
            raise PatchError(f"expected a hunk header, got {lines[i]!r}")
        start, old_len = int(m.group(1)), int(m.group(2) or 1)
        new_len = int(m.group(4) or 1)
        begin = start if old_len == 0 else start - 1
        if begin < pos:
            raise PatchError(f"hunk {lines[i]!r} overlaps the previous one")
        out += old[pos:begin]
        pos, seen_old, seen_new = begin, 0, 0
        i += 1
        while i < len(lines) and not lines[i].startswith("@@"):
            tag, body = lines[i][:1], lines[i][1:]
            if tag in (" ", "-"):
                if pos >= len(old) or old[pos] != body:
                    raise PatchError(f"line {pos + 1} is not {body!r}")
                pos += 1
                seen_old += 1
            if tag in (" ", "+"):
                out.append(body)
                seen_new += 1
            if tag not in (" ", "-", "+"):
                raise PatchError(f"bad patch line {lines[i]!r}")
            i += 1
        if (seen_old, seen_new) != (old_len, new_len):
            raise PatchError(f"hunk counts {old_len},{new_len} but has {seen_old},{seen_new}")
    out += old[pos:]
    return "\n".join(out) + "\n" if out else ""


def replay(initial: dict[str, str], snap: Snapshot) -> dict[str, str]:
    tree = dict(initial)
    for pr in snap.merged():
        for row in snap.files[pr["number"]]:
            path, status = row["filename"], row["status"]
            source = row.get("previous_filename", path)
            text = apply_patch(tree.get(source, "") if status != "added" else "", row["patch"])
            if status == "renamed":
                del tree[source]
            if status == "removed":
                assert text == "", f"#{pr['number']} removes {path} but the patch leaves text"
                del tree[path]
            else:
                tree[path] = text
    return tree


def _cache(path: Path) -> bool:
    """Byte-code and pytest caches that running the tree's own tests in place would leave behind."""
    return any(part in ("__pycache__", ".pytest_cache") for part in path.parts)


def tree_on_disk() -> dict[str, str]:
    files = (p for p in TREE.rglob("*") if p.is_file() and not _cache(p))
    return {p.relative_to(TREE).as_posix(): p.read_text(encoding="utf-8") for p in files}


def changed_lines(patch: str, sign: str) -> list[str]:
    return [line[1:] for line in patch.split("\n") if line.startswith(sign) and not line.startswith("@@")]


# ---------------------------------------------------------------------------------------------------------------


def test_counts_and_states(snap: Snapshot) -> None:
    prs = list(snap.pulls.values())
    merged = [p for p in prs if p["merged_at"]]
    open_prs = [p for p in prs if p["state"] == "open"]
    closed_unmerged = [p for p in prs if p["state"] == "closed" and not p["merged_at"]]
    assert len(prs) >= 40 and len(merged) > len(prs) * 0.75
    assert 2 <= len(open_prs) <= 3 and len(closed_unmerged) >= 2
    assert len(snap.issues) >= 15
    assert {i["state"] for i in snap.issues.values()} == {"open", "closed"}
    assert set(snap.pulls).isdisjoint(snap.issues)
    assert sorted([*snap.pulls, *snap.issues]) == list(range(1, len(prs) + len(snap.issues) + 1))
    for n, pr in snap.pulls.items():
        assert pr["number"] == n and pr["html_url"] == f"https://github.com/acme/tollgate/pull/{n}"
        assert bool(pr["merge_commit_sha"]) == bool(pr["merged_at"])
    for n, issue in snap.issues.items():
        assert issue["number"] == n and issue["html_url"] == f"https://github.com/acme/tollgate/issues/{n}"
        assert (issue["state"] == "closed") == (issue["closed_at"] is not None)


def test_every_text_is_a_string(snap: Snapshot) -> None:
    for item in [*snap.pulls.values(), *snap.issues.values()]:
        assert isinstance(item["title"], str) and item["title"]
        assert isinstance(item["body"], str) and item["body"]
    comments = [c for cs in [*snap.reviews.values(), *snap.notes.values()] for c in cs]
    assert len(comments) >= 30
    assert all(isinstance(c["body"], str) and c["body"] for c in comments)


def test_people_roles_bot_and_inactive_authors(snap: Snapshot) -> None:
    items = [*snap.pulls.values(), *snap.issues.values()]
    users = {c["user"]["login"]: c["user"]["type"] for cs in [*snap.reviews.values(), *snap.notes.values()] for c in cs}
    users |= {i["user"]["login"]: i["user"]["type"] for i in items}
    assert sorted(t for t in users.values()) == ["Bot"] + ["User"] * 6
    assert [login for login, t in users.items() if t == "Bot"] == ["dependabot[bot]"]
    last: dict[str, str] = {}
    for i in items:
        last[i["user"]["login"]] = max(last.get(i["user"]["login"], ""), i["created_at"])
    assert sum(1 for login, at in last.items() if at < "2025-06" and users[login] == "User") in (1, 2)
    stamps = [i["created_at"] for i in items]
    assert min(stamps) >= "2024-01" and max(stamps) < "2026-11" and min(stamps) < "2024-02" and max(stamps) > "2026-10"


def test_merged_patches_replay_to_the_head_tree(snap: Snapshot, build_demo: ModuleType) -> None:
    assert replay(build_demo.INITIAL_TREE, snap) == tree_on_disk()


def test_patch_applier_is_strict() -> None:
    assert apply_patch("a\nb\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c") == "a\nB\nc\n"
    with pytest.raises(PatchError):
        apply_patch("a\nx\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c")
    with pytest.raises(PatchError):
        apply_patch("a\nb\nc\n", "@@ -1,3 +1,4 @@\n a\n-b\n+B\n c")


def test_files_json_shape(snap: Snapshot) -> None:
    statuses = set()
    for n, rows in snap.files.items():
        assert rows, f"#{n} changes no file"
        for row in rows:
            statuses.add(row["status"])
            assert row["patch"].startswith("@@ ")
            adds, dels = len(changed_lines(row["patch"], "+")), len(changed_lines(row["patch"], "-"))
            assert (row["additions"], row["deletions"], row["changes"]) == (adds, dels, adds + dels)
            assert ("previous_filename" in row) == (row["status"] == "renamed")
    assert statuses == {"added", "modified", "removed", "renamed"}


def test_review_comments_point_into_their_patch(snap: Snapshot) -> None:
    count = 0
    for n, comments in snap.reviews.items():
        patches = {row["filename"]: row["patch"] for row in snap.files[n]}
        for c in comments:
            count += 1
            assert c["diff_hunk"].startswith("@@ ") and c["diff_hunk"] in patches[c["path"]]
            assert isinstance(c["line"], int) and c["line"] > 0
            assert c["html_url"].startswith(f"https://github.com/acme/tollgate/pull/{n}#discussion_r")
    assert count >= 25


def test_adrs(snap: Snapshot) -> None:
    adrs = {p.name: p.read_text(encoding="utf-8") for p in (BASE / "contents" / "docs" / "adr").glob("*.md")}
    assert len(adrs) == 3
    status = {}
    for name, text in adrs.items():
        assert text == (TREE / "docs" / "adr" / name).read_text(encoding="utf-8")
        assert re.match(r"# ADR-000\d: \S", text)
        for heading in ("## Context", "## Decision", "## Consequences", "## Alternatives considered"):
            assert f"\n{heading}\n" in text, (name, heading)
        status[name[:4]] = re.search(r"^Status: (accepted|superseded|proposed)$", text, re.M).group(1)  # type: ignore[union-attr]
    assert status == {"0001": "superseded", "0002": "accepted", "0003": "accepted"}
    assert "\nSupersedes: ADR-0001\n" in adrs["0003-append-only-event-log.md"]
    added_by = {row["filename"]: n for n, rows in snap.files.items() for row in rows if row["status"] == "added"}
    assert all(f"docs/adr/{name}" in added_by for name in adrs)
    adr3_pr = added_by["docs/adr/0003-append-only-event-log.md"]
    adr1_change = next(r for r in snap.files[adr3_pr] if r["filename"].startswith("docs/adr/0001"))
    assert "-Status: accepted" in adr1_change["patch"] and "+Status: superseded" in adr1_change["patch"]


def test_revert_pair_is_an_exact_reverse(snap: Snapshot) -> None:
    reverts = [p for p in snap.pulls.values() if p["title"].startswith('Revert "')]
    assert len(reverts) == 1
    b = reverts[0]
    a_num = int(re.match(r"Reverts #(\d+)\. This reverts commit ([0-9a-f]{40})\.", b["body"]).group(1))  # type: ignore[union-attr]
    a = snap.pulls[a_num]
    assert b["title"] == f'Revert "{a["title"]}"'
    assert f"This reverts commit {a['merge_commit_sha']}." in b["body"]
    assert a["merged_at"] < b["merged_at"]
    a_rows = {r["filename"]: r for r in snap.files[a_num]}
    b_rows = {r["filename"]: r for r in snap.files[b["number"]]}
    assert a_rows.keys() == b_rows.keys()
    flip = {"added": "removed", "removed": "added", "modified": "modified"}
    for path, ra in a_rows.items():
        rb = b_rows[path]
        assert rb["status"] == flip[ra["status"]]
        assert changed_lines(rb["patch"], "+") == changed_lines(ra["patch"], "-")
        assert changed_lines(rb["patch"], "-") == changed_lines(ra["patch"], "+")


def test_link_kinds(snap: Snapshot) -> None:
    bodies = {n: p["body"] for n, p in snap.pulls.items()}
    merged = {n for n, p in snap.pulls.items() if p["merged_at"]}
    closing = {(n, int(i)) for n, body in bodies.items() for i in CLOSES.findall(body)}
    refs = {(n, int(i)) for n, body in bodies.items() for i in REFS.findall(body)}
    depends = {(n, int(i)) for n, body in bodies.items() for i in DEPENDS.findall(body)}
    bare = {(n, int(i)) for n, body in bodies.items() for i in BARE.findall(body)} - closing - refs - depends
    assert any(body.lstrip().startswith("Closes #") for body in bodies.values())
    for n, i in closing:
        if n in merged and i in snap.issues:
            issue = snap.issues[i]
            assert issue["state"] == "closed" or issue["state_reason"] == "reopened", (n, i)
    stale = [(n, i) for n, i in closing if n in merged and snap.issues.get(i, {}).get("state") == "open"]
    assert stale, "a merged PR that Fixes an issue which is still open"
    assert any(snap.issues[i]["state"] == "open" for n, i in refs if i in snap.issues), "Refs/See to an open issue"
    assert any(n in merged and not snap.pulls[i]["merged_at"] for n, i in depends if i in snap.pulls)
    assert bare, "bare #N mentions"
    for n, i in closing | refs | depends | bare:
        assert i in snap.pulls or i in snap.issues, f"#{n} links to #{i}, which does not exist"


def test_story_quotes_and_lines_are_real(snap: Snapshot) -> None:
    story = _json(SEED / "story.json")
    assert len(story["stories"]) >= 10
    comments = [c["body"] for cs in [*snap.reviews.values(), *snap.notes.values()] for c in cs]
    head = tree_on_disk()
    for s in story["stories"]:
        pr = snap.pulls[s["decision_pr"]]
        assert pr["merged_at"] and s["decision"] in pr["body"], s["id"]
        assert all(i in snap.issues for i in s["issues"]) and all(p in snap.pulls for p in s["prs"])
        for alt in s["rejected_alternatives"]:
            assert any(alt in body for body in comments), alt
        for d in s["decisive_lines"]:
            assert head[d["path"]].split("\n")[d["lineno"] - 1] == d["line"], d
    assert (SEED / "STORY.md").read_text(encoding="utf-8").count("\n> ") == len(story["stories"])


@pytest.mark.slow
def test_head_tree_is_working_python(tmp_path: Path) -> None:
    """The tollgate code is real: it compiles and its own test suite passes at HEAD."""
    for path in TREE.rglob("*.py"):
        compile(path.read_text(encoding="utf-8"), str(path), "exec")
    work = tmp_path / "tollgate"
    shutil.copytree(TREE, work)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(work)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert re.search(r"\b(\d+) passed\b", run.stdout)


def test_generator_reproduces_the_committed_seed(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    run = subprocess.run([sys.executable, str(SCRIPT), "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    want = {p.relative_to(SEED).as_posix(): p.read_bytes() for p in SEED.rglob("*") if p.is_file() and not _cache(p)}
    got = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert sorted(got) == sorted(want)
    assert [k for k in want if want[k] != got[k]] == []


def test_generator_refuses_an_edit_that_does_not_apply(build_demo: ModuleType) -> None:
    bad = build_demo.PR(
        "pr_bad",
        "Bad",
        "mlindqvist",
        "2024-01-08 09:00",
        "body",
        [build_demo.Sub("README.md", "text that is not there", "x")],
        merged="2024-01-08 10:00",
    )
    with pytest.raises(build_demo.StoryError, match="expected the old text once"):
        build_demo.Builder([bad]).run()

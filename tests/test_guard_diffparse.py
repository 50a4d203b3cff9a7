"""Diff parsing and code-aware tokens: real unidiff parsing, bad input, bounded work, comment/rename handling."""

from __future__ import annotations

import functools
import subprocess
import time
from pathlib import Path

import pytest

from rguard_core.errors import DiffParseError
from rguard_core.guard.diffparse import (
    PARSE_BUDGET_CHARS,
    PARSE_BUDGET_FILES,
    diff_from_patches,
    parse_diff,
    unquote_git_path,
)
from rguard_core.guard.tokens import change_set, file_kind, is_test_path

MODIFY = """diff --git a/app/rates.py b/app/rates.py
index 1111111..2222222 100644
--- a/app/rates.py
+++ b/app/rates.py
@@ -10,4 +10,4 @@ def price(rate):
     # a comment that stays
-    if rate is not None:
+    if rate:
         return base_price * rate
     return fallback_price
"""

RENAME_NEW_DELETE_BINARY = """diff --git a/lib/old_name.py b/lib/new_name.py
similarity index 90%
rename from lib/old_name.py
rename to lib/new_name.py
index 1111111..2222222 100644
--- a/lib/old_name.py
+++ b/lib/new_name.py
@@ -1,2 +1,2 @@
 import os
-LIMIT = compute_limit(10)
+LIMIT = compute_limit(20)
diff --git a/lib/fresh.py b/lib/fresh.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/lib/fresh.py
@@ -0,0 +1,2 @@
+def settle_invoice(amount):
+    return round_half_even(amount)
diff --git a/lib/gone.py b/lib/gone.py
deleted file mode 100644
index 4444444..0000000
--- a/lib/gone.py
+++ /dev/null
@@ -1 +0,0 @@
-legacy_flag = True
diff --git a/img/logo.png b/img/logo.png
index 5555555..6666666 100644
Binary files a/img/logo.png and b/img/logo.png differ
"""


def test_modified_file_hunks_lines_and_identifiers() -> None:
    d = parse_diff(MODIFY)
    assert [f.path for f in d.files] == ["app/rates.py"]
    f = d.files[0]
    assert f.status == "modified" and f.old_path is None and not f.binary
    assert f.hunks[0].removed() == ["    if rate is not None:"]
    assert f.hunks[0].added() == ["    if rate:"]
    assert "rate" in d.identifiers
    cs = change_set([h.lines for h in f.hunks], f.path)
    assert cs.removed == {"is": 1, "not": 1, "None": 1} and not cs.added


def test_renames_new_deleted_and_binary_files() -> None:
    d = parse_diff(RENAME_NEW_DELETE_BINARY)
    by = {f.path: f for f in d.files}
    assert by["lib/new_name.py"].status == "renamed" and by["lib/new_name.py"].old_path == "lib/old_name.py"
    assert by["lib/fresh.py"].status == "added"
    assert by["lib/gone.py"].status == "removed"
    assert by["img/logo.png"].binary and by["img/logo.png"].hunks == []
    assert {"lib/old_name.py", "lib/new_name.py", "img/logo.png"} <= set(d.paths)
    assert {"settle_invoice", "round_half_even", "compute_limit"} <= set(d.identifiers)


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "empty"),
        ("   \n\t\n", "empty"),
        ("Just some prose about the weather.\nNothing to see.", "not a unified diff"),
        (b"\x89PNG\r\n\x1a\n\x00\x00binary junk", "not a unified diff"),
    ],
)
def test_bad_input_gets_a_clear_error(text: str | bytes, words: str) -> None:
    with pytest.raises(DiffParseError, match=words):
        parse_diff(text)


def test_stale_hunk_counts_are_recounted_with_a_note() -> None:
    d = parse_diff("--- a/x.py\n+++ b/x.py\n@@ -1,9 +1,9 @@\n a = 1\n-b = 2\n+b = 3\n")
    assert d.files[0].hunks[0].lines == [(" ", "a = 1"), ("-", "b = 2"), ("+", "b = 3")]
    assert any("recounted" in n for n in d.notes)


def test_huge_diff_is_bounded() -> None:
    one = (
        "diff --git a/src/m{n}.py b/src/m{n}.py\nindex 1..2 100644\n--- a/src/m{n}.py\n+++ b/src/m{n}.py\n"
        "@@ -1,2 +1,2 @@\n def f():\n-    return compute_value(a, b) is not None\n+    return compute_value(a, b)\n"
    )
    text = "".join(one.format(n=i) for i in range(60_000))
    assert len(text) > 10_000_000
    t0 = time.perf_counter()
    d = parse_diff(text)
    took = time.perf_counter() - t0
    assert took < 5, f"parsing a {len(text):,}-character diff took {took:.1f}s"
    assert 0 < len(d.files) <= 300 and any("larger than" in n for n in d.notes)
    assert sum(len(f.hunks) for f in d.files) * len(one) <= PARSE_BUDGET_CHARS + len(one) * 2


def test_comments_docstrings_and_local_renames_are_no_change() -> None:
    lines = [
        (" ", "def is_allowed(origin):"),
        ("+", '    """Say whether origin may pass."""'),
        ("-", "    # old comment"),
        ("+", "    # new comment"),
        (" ", "    return origin in allowed"),
    ]
    assert change_set([lines], "svc/cors.py").empty
    renamed = [
        ("-", "    header_value = build(cookie)"),
        ("+", "    cookie_header = build(cookie)"),
        (" ", "    x = 1"),
        ("-", "    send(header_value)"),
        ("+", "    send(cookie_header)"),
    ]
    cs = change_set([renamed], "svc/sessions.py")
    assert cs.empty and cs.renames == {"header_value": "cookie_header"}


def test_swapping_a_called_method_is_a_change_not_a_rename() -> None:
    cs = change_set([[("-", "    if pattern.fullmatch(origin):"), ("+", "    if pattern.match(origin):")]], "a.py")
    assert cs.removed == {"fullmatch": 1} and cs.added == {"match": 1}


def test_file_kinds_and_test_paths() -> None:
    assert file_kind("README.md") == "prose" and file_kind("LICENSE") == "prose"
    assert file_kind("src/a.py") == "hash" and file_kind("web/app.ts") == "slash" and file_kind("db/q.sql") == "dash"
    assert is_test_path("tests/test_api.py") and is_test_path("pkg/foo_test.go") and is_test_path("web/a.spec.ts")
    assert is_test_path("flask/testsuite/helpers.py")  # flask 0.10 kept its tests there
    assert not is_test_path("src/contest.py") and not is_test_path("src/attestation.py")


def test_diff_rebuilt_from_stored_patches_parses_back() -> None:
    rows = [
        {"path": "a.py", "status": "modified", "patch": "@@ -1 +1 @@\n-x = 1\n+x = 2"},
        {"path": "b.py", "status": "added", "patch": "@@ -0,0 +1 @@\n+y = 3"},
        {"path": "c.py", "status": "renamed", "patch": "@@ -1 +1 @@\n-z = 1\n+z = 4", "previous_path": "old_c.py"},
        {"path": "logo.png", "status": "modified", "patch": ""},
    ]
    d = parse_diff(diff_from_patches(rows))
    by = {f.path: f for f in d.files}
    assert by["a.py"].status == "modified" and by["b.py"].status == "added"
    assert by["c.py"].old_path == "old_c.py" and by["logo.png"].binary


def _git_diff(tmp_path: Path, setup: dict[str, bytes], change: dict[str, bytes], chmod: tuple[str, ...] = ()) -> str:
    """`git diff --cached` of a real repository: ``setup`` committed, then ``change`` and ``chmod +x`` staged."""
    run = functools.partial(subprocess.run, cwd=tmp_path, check=True, capture_output=True)
    run(["git", "init", "-q"])
    run(["git", "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "root"])
    for name, body in setup.items():
        (tmp_path / name).write_bytes(body)
    run(["git", "add", "-A"])
    run(["git", "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "-m", "init"])
    for name, body in change.items():
        (tmp_path / name).write_bytes(body)
    for name in chmod:
        (tmp_path / name).chmod(0o755)
    run(["git", "add", "-A"])
    return run(["git", "diff", "--cached"]).stdout.decode("utf-8", "surrogateescape")


def test_git_quoted_paths_are_read_as_the_real_names(tmp_path: Path) -> None:
    diff = _git_diff(
        tmp_path,
        {"précis.py": b"x = 1\n"},
        {"précis.py": b"x = 2\n", "new é file.py": b"q = 1\n", 'odd"name.py': b"z = 1\n"},
    )
    assert '"a/pr\\303\\251cis.py"' in diff  # git quoted them: the parser must undo it
    files = {f.path: f for f in parse_diff(diff).files}
    assert set(files) == {"précis.py", "new é file.py", 'odd"name.py'}
    assert files["précis.py"].status == "modified" and files["précis.py"].old_path is None
    assert files["new é file.py"].status == "added" and files["new é file.py"].hunks
    assert unquote_git_path('"a/tab\\there\\\\"') == "a/tab\there\\" and unquote_git_path("plain") == "plain"


def test_mode_only_changes_ahead_of_the_real_change_do_not_hide_it(tmp_path: Path) -> None:
    scripts = {f"s{i:03}.sh": f"echo {i}\n".encode() for i in range(PARSE_BUDGET_FILES + 20)}
    diff = _git_diff(tmp_path, {**scripts, "zz.py": b"x = 1\n"}, {"zz.py": b"x = 2\n"}, chmod=tuple(scripts))
    parsed = parse_diff(diff)
    assert "zz.py" in parsed.paths and parsed.skipped_files == [] and parsed.notes == []
    (real,) = [f for f in parsed.files if f.hunks]
    assert real.path == "zz.py"


def test_nul_bytes_and_binary_markers_parse(tmp_path: Path) -> None:
    diff = _git_diff(tmp_path, {"a.py": b"a = 1\n"}, {"a.py": b"a = '\x00'\n", "b.bin": b"\x00\x01"})
    files = {f.path: f for f in parse_diff(diff).files}
    assert files["a.py"].binary and files["b.bin"].binary  # git's own "Binary files … differ"
    text = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = '\x00'\n"  # `git diff --text`
    (f,) = parse_diff(text).files
    assert f.hunks[0].lines == [("-", "a = 1"), ("+", "a = '\x00'")]


def test_a_diff_cut_before_its_minus_line_is_read_or_refused_plainly() -> None:
    (f,) = parse_diff("+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n").files
    assert f.path == "x.py" and f.hunks
    with pytest.raises(DiffParseError, match="malformed unified diff: a file's header is incomplete"):
        parse_diff("hello\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n")  # unidiff itself crashed on this one

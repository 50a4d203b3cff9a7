"""read_git_history against real git repositories built in tmp_path with the git command line."""

from __future__ import annotations

import io
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rguard_core.errors import GitSourceError, InvalidInput, InvalidRepoName
from rguard_core.ingest.gitlocal import (
    PATCH_CAP,
    _split_stream,
    author_login,
    github_base_url,
    is_adr_path,
    pr_ref,
    read_git_history,
    unquote_c,
)
from rguard_core.ingest.model import Commit, RepoHistory

REPO = "acme/widgets"


class GitRepo:
    """A throwaway repository; every commit gets its own author and a strictly increasing date."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.clock = 1_700_000_000
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(
        self, *args: str, author: tuple[str, str] = ("Alice Doe", "alice@example.com"), date: str | None = None
    ) -> str:
        self.clock += 60
        stamp = date or f"@{self.clock} +0000"
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(
            GIT_AUTHOR_NAME=author[0],
            GIT_AUTHOR_EMAIL=author[1],
            GIT_COMMITTER_NAME=author[0],
            GIT_COMMITTER_EMAIL=author[1],
            GIT_AUTHOR_DATE=stamp,
            GIT_COMMITTER_DATE=stamp,
            GIT_CONFIG_NOSYSTEM="1",
            HOME=str(self.root.parent),
        )
        done = subprocess.run(["git", "-C", str(self.root), *args], env=env, capture_output=True, check=True)
        return done.stdout.decode()

    def write(self, rel: str, content: str | bytes) -> None:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content.encode() if isinstance(content, str) else content)

    def commit(self, message: str, files: dict[str, str | bytes] | None = None, **kw: Any) -> str:
        for rel, content in (files or {}).items():
            self.write(rel, content)
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "--cleanup=verbatim", "-m", message, **kw)
        return self.git("rev-parse", "HEAD").strip()

    def message(self, sha: str) -> str:
        return self.git("log", "-1", "--format=%B", sha)[:-1]  # git log adds one newline after %B


@pytest.fixture
def gr(tmp_path: Path) -> GitRepo:
    return GitRepo(tmp_path / "clone")


def by_sha(hist: RepoHistory, sha: str) -> Commit:
    return next(c for c in hist.commits if c.sha == sha)


def test_squash_subject_becomes_merged_pr(gr: GitRepo) -> None:
    gr.commit("Initial import", {"app.py": "print('hi')\n"})
    sha = gr.commit(
        "Add a cache layer (#12)\n\nWe cache sessions because the DB is slow.\n\nCo-authored-by: Bo\n",
        {"cache.py": "CACHE = {}\nTTL = 30\n"},
        date="2024-03-05T10:00:00+02:00",
    )
    hist = read_git_history(gr.root, REPO)

    assert [c.pr_number for c in hist.commits] == [12, None]
    (pr,) = hist.pulls
    assert (pr.number, pr.title, pr.state, pr.merged) == (12, "Add a cache layer", "closed", True)
    assert pr.body == "We cache sessions because the DB is slow.\n\nCo-authored-by: Bo"
    assert pr.merged_at == pr.closed_at == "2024-03-05T08:00:00Z" == by_sha(hist, sha).date
    assert pr.merge_commit_sha == sha and pr.author == "alice"
    assert [(f.path, f.status, f.additions, f.deletions) for f in pr.files] == [("cache.py", "added", 2, 0)]
    assert pr.files[0].patch == "@@ -0,0 +1,2 @@\n+CACHE = {}\n+TTL = 30"
    assert pr.url is None and hist.url is None  # no GitHub origin
    assert hist.problems == []


def test_merge_pull_request_commit_becomes_pr_with_first_parent_files(gr: GitRepo) -> None:
    gr.commit("Initial", {"README.md": "# w\n"})
    gr.git("checkout", "-q", "-b", "feature")
    branch_sha = gr.commit("Store sessions in Redis", {"sessions.py": "BACKEND = 'redis'\n"})
    gr.git("checkout", "-q", "main")
    gr.commit("Unrelated fix on main", {"README.md": "# widgets\n"})
    gr.git(
        "merge",
        "-q",
        "--no-ff",
        "feature",
        "-m",
        "Merge pull request #7 from alice/feature\n\nUse Redis for sessions\n\nMemcached lost data on restart.",
    )
    merge_sha = gr.git("rev-parse", "HEAD").strip()
    hist = read_git_history(gr.root, REPO)

    (pr,) = hist.pulls
    assert (pr.number, pr.title, pr.body) == (7, "Use Redis for sessions", "Memcached lost data on restart.")
    assert pr.merge_commit_sha == merge_sha and by_sha(hist, merge_sha).pr_number == 7
    assert [(f.path, f.status) for f in pr.files] == [("sessions.py", "added")]
    assert by_sha(hist, branch_sha).pr_number is None
    assert len(hist.commits) == 4


def test_messages_are_kept_verbatim_including_reverts(gr: GitRepo) -> None:
    target = gr.commit("Switch to msgpack (#4)", {"codec.py": "import msgpack\n"})
    gr.git("revert", "--no-edit", target)
    revert_sha = gr.git("rev-parse", "HEAD").strip()
    odd = "  Leading spaces kept  \n\n\n# not a comment\ttab\nTrailing blank lines\n\n\n"
    odd_sha = gr.commit(odd, {"x.txt": "x\n"})
    hist = read_git_history(gr.root, REPO)

    revert = by_sha(hist, revert_sha)
    assert revert.message == gr.message(revert_sha)
    assert revert.message.startswith('Revert "Switch to msgpack (#4)"\n\n')
    assert f"This reverts commit {target}." in revert.message
    assert revert.pr_number is None  # subject ends with a quote, not (#N)
    assert by_sha(hist, odd_sha).message == odd
    assert by_sha(hist, revert_sha).files[0].status == "removed"


def test_message_encodings(gr: GitRepo, tmp_path: Path) -> None:
    msg = tmp_path / "msg.txt"
    msg.write_bytes("Caf\u00e9 menu (#8)\n\nDeclared as Latin-1.\n".encode("latin-1"))
    gr.write("a.txt", "a\n")
    gr.git("add", "-A")
    gr.git("-c", "i18n.commitEncoding=ISO-8859-1", "commit", "-q", "-F", str(msg))
    declared = gr.git("rev-parse", "HEAD").strip()
    # `git commit` would repair the bytes (it re-reads invalid UTF-8 as Latin-1), so write the object directly.
    gr.write("b.txt", "b\n")
    gr.git("add", "-A")
    tree = gr.git("write-tree").strip()
    ident = b"Bo <bo@example.com> 1700000999 +0000"
    raw = b"tree %s\nparent %s\nauthor %s\ncommitter %s\n\nUndeclared caf\xe9 (#9)\n" % (
        tree.encode(),
        declared.encode(),
        ident,
        ident,
    )
    msg.write_bytes(raw)
    obj = gr.git("hash-object", "-t", "commit", "-w", str(msg)).strip()
    gr.git("update-ref", "HEAD", obj)
    broken = gr.git("rev-parse", "HEAD").strip()
    hist = read_git_history(gr.root, REPO)

    assert by_sha(hist, declared).message == "Caf\u00e9 menu (#8)\n\nDeclared as Latin-1.\n"  # re-encoded by git
    assert by_sha(hist, broken).message == "" and by_sha(hist, broken).files[0].path == "b.txt"
    assert [p.number for p in hist.pulls] == [8]
    assert any(broken[:12] in p and "not valid UTF-8" in p for p in hist.problems)


def test_renames_deletes_and_odd_paths(gr: GitRepo) -> None:
    body = "".join(f"line {i}\n" for i in range(40))
    gr.commit("Add files", {"src/old_name.py": body, "gone.txt": "a\nb\nc\n", "keep.txt": "k\n"})
    gr.git("mv", "src/old_name.py", "src/new name ü.py")
    gr.write("src/new name ü.py", body + "line 40\n")
    (gr.root / "gone.txt").unlink()
    odd = 'tab\there "quoted".txt'
    sha = gr.commit("Rename and delete", {odd: "q\n"})
    files = {f.path: f for f in by_sha(read_git_history(gr.root, REPO), sha).files}

    assert set(files) == {"src/new name ü.py", "gone.txt", odd}
    moved = files["src/new name ü.py"]
    assert (moved.status, moved.previous_path, moved.additions, moved.deletions) == ("renamed", "src/old_name.py", 1, 0)
    assert moved.patch.startswith("@@ ") and moved.patch.endswith("+line 40")
    gone = files["gone.txt"]
    assert (gone.status, gone.deletions, gone.previous_path) == ("removed", 3, None)
    assert files[odd].status == "added" and files[odd].patch == "@@ -0,0 +1 @@\n+q"


def test_type_change_mode_change_and_empty_file(gr: GitRepo) -> None:
    gr.commit("Start", {"link": "two\nlines\n", "run.sh": "echo hi\n"})
    (gr.root / "link").unlink()
    (gr.root / "link").symlink_to("run.sh")
    (gr.root / "run.sh").chmod(0o755)
    sha = gr.commit("Symlink, chmod, empty", {"empty.txt": ""})
    hist = read_git_history(gr.root, REPO)
    files = {f.path: f for f in by_sha(hist, sha).files}

    assert [files["link"].status, files["link"].additions, files["link"].deletions] == ["modified", 1, 2]
    assert files["link"].patch == "@@ -1,2 +0,0 @@\n-two\n-lines\n@@ -0,0 +1 @@\n+run.sh\n\\ No newline at end of file"
    assert (files["run.sh"].status, files["run.sh"].patch) == ("modified", "")
    assert (files["empty.txt"].status, files["empty.txt"].patch) == ("added", "")
    assert hist.problems == []


def test_binary_and_undecodable_patches_are_reported(gr: GitRepo) -> None:
    sha = gr.commit(
        "Add assets", {"logo.png": b"\x89PNG\x00\x01\x02binary", "latin.txt": b"caf\xe9\n", "ok.txt": "fine\n"}
    )
    hist = read_git_history(gr.root, REPO)
    files = {f.path: f for f in by_sha(hist, sha).files}

    assert (files["logo.png"].status, files["logo.png"].patch, files["logo.png"].additions) == ("added", "", 0)
    assert files["latin.txt"].patch == "@@ -0,0 +1 @@\n+caf\ufffd"
    assert files["ok.txt"].patch == "@@ -0,0 +1 @@\n+fine"
    assert any("binary file logo.png" in p for p in hist.problems)
    assert any("latin.txt" in p and "UTF-8" in p for p in hist.problems)
    assert not any("ok.txt" in p for p in hist.problems)


def test_patch_is_capped_at_a_line_boundary(gr: GitRepo) -> None:
    lines = [f"value_{i:06d} = {i}\n" for i in range(8000)]  # about 150 KB of added lines
    sha = gr.commit("Big table", {"table.py": "".join(lines)})
    hist = read_git_history(gr.root, REPO)
    (big,) = by_sha(hist, sha).files

    assert big.additions == 8000  # counted before the cut
    assert len(big.patch.encode()) <= PATCH_CAP and big.patch.startswith("@@ -0,0 +1,8000 @@\n")
    assert big.patch.endswith(lines[len(big.patch.splitlines()) - 2].rstrip("\n"))
    assert any("table.py cut at 64 KB" in p for p in hist.problems)


def test_adr_files_are_read_with_the_pr_that_first_added_them(gr: GitRepo) -> None:
    gr.commit("Scaffold", {"docs/readme.md": "# not an ADR\n"})
    gr.commit("Record the database decision (#3)", {"docs/ADR/0001-use-postgres.md": "# Use Postgres\nv1\n"})
    gr.commit("Tidy ADR wording (#5)", {"docs/ADR/0001-use-postgres.md": "# Use Postgres\nv2\n"})
    gr.commit(
        "Direct push of a decision",
        {
            "Architecture/Decisions/0002-queues.markdown": "# Queues\n",
            "adr/nested/0003-cache.md": "# Cache\n",
            "adr/notes.txt": "no\n",
        },
    )
    hist = read_git_history(gr.root, REPO)
    docs = {d.path: d for d in hist.docs}

    assert set(docs) == {
        "docs/ADR/0001-use-postgres.md",
        "Architecture/Decisions/0002-queues.markdown",
        "adr/nested/0003-cache.md",
    }
    assert docs["docs/ADR/0001-use-postgres.md"].text == "# Use Postgres\nv2\n"  # read at HEAD
    assert docs["docs/ADR/0001-use-postgres.md"].added_by_pr == 3
    assert docs["Architecture/Decisions/0002-queues.markdown"].added_by_pr is None
    assert docs["adr/nested/0003-cache.md"].url is None


def test_adr_added_by_a_merge_commit_counts_for_that_pr(gr: GitRepo) -> None:
    gr.commit("Initial", {"README.md": "r\n"})
    gr.git("checkout", "-q", "-b", "adr")
    gr.commit("Write ADR", {"doc/adr/0001-x.md": "# X\n"})
    gr.git("checkout", "-q", "main")
    gr.git("merge", "-q", "--no-ff", "adr", "-m", "Merge pull request #21 from bob/adr\n\nADR for X")
    (doc,) = read_git_history(gr.root, REPO).docs
    assert (doc.path, doc.added_by_pr) == ("doc/adr/0001-x.md", 21)


def test_bots_and_logins(gr: GitRepo) -> None:
    gr.commit(
        "Bump deps (#30)",
        {"req.txt": "a==2\n"},
        author=("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com"),
    )
    gr.commit("Nightly build", {"build.txt": "1\n"}, author=("CI Runner", "ci-bot@example.com"))
    gr.commit("Human change", {"h.txt": "h\n"}, author=("Carol Q", "1234+carolq@users.noreply.github.com"))
    hist = read_git_history(gr.root, REPO)

    assert [c.author for c in hist.commits] == ["carolq", "ci-bot", "dependabot[bot]"]
    assert {p.login: p.is_bot for p in hist.people.values()} == {
        "carolq": False,
        "ci-bot": True,
        "dependabot[bot]": True,
    }
    assert hist.people["carolq"].name == "Carol Q"
    assert hist.pulls[0].author == "dependabot[bot]"
    assert author_login("No Mail", "") == "No Mail"


def test_github_origin_gives_links(gr: GitRepo) -> None:
    sha = gr.commit("Add thing (#2)", {"docs/decisions/0001-thing.md": "# Thing\n"})
    gr.git("remote", "add", "origin", "git@github.com:acme/widgets.git")
    hist = read_git_history(gr.root, REPO)
    assert hist.url == "https://github.com/acme/widgets"
    assert hist.commits[0].url == f"https://github.com/acme/widgets/commit/{sha}"
    assert hist.pulls[0].url == "https://github.com/acme/widgets/pull/2"
    assert hist.docs[0].url == f"https://github.com/acme/widgets/blob/{sha}/docs/decisions/0001-thing.md"


@pytest.mark.parametrize(
    ("remote", "base"),
    [
        ("https://github.com/Kludex/starlette.git", "https://github.com/Kludex/starlette"),
        ("https://token@github.com/a-b/c.d", "https://github.com/a-b/c.d"),
        ("ssh://git@github.com:22/o/n.git", "https://github.com/o/n"),
        ("git@github.com:o/n", "https://github.com/o/n"),
        ("https://gitlab.com/o/n.git", None),
        ("/srv/mirror/n.git", None),
        (None, None),
    ],
)
def test_github_base_url(remote: str | None, base: str | None) -> None:
    assert github_base_url(remote) == base


def test_pr_ref_and_helpers() -> None:
    assert pr_ref("Fix (#1) and more") is None
    assert pr_ref('Revert "Add x (#3)" (#9)\n\nThis reverts commit abc.') == pr_ref(
        'Revert "Add x (#3)" (#9)\r\n\r\nThis reverts commit abc.'
    )
    ref = pr_ref('Revert "Add x (#3)" (#9)\n\nThis reverts commit abc.')
    assert ref is not None and (ref.number, ref.title, ref.body) == (
        9,
        'Revert "Add x (#3)"',
        "This reverts commit abc.",
    )
    assert unquote_c(b'"tab\\there \\"q\\" \\303\\274"') == 'tab\there "q" ü'.encode()
    assert is_adr_path("DOCS/Adr/x.MD") and not is_adr_path("src/docs/adr/x.md") and not is_adr_path("adr/x.txt")


def test_max_commits_is_honoured(gr: GitRepo) -> None:
    shas = [gr.commit(f"Change {i} (#{i + 1})", {"f.txt": f"{i}\n"}) for i in range(5)]
    hist = read_git_history(gr.root, REPO, max_commits=3)
    assert [c.sha for c in hist.commits] == shas[::-1][:3]
    assert [p.number for p in hist.pulls] == [5, 4, 3]
    with pytest.raises(InvalidInput, match="max_commits"):
        read_git_history(gr.root, REPO, max_commits=0)


def test_not_a_work_tree_is_a_clear_error(tmp_path: Path, gr: GitRepo) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(GitSourceError, match="not a git work tree"):
        read_git_history(plain, REPO)
    with pytest.raises(GitSourceError, match="does not exist"):
        read_git_history(tmp_path / "missing", REPO)
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(GitSourceError, match="not a folder"):
        read_git_history(tmp_path / "file.txt", REPO)
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "bare.git")], check=True)
    with pytest.raises(GitSourceError, match="not a git work tree"):
        read_git_history(tmp_path / "bare.git", REPO)
    with pytest.raises(GitSourceError, match="no commits yet"):
        read_git_history(gr.root, REPO)


def test_subfolder_reads_the_whole_repository(gr: GitRepo) -> None:
    gr.commit("One", {"pkg/a.py": "a\n", "docs/adr/0001.md": "# A\n"})
    hist = read_git_history(gr.root / "pkg", REPO)
    assert len(hist.commits) == 1 and [d.path for d in hist.docs] == ["docs/adr/0001.md"]


def test_shallow_clone_edge_does_not_claim_the_whole_tree(gr: GitRepo, tmp_path: Path) -> None:
    gr.commit("Add ADR (#1)", {"docs/adr/0001-a.md": "# A\n", "lib.py": "x = 1\n"})
    gr.commit("Second (#2)", {"lib.py": "x = 2\n"})
    gr.commit("Third (#3)", {"lib.py": "x = 3\n"})
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{gr.root}", str(clone)], check=True)
    hist = read_git_history(clone, REPO)

    assert [(c.pr_number, [f.path for f in c.files]) for c in hist.commits] == [(3, ["lib.py"]), (2, [])]
    assert [p.number for p in hist.pulls] == [3, 2] and hist.pulls[1].files == []
    assert [(d.path, d.added_by_pr) for d in hist.docs] == [("docs/adr/0001-a.md", None)]
    assert any("shallow clone" in p for p in hist.problems)


@pytest.mark.parametrize("bad", ["not a repo", "a/b/c", "owner/", "../x", "a__b/c"])
def test_bad_repo_name_is_rejected_before_reading(gr: GitRepo, bad: str) -> None:
    with pytest.raises(InvalidRepoName):
        read_git_history(gr.root, bad)


@given(st.lists(st.binary(max_size=12), max_size=8), st.integers(min_value=1, max_value=9))
def test_split_stream_matches_bytes_split_at_any_chunk_size(pieces: list[bytes], chunk: int) -> None:
    sep = b"\x00RGab\x00"
    data = sep.join(pieces)
    assert list(_split_stream(io.BytesIO(data), sep, chunk=chunk)) == data.split(sep)


def _fast_import(root: Path, n: int) -> None:
    """Build an n-commit history in one git fast-import call (committing one by one would take minutes)."""
    chunks = []
    for i in range(n):
        msg = (f"Change number {i} (#{i + 1})\n\nBecause reason {i}.\n" if i % 2 else f"Plain commit {i}\n").encode()
        blob = "".join(f"row {j} of file {i % 7} at {i}\n" for j in range(i % 5 + 1)).encode()
        chunks += [
            b"commit refs/heads/main\n",
            f"committer Dev {i % 9} <dev{i % 9}@example.com> {1_600_000_000 + i * 60} +0000\n".encode(),
            f"data {len(msg)}\n".encode(),
            msg,
            f"M 100644 inline src/mod_{i % 7}.py\ndata {len(blob)}\n".encode(),
            blob,
            b"\n",
        ]
        if i % 50 == 1:
            adr = f"# ADR {i}\n".encode()
            chunks += [f"M 100644 inline docs/adr/{i:04d}.md\ndata {len(adr)}\n".encode(), adr, b"\n"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "fast-import", "--quiet"], input=b"".join(chunks), check=True)
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "main"], check=True)


@pytest.mark.slow
def test_reads_two_thousand_commits_fast(tmp_path: Path) -> None:
    root = tmp_path / "big"
    _fast_import(root, 2000)
    seen: list[str] = []
    t0 = time.perf_counter()
    hist = read_git_history(root, REPO, progress=seen.append)
    secs = time.perf_counter() - t0
    rate = len(hist.commits) / secs
    print(
        f"\nread {len(hist.commits)} commits, {len(hist.pulls)} PRs, {len(hist.docs)} ADRs "
        f"in {secs:.2f} s = {rate:.0f} commits/s"
    )

    assert len(hist.commits) == 2000 and len(hist.pulls) == 1000 and len(hist.docs) == 40
    assert all(c.files and c.files[0].patch.startswith("@@") for c in hist.commits)
    assert sorted(d.added_by_pr or 0 for d in hist.docs) == list(range(2, 2001, 50))
    assert len(seen) == 11 and seen[0] == "git: read 200 of 2000 commits"
    assert rate >= 500, f"only {rate:.0f} commits/s"


def _branch_merge(gr: GitRepo) -> tuple[str, str, str]:
    """main and a maintenance branch; the branch's fix reaches main by ``Merge branch '2.0.x'`` (no PR named)."""
    gr.commit("Initial", {"app/static.py": "def serve(path):\n    return open(path).read()\n"})
    gr.git("checkout", "-q", "-b", "2.0.x")
    fix = gr.commit(
        "Reject absolute paths in serve, because open() would read any file on the machine",
        {
            "app/static.py": "def serve(path):\n    if path.startswith('/'):\n        raise ValueError(path)\n"
            "    return open(path).read()\n"
        },
    )
    pr_merge = gr.commit("Merge pull request #9 from bob/docs\n\nDocument serve", {"docs/serve.md": "serve\n"})
    gr.git("checkout", "-q", "main")
    gr.commit("Add a changelog on main", {"CHANGES.md": "# changes\n"})
    gr.git("merge", "-q", "--no-ff", "2.0.x", "-m", "Merge branch '2.0.x'")
    return fix, pr_merge, gr.git("rev-parse", "HEAD").strip()


def test_a_branch_merge_is_read_through_to_the_commits_that_wrote_its_lines(gr: GitRepo) -> None:
    fix, pr_merge, merge = _branch_merge(gr)
    walked = read_git_history(gr.root, REPO, first_parent=True)
    assert by_sha(walked, merge).branch_merge and by_sha(walked, merge).parents[0] != fix
    assert by_sha(walked, fix).merged_by == merge and by_sha(walked, pr_merge).merged_by == merge
    assert [p.number for p in walked.pulls] == [9]  # the branch's own PR is read too
    everything = read_git_history(gr.root, REPO)
    assert by_sha(everything, merge).branch_merge and by_sha(everything, fix).merged_by is None
    assert not any(c.branch_merge for c in walked.commits if c.sha != merge)


def test_a_branch_merge_whose_branch_is_itself_a_merge_is_read_through(gr: GitRepo) -> None:
    """zod's ``Merge branch 'master' of github.com:…`` brought in only ``Merge branch 'jauco-master'``: the commit
    that wrote the lines sits one merge further in, and nothing of the mainline is read twice."""
    gr.commit("Initial", {"a.py": "A = 1\n"})
    gr.git("checkout", "-q", "-b", "upstream")
    gr.git("checkout", "-q", "-b", "contributor")
    wrote = gr.commit("Make A configurable, because deployments differ", {"a.py": "A = int(env('A', 1))\n"})
    gr.git("checkout", "-q", "upstream")
    gr.commit("Note upstream", {"b.py": "B = 2\n"})
    gr.git("merge", "-q", "--no-ff", "contributor", "-m", "Merge branch 'contributor'")
    gr.git("checkout", "-q", "main")
    on_main = gr.commit("Work on main", {"c.py": "C = 3\n"})
    gr.git("merge", "-q", "--no-ff", "upstream", "-m", "Merge branch 'master' of github.com:acme/widgets")
    merge = gr.git("rev-parse", "HEAD").strip()
    walked = read_git_history(gr.root, REPO, first_parent=True)
    brought = {c.message.split("\n")[0]: c.merged_by for c in walked.commits if c.merged_by}
    assert brought == {"Make A configurable, because deployments differ": merge, "Note upstream": merge}
    assert by_sha(walked, merge).branch_merge and by_sha(walked, wrote).merged_by == merge
    assert [c.sha for c in walked.commits].count(on_main) == 1

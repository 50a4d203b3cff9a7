"""Hostile and malformed snapshot folders, built by the tests: each is refused with exit 2 and a one-line message
naming the file (and field) to fix, and the graph already there is left exactly as it was. Oddities that lose only
a record are ingested and listed as problems in the coverage report."""

from __future__ import annotations

import json
import os
import shutil
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from rguard_core.commands.main import main
from rguard_core.db import Store
from rguard_core.explore.graph_export import export_graph

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "snapshot" / "repos" / "acme" / "ledger"
ADR = "contents/docs/adr/0001-deny-by-default.md"


@contextmanager
def deadline(seconds: int, root: Path) -> Iterator[None]:
    """Fail (instead of hanging the suite) if the block blocks: a FIFO must never be opened. A reader stuck on
    one of the snapshot's FIFOs (in a worker thread) is released by opening its write end, then the test fails."""

    def boom(*_: Any) -> None:
        for p in root.rglob("*"):
            if p.is_fifo():
                try:
                    os.close(os.open(p, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:
                    pass
        raise TimeoutError(f"still running after {seconds} s: a hostile file was read")

    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def copy_ledger(root: Path, repo: str) -> Path:
    d = root / "repos" / repo
    shutil.copytree(FIXTURE, d)
    return d


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data), encoding="utf-8")


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def edit(rel: str, change: Callable[[Any], Any]) -> Callable[[Path], None]:
    def apply(d: Path) -> None:
        write_json(d / rel, change(read_json(d / rel)))

    return apply


def drop(key: str) -> Callable[[Any], Any]:
    return lambda obj: {k: v for k, v in obj.items() if k != key}


def put(key: str, value: Any) -> Callable[[Any], Any]:
    return lambda obj: {**obj, key: value}


def put_item(key: str, value: Any) -> Callable[[Any], Any]:
    return lambda items: [{**items[0], key: value}, *items[1:]]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def ingested(store: Store, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any]]:
    """A good ledger snapshot ingested once; every hostile copy below targets the same repository."""
    import uuid

    repo = f"hostile{uuid.uuid4().hex[:8]}/ledger"
    root = tmp_path_factory.mktemp("good")
    copy_ledger(root, repo)
    assert main(["ingest", "snapshot", str(root), "--json", "--quiet"]) == 0
    return repo, export_graph(store, repo)


def outside_link(d: Path, rel: str, target: Path) -> None:
    (d / rel).unlink()
    os.symlink(target, d / rel)


def traversal(d: Path) -> None:
    edit("pulls/12/files.json", put_item("filename", "docs/adr/../../../../../../etc/hostname.md"))(d)


def absolute(d: Path) -> None:
    secret = d.parent.parent.parent.parent / "secret" / "docs" / "adr" / "x.md"
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_text("# Secret\n\nDecision: leak it.\n")
    edit("pulls/12/files.json", put_item("filename", str(secret)))(d)


def symlink_out(d: Path) -> None:
    secret = d.parent.parent.parent.parent / "secret.md"
    secret.write_text("# Secret\n\nDecision: we store passwords in plain text.\n")
    outside_link(d, ADR, secret)


def dev_zero(d: Path) -> None:
    outside_link(d, "pulls/10/files.json", Path("/dev/zero"))


def fifo(d: Path) -> None:
    (d / "pulls/10/comments.json").unlink()
    os.mkfifo(d / "pulls/10/comments.json")


def fifo_inside_link(d: Path) -> None:
    os.mkfifo(d / "pipe")
    outside_link(d, "pulls/11/files.json", d / "pipe")


def loop(d: Path) -> None:
    (d / ADR).unlink()
    os.symlink(d / ADR, d / ADR)


def huge_doc(d: Path) -> None:
    with (d / ADR).open("r+b") as fh:  # sparse: a 6 MB file that takes no disk or time
        fh.truncate(6 * 1024 * 1024)


def huge_record(d: Path) -> None:
    with (d / "pulls/10/files.json").open("r+b") as fh:
        fh.truncate(200 * 1024 * 1024)


def non_utf8_adr(d: Path) -> None:
    (d / ADR).write_bytes(b"# Deny by default\n\nCaf\xe9 decision \xff\xfe\n")


def non_utf8_json(d: Path) -> None:
    (d / "pulls/10.json").write_bytes((d / "pulls/10.json").read_bytes().replace(b"Keep", b"K\xe9ep"))


def not_json(d: Path) -> None:
    (d / "pulls/11.json").write_text('{"number": 11, "title": ', encoding="utf-8")


CASES: list[tuple[str, Callable[[Path], None], list[str]]] = [
    ("pr without number", edit("pulls/10.json", drop("number")), ["pulls/10.json", "'number'"]),
    ("number is text", edit("pulls/10.json", put("number", "abc")), ["pulls/10.json", "'number'", "'abc'"]),
    ("number is negative", edit("pulls/10.json", put("number", -10)), ["pulls/10.json", "'number'"]),
    ("number is huge", edit("pulls/10.json", put("number", 10**30)), ["pulls/10.json", "'number'"]),
    ("number is a boolean", edit("pulls/10.json", put("number", True)), ["pulls/10.json", "'number'"]),
    ("pr file holds a list", edit("pulls/10.json", lambda pr: [pr]), ["pulls/10.json", "pull request"]),
    ("user is a string", edit("pulls/10.json", put("user", "someone")), ["pulls/10.json", "'user'"]),
    ("user login is a number", edit("pulls/10.json", put("user", {"login": 7})), ["pulls/10.json", "'user.login'"]),
    ("body is a number", edit("pulls/10.json", put("body", 12345)), ["pulls/10.json", "'body'", "12345"]),
    ("title is a list", edit("pulls/11.json", put("title", ["x"])), ["pulls/11.json", "'title'"]),
    ("merged_at is a number", edit("pulls/10.json", put("merged_at", 12)), ["pulls/10.json", "'merged_at'"]),
    ("merged_at is not a time", edit("pulls/10.json", put("merged_at", "yesterday")), ["'merged_at'", "ISO 8601"]),
    ("files.json is a dict", edit("pulls/10/files.json", lambda fs: {"files": fs}), ["pulls/10/files.json", "list"]),
    (
        "files.json holds strings",
        edit("pulls/10/files.json", lambda fs: ["ledger/pricing.py"]),
        ["pulls/10/files.json", "item 0"],
    ),
    (
        "additions is text",
        edit("pulls/10/files.json", put_item("additions", "many")),
        ["pulls/10/files.json", "'additions'", "'many'"],
    ),
    ("filename missing", edit("pulls/10/files.json", put_item("filename", None)), ["'filename'"]),
    ("patch is a number", edit("pulls/10/files.json", put_item("patch", 3)), ["'patch'"]),
    ("comment is an int", edit("pulls/10/comments.json", lambda cs: [*cs, 5]), ["pulls/10/comments.json", "item"]),
    (
        "comment body is an int",
        edit("pulls/10/comments.json", lambda cs: [{"body": 5}]),
        ["pulls/10/comments.json", "'body'"],
    ),
    ("issue labels is a string", edit("issues/1.json", put("labels", "bug")), ["issues/1.json", "'labels'"]),
    ("repo.json is a list", edit("repo.json", lambda r: [r]), ["repo.json"]),
    ("traversal in a file name", traversal, ["pulls/12/files.json", "'filename'", "relative path"]),
    ("absolute file name", absolute, ["pulls/12/files.json", "'filename'", "relative path"]),
    ("symlink out of the snapshot", symlink_out, ["0001-deny-by-default.md", "outside the snapshot"]),
    ("/dev/zero symlink", dev_zero, ["pulls/10/files.json", "outside the snapshot", "/dev/zero"]),
    ("FIFO", fifo, ["pulls/10/comments.json", "FIFO"]),
    ("symlink to a FIFO inside", fifo_inside_link, ["pulls/11/files.json", "FIFO"]),
    ("symlink loop", loop, ["0001-deny-by-default.md", "cannot read"]),
    ("huge document", huge_doc, ["0001-deny-by-default.md", "6,291,456 bytes", "limit"]),
    ("huge record", huge_record, ["pulls/10/files.json", "209,715,200 bytes", "limit"]),
    ("non-UTF-8 ADR", non_utf8_adr, ["0001-deny-by-default.md", "UTF-8", "0xe9"]),
    ("non-UTF-8 JSON", non_utf8_json, ["pulls/10.json", "UTF-8"]),
    ("truncated JSON", not_json, ["pulls/11.json", "not valid JSON"]),
    (
        "deeply nested JSON",
        lambda d: (d / "pulls/11/comments.json").write_text("[" * 100_000 + "]" * 100_000),
        ["pulls/11/comments.json", "nests too deeply"],
    ),
    (
        "number with 5000 digits",
        lambda d: (d / "pulls/11.json").write_text('{"number": ' + "9" * 5000 + "}"),
        ["pulls/11.json", "not valid JSON"],
    ),
]


@pytest.mark.parametrize("name, spoil, words", CASES, ids=[c[0] for c in CASES])
def test_hostile_snapshot_is_refused_and_the_graph_is_unchanged(
    store: Store,
    ingested: tuple[str, dict[str, Any]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    spoil: Callable[[Path], None],
    words: list[str],
) -> None:
    repo, before = ingested
    root = tmp_path / "snap"
    spoil(copy_ledger(root, repo))
    with deadline(30, root):
        code, out, err = run(["ingest", "snapshot", str(root), "--json", "--quiet"], capsys)
    assert code == 2, f"{name}: exit {code}\n{err}"
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for w in words:
        assert w in lines[0], f"{name}: {w!r} not in {lines[0]!r}"
    assert "Traceback" not in err and out == ""
    assert export_graph(store, repo) == before, f"{name}: the graph changed"


def test_snapshot_file_text_never_reads_outside(tmp_path: Path) -> None:
    """The source itself (not only the record check) refuses paths that leave the snapshot."""
    from rguard_core.errors import BadRecord, SnapshotError
    from rguard_core.ingest.rest import SnapshotSource

    copy_ledger(tmp_path, "acme/ledger")
    src = SnapshotSource(tmp_path)
    assert src.file_text("docs/adr/0001-deny-by-default.md")
    for bad in ("/etc/hostname", "docs/adr/../../../../../../etc/hostname", "..\\..\\etc\\hostname"):
        with pytest.raises(BadRecord, match="relative path"):
            src.file_text(bad)
    os.symlink("/etc", tmp_path / "repos/acme/ledger/contents/docs/etc")
    with pytest.raises(SnapshotError, match="outside the snapshot"):
        src.file_text("docs/etc/hostname")
    assert src.file_text("docs/adr/missing.md") is None


def test_nul_and_control_characters_are_cleaned_and_quotes_stay_exact(
    store: Store, tmp_path: Path, repo_name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A PR body with a NUL (and other controls, and a lone surrogate) used to fail the ingest half way."""
    d = copy_ledger(tmp_path, repo_name)
    pr = read_json(d / "pulls/10.json")
    pr["body"] = pr["body"].replace("Unknown cost", "Unknown\x00 cost\x07\x1b") + " \ud800end\x7f"
    pr["title"] = "Keep\x00 unknown prices as None"
    write_json(d / "pulls/10.json", pr)
    comments = read_json(d / "pulls/10/comments.json")
    write_json(d / "pulls/10/comments.json", [*comments, {"body": "a\x00b\tc\r\nd", "user": {"login": "nul\x00guy"}}])
    code, out, err = run(["ingest", "snapshot", str(tmp_path), "--json", "--quiet"], capsys)
    assert code == 0, err
    g = store.repo_graph(repo_name)
    texts = [r["t"] for r in g.read("MATCH (s:Source) RETURN s.text AS t") if r["t"]]
    assert texts and not any(c in t for t in texts for c in "\x00\x07\x1b\x7f\ud800")
    assert any("a\tb" not in t and "ab\tc\r\nd" in t for t in texts), "tab, CR and LF are kept"
    (row,) = g.read("MATCH (s:Source {id: 'pr:10'}) RETURN s.title AS title, s.text AS text")
    assert row["title"] == "Keep unknown prices as None" and "Unknown cost" in row["text"]
    rows = g.read(
        "MATCH (x)-[:EVIDENCED_BY]->(f:Fragment)<-[:HAS_FRAGMENT]-(s:Source) "
        "RETURN x.quote AS q, x.start AS a, x.end AS b, s.text AS t"
    )
    assert any(r["q"].startswith("Unknown cost") for r in rows)
    for r in rows:
        assert r["t"][r["a"] : r["b"]] == r["q"], "offsets point into the cleaned, stored text"
    (state,) = g.read("MATCH (r:Repo) RETURN r.ingest_state AS s")
    assert state["s"] == "complete"
    assert [p["login"] for p in g.read("MATCH (p:Person {login: 'nulguy'}) RETURN p.login AS login")] == ["nulguy"]


def test_snapshot_oddities_are_problems_in_the_coverage_report(
    data_dir: Path, tmp_path: Path, repo_name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    d = copy_ledger(tmp_path, repo_name)
    write_json(d / "pulls/12.json", {**read_json(d / "pulls/12.json"), "number": 99})  # name disagrees with number
    shutil.copy(d / "pulls/11.json", d / "pulls/011.json")  # two files for one PR
    (d / "pulls/13.json").write_text("null", encoding="utf-8")  # a null PR file
    (d / "pulls/notes.json").write_text("{}", encoding="utf-8")  # not a PR file name
    (d / "pulls/\u0661\u0662.json").write_text("{}", encoding="utf-8")  # Arabic-Indic digits are not a number here
    (d / "issues/2.json").write_text(json.dumps({**read_json(d / "issues/2.json"), "number": 3}), encoding="utf-8")
    code, out, err = run(["ingest", "snapshot", str(tmp_path), "--json", "--quiet"], capsys)
    assert code == 0, err
    cov = json.loads(out)["coverage"]
    problems = "\n".join(cov["problems"])
    assert "pulls/12.json holds PR #99, not #12" in problems
    assert "pulls/011.json and pulls/11.json are both PR #11; read pulls/11.json only" in problems
    assert "pulls/13.json holds null" in problems
    assert "pulls/notes.json is not named <number>.json" in problems
    assert "pulls/\u0661\u0662.json is not named <number>.json" in problems
    assert "issues/2.json holds #3, not #2" in problems
    assert cov["pulls"] == 4  # 10, 11 (once), 14, 15: the odd ones are left out, not guessed
    code, out, _ = run(["ingest", "snapshot", str(tmp_path), "--quiet"], capsys)
    assert code == 0 and f"problems: {len(cov['problems'])}" in out and "pulls/13.json holds null" in out, out


@pytest.mark.parametrize("layout", ["pulls is a file", "empty"])
def test_a_snapshot_without_prs_says_so(
    data_dir: Path, tmp_path: Path, repo_name: str, capsys: pytest.CaptureFixture[str], layout: str
) -> None:
    d = tmp_path / "repos" / repo_name
    d.mkdir(parents=True)
    write_json(d / "repo.json", {"full_name": repo_name, "html_url": f"https://github.com/{repo_name}"})
    if layout == "pulls is a file":
        (d / "pulls").write_text("[]", encoding="utf-8")
    code, out, err = run(["ingest", "snapshot", str(tmp_path), "--json", "--quiet"], capsys)
    assert code == 0, err
    problems = json.loads(out)["coverage"]["problems"]
    assert any("holds no pull requests" in p for p in problems)
    if layout == "pulls is a file":
        assert any("pulls is a file, not a folder" in p for p in problems)


def test_a_linked_repository_folder_is_read_but_links_below_it_must_stay_inside(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Assembling a snapshot from folders kept elsewhere is fine; a file inside that leaves them is not."""
    import uuid

    kept = tmp_path / "kept"
    copy_ledger(kept, "acme/ledger")
    owner = f"link{uuid.uuid4().hex[:8]}"
    root = tmp_path / "snap"
    (root / "repos" / owner).mkdir(parents=True)
    (root / "repos" / owner / "ledger").symlink_to(kept / "repos/acme/ledger", target_is_directory=True)
    code, _, err = run(["ingest", "snapshot", str(root), "--json", "--quiet"], capsys)
    assert code == 0, err
    symlink_out(kept / "repos/acme/ledger")
    code, _, err = run(["ingest", "snapshot", str(root), "--json", "--quiet"], capsys)
    assert code == 2 and "outside the snapshot" in err
    (root / "repos" / "evil").mkdir()
    (root / "repos" / "evil" / "everything").symlink_to("/", target_is_directory=True)
    code, _, err = run(["ingest", "snapshot", str(root), "--repo", "evil/everything", "--quiet"], capsys)
    assert code == 2 and "filesystem root" in err


def test_the_skipped_files_report_never_opens_a_fifo_and_does_not_repeat_oddities(
    data_dir: Path, tmp_path: Path, repo_name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    d = copy_ledger(tmp_path, repo_name)
    os.mkfifo(d / "issues" / "77.json")  # an issue no PR links to: only listed, never opened
    (d / "pulls/notes.json").write_text("{}", encoding="utf-8")
    (d / "pulls/\u00b2.json").write_text(
        "{}", encoding="utf-8"
    )  # a superscript two: a digit to isdigit(), not to int()
    with deadline(30, tmp_path):
        code, out, err = run(["ingest", "snapshot", str(tmp_path), "--json", "--quiet"], capsys)
    assert code == 0, err
    problems = json.loads(out)["coverage"]["problems"]
    assert sum("pulls/notes.json" in p for p in problems) == 1
    assert any("issues/77.json" in p for p in problems)

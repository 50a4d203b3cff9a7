"""Eval run history: appended JSON lines with time, git sha and judge; damaged lines are skipped, not lost."""

from __future__ import annotations

import re
from pathlib import Path
from threading import Thread

import pytest

from rguard_core.config import Settings
from rguard_core.errors import InvalidInput
from rguard_core.evaluation.history import append_run, current_run, git_sha, history_path, list_runs


def _settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path)


def test_runs_come_back_newest_first_and_filtered(tmp_path: Path) -> None:
    s = _settings(tmp_path)
    for i in range(3):
        append_run(s, "guard", {"at": f"t{i}", "repo": "a/b" if i != 1 else "c/d", "n": i})
    assert [r["n"] for r in list_runs(s, "guard").runs] == [2, 1, 0]
    assert [r["n"] for r in list_runs(s, "guard", where={"repo": "a/b"}).runs] == [2, 0]
    assert [r["n"] for r in list_runs(s, "guard", limit=1).runs] == [2]
    assert list_runs(s, "memory").runs == []
    assert history_path(s, "guard") == tmp_path / "eval" / "guard.jsonl"


def test_damaged_lines_are_skipped_and_kept(tmp_path: Path) -> None:
    s = _settings(tmp_path)
    append_run(s, "memory", {"n": 1})
    path = history_path(s, "memory")
    with path.open("a") as fh:
        fh.write('{"n": 2, "trunc\n[1, 2]\n\n')
    append_run(s, "memory", {"n": 3})
    hist = list_runs(s, "memory")
    assert [r["n"] for r in hist.runs] == [3, 1]
    assert hist.skipped == 2
    assert '"trunc' in path.read_text()  # nothing is rewritten


def test_concurrent_appends_never_interleave(tmp_path: Path) -> None:
    s = _settings(tmp_path)
    big = "x" * 20_000  # larger than a pipe buffer, so unlocked writes could interleave

    def writer(k: int) -> None:
        for i in range(20):
            append_run(s, "guard", {"k": k, "i": i, "pad": big})

    threads = [Thread(target=writer, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    hist = list_runs(s, "guard", limit=1000)
    assert hist.skipped == 0 and len(hist.runs) == 80


def test_unknown_kind_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="unknown eval kind"):
        list_runs(_settings(tmp_path), "speed")


def test_run_info_has_time_and_the_checked_out_commit() -> None:
    info = current_run("offline")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", info.at)
    sha = git_sha()
    assert sha is not None and re.fullmatch(r"[0-9a-f]{40}(-dirty)?", sha)
    assert info.as_dict() == {"at": info.at, "git_sha": info.git_sha, "judge": "offline"}


def test_git_sha_outside_a_checkout_is_none(tmp_path: Path) -> None:
    assert git_sha(tmp_path) is None

"""eval/cases.yaml: the labelled acme/tollgate diffs are well formed, cover every story line and apply to the seed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from unidiff import PatchSet

ROOT = Path(__file__).resolve().parent.parent
CASES_FILE = ROOT / "eval" / "cases.yaml"
SEED = ROOT / "seeds" / "demo"
PULLS = SEED / "github" / "repos" / "acme" / "tollgate" / "pulls"

MIN_PER_KIND = {
    "cue-word": 10,
    "paraphrase": 10,
    "multi-file": 5,
    "revert": 5,
    "benign-same-file": 10,
    "benign-other-file": 8,
}
LABEL_OF_KIND = {
    "cue-word": "contradicts",
    "paraphrase": "contradicts",
    "multi-file": "contradicts",
    "revert": "contradicts",
    "benign-same-file": "benign",
    "benign-other-file": "benign",
}


def _load() -> dict[str, Any]:
    return yaml.safe_load(CASES_FILE.read_text(encoding="utf-8"))


DATA = _load()
CASES: list[dict[str, Any]] = DATA["cases"]
STORY = json.loads((SEED / "story.json").read_text(encoding="utf-8"))
DECISION_PR = {s["id"]: s["decision_pr"] for s in STORY["stories"]}
IDS = [c["id"] for c in CASES]


def _files_of(pr: int) -> set[str]:
    return {f["filename"] for f in json.loads((PULLS / str(pr) / "files.json").read_text(encoding="utf-8"))}


def _merged(pr: int) -> bool:
    return bool(json.loads((PULLS / f"{pr}.json").read_text(encoding="utf-8")).get("merged_at"))


# Files any merged decision PR touched: a benign-other-file case must stay clear of all of them.
DECISION_FILES = set().union(*(_files_of(pr) for pr in DECISION_PR.values() if _merged(pr)))


def _touched(diff: str) -> set[str]:
    return {
        (f.target_file if f.is_added_file else f.source_file).removeprefix("a/").removeprefix("b/")
        for f in PatchSet(diff)
    }


@pytest.fixture(scope="module")
def seed_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Outside any repository, so git apply resolves paths against this copy, not /work/main.
    base = tmp_path_factory.mktemp("tollgate")
    shutil.copytree(SEED / "tree", base / "tree")
    return base / "tree"


def test_file_header_and_ids() -> None:
    assert DATA["repo"] == "acme/tollgate"
    assert len(CASES) >= 48
    dupes = [i for i, n in Counter(IDS).items() if n > 1]
    assert not dupes, f"duplicate ids: {dupes}"


def test_kinds_labels_and_minimum_counts() -> None:
    for case in CASES:
        assert case["kind"] in LABEL_OF_KIND, case["id"]
        assert case["label"] == LABEL_OF_KIND[case["kind"]], case["id"]
        assert isinstance(case["why"], str) and case["why"].strip(), case["id"]
    counts = Counter(c["kind"] for c in CASES)
    short = {k: (counts[k], n) for k, n in MIN_PER_KIND.items() if counts[k] < n}
    assert not short, f"kinds below their minimum (have, need): {short}"


def test_contradicting_cases_name_an_existing_decision_pr() -> None:
    for case in CASES:
        if case["label"] != "contradicts":
            assert "expect_source" not in case, case["id"]
            continue
        pr = case["expect_source"]
        assert isinstance(pr, int) and (PULLS / f"{pr}.json").is_file(), f"{case['id']}: no PR {pr!r} in the snapshot"
        assert case["story"] in DECISION_PR, case["id"]
        assert DECISION_PR[case["story"]] == pr, (
            f"{case['id']}: story {case['story']} is decided in #{DECISION_PR[case['story']]}"
        )


def test_contradicting_cases_cover_every_story_line() -> None:
    covered = Counter(c["story"] for c in CASES if c["label"] == "contradicts")
    missing = sorted(set(DECISION_PR) - set(covered))
    assert not missing, f"story lines without a contradicting case: {missing}"
    thin = {s: n for s, n in covered.items() if n < 3}
    assert not thin, f"story lines with fewer than 3 contradicting cases: {thin}"


def test_every_adr_is_touched_by_a_contradicting_case() -> None:
    adrs = {str(p.relative_to(SEED / "tree")) for p in (SEED / "tree" / "docs" / "adr").glob("*.md")}
    touched = set().union(*(_touched(c["diff"]) for c in CASES if c["label"] == "contradicts"))
    assert adrs and not adrs - touched, f"ADRs no contradicting case touches: {sorted(adrs - touched)}"


def test_no_two_diffs_are_identical() -> None:
    seen: dict[str, str] = {}
    for case in CASES:
        key = case["diff"].strip()
        assert key not in seen, f"{case['id']} repeats the diff of {seen.get(key)}"
        seen[key] = case["id"]


@pytest.mark.parametrize("cid", IDS)
def test_diff_parses_and_touches_the_right_files(cid: str) -> None:
    case = CASES[IDS.index(cid)]
    patch = PatchSet(case["diff"])
    assert len(patch) >= 1 and all(len(f) >= 1 for f in patch), "every file needs a hunk"
    assert sum(f.added + f.removed for f in patch) > 0
    files = _touched(case["diff"])
    if case["kind"] == "multi-file":
        assert len(files) >= 2, files
    if case["kind"] == "benign-same-file":
        assert files & DECISION_FILES, f"touches no decision-carrying file: {files}"
    if case["kind"] == "benign-other-file":
        assert not files & DECISION_FILES, f"touches files a decision PR changed: {files & DECISION_FILES}"


@pytest.mark.parametrize("cid", IDS)
def test_diff_applies_to_the_seed_tree(cid: str, seed_copy: Path) -> None:
    diff = CASES[IDS.index(cid)]["diff"]
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(seed_copy.parent)}
    res = subprocess.run(
        ["git", "apply", "--check", "-"],
        input=diff.encode(),
        cwd=seed_copy,
        env=env,
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert res.returncode == 0, res.stderr.decode(errors="replace")


def test_project_loader_accepts_the_file() -> None:
    from rguard_core.evaluation import load_cases

    case_set = load_cases(CASES_FILE)
    assert case_set.repo == "acme/tollgate"
    assert [c.id for c in case_set.cases] == IDS
    assert case_set.kinds() == dict(Counter(c["kind"] for c in CASES))

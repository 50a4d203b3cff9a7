"""Cases files: loading, validation errors that name the case, and the git-apply check."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rguard_core.errors import InvalidInput
from rguard_core.evaluation import check_applies, load_cases, parse_cases
from tests.conftest import realdata_or_skip

ROOT = Path(__file__).resolve().parent.parent
LEDGER_CASES = ROOT / "tests" / "fixtures" / "eval" / "ledger_cases.yaml"

DIFF = """diff --git a/app.py b/app.py
--- a/app.py
+++ b/app.py
@@ -1,2 +1,2 @@
 def f():
-    return 1
+    return 2
"""


def _case(**over: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": "c1",
        "label": "contradicts",
        "kind": "revert",
        "expect_source": 7,
        "why": "w",
        "diff": DIFF,
    }
    base.update(over)
    return base


def test_ledger_cases_load_with_kinds_and_expectations() -> None:
    cs = load_cases(LEDGER_CASES)
    assert cs.repo == "acme/ledger"
    assert [c.label for c in cs.cases].count("benign") == 2
    by_id = {c.id: c for c in cs.cases}
    assert by_id["ledger-revert-missing-rate"].expect_source == 10
    assert by_id["ledger-benign-readme-typo"].expect_source is None
    assert cs.kinds() == {"revert": 1, "paraphrase": 1, "benign-same-file": 1, "benign-other-file": 1}


def test_expect_source_accepts_hash_numbers_and_keeps_extra_keys() -> None:
    cs = parse_cases({"repo": "a/b", "cases": [_case(expect_source="#12", base="abc")]})
    assert cs.cases[0].expect_source == 12
    assert cs.cases[0].extra == {"base": "abc"}


@pytest.mark.parametrize(
    "raw, message",
    [
        ([], "expected a mapping"),
        ({"cases": [_case()]}, "missing 'repo"),
        ({"repo": "not a repo", "cases": [_case()]}, "invalid repository name"),
        ({"repo": "a/b", "cases": []}, "non-empty list"),
        ({"repo": "a/b", "cases": [_case(label="maybe")]}, "'label' must be one of"),
        ({"repo": "a/b", "cases": [_case(kind="")]}, "'kind' must be"),
        ({"repo": "a/b", "cases": [_case(expect_source=None)]}, "needs 'expect_source'"),
        ({"repo": "a/b", "cases": [_case(expect_source=True)]}, "must be a number or a string"),
        ({"repo": "a/b", "cases": [_case(), _case()]}, "duplicate case id 'c1'"),
        ({"repo": "a/b", "cases": [_case(diff="just words, no diff")]}, "does not parse"),
        ({"repo": "a/b", "cases": [_case(id="")]}, "'id' must be a non-empty string"),
        ({"repo": "a/b", "cases": ["text"]}, "must be a mapping"),
    ],
)
def test_bad_cases_fail_with_a_message_naming_the_problem(raw: object, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        parse_cases(raw)


def test_benign_case_needs_no_expected_source() -> None:
    cs = parse_cases({"repo": "a/b", "cases": [_case(label="benign", kind="benign-other-file", expect_source=None)]})
    assert cs.cases[0].expect_source is None


def test_unreadable_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="cases file not found"):
        load_cases(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("repo: [unclosed\n")
    with pytest.raises(InvalidInput, match="not valid YAML"):
        load_cases(bad)


def test_check_applies_reports_only_the_diffs_that_do_not_apply(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "app.py").write_text("def f():\n    return 1\n")
    stale = DIFF.replace("-    return 1", "-    return 3")
    cs = parse_cases({"repo": "a/b", "cases": [_case(id="fits"), _case(id="stale", diff=stale)]})
    failures = check_applies(cs, tree)
    assert list(failures) == ["stale"]
    assert (tree / "app.py").read_text() == "def f():\n    return 1\n"  # a check never changes the files
    with pytest.raises(InvalidInput, match="no such folder"):
        check_applies(cs, tmp_path / "missing")


def test_starlette_cases_load_and_cover_every_kind_they_claim() -> None:
    root = realdata_or_skip()
    cs = load_cases(root / "cases" / "starlette.yaml")
    raw = yaml.safe_load((root / "cases" / "starlette.yaml").read_text())
    assert cs.repo == "Kludex/starlette"
    assert len(cs.cases) == len(raw["cases"])
    assert all(c.expect_source is not None for c in cs.cases if c.label == "contradicts")

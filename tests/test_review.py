"""The guard result as a review (rguard_core/review.py, ui/guard_review.py) on the demo seed: findings grouped by
file with their triggering lines, candidates cleared, scores in words, the Cypher with parameter values, and a PR
comment whose untrusted text is escaped; the Guard page shows the summary table and no raw decision ids."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rguard_core.db import Store
from rguard_core.evaluation.cases import load_cases
from rguard_core.guard import run_guard
from rguard_core.guard.diffparse import parse_diff
from rguard_core.review import (
    build_review,
    escape_md,
    implemented_alternatives,
    inline_cypher,
    pr_comment,
    score_words,
)
from rguard_core.seed import DEMO_REPO, load_demo

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def contradicting(store: Store) -> tuple[str, str]:
    load_demo(store)
    cases = load_cases(ROOT / "eval" / "cases.yaml").cases
    return DEMO_REPO, next(c.diff for c in cases if c.kind == "revert" and c.label == "contradicts")


def test_findings_grouped_by_file_with_their_lines(store: Store, contradicting: tuple[str, str]) -> None:
    repo, diff = contradicting
    report = run_guard(store, repo, diff)
    review = build_review(report, diff)
    assert report.verdict == "warn" and review.by_file
    diff_paths = parse_diff(diff).paths
    for path, items in review.by_file.items():
        assert path in diff_paths
        for item in items:
            assert item.lines and all(x.kind in "+-" for x in item.lines)
            assert any(x.hit for x in item.lines)  # the lines that use the decision's words are marked
    rows = review.rows()
    assert rows[0]["finding"] == "contradicts" and not rows[0]["decision"].startswith("decision:")
    assert len(report.cypher_params) == len(report.cypher) and any(report.cypher_params)
    assert all({"decision_id", "summary", "why"} <= set(c) for c in report.cleared)


def test_the_pr_comment_escapes_untrusted_text(store: Store, contradicting: tuple[str, str]) -> None:
    repo, diff = contradicting
    report = run_guard(store, repo, diff)
    f = report.findings[0]
    f.summary = "<img src=x onerror=alert(1)> @admin [click](https://evil.example) **bold**"
    text = pr_comment(report, build_review(report, diff))
    assert not re.search(r"(?<!\\)<img", text) and "[click](" not in text and "**bold**" not in text
    assert "@\u200badmin" in text and "| file | finding | decision | source |" in text
    assert escape_md("a|b `c`") == "a\\|b \\`c\\`"


def test_cypher_with_parameters_scores_in_words_and_alternatives() -> None:
    assert (
        inline_cypher("MATCH (n {id: $id}) RETURN n", {"id": "pr:1", "k": 3})
        == 'CYPHER id="pr:1" k=3\nMATCH (n {id: $id}) RETURN n'
    )
    assert inline_cypher(" RETURN 1 ", {}) == "RETURN 1"
    assert score_words(0.9).startswith("strong") and score_words(0.6).startswith("moderate")
    assert score_words(0.1).startswith("weak")
    diff = (
        "--- a/web.py\n+++ b/web.py\n@@ -1,2 +1,2 @@\n def go(url):\n-    return quote(url)\n"
        "+    return quote_plus(url)\n"
    )
    alts = [
        {
            "text": "We considered `quote_plus` but it turns spaces into +.",
            "quote": "We considered `quote_plus` but it turns spaces into +.",
        },
        {"text": "A regex was rejected.", "quote": "A regex was rejected."},
    ]
    assert implemented_alternatives(parse_diff(diff), alts, "use quote") == [alts[0]["quote"]]


def test_the_guard_page_reads_like_a_review(store: Store, contradicting: tuple[str, str]) -> None:
    _, diff = contradicting
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    at.switch_page("pages/guard.py").run()
    at.text_area(key="guard_diff").input(diff)
    at.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[0].value
    assert {"file", "finding", "decision", "source", "link"} <= set(table.columns)
    labels = [x.label for x in at.expander]
    assert any("Copy as PR comment" in x for x in labels) and any("with parameter values" in x for x in labels)
    assert any(c.value.startswith("CYPHER ") for c in at.code)
    text = " ".join(m.value for m in at.markdown)
    assert "decision:" not in text  # titles, not ids (the id sits in a copy box under the quote)

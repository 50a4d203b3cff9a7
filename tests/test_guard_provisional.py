"""S16's reading of a revert's own words (guard/provisional.py): which sentence says the change comes back."""

from __future__ import annotations

import pytest

from rguard_core.guard.provisional import provisional_words

ZOD = (
    'Revert "fix(v4): reject whitespace in z.base64()"\n\nThis reverts commit 91a7d0d1e0d3.\n\n'
    "That commit landed on main accidentally — it was meant to be pushed to a\nnew branch, so the\npush went there. "
    "The work will be re-applied via PR.\n"
)


@pytest.mark.parametrize(
    ("title", "text", "said"),
    [
        (
            ZOD.split("\n")[0],
            ZOD,
            "That commit landed on main accidentally — it was meant to be pushed to a\nnew branch, so the\npush went there",
        ),
        ("Revert #12", "Reverted for now. It breaks CI", "Reverted for now"),
        (
            "Revert x",
            "Revert x\n\nIt broke CI. Reverting temporarily until the fix lands.",
            "Reverting temporarily until the fix lands",
        ),
        ("Revert x", "Pushed to the wrong branch, sorry", "Pushed to the wrong branch, sorry"),
        ("Revert x", "It broke Windows: paths with a drive letter were refused.", None),
        ("Revert x", "This reverts commit abc. We will not re-apply it: it broke Windows.", None),
        ("Move the checks", "Move the checks, to be re-applied in the mini build later.", None),  # no revert
    ],
)
def test_the_sentence_that_says_the_change_comes_back(title: str, text: str, said: str | None) -> None:
    got = provisional_words(title, text)
    assert got == said
    assert got is None or got in text  # quoted verbatim from the source

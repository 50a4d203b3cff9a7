"""Source text shown as text: the escaping helpers every page uses (the browser test checks the rendered page)."""

from __future__ import annotations

import pytest

from ui.evidence import link, md, visible
from ui.graph_widget import plain

RLO, PDF, ZWSP = "\u202e", "\u202c", "\u200b"


def test_controls_are_shown_not_obeyed() -> None:
    assert visible(f"{RLO}evil{PDF} zero{ZWSP}width") == "⟦U+202E⟧evil⟦U+202C⟧ zero⟦U+200B⟧width"
    assert visible("plain text, ünïcode, 日本語") == "plain text, ünïcode, 日本語"
    assert plain(f"<b>{RLO}x</b> & y") == "‹b›⟦U+202E⟧x‹/b› ＆ y"


@pytest.mark.parametrize(
    "text",
    [
        "![pixel](http://203.0.113.7/p.png)",
        ":red[ALERT]",
        "$\\alpha^2$",
        ":material/warning:",
        "<img src=x>",
        "**bold** _it_ `code` [l](http://x)",
        "# heading",
        "a | b",
        "~~s~~",
    ],
)
def test_markdown_and_directives_are_escaped(text: str) -> None:
    out = md(text)
    # every character Markdown or Streamlit could act on is preceded by a backslash
    for ch in "![]():$<>*_`#|~":
        assert all(out[i - 1] == "\\" for i, c in enumerate(out) if c == ch), (text, out)


def test_links_only_for_plain_http_addresses() -> None:
    assert link("PR #1", "https://github.com/a/b/pull/1") == "[PR \\#1](https://github.com/a/b/pull/1)"
    assert link("x", "javascript:alert(1)") == "x"
    assert link("y", "https://x.com/a)![i](http://e/p.png") == "y"  # a crafted URL cannot smuggle an image
    assert link("z", None) == "z"


def test_only_plain_http_links_become_links() -> None:
    """A snapshot's `javascript:` html_url was shown as an "open" link in the Guard summary and List tables."""
    from rguard_core.untrusted import safe_url
    from ui.evidence import link

    assert safe_url("https://github.com/acme/tollgate/pull/20") == "https://github.com/acme/tollgate/pull/20"
    for bad in ("javascript:alert(1)", "JAVASCRIPT:alert(1)", "data:text/html,x", 'https://x.org/"><b>', "", None):
        assert safe_url(bad) is None
        assert "](" not in link("open", bad)

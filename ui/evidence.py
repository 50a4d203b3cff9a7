"""Showing repository text safely: markdown-escaped snippets, links, and a source with its quotes highlighted."""

from __future__ import annotations

import html
import re

import streamlit as st

from rguard_core.node_detail import SourceText


def md(text: str) -> str:
    """Repository text shown through markdown: every character markdown (or Streamlit's directives, LaTeX and
    HTML) could act on is escaped, so the text reads literally."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])", r"\\\1", " ".join(str(text).split()))


def link(label: str, url: str | None) -> str:
    return f"[{md(label)}]({url})" if url and url.startswith(("http://", "https://")) else md(label)


def show_evidence(ev: SourceText) -> None:
    """The source text with each verified quote highlighted at its stored offsets."""
    body = "".join(f"<mark>{_html(t)}</mark>" if hl else _html(t) for t, hl in ev.pieces())
    st.html(f'<div style="max-height:300px;overflow-y:auto;border:1px solid #ddd;border-radius:6px;padding:8px 10px;'
            f'font-size:0.85rem;line-height:1.45;background:#fafafa">{body}</div>')
    spans = ev.spans
    if spans and all(s.verified for s in spans):
        where = ", ".join(f"{s.start}–{s.end}" for s in spans[:6]) + ("…" if len(spans) > 6 else "")
        st.caption(f"Highlighted: the stored quote(s) at offsets {where} of {link(ev.label, ev.url)} — verified verbatim.")
    elif spans:
        st.error("A stored quote is no longer at its offsets in this source; it is not highlighted.")


def _html(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")

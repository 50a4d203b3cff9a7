"""Showing repository text safely: markdown-escaped snippets, links, and a source with its quotes highlighted."""

from __future__ import annotations

import html
import re

import streamlit as st

from rguard_core.explore.node_detail import SourceText
from rguard_core.untrusted import safe_url
from ui.theme import FRAME, TEXT_BOX

# Bidirectional and invisible formatting characters: an RLO makes "evil" read "live", a zero-width space hides
# inside an identifier. Source text shows each of them as a visible marker instead of obeying it.
CONTROLS = re.compile(
    "[\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069"
    "\u206a-\u206f\u3164\ufeff\uffa0\U000e0000-\U000e007f]"
)


def visible(text: str) -> str:
    """``text`` with every bidi / zero-width control shown as ``⟦U+202E⟧`` (plain text, no markup)."""
    return CONTROLS.sub(lambda m: f"⟦U+{ord(m.group()):04X}⟧", str(text))


def md(text: str) -> str:
    """Repository text shown through markdown: every character markdown (or Streamlit's directives, LaTeX and
    HTML) could act on is escaped, and controls are shown, so the text reads literally."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|<>~$:&=^])", r"\\\1", " ".join(visible(text).split()))


_SAFE_URL = re.compile(r"^https?://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~%/+-]*)?(#[A-Za-z0-9._~%-]*)?$")


def link(label: str, url: str | None) -> str:
    """A link to a source page; anything but a plain http(s) address (no query, no markup) is shown as text."""
    return f"[{md(label)}]({url})" if url and _SAFE_URL.match(url) and safe_url(url) else md(label)


def show_evidence(ev: SourceText) -> None:
    """The source text with each verified quote highlighted at its stored offsets."""
    body = "".join(f"<mark>{_html(t)}</mark>" if hl else _html(t) for t, hl in ev.pieces())
    st.html(
        f'<div style="max-height:300px;overflow-y:auto;border:1px solid {FRAME};border-radius:6px;padding:8px 10px;'
        f'font-size:0.85rem;line-height:1.45;background:{TEXT_BOX}">{body}</div>'
    )
    spans = ev.spans
    if spans and all(s.verified for s in spans):
        where = ", ".join(f"{s.start}–{s.end}" for s in spans[:6]) + ("…" if len(spans) > 6 else "")
        st.caption(
            f"Highlighted: the stored quote(s) at offsets {where} of {link(ev.label, ev.url)} — verified verbatim."
        )
    elif spans:
        st.error("A stored quote is no longer at its offsets in this source; it is not highlighted.")


def _html(text: str) -> str:
    return html.escape(visible(text)).replace("\n", "<br>")

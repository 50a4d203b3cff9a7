"""How things look: every colour, node shape, glyph and status badge the pages draw, in one place.

The core (``rguard_core``) returns statuses, node types and source kinds as words; this module maps those words
to what a person sees. Keys are the core's vocabularies (``rguard_core.explore.graph_view``: ``STATUSES``,
``NODE_TYPES``, ``SOURCE_KINDS``, ``EDGE_WORDS``; premise statuses from ``rguard_core.guard.premises``);
tests/test_theme.py checks every word of those vocabularies has its colour, shape and badge here.
"""

from __future__ import annotations

# --- node status (holds, fallen, ...) -----------------------------------------------------------------------------
STATUS_COLOURS = {  # a status's strong colour: borders, claim/decision/action fills, legend chips
    "holds": "#2e9e5b",
    "fallen": "#d64545",
    "superseded": "#9aa0a6",
    "needs review": "#f0a500",
    "held": "#8e5ad6",
    "quarantined": "#3c3c3c",
}
TINTS = {  # a status's pale colour: the fill behind text (directory boxes, grid cells, quarantined sources)
    "holds": "#d5efdf",
    "fallen": "#f6d0d0",
    "superseded": "#e6e7e9",
    "needs review": "#fde9b8",
    "held": "#e4d7f5",
    "quarantined": "#bdbdbd",
}
STATUS_BADGE = {  # Streamlit's ``:colour-badge[...]`` for a node status
    "holds": "green",
    "fallen": "red",
    "superseded": "gray",
    "needs review": "orange",
    "held": "violet",
    "quarantined": "red",
}

# --- sources by kind -----------------------------------------------------------------------------------------------
KIND_COLOURS = {  # a holding source's border
    "pr": "#4a7fd4",
    "issue": "#1aa3a3",
    "comment": "#7fb8e6",
    "doc": "#3f51b5",
    "human_correction": "#e26fb0",
    "commit": "#888888",
    "source": "#888888",
}
KIND_TINTS = {  # a source's fill
    "pr": "#d6e3f7",
    "issue": "#cdeeee",
    "comment": "#e6f1fa",
    "doc": "#dcdff3",
    "human_correction": "#f8dcec",
}

# --- node types ----------------------------------------------------------------------------------------------------
TYPE_SHAPES = {  # vis-network shapes on the canvas
    "source": "box",
    "claim": "dot",
    "decision": "diamond",
    "action": "triangle",
    "correction": "star",
    "group": "database",
}
ICON = {  # the same types as text glyphs (lists, pickers, the detail pane)
    "source": "▭",
    "claim": "●",
    "decision": "◆",
    "action": "▲",
    "correction": "★",
    "incident": "⚠",
    "group": "▦",
    "file": "▦",
    "dir": "▦",
    "person": "☺",
}

# --- edges ---------------------------------------------------------------------------------------------------------
EDGE_COLOURS = {
    "SUPPORTS": "#8a9bb0",
    "JUSTIFIES": "#2e9e5b",
    "IMPLEMENTS": "#4a7fd4",
    "CORRECTS": "#e26fb0",
    "SUPERSEDES": "#6d6d6d",
    "REJECTED": "#d64545",
    "REVERTS": "#b5179e",
    "CONTAINS": "#c3c9d1",
}
DASHED = {"SUPERSEDES", "REJECTED", "CORRECTS", "REVERTS"}

# --- the guard's reasoning path (node id prefixes) -----------------------------------------------------------------
PATH_COLOURS = {
    "file": "#9aa5b1",
    "pr": "#4a7fd4",
    "issue": "#2aa6a6",
    "doc": "#6a5acd",
    "decision": "#e0a030",
    "commit": "#7a8a99",
    "sym": "#b07cc6",
    "correction": "#e26fb0",
}

# --- the guard's findings ------------------------------------------------------------------------------------------
VERDICT_COLOUR = {"contradicts": "red", "related": "orange"}  # Streamlit text colour of a finding's label
PREMISE_BADGE = {"holds": "green", "stale": "orange", "broken": "red"}  # a premise rule's status
# Boxes drawn in page HTML (a source's text, a diff's lines) take the page's own text colour, so their
# backgrounds are translucent tints over whichever theme is on: a fixed light fill left light text on light in
# dark mode (issue 23, item 1).
DIFF_ADDED, DIFF_REMOVED = "rgba(46, 160, 67, 0.18)", "rgba(248, 81, 73, 0.18)"  # backgrounds of + and - lines
DIFF_HIT_BORDER = STATUS_COLOURS["needs review"]  # a changed line that uses the decision's words
IMPLEMENTS_ALTERNATIVE = "red"  # a rejected alternative this diff implements

# --- everything else on the canvas ---------------------------------------------------------------------------------
TEXT = "#1a1a1a"
SELECTED_BORDER = "#111111"
GROUP_FILL, GROUP_BORDER = "#eef1f5", "#7a8594"  # a directory whose decisions all hold
UNKNOWN_FILL, UNKNOWN_BORDER = "#eeeeee", "#888888"  # a source of a kind without its own colour
UNKNOWN_EDGE = "#999999"
PATH_EDGE = EDGE_COLOURS["SUPPORTS"]
BLANK = "#ffffff"
FRAME = "rgba(127, 127, 127, 0.35)"  # the border of a scrolling text box (a source's text, a diff's lines)
TEXT_BOX = "rgba(127, 127, 127, 0.08)"  # its background
HIGHLIGHT = "rgba(0, 170, 255, 0.95)"  # a glow no status colour uses: the blast radius
SHADOW = "rgba(0,0,0,0.35)"
LABEL_BACKGROUND = "rgba(255,255,255,0.8)"
TRANSPARENT = "rgba(0,0,0,0)"


def connection_dot(ok: bool) -> str:
    """The sidebar's engine light (``:green[●]`` when FalkorDB answers)."""
    return ":green[●]" if ok else ":red[●]"


def badge(status: str) -> str:
    """A node status as a Streamlit badge (``:green-badge[holds]``)."""
    return f":{STATUS_BADGE.get(status, 'gray')}-badge[{status}]"


def premise_badge(rule: str, status: str) -> str:
    """A premise rule's verdict as a Streamlit badge (``:orange-badge[R6 stale]``)."""
    return f":{PREMISE_BADGE.get(status, 'gray')}-badge[{rule} {status}]"


def verdict(label: str) -> str:
    """A finding's label in its colour (``:red[**CONTRADICTS**]``); anything but contradicts reads as related."""
    shown = "contradicts" if label == "contradicts" else "related"
    return f":{VERDICT_COLOUR[shown]}[**{shown.upper()}**]"

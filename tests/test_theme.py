"""ui/theme.py holds every colour, shape and badge; the core's vocabularies are its keys, so a new status, node
type, source kind or edge word without a look fails here rather than as a KeyError on a page."""

from __future__ import annotations

import re
from pathlib import Path

from rguard_core.explore.graph_view import EDGE_WORDS, NODE_TYPES, SOURCE_KINDS, STATUSES
from ui import theme

ROOT = Path(__file__).resolve().parent.parent
# a hex colour, or a Streamlit colour directive written in code (text colours and badges come from the theme too)
COLOUR = re.compile(
    r"#[0-9a-fA-F]{6}\b|[\"':]#[0-9a-fA-F]{3}\b|[ :]#[0-9a-fA-F]{3};|:(?:red|green|orange|violet|gray|blue)(?:-badge)?\["
)


def test_every_word_of_the_core_has_its_look() -> None:
    assert set(STATUSES) <= set(theme.STATUS_COLOURS) & set(theme.TINTS) & set(theme.STATUS_BADGE)
    assert set(NODE_TYPES) <= set(theme.TYPE_SHAPES) & set(theme.ICON)
    assert set(SOURCE_KINDS) <= set(theme.KIND_COLOURS) & set(theme.KIND_TINTS)
    assert set(EDGE_WORDS) <= set(theme.EDGE_COLOURS) and theme.DASHED <= set(EDGE_WORDS)
    assert {"holds", "stale", "broken"} <= set(theme.PREMISE_BADGE)


def test_badges_read_as_before() -> None:
    assert theme.badge("needs review") == ":orange-badge[needs review]"
    assert theme.badge("something new") == ":gray-badge[something new]"
    assert theme.premise_badge("R6", "stale") == ":orange-badge[R6 stale]"
    assert theme.verdict("contradicts") == ":red[**CONTRADICTS**]"
    assert theme.verdict("related") == theme.verdict("note") == ":orange[**RELATED**]"
    assert (theme.connection_dot(True), theme.connection_dot(False)) == (":green[●]", ":red[●]")


def test_no_colour_outside_the_theme() -> None:
    """The core holds no colours at all; the ui and the pages take theirs from ui/theme.py."""
    files = [*ROOT.glob("rguard_core/**/*.py"), *ROOT.glob("ui/*.py"), *ROOT.glob("pages/*.py"), ROOT / "app.py"]
    found = [
        f"{p.relative_to(ROOT)}: {m}" for p in files if p.name != "theme.py" for m in COLOUR.findall(p.read_text())
    ]
    assert found == []


def test_page_boxes_read_in_dark_mode_too() -> None:
    """The source-text box and the diff lines are HTML of ours inside the page: their text is the theme's colour,
    light in dark mode. Their backgrounds must be translucent tints (never an opaque light fill), and no text
    colour of their own may be forced on them."""
    for name in ("TEXT_BOX", "DIFF_ADDED", "DIFF_REMOVED", "FRAME"):
        value = getattr(theme, name)
        m = re.fullmatch(r"rgba\(\s*\d+,\s*\d+,\s*\d+,\s*(0?\.\d+)\)", value)
        assert m and float(m.group(1)) <= 0.4, f"{name} = {value} would cover the dark theme's background"
    for page in ("ui/evidence.py", "ui/guard_review.py"):
        assert not re.search(r"[;\"' ]color:", (ROOT / page).read_text()), page

"""The one module that imports streamlit_agraph; every graph drawing goes through ``draw`` so its limits stay here.

streamlit-agraph 0.0.45 (vis-network 9.1.2), as installed:
- ``agraph`` takes no ``key``: the component's identity is its arguments, so new nodes, edges or config remount
  it and forget the last click. Selection therefore lives in session_state (see ``remember_click``), and the
  drawing never changes when a node is merely selected.
- A click on a node returns its id and forces a full rerun; clicking the selected node again returns nothing
  new; edge clicks return nothing (issue #70).
- The component sets each node ``title`` as innerHTML on a scratch element (and double-click opens that as a
  URL, issue #51), while vis shows it with innerText: titles are made markup-free here, never HTML-escaped.
"""

from __future__ import annotations

import hashlib
import json
import textwrap
from collections.abc import Iterable

import streamlit as st
from streamlit_agraph import Config, Edge, Node, agraph

from rguard_core.explore.graph_view import GraphView, ViewNode
from rguard_core.explore.labels import source_name
from ui.evidence import visible
from ui.theme import (
    BLANK,
    DASHED,
    EDGE_COLOURS,
    GROUP_BORDER,
    GROUP_FILL,
    HIGHLIGHT,
    KIND_COLOURS,
    KIND_TINTS,
    LABEL_BACKGROUND,
    PATH_COLOURS,
    PATH_EDGE,
    SELECTED_BORDER,
    SHADOW,
    STATUS_COLOURS,
    TEXT,
    TINTS,
    TRANSPARENT,
    TYPE_SHAPES,
    UNKNOWN_BORDER,
    UNKNOWN_EDGE,
    UNKNOWN_FILL,
)

LEVELS = {"correction": 0, "source": 1, "group": 1, "claim": 2, "decision": 3, "action": 4}  # hubs beside the sources
# drawn so every arrow reads Sources → Claims → Decisions → Actions: the stored Action-IMPLEMENTS->Decision turns
FLIPPED = {"IMPLEMENTS": "IMPLEMENTED BY"}
LABEL_CHARS = 34  # two lines of a 175-unit column at FONT
FONT = 18  # every label at one size; views are kept small enough that vis fits them at zoom ≈ 1 (≥ 11 px on screen)
SIZES = {"source": 20, "claim": 11, "decision": 22, "action": 14, "correction": 18, "group": 24}
HIERARCHY_NODES = 60  # a focus view (explore/focus.py FOCUS_NODES) still reads left to right
EDGE_LABELS_UP_TO = 60
HIERARCHY_UP_TO = 45  # past this many nodes the layered layout becomes a thin, unreadable strip (unfocused views)
PAD, PAD_LEVELS = "__pad_", 0.5
UNLABELLED_WHEN_COMPACT = (
    "claim",
    "action",
)  # in a big graph only decisions and sources carry text; hover for the rest  # more edge labels than this only add clutter; colours and hover text remain


TIP_WIDTH, TIP_LINES = 64, 14  # vis tooltips do not wrap: long lines ran off the frame's edge


def plain(text: str) -> str:
    """Text that is inert as HTML but reads the same (the component parses titles as markup): bidi and
    zero-width controls shown as markers, so a title reads as written, and wrapped to short lines so the
    tooltip stays inside the frame."""
    lines = [w for line in visible(text).splitlines() for w in (textwrap.wrap(line, TIP_WIDTH) or [""])]
    if len(lines) > TIP_LINES:
        lines = lines[: TIP_LINES - 1] + ["…"]
    return "\n".join(lines).replace("&", "＆").replace("<", "‹").replace(">", "›")


def _node(n: ViewNode, highlighted: bool, compact: bool, focus: bool = False) -> Node:
    if n.type == "group":
        fill = TINTS.get(n.status, GROUP_FILL) if n.status != "holds" else GROUP_FILL
        border = STATUS_COLOURS[n.status] if n.status != "holds" else GROUP_BORDER
        return Node(
            id=n.id,
            label=n.label,
            title=plain(n.title),
            shape="box",
            level=LEVELS["group"],
            color={"background": fill, "border": border, "highlight": {"background": fill, "border": SELECTED_BORDER}},
            borderWidth=3 if focus else 2,
            margin=8,
            widthConstraint={"maximum": 220},
            font={"size": FONT + 1, "color": TEXT, "face": "sans-serif", "bold": {"size": FONT + 1}},
            shadow={"enabled": focus, "color": SHADOW, "size": 12, "x": 0, "y": 0},
        )
    if n.type == "source":
        fill = TINTS["quarantined"] if n.status == "quarantined" else KIND_TINTS.get(n.kind, UNKNOWN_FILL)
        border = KIND_COLOURS.get(n.kind, UNKNOWN_BORDER) if n.status == "holds" else STATUS_COLOURS[n.status]
    else:
        fill = border = STATUS_COLOURS[n.status]
    width = 2 if n.status == "holds" else 4  # anything needing attention gets a heavy border as well as its colour
    inside = TYPE_SHAPES[n.type] == "box"
    # labels wrap at one column's width, so neighbouring columns' labels never run into each other
    extra = {"margin": 6, "widthConstraint": {"maximum": 170}} if inside else {"widthConstraint": {"maximum": 175}}
    return Node(
        id=n.id,
        label="" if compact and n.type in UNLABELLED_WHEN_COMPACT else _two_lines(visible(n.label)),
        title=plain(n.title),
        shape=TYPE_SHAPES[n.type],
        size=SIZES[n.type] + (8 if focus else 0),
        color={"background": fill, "border": border, "highlight": {"background": fill, "border": SELECTED_BORDER}},
        borderWidth=width + (2 if focus else 0),
        borderWidthSelected=width + 2,
        level=LEVELS[n.type],
        font={
            "size": FONT + (2 if focus else 0),
            "color": TEXT,
            "face": "sans-serif",
            "background": LABEL_BACKGROUND,
        },
        shadow={
            "enabled": highlighted or focus,
            "color": HIGHLIGHT if highlighted else SHADOW,
            "size": 30 if highlighted else 14,
            "x": 0,
            "y": 0,
        },
        **extra,
    )


def _two_lines(label: str, limit: int = LABEL_CHARS) -> str:
    """A label that wraps to at most two lines in its column (the full text is in the tooltip and the list)."""
    label = " ".join(label.split())
    return label if len(label) <= limit else label[: limit - 1].rstrip() + "…"


def _pads(levels: set[int]) -> list[Node]:
    """Two invisible nodes just outside the first and last column: vis fits the view to node positions before it
    has measured the labels drawn under shapes, so without them the outermost labels are cut off."""
    clear = {"background": TRANSPARENT, "border": TRANSPARENT}
    return [
        Node(
            id=f"{PAD}{side}",
            label="",
            title=" ",
            shape="dot",
            size=1,
            color=clear,
            level=level,
            borderWidth=0,
            chosen=False,
        )
        for side, level in (("left", min(levels) - PAD_LEVELS), ("right", max(levels) + PAD_LEVELS))
    ]


def _edge(source: str, target: str, word: str, title: str, labelled: bool) -> Edge:
    colour = EDGE_COLOURS.get(word, UNKNOWN_EDGE)
    if word in FLIPPED:
        source, target, word = target, source, FLIPPED[word]
    shown = labelled and word != "CONTAINS"
    extra = (
        {"label": word.lower(), "font": {"size": 12, "color": colour, "strokeWidth": 3, "align": "middle"}}
        if shown
        else {}
    )
    return Edge(
        source=source,
        target=target,
        color=colour,
        title=plain(title or word.lower()),
        dashes=word in DASHED,
        width=2.5 if word in ("REVERTS", "SUPERSEDES") else 1.5,
        arrows="to",
        **extra,
    )


GRID_COLUMNS, CELL_W, CELL_H, HEADER_H = (
    5,
    290,
    92,
    64,
)  # the overview grid in canvas units: the page draws it full width
GRID_LINE_CHARS, GRID_SUMMARY_LINES = 23, 2  # a cell's text: one line naming source and status, two of summary
GRID_FIT_SCALE, GRID_MAX_HEIGHT = 0.75, 980  # ≈ the zoom a full-width page fits five cells at; FONT × it ≥ 13 px
STATUS_MARKS = {"holds": "◆", "fallen": "✗", "superseded": "↷", "needs review": "⚠"}


def grid_label(d: ViewNode) -> str:
    """A decision's box in the overview grid: ``◆ PR #12`` (plus the status when it is not ``holds``), then the
    summary wrapped at word boundaries, cut with … only past two lines. The source name tells apart decisions whose
    summaries open alike; the status word tells apart boxes that would otherwise differ only by colour."""
    head = f"{STATUS_MARKS.get(d.status, '◆')} {source_name(d.id.removeprefix('decision:'))}"
    if d.status != "holds":
        head += f" · {d.status}"
    summary = textwrap.wrap(
        visible(d.label), GRID_LINE_CHARS, max_lines=GRID_SUMMARY_LINES, placeholder=" …", break_on_hyphens=False
    )
    return "\n".join([head, *summary])


def _grid(view: GraphView) -> list[Node]:
    """The overview as a fixed grid: each directory a header box on its own low row, its decisions in rows beneath it
    (directories without drawn decisions share rows). Positions are computed here, so the layout is the same on every
    rerun and nothing drifts under the pointer."""
    members: dict[str, list[ViewNode]] = {}
    for e in view.edges:
        if e.word == "CONTAINS":
            node = view.node(e.target)
            if node is not None:
                members.setdefault(e.source, []).append(node)
    groups = [n for n in view.nodes if n.type == "group"]
    out: list[Node] = []
    top = 0  # the top of the current row; nodes are placed by their centres
    col = 0
    for g in groups:
        inner = members.get(g.id, [])
        if inner:  # a directory with its decisions starts a new band
            top += HEADER_H if col else 0
            col = 0
        header = _node(g, False, False)
        header.__dict__["widthConstraint"] = {"maximum": CELL_W - 30}  # one line where the name allows
        out.append(_at(header, col, top + HEADER_H / 2))
        col += 1
        if inner:
            top, col = top + HEADER_H, 0
            for i, d in enumerate(inner):
                node = _node(d, False, False)
                node.shape = "box"  # in the grid a decision is a box with its status colour; its first line says
                node.label = grid_label(d)  # the status in words too, so no two boxes differ by colour alone
                node.__dict__.update(margin=6, widthConstraint={"minimum": CELL_W - 30, "maximum": CELL_W - 30})
                node.__dict__["color"] = {
                    "background": TINTS.get(d.status, BLANK),
                    "border": STATUS_COLOURS[d.status],
                    "highlight": {"background": TINTS.get(d.status, BLANK), "border": SELECTED_BORDER},
                }
                out.append(_at(node, i % GRID_COLUMNS, top + (i // GRID_COLUMNS) * CELL_H + CELL_H / 2))
            top += ((len(inner) + GRID_COLUMNS - 1) // GRID_COLUMNS) * CELL_H
        elif col >= GRID_COLUMNS:
            top, col = top + HEADER_H, 0
    return out


def grid_height(nodes: list[Node], least: int) -> int:
    """The frame's height for a grid: tall enough that vis's fit keeps the labels readable (it fits the whole grid
    by its width or its height, whichever is tighter), between ``least`` and GRID_MAX_HEIGHT pixels."""
    bottom = max((float(n.__dict__.get("y", 0)) for n in nodes), default=0.0) + CELL_H / 2
    return int(min(GRID_MAX_HEIGHT, max(least, bottom * GRID_FIT_SCALE)))


def _at(node: Node, col: int, y: float) -> Node:
    node.__dict__.update(x=col * CELL_W, y=y, fixed=True, physics=False)
    return node


def _config(height: int, hierarchical: bool, fixed: bool = False) -> Config:
    """vis-network options; set as whole dicts because Config copies unknown keyword arguments to the top level."""
    config = Config(height=height, width=900, directed=True, physics=not hierarchical, hierarchical=hierarchical)
    config.width = "100%"  # Config only formats pixels; vis accepts any CSS width
    config.groups = {}  # Config's default None reaches vis as "groups: null", which it rejects on every render
    config.interaction = {
        "hover": True,
        "tooltipDelay": 150,
        # the overview grid is drawn edge to edge, where vis's corner buttons covered a decision; zoom and pan stay
        "navigationButtons": not fixed,
        "keyboard": False,
        "zoomView": True,
    }
    if fixed:
        config.physics = {"enabled": False}
        config.layout = {"hierarchical": {"enabled": False}}
        config.interaction["dragNodes"] = False
    elif hierarchical:
        # few nodes: the provenance chain reads left to right, one column per node type
        config.layout = {
            "hierarchical": {
                "enabled": True,
                "direction": "LR",
                "sortMethod": "directed",
                "levelSeparation": 195,
                "nodeSpacing": 92,
                "treeSpacing": 92,
            }
        }
        config.edges = {
            "smooth": {"enabled": True, "type": "cubicBezier", "forceDirection": "horizontal", "roundness": 0.4}
        }
    else:
        # many nodes: one column per type would be a strip thousands of pixels tall; a force layout shows clusters
        config.physics = {
            "enabled": True,
            "solver": "forceAtlas2Based",
            "minVelocity": 2,
            "timestep": 0.5,
            "forceAtlas2Based": {
                "gravitationalConstant": -120,
                "springLength": 110,
                "centralGravity": 0.02,
                "avoidOverlap": 0.8,
            },
            "stabilization": {"enabled": True, "iterations": 400, "fit": True},
        }
        config.layout = {"randomSeed": 7, "improvedLayout": True}
        config.edges = {"smooth": {"enabled": True, "type": "continuous"}}
    return config


def draw(view: GraphView, selection_key: str, highlight: Iterable[str] = (), height: int = 640) -> bool:
    """Draw the view left to right (corrections, sources, claims, decisions, actions). A click on a node stores its
    id in ``st.session_state[selection_key]``; returns True when this run brought a new click."""
    marked = set(highlight)
    grouped = any(n.type == "group" for n in view.nodes) and not view.focus
    if grouped:  # the overview: directories and their decisions on a fixed grid, no edges
        nodes, edges = _grid(view), []
        config = _config(grid_height(nodes, height), hierarchical=False, fixed=True)
    else:
        compact = len(view.nodes) > (HIERARCHY_NODES if view.focus else HIERARCHY_UP_TO)
        nodes = [_node(n, n.id in marked, compact, n.id == view.focus) for n in view.nodes]
        if not compact and nodes:
            nodes += _pads({LEVELS[n.type] for n in view.nodes})
        labelled = len(view.edges) <= EDGE_LABELS_UP_TO
        edges = [_edge(e.source, e.target, e.word, e.title, labelled) for e in view.edges]
        config = _config(height, hierarchical=not compact)
    # the component's identity is its arguments: when they change it remounts and its last value is gone
    signature = hashlib.sha1(
        json.dumps(
            [[n.to_dict() for n in nodes], [e.to_dict() for e in edges], config.__dict__], sort_keys=True, default=str
        ).encode()
    ).hexdigest()
    meta_key = f"{selection_key}__widget"
    meta = st.session_state.get(meta_key)
    if not meta or meta.get("signature") != signature:
        meta = {"signature": signature, "last": None}
    clicked = agraph(nodes=nodes, edges=edges, config=config)
    new = bool(clicked) and clicked != meta["last"] and not str(clicked).startswith(PAD)
    if new:
        meta["last"] = clicked
        st.session_state[selection_key] = clicked
    st.session_state[meta_key] = meta
    return new


def path_label(node_id: str) -> tuple[str, str]:
    """(kind, short label) for a reasoning-path node id such as ``file:a/b.py``, ``pr:12``, ``decision:pr:12``."""
    kind, _, rest = node_id.partition(":")
    if kind == "pr" or kind == "issue":
        return kind, f"{'PR' if kind == 'pr' else 'issue'} #{rest}"
    if kind in ("file", "doc"):
        return kind, rest.rsplit("/", 1)[-1]
    if kind == "sym":
        return kind, rest
    if kind == "decision":
        return kind, "decision"
    return kind, node_id[:24]


def draw_path(path: list[str], hops: list[str], height: int = 180) -> None:
    """The guard's reasoning path (the node ids its Cypher walked) as a left-to-right chain."""
    nodes, edges, seen = [], [], set()
    for i, nid in enumerate(path):
        if nid in seen:
            continue
        seen.add(nid)
        kind, label = path_label(nid)
        colour = PATH_COLOURS.get(kind, UNKNOWN_EDGE)
        nodes.append(
            Node(
                id=nid,
                label=label,
                title=plain(nid),
                shape="box",
                level=i,
                color={"background": BLANK, "border": colour},
                borderWidth=2,
                font={"size": 13, "color": TEXT, "face": "sans-serif"},
            )
        )
    for a, b in zip(path, path[1:], strict=False):
        if a != b:
            edges.append(Edge(source=a, target=b, color=PATH_EDGE, arrows="to", width=1.5))
    config = Config(height=height, width=900, directed=True, physics=False, hierarchical=True)
    config.width = "100%"
    config.groups = {}
    config.layout = {
        "hierarchical": {"enabled": True, "direction": "LR", "sortMethod": "directed", "levelSeparation": 150}
    }
    config.interaction = {"hover": True, "dragNodes": False, "zoomView": False}
    st.caption("Reasoning path (" + " → ".join(hops) + ")")
    agraph(nodes=nodes, edges=edges, config=config)

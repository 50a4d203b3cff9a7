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
from collections.abc import Iterable

import streamlit as st
from streamlit_agraph import Config, Edge, Node, agraph

from rguard_core.views import KIND_COLOURS, STATUS_COLOURS, TYPE_SHAPES, GraphView, ViewNode
from ui.evidence import visible

LEVELS = {"correction": 0, "source": 1, "claim": 2, "decision": 3, "action": 4}
EDGE_COLOURS = {"SUPPORTS": "#8a9bb0", "JUSTIFIES": "#2e9e5b", "IMPLEMENTS": "#4a7fd4", "CORRECTS": "#e26fb0",
                "SUPERSEDES": "#6d6d6d", "REJECTED": "#d64545"}
DASHED = {"SUPERSEDES", "REJECTED", "CORRECTS"}
TINTS = {"holds": "#d5efdf", "fallen": "#f6d0d0", "superseded": "#e6e7e9", "needs review": "#fde9b8",
         "held": "#e4d7f5", "quarantined": "#bdbdbd"}
KIND_TINTS = {"pr": "#d6e3f7", "issue": "#cdeeee", "comment": "#e6f1fa", "doc": "#dcdff3", "human_correction": "#f8dcec"}
HIGHLIGHT = "rgba(0, 170, 255, 0.95)"  # a glow no status colour uses: the blast radius
SIZES = {"source": 20, "claim": 11, "decision": 22, "action": 14, "correction": 18}
EDGE_LABELS_UP_TO = 60
HIERARCHY_UP_TO = 45  # past this many nodes the layered layout becomes a thin, unreadable strip
PAD, PAD_LEVELS = "__pad_", 0.45
SMALL_HEIGHT = 480  # a layered graph of a few dozen nodes fits; more height would only be blank canvas
UNLABELLED_WHEN_COMPACT = ("claim", "action")  # in a big graph only decisions and sources carry text; hover for the rest  # more edge labels than this only add clutter; colours and hover text remain


def plain(text: str) -> str:
    """Text that is inert as HTML but reads the same (the component parses titles as markup); bidi and
    zero-width controls shown as markers, so a title reads as written."""
    return visible(text).replace("&", "＆").replace("<", "‹").replace(">", "›")


def _node(n: ViewNode, highlighted: bool, compact: bool) -> Node:
    if n.type == "source":
        fill = TINTS["quarantined"] if n.status == "quarantined" else KIND_TINTS.get(n.kind, "#eeeeee")
        border = KIND_COLOURS.get(n.kind, "#888888") if n.status == "holds" else STATUS_COLOURS[n.status]
    else:
        fill = border = STATUS_COLOURS[n.status]
    width = 2 if n.status == "holds" else 4
    inside = TYPE_SHAPES[n.type] == "box"
    extra = {"margin": 6, "widthConstraint": {"maximum": 170}} if inside else {}
    return Node(
        id=n.id, label="" if compact and n.type in UNLABELLED_WHEN_COMPACT else visible(n.label), title=plain(n.title), shape=TYPE_SHAPES[n.type], size=SIZES[n.type],
        color={"background": fill, "border": border, "highlight": {"background": fill, "border": "#111111"}},
        borderWidth=width, borderWidthSelected=width + 2, level=LEVELS[n.type],
        font={"size": 17 if n.type == "decision" else 13, "color": "#1a1a1a", "face": "sans-serif"},
        shadow={"enabled": highlighted, "color": HIGHLIGHT, "size": 30, "x": 0, "y": 0}, **extra,
    )


def _pads(levels: set[int]) -> list[Node]:
    """Two invisible nodes just outside the first and last column: vis fits the view to node positions before it
    has measured the labels drawn under shapes, so without them the outermost labels are cut off."""
    clear = {"background": "rgba(0,0,0,0)", "border": "rgba(0,0,0,0)"}
    return [Node(id=f"{PAD}{side}", label="", title=" ", shape="dot", size=1, color=clear, level=level,
                 borderWidth=0, chosen=False)
            for side, level in (("left", min(levels) - PAD_LEVELS), ("right", max(levels) + PAD_LEVELS))]


def _edge(source: str, target: str, word: str, title: str, labelled: bool) -> Edge:
    colour = EDGE_COLOURS.get(word, "#999999")
    extra = {"label": word, "font": {"size": 9, "color": colour, "strokeWidth": 3, "align": "middle"}} if labelled else {}
    return Edge(source=source, target=target, color=colour, title=plain(title or word), dashes=word in DASHED,
                width=1.5, arrows="to", **extra)


def _config(height: int, hierarchical: bool) -> Config:
    """vis-network options; set as whole dicts because Config copies unknown keyword arguments to the top level."""
    config = Config(height=height, width=900, directed=True, physics=not hierarchical, hierarchical=hierarchical)
    config.width = "100%"  # Config only formats pixels; vis accepts any CSS width
    config.interaction = {"hover": True, "tooltipDelay": 150, "navigationButtons": False, "zoomView": True}
    if hierarchical:
        # few nodes: the provenance chain reads left to right, one column per node type
        config.layout = {"hierarchical": {"enabled": True, "direction": "LR", "sortMethod": "directed",
                                          "levelSeparation": 170, "nodeSpacing": 60, "treeSpacing": 80}}
        config.edges = {"smooth": {"enabled": True, "type": "cubicBezier", "forceDirection": "horizontal",
                                   "roundness": 0.4}}
    else:
        # many nodes: one column per type would be a strip thousands of pixels tall; a force layout shows clusters
        config.physics = {"enabled": True, "solver": "forceAtlas2Based", "minVelocity": 2, "timestep": 0.5,
                          "forceAtlas2Based": {"gravitationalConstant": -45, "springLength": 55, "centralGravity": 0.015,
                                               "avoidOverlap": 0.4},
                          "stabilization": {"enabled": True, "iterations": 400, "fit": True}}
        config.layout = {"randomSeed": 7, "improvedLayout": True}
        config.edges = {"smooth": {"enabled": True, "type": "continuous"}}
    return config


def draw(view: GraphView, selection_key: str, highlight: Iterable[str] = (), height: int = 640) -> bool:
    """Draw the view left to right (corrections, sources, claims, decisions, actions). A click on a node stores its
    id in ``st.session_state[selection_key]``; returns True when this run brought a new click."""
    marked = set(highlight)
    compact = len(view.nodes) > HIERARCHY_UP_TO
    nodes = [_node(n, n.id in marked, compact) for n in view.nodes]
    if not compact and nodes:
        nodes += _pads({LEVELS[n.type] for n in view.nodes})
    labelled = len(view.edges) <= EDGE_LABELS_UP_TO
    edges = [_edge(e.source, e.target, e.word, e.title, labelled) for e in view.edges]
    config = _config(height if compact else SMALL_HEIGHT, hierarchical=not compact)
    # the component's identity is its arguments: when they change it remounts and its last value is gone
    signature = hashlib.sha1(json.dumps([[n.to_dict() for n in nodes], [e.to_dict() for e in edges],
                                         config.__dict__], sort_keys=True, default=str).encode()).hexdigest()
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


PATH_COLOURS = {"file": "#9aa5b1", "pr": "#4a7fd4", "issue": "#2aa6a6", "doc": "#6a5acd", "decision": "#e0a030",
                "commit": "#7a8a99", "sym": "#b07cc6", "correction": "#e26fb0"}


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
        colour = PATH_COLOURS.get(kind, "#999999")
        nodes.append(Node(id=nid, label=label, title=plain(nid), shape="box", level=i,
                          color={"background": "#ffffff", "border": colour}, borderWidth=2,
                          font={"size": 13, "color": "#1a1a1a", "face": "sans-serif"}))
    for a, b in zip(path, path[1:], strict=False):
        if a != b:
            edges.append(Edge(source=a, target=b, color="#8a9bb0", arrows="to", width=1.5))
    config = Config(height=height, width=900, directed=True, physics=False, hierarchical=True)
    config.width = "100%"
    config.layout = {"hierarchical": {"enabled": True, "direction": "LR", "sortMethod": "directed",
                                      "levelSeparation": 150}}
    config.interaction = {"hover": True, "dragNodes": False, "zoomView": False}
    st.caption("Reasoning path (" + " → ".join(hops) + ")")
    agraph(nodes=nodes, edges=edges, config=config)

"""The overview grid's decision boxes (ui/graph_widget.py): the words on them, where each sits, how tall the frame is.
The browser test (tests/e2e/test_graph_scale.py) checks the same boxes as vis draws them on starlette."""

from __future__ import annotations

from rguard_core.explore.graph_view import GraphView, ViewEdge, ViewNode
from ui.graph_widget import CELL_H, GRID_MAX_HEIGHT, _config, _grid, grid_height, grid_label


def _decision(sid: str, summary: str, status: str = "holds") -> ViewNode:
    return ViewNode(
        f"decision:{sid}", "decision", "decision", summary, f"Decision: {summary}\nstatus: {status}", status
    )


def test_a_box_names_its_source_and_its_status_in_words() -> None:
    assert grid_label(_decision("pr:12", "Use a token bucket")) == "◆ PR #12\nUse a token bucket"
    label = grid_label(_decision("doc:docs/adr/0001-cache.md", "Cache prices for a minute", "needs review"))
    assert label.split("\n")[0] == "⚠ 0001-cache.md · needs review"
    assert grid_label(_decision("pr:3", "x", "fallen")).startswith("✗ PR #3 · fallen")


def test_a_long_summary_wraps_between_words_and_is_cut_only_past_two_lines() -> None:
    hyphen = grid_label(_decision("pr:1", "Serve files as octet-stream by default"))
    assert hyphen.split("\n")[1:] == ["Serve files as", "octet-stream by default"]  # not broken after "octet-"
    long = grid_label(
        _decision("pr:2", "Reject absolute paths in the static files app before joining them to the root")
    )
    head, *summary = long.split("\n")
    assert len(summary) == 2 and summary[-1].endswith(" …") and all(len(s) <= 23 for s in summary)
    assert "Reject absolute paths in the static".startswith(" ".join(summary).removesuffix(" …")[:20])


def test_two_directories_are_bands_and_the_frame_grows_with_them() -> None:
    view = GraphView("o/r", True)
    for d in ("a/", "b/"):
        view.nodes.append(ViewNode(f"dir:{d}", "group", "dir", d, d, "holds"))
    for i in range(12):
        d = "a/" if i < 7 else "b/"
        view.nodes.append(_decision(f"pr:{i}", f"decision {i}"))
        view.edges.append(ViewEdge(f"dir:{d}", f"decision:pr:{i}", "CONTAINS", ""))
    nodes = _grid(view)
    at = {n.id: (n.__dict__["x"], n.__dict__["y"]) for n in nodes}
    assert len(set(at.values())) == len(at)  # no two boxes share a cell
    assert at["dir:a/"][1] < at["decision:pr:0"][1] < at["decision:pr:5"][1] < at["dir:b/"][1] < at["decision:pr:7"][1]
    assert at["decision:pr:5"][1] - at["decision:pr:0"][1] == CELL_H  # five to a row
    assert 640 <= grid_height(nodes, 640) <= GRID_MAX_HEIGHT
    assert grid_height(nodes * 0, 640) == 640
    assert _config(700, hierarchical=False, fixed=True).interaction["navigationButtons"] is False  # none over a box
    assert _config(700, hierarchical=True).interaction["navigationButtons"] is True

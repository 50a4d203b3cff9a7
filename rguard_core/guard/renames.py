"""Earlier names of the diff's files: a revert of a change made before a file was renamed names only the new
path, while the change's patch is stored on the old one. The graph records each rename on ``TOUCHES``
(``previous_path``); following them back lets the candidates, the patches and REV1-REV3 see the old history."""

from __future__ import annotations

from ..db import Graph
from .model import ParsedDiff
from .tokens import ChangeSet

MAX_DEPTH = 5  # renames followed back per file
MAX_NAMES = 50  # earlier names kept in all

# Start from the File index (the diff's paths), not from every Source: on a 20,000-PR graph the scan from the
# sources was 62-72 ms of a 109 ms guard (measured for issue #26). The ``WITH f`` and the expansion written from
# ``f`` hold the planner to that order: without them it still scanned the sources (52 ms p50 on a hot file of a
# 10,000-PR graph, 1.5 ms with them; bench/guard_scale.py).
LINEAGE_Q = """
MATCH (f:File) WHERE f.path IN $paths
WITH f
MATCH (f)<-[t:TOUCHES]-(s:Source)
WHERE t.previous_path IS NOT NULL AND t.status <> 'renamed_from' AND NOT s.id IN $exclude
RETURN DISTINCT f.path AS path, t.previous_path AS previous
ORDER BY path, previous
"""


def earlier_names(graph: Graph, paths: list[str], exclude: list[str]) -> dict[str, str]:
    """Earlier name -> the diff's path it became, following renames back up to MAX_DEPTH steps."""
    out: dict[str, str] = {}
    root = {p: p for p in paths}
    frontier = list(paths)
    for _ in range(MAX_DEPTH):
        if not frontier or len(out) >= MAX_NAMES:
            break
        rows = graph.read(LINEAGE_Q, {"paths": frontier, "exclude": exclude}, name="guard.renames")
        frontier = []
        for r in rows:
            prev, now = r["previous"], root.get(r["path"])
            if now is None or prev in root or len(out) >= MAX_NAMES:
                continue
            root[prev] = now
            out[prev] = now
            frontier.append(prev)
    return out


def follow(parsed: ParsedDiff, diff_sets: dict[str, ChangeSet], names: dict[str, str]) -> None:
    """Read each earlier name as the file it became: the same change set, and the name among the diff's paths."""
    for old, now in names.items():
        if now in diff_sets and old not in diff_sets:
            diff_sets[old] = diff_sets[now]
            parsed.aliases[old] = now

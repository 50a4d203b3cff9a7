"""The code map: proven import edges between a repository's files, in the repository's own graph.

parse (tree-sitter) → resolve (Python / TypeScript+JavaScript rules) → write (File nodes shared with
TOUCHES, four edge types, a CodeMap record with the coverage report) → walks (neighbours, n hops, chain,
blast radius). See docs/GRAPH_MODEL.md ("Code map") and README ("Code map").
"""

from .build import build_from_git, build_from_github, build_from_tree
from .walks import blast_radius, chain, decision_files, neighbours, status, walk

__all__ = [
    "blast_radius",
    "build_from_git",
    "build_from_github",
    "build_from_tree",
    "chain",
    "decision_files",
    "neighbours",
    "status",
    "walk",
]

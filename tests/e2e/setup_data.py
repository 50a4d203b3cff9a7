"""Fill RGUARD_DATA_DIR for the browser tests: the demo seed, then one quarantined source, one corrected claim
and one source whose only claim falls, so every status (and a correction) appears in the graph.

Run as ``python -m tests.e2e.setup_data`` in its own process, before the app starts: the embedded engine
belongs to one process at a time.
"""

from __future__ import annotations

from pathlib import Path

from rguard_core.codemap.build import build_from_tree
from rguard_core.codemap.tree import tree_from_folder
from rguard_core.db import open_store
from rguard_core.memory import apply_correction, quarantine_source
from rguard_core.seed import DEMO_REPO, load_demo

QUARANTINED = "issue:31"  # a shared-NAT report two rate-limit decisions rest on
FALLEN_SOURCE = "pr:1"  # the CI decision rests on this PR's own words only
CORRECTED_FROM = "issue:19"  # unknown prices billed as free
CORRECTION = "Usage with no price is stored as unknown (NULL), never as 0."
DEMO_TREE = Path(__file__).resolve().parents[2] / "seeds" / "demo" / "tree"


def main() -> None:
    store = open_store()
    load_demo(store)
    graph = store.repo_graph(DEMO_REPO)
    quarantine_source(graph, QUARANTINED, "reporter could not be verified", "e2e")
    quarantine_source(graph, FALLEN_SOURCE, "CI config was rewritten", "e2e")
    claim = graph.read("MATCH (c:Claim {source_id: $s}) RETURN c.id AS id ORDER BY c.start LIMIT 1",
                       {"s": CORRECTED_FROM})[0]["id"]
    apply_correction(graph, claim, CORRECTION, "e2e-reviewer")
    build_from_tree(store, DEMO_REPO, tree_from_folder(DEMO_TREE))  # the Code map page has something to show
    store.close()
    print(f"e2e data ready: {DEMO_REPO}; corrected {claim}")


if __name__ == "__main__":
    main()

"""Fill RGUARD_DATA_DIR for the browser tests: the demo seed, then one quarantined source, one corrected claim
and one source whose only claim falls, so every status (and a correction) appears in the graph; the starlette
snapshot (../shared/realdata, when present) and a generated 5,000-decision repository for the graph at scale.

Run as ``python -m tests.e2e.setup_data`` in its own process, before the app starts: the embedded engine
belongs to one process at a time.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from bench.synth import synth_snapshot
from rguard_core.codemap.build import build_from_tree
from rguard_core.codemap.tree import tree_from_folder
from rguard_core.db import open_store
from rguard_core.ingest.pipeline import ingest_snapshot
from rguard_core.memory import apply_correction, quarantine_source
from rguard_core.seed import DEMO_REPO, load_demo

QUARANTINED = "issue:31"  # a shared-NAT report two rate-limit decisions rest on
FALLEN_SOURCE = (
    "pr:60"  # "Log refused access checks" rests on this PR's own words only (the CI PR #1 is mechanical now)
)
CORRECTED_FROM = "issue:19"  # unknown prices billed as free
CORRECTION = "Usage with no price is stored as unknown (NULL), never as 0."
DEMO_TREE = Path(__file__).resolve().parents[2] / "seeds" / "demo" / "tree"
STARLETTE = "Kludex/starlette"
REALDATA = Path(__file__).resolve().parents[3] / "shared" / "realdata" / "github"  # ../shared next to the checkout
BIG = "bench/synthetic"
BIG_PRS = 5130  # one PR in 41 is a bot's and holds no decision: about 5,000 decisions


def main() -> None:
    store = open_store()
    load_demo(store)
    graph = store.repo_graph(DEMO_REPO)
    quarantine_source(graph, QUARANTINED, "reporter could not be verified", "e2e")
    quarantine_source(graph, FALLEN_SOURCE, "the audit log requirement was withdrawn", "e2e")
    claim = graph.read(
        "MATCH (c:Claim {source_id: $s}) RETURN c.id AS id ORDER BY c.start LIMIT 1", {"s": CORRECTED_FROM}
    )[0]["id"]
    apply_correction(graph, claim, CORRECTION, "e2e-reviewer")
    build_from_tree(store, DEMO_REPO, tree_from_folder(DEMO_TREE))  # the Code map page has something to show
    if REALDATA.is_dir():
        ingest_snapshot(store, REALDATA, repo=STARLETTE)
    with tempfile.TemporaryDirectory(prefix="rguard-e2e-synth-") as tmp:
        ingest_snapshot(store, synth_snapshot(Path(tmp), BIG_PRS, repo=BIG), repo=BIG)
    store.close()
    print(f"e2e data ready: {DEMO_REPO}; corrected {claim}")


if __name__ == "__main__":
    main()

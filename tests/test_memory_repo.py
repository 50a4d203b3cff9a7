"""Repository graphs use the same engine: the demo history ingested for real, then a forged issue is
quarantined and a review claim corrected; every step is checked against the oracle."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rguard_core.db import Graph, Store
from rguard_core.ingest.pipeline import ingest_snapshot
from rguard_core.memory import apply_correction, preview_correction, quarantine_source, retrieve, status
from rguard_core.seed import DEMO_SNAPSHOT
from tests.memory_oracle import Oracle


@pytest.fixture
def demo(store: Store, tmp_path: Path) -> Iterator[Graph]:
    """The demo snapshot ingested under a unique owner, so the session's acme/tollgate graph is untouched."""
    owner = f"mem{uuid.uuid4().hex[:8]}"
    src = DEMO_SNAPSHOT / "repos" / "acme" / "tollgate"
    if not src.is_dir():
        pytest.skip("demo snapshot not present")
    shutil.copytree(src, tmp_path / "repos" / owner / "tollgate")
    ingest_snapshot(store, tmp_path, repo=f"{owner}/tollgate")
    graph = store.repo_graph(f"{owner}/tollgate")
    yield graph
    graph.delete()


def scenario_of(graph: Graph) -> dict[str, Any]:
    """The graph's support structure as a scenario document, read with plain Cypher (for the oracle)."""
    return {
        "sources": [{"id": r["id"]} for r in graph.read("MATCH (s:Source) RETURN s.id AS id")],
        "claims": graph.read("MATCH (c:Claim) RETURN c.id AS id, c.source_id AS source, c.quote AS quote"),
        "justifications": [
            {"conclusion": r["c"], "premises": r["p"]}
            for r in graph.read(
                "MATCH (j:Justification)-[:JUSTIFIES]->(x) OPTIONAL MATCH (j)-[:PREMISE]->(p:Claim) "
                "RETURN j.id AS j, x.id AS c, collect(p.id) AS p"
            )
        ],
        "decisions": graph.read("MATCH (d:Decision) RETURN d.id AS id"),
        "actions": graph.read(
            "MATCH (a:Action)-[:IMPLEMENTS]->(d:Decision) "
            "RETURN a.id AS id, d.id AS decision, coalesce(a.executed, false) AS executed"
        ),
    }


def _step(d: dict[str, Any]) -> dict[str, Any]:
    return {
        "fell_claims": sorted(d["fell"]["claims"]),
        "fell_decisions": sorted(d["fell"]["decisions"]),
        "kept": sorted(d["kept"]),
    }


def test_quarantined_issue_and_corrected_claim_in_a_repository(demo: Graph) -> None:
    oracle = Oracle(scenario_of(demo))
    assert status(demo) == oracle.status()
    # a forged report: the issue behind PR 20's decision
    res = quarantine_source(demo, "issue:19", reason="forged report", by="maintainer").as_dict()
    assert _step(res) == oracle.quarantine("issue:19")
    assert res["fell"]["claims"] and all(c.startswith("claim:issue:19:") for c in res["fell"]["claims"])
    assert res["region"]["claims"] < len(oracle.claim_source) // 4  # only the region was recomputed
    assert status(demo) == oracle.status()
    # spam on a PR with several supports: decisions that keep other support are reviewed, not cried wolf over
    res2 = quarantine_source(demo, "pr:14", reason="spam", by="maintainer").as_dict()
    assert _step(res2) == oracle.quarantine("pr:14")
    # a reviewer corrects one of ADR 0002's context claims
    claim = sorted(c for c in oracle.claim_source if c.startswith("claim:doc:docs/adr/0002"))[0]
    p = preview_correction(demo, claim, "Money may be stored as float cents.", "reviewer")
    done = apply_correction(demo, claim, "Money may be stored as float cents.", "reviewer", preview=p).as_dict()
    assert _step(done) == oracle.correct(claim, done["replacement"], done["source"])
    assert status(demo) == oracle.status()
    fallen = {c for c, v in status(demo)["claims"].items() if not v["holds"]}
    texts = demo.read("MATCH (c:Claim) WHERE c.id IN $ids RETURN c.statement AS s", {"ids": sorted(fallen)})
    found = retrieve(demo, "money decimal float usage events issue report deny admins", limit=100)
    claims_served = [h for h in found.results if h["kind"] == "claim"]
    assert claims_served and found.withheld > 0
    assert not {h["id"] for h in claims_served} & fallen
    assert not [t["s"] for t in texts if t["s"] and t["s"] in str(claims_served)]

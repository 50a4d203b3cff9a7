"""One decision status (explore/graph_view.decision_status) on every page that shows one.

The memory engine's ``holds`` is the truth now; its label is a record that only moves up (``max_label``), and an
undo puts the earlier label back only when the step it undoes set it. So a decision can hold again while still
labelled ``correction`` or ``compensation``: this builds that state with real quarantines and a lift on the
real FalkorDB, and checks the Decision graph's and the Corrections page's read models say the same of it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rguard_core.db import Graph, Store
from rguard_core.explore.corrections_lookup import search_targets
from rguard_core.explore.focus import decision_rows, focus_view
from rguard_core.explore.graph_view import ViewFilter, build_view, claim_status, decision_status
from rguard_core.explore.node_detail import node_detail
from rguard_core.memory import lift_quarantine, quarantine_source
from tests.fixtures.guard.ledger import ingest_ledger

# decisions of the ledger snapshot resting on claims of exactly two sources (its PR and an issue)
TWO_SOURCES_Q = (
    "MATCH (d:Decision)<-[:JUSTIFIES]-(:Justification)-[:PREMISE]->(c:Claim) WITH d, collect(DISTINCT c.source_id) "
    "AS srcs WHERE size(srcs) = 2 RETURN d.id AS id, srcs ORDER BY id"
)
STORED_Q = "MATCH (d:Decision {id: $id}) RETURN d.holds AS holds, d.label AS label, d.summary AS summary"


def page_statuses(store: Store, repo: str, g: Graph, did: str) -> dict[str, str]:
    """The status each read model gives ``did``: Decision graph (detail pane, list, canvas, status filter) and
    Corrections (find by id, find by text)."""
    summary = g.read(STORED_Q, {"id": did})[0]["summary"]
    out = {
        "detail pane": node_detail(store, repo, did).status,
        "decision list": decision_rows(store, repo, [did])[0].status,
        "canvas": next(n.status for n in focus_view(store, repo, did).nodes if n.id == did),
        "corrections by id": search_targets(g, did)[0].status,
        "corrections by text": next(t.status for t in search_targets(g, summary, ("decision",)) if t.id == did),
    }
    # the status filter runs the same rule in Cypher: the decision is listed under its status and no other
    for st in ("holds", "fallen", "superseded", "needs review"):
        listed = did in {n.id for n in build_view(store, repo, ViewFilter(statuses=(st,), cap=750)).nodes}
        if listed:
            out[f"filter {st}"] = st
    return out


@pytest.mark.parametrize("which", [0, 1])
def test_a_decision_that_fell_and_holds_again_has_one_status(store: Store, tmp_path: Path, which: int) -> None:
    repo, _ = ingest_ledger(store, tmp_path)
    g = store.repo_graph(repo)
    try:
        rows = g.read(TWO_SOURCES_Q)
        assert len(rows) > which, rows
        did, (first, second) = rows[which]["id"], sorted(rows[which]["srcs"], key=lambda s: not s.startswith("pr:"))
        # its PR's source quarantined: it keeps holding on the issue (labelled review); then the issue: it falls
        assert did not in quarantine_source(g, first, "suspect", "al").report.fell_decisions
        assert quarantine_source(g, second, "suspect", "al").report.fell_decisions == [did]
        fallen = page_statuses(store, repo, g, did)
        assert set(fallen.values()) == {"fallen"}, fallen
        # the PR's quarantine lifted: it holds again on its PR, but that lift did not set the label the second
        # quarantine raised, so the label stays (the engine's record that it fell)
        assert did in lift_quarantine(g, first, "bo", "genuine after all").report.restored_decisions
        stored = g.read(STORED_Q, {"id": did})[0]
        assert stored["holds"] is True and stored["label"] in ("correction", "compensation"), stored
        now = page_statuses(store, repo, g, did)
        assert set(now.values()) == {"needs review"}, now
        assert len(now) == 6  # each read model answered, and the filter listed it exactly once
        # the quarantine lifted too: that lift puts back the label from before its step, the first
        # quarantine's "review" (whose own lift could not clear it, the label having moved on): still one status
        lift_quarantine(g, second, "bo", "genuine after all")
        stored = g.read(STORED_Q, {"id": did})[0]
        assert stored["holds"] is True and stored["label"] == "review", stored
        assert set(page_statuses(store, repo, g, did).values()) == {"needs review"}
    finally:
        g.delete()


def test_the_status_rules() -> None:
    """A label never makes a decision that holds fallen; holds=False always does; superseded comes first."""
    assert decision_status("active", True, "correction") == "needs review"
    assert decision_status("active", True, "compensation") == "needs review"
    assert decision_status("active", True, "review") == "needs review"
    assert decision_status("active", False, None) == "fallen"
    assert decision_status("active", False, "review") == "fallen"
    assert decision_status("active", False, "correction", newer=1) == "superseded"
    assert decision_status("active", None, None) == "holds"
    assert claim_status("active", None) == "holds" and claim_status("withdrawn", False) == "fallen"

"""The guard end to end on the real embedded FalkorDB over the acme/ledger fixture: hops, premises, experts."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from rguard_core.config import Settings
from rguard_core.db import Store
from rguard_core.errors import InvalidInput, UnknownRepository
from rguard_core.guard import GuardReport, premises, run_guard
from rguard_core.guard import candidates as cands
from rguard_core.guard.diffparse import parse_diff
from tests.fixtures.guard.ledger import diff, ingest_ledger

ADR1 = "decision:doc:docs/adr/0001-floats-for-money.md"
ADR2 = "decision:doc:docs/adr/0002-idempotency-keys.md"
ADR3 = "decision:doc:docs/adr/0003-decimal-for-money.md"


@pytest.fixture(scope="module")
def ledger(store: Store, tmp_path_factory: pytest.TempPathFactory) -> str:
    repo, _ = ingest_ledger(store, tmp_path_factory.mktemp("ledger"))
    return repo


def finding(report: GuardReport, decision_id: str):  # type: ignore[no-untyped-def]
    found = [f for f in report.findings if f.decision_id == decision_id]
    assert found, f"{decision_id} not among {[f.decision_id for f in report.findings]}"
    return found[0]


def rules(f) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {p["rule"]: p["status"] for p in f.premises}


def test_touches_hop_flip_named_in_quote_warns_with_receipts(store: Store, ledger: str) -> None:
    report = run_guard(store, ledger, diff("rates"))
    assert report.verdict == "warn"
    f = report.findings[0]
    assert f.decision_id == "decision:pr:10" and f.label == "contradicts" and 0.5 <= f.score <= 1
    assert f.hops == ["touches"] and f.path == ["file:billing/rates.py", "pr:10", "decision:pr:10"]
    assert f.quote.startswith("We decided to keep a missing rate as None")
    assert f.source == {"kind": "pr", "number": 10, "path": None} and f.source_url.endswith("/pull/10")
    assert rules(f) == {"R1": "holds"}
    assert f.alternatives == [
        {
            "text": f.alternatives[0]["text"],
            "quote": "We considered defaulting to 0, but rejected it since it hides missing data.",
        }
    ]
    assert [e["login"] for e in f.experts] == ["alice"] and f.bus_factor == 1
    names = {q["name"] for q in report.cypher}
    assert {"candidates.touches", "experts.pagerank", "experts.betweenness", "premise.R1"} <= names
    # parameterised: no user value (a path, an identifier, an id) is ever part of the statement text
    assert all(q["rows"] >= 0 and q["ms"] >= 0 for q in report.cypher)
    assert not any(v in q["query"] for q in report.cypher for v in ("billing/rates.py", "effective_rate", "pr:10"))
    assert set(report.timings_ms) == {"parse", "graph", "judge", "total"}


def test_r2_fix_merged_but_issue_open_is_stale(store: Store, ledger: str) -> None:
    f = finding(run_guard(store, ledger, diff("invoice")), "decision:pr:11")
    assert f.label == "contradicts" and rules(f)["R2"] == "stale"


def test_r6_inactive_authors_follow_the_setting(store: Store, ledger: str, settings: Settings) -> None:
    f = finding(run_guard(store, ledger, diff("fx")), "decision:pr:12")
    assert f.label == "contradicts" and rules(f)["R6"] == "stale" and "carol" in f.premises[0]["detail"]
    assert f.bus_factor == 0  # the only editor is inactive
    patient = dataclasses.replace(settings, inactive_days=5000)
    f2 = finding(run_guard(store, ledger, diff("fx"), settings=patient), "decision:pr:12")
    assert "R6" not in rules(f2)


def test_r7_reverted_decision_is_not_warned_on_but_its_revert_is(store: Store, ledger: str) -> None:
    report = run_guard(store, ledger, diff("deliver"))
    reverted = finding(report, "decision:pr:13")
    assert reverted.label == "related" and rules(reverted)["R7"] == "broken"
    assert finding(report, "decision:pr:14").label == "contradicts"
    adr = finding(report, ADR2)
    assert adr.label == "contradicts" and "adr" in adr.hops and rules(adr)["R3"] == "holds"
    assert adr.path == ["file:hooks/deliver.py", "pr:15", "doc:docs/adr/0002-idempotency-keys.md", ADR2]
    assert adr.alternatives[0]["quote"] == "Retrying without keys was rejected because it duplicated charges."
    assert [e["login"] for e in adr.experts][:2] == ["alice", "bob"] and adr.bus_factor == 2


def test_superseded_adr_is_replaced_by_the_decision_that_superseded_it(store: Store, ledger: str) -> None:
    report = run_guard(store, ledger, diff("money"))
    assert ADR1 not in {f.decision_id for f in report.findings}
    f = finding(report, ADR3)
    assert f.label == "contradicts" and {"adr", "superseded_by"} <= set(f.hops)
    assert rules(f) == {"R3": "holds", "R4": "holds"} and f.source == {
        "kind": "doc",
        "number": None,
        "path": "docs/adr/0003-decimal-for-money.md",
    }
    graph = store.repo_graph(ledger)
    r3 = dict(premises.run_rule(graph, premises.RULES[2], [ADR1], 365))
    r4 = dict(premises.run_rule(graph, premises.RULES[3], [ADR1], 365))
    assert r3[ADR1]["status"] == "broken" and r4[ADR1] == {
        "rule": "R4",
        "status": "broken",
        "detail": f"superseded by {ADR3}",
    }


def test_r5_depends_on_an_unmerged_pr(store: Store, ledger: str) -> None:
    f = finding(run_guard(store, ledger, diff("currency")), "decision:pr:18")
    assert f.label == "contradicts" and rules(f)["R5"] == "stale" and "#19" in f.premises[0]["detail"]


def test_issue_hop_reaches_a_decision_linked_through_the_same_issue(store: Store, ledger: str) -> None:
    graph = store.repo_graph(ledger)
    found = cands.linked(graph, parse_diff(diff("audit")), [])
    assert [(c.decision_id, c.hops, c.path) for c in found] == [
        ("decision:pr:21", ["issue"], ["file:audit/log.py", "pr:20", "issue:5", "pr:21", "decision:pr:21"])
    ]


def test_symbol_hop_for_a_new_file_and_touches_for_a_rename(store: Store, ledger: str) -> None:
    new = finding(run_guard(store, ledger, diff("newtax")), "decision:pr:22")
    assert new.hops == ["symbol"] and new.label == "related" and new.path[-2:] == ["pr:22", "decision:pr:22"]
    assert [e["login"] for e in new.experts] == ["bob"]
    renamed = run_guard(store, ledger, diff("renametax"))
    f = finding(renamed, "decision:pr:22")
    assert f.label == "contradicts" and f.hops[0] == "touches" and f.path[0] == "file:billing/tax.py"


def test_readme_typo_passes_quietly_and_bots_are_never_experts(store: Store, ledger: str) -> None:
    report = run_guard(store, ledger, diff("readme"))
    assert report.verdict == "pass" and report.findings == []
    for name in ("rates", "deliver", "money"):
        for f in run_guard(store, ledger, diff(name)).findings:
            assert all(not e["login"].endswith("[bot]") for e in f.experts)


def test_guard_a_stored_pr_and_leave_its_own_decision_out(store: Store, ledger: str) -> None:
    report = run_guard(store, ledger, None, pr=14)
    ids = {f.decision_id for f in report.findings}
    assert "decision:pr:14" not in ids and "decision:pr:13" in ids
    assert any(q["name"] == "guard.pr_patches" for q in report.cypher)
    with pytest.raises(InvalidInput, match="#999"):
        run_guard(store, ledger, None, pr=999)


def test_concurrent_and_sequential_runs_agree(store: Store, ledger: str) -> None:
    a = run_guard(store, ledger, diff("deliver"), mode="concurrent").as_dict()["findings"]
    b = run_guard(store, ledger, diff("deliver"), mode="sequential").as_dict()["findings"]
    assert a == b


def test_bad_requests_get_specific_errors(store: Store, ledger: str) -> None:
    with pytest.raises(UnknownRepository):
        run_guard(store, "nobody/nothing-here", diff("rates"))
    with pytest.raises(InvalidInput, match="unknown judge"):
        run_guard(store, ledger, diff("rates"), judge="oracle")
    with pytest.raises(InvalidInput, match="not a unified diff"):
        run_guard(store, ledger, "please review my change")
    binary = "diff --git a/logo.png b/logo.png\nindex 1..2 100644\nBinary files a/logo.png and b/logo.png differ\n"
    assert run_guard(store, ledger, binary).verdict == "pass"


def test_huge_diff_does_bounded_work(store: Store, ledger: str, tmp_path: Path) -> None:
    one = diff("invoice")
    big = "".join(one.replace("billing/invoice.py", f"gen/m{i}.py") for i in range(45_000))
    assert len(big) > 10_000_000
    report = run_guard(store, ledger, big)
    assert report.timings_ms["total"] < 15_000 and report.notes


def test_a_graph_with_no_history_yet_passes(store: Store, repo_name: str) -> None:
    graph = store.repo_graph(repo_name)
    graph.query("MERGE (r:Repo {id: 'repo'}) SET r.full_name = $n, r.ingested_at = '2025-01-01'", {"n": repo_name})
    try:
        report = run_guard(store, repo_name, diff("rates"))
        assert report.verdict == "pass" and report.findings == []
        graph.query("CREATE (:Person {id: 'person:solo', login: 'solo', is_bot: false})")
        assert run_guard(store, repo_name, diff("newtax")).verdict == "pass"
    finally:
        graph.delete()

"""Concurrency on the real engine: 16 writers at once lose no update, and concurrent steps are serializable."""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from rguard_core.db import Graph, Store
from rguard_core.errors import StaleCorrectionPreview
from rguard_core.guard.feedback import record_feedback
from rguard_core.memory import apply_correction, load_scenario, preview_correction, quarantine_source, status
from rguard_core.schema import ensure_schema
from tests.memory_oracle import Oracle

N_CLAIMS = 8


def run_all(workers: list[Callable[[], Any]]) -> list[Any]:
    """Start every worker at the same moment (barrier) and collect results or exceptions."""
    barrier = threading.Barrier(len(workers))
    results: list[Any] = [None] * len(workers)

    def wrap(i: int, fn: Callable[[], Any]) -> None:
        barrier.wait()
        try:
            results[i] = fn()
        except Exception as e:  # noqa: BLE001 — the test asserts on it
            results[i] = e

    threads = [threading.Thread(target=wrap, args=(i, fn)) for i, fn in enumerate(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results


def correct_until_applied(graph: Graph, claim_id: str, text: str, by: str) -> Any:
    """A reviewer: preview, apply; on a stale preview, preview again (what the page's button does)."""
    for _ in range(200):
        p = preview_correction(graph, claim_id, text, by)
        try:
            return apply_correction(graph, claim_id, text, by, preview=p)
        except StaleCorrectionPreview:
            continue
    raise AssertionError("never applied")


@pytest.fixture
def repo_graph(store: Store, repo_name: str) -> Iterator[tuple[str, Graph]]:
    """A repository graph shaped like ingest builds it: one merged PR decision resting on 8 review-comment claims."""
    graph = store.repo_graph(repo_name)
    ensure_schema(graph)
    rows = []
    for i in range(N_CLAIMS):
        text = f"Reason {i}: the cache must be invalidated on write path {i}."
        quote = f"the cache must be invalidated on write path {i}"
        start = text.index(quote)
        rows.append(
            {
                "src": f"comment:pr:1:{i}",
                "text": text,
                "quote": quote,
                "start": start,
                "end": start + len(quote),
                "claim": f"claim:comment:pr:1:{i}:{start}:{start + len(quote)}",
                "frag": f"frag:comment:pr:1:{i}:{start}:{start + len(quote)}",
            }
        )
    graph.query(
        "CREATE (:PR:Source {id: 'pr:1', kind: 'pr', number: 1, text: 'Add write-through cache', quarantined: false, rev: 0})"
        "<-[:DERIVED_FROM]-(:Decision {id: 'decision:pr:1', summary: 'Use a write-through cache', rev: 0, "
        "status: 'active', holds: true, score_factor: 1.0})",
        name="setup",
    )
    graph.query(
        "MATCH (d:Decision {id: 'decision:pr:1'}) CREATE (:Action {id: 'action:pr:1', summary: 'merged', executed: true, "
        "status: 'active'})-[:IMPLEMENTS]->(d) WITH d "
        "UNWIND $rows AS r CREATE (s:Comment:Source {id: r.src, kind: 'comment', text: r.text, quarantined: false, rev: 0}) "
        "CREATE (s)-[:HAS_FRAGMENT]->(f:Fragment {id: r.frag, source_id: r.src, start: r.start, end: r.end, text: r.quote}) "
        "CREATE (c:Claim {id: r.claim, statement: r.quote, quote: r.quote, source_id: r.src, start: r.start, end: r.end, "
        "rev: 0, status: 'active', holds: true})-[:EVIDENCED_BY]->(f) "
        "CREATE (j:Justification {id: 'just:decision:pr:1:' + r.claim, holds: true})-[:PREMISE]->(c) "
        "CREATE (j)-[:JUSTIFIES]->(d)",
        {"rows": rows},
        name="setup",
    )
    yield repo_name, graph
    graph.delete()


def test_16_reviewers_corrections_and_guard_feedback_lose_no_update(
    store: Store, repo_graph: tuple[str, Graph]
) -> None:
    repo, graph = repo_graph
    claims = [r["id"] for r in graph.read("MATCH (c:Claim) RETURN c.id AS id ORDER BY id")]
    workers: list[Callable[[], Any]] = []
    for i, cid in enumerate(claims):
        workers.append(
            lambda cid=cid, i=i: correct_until_applied(
                store.repo_graph(repo), cid, f"Path {i} needs no invalidation.", f"rev{i}"
            )
        )
        workers.append(
            lambda i=i: record_feedback(
                store, repo, "decision:pr:1", "wrong", f"lead{i}", f"noise {i}", lines_key=f"{i:016x}"
            )
        )
    results = run_all(workers)
    errors = [r for r in results if isinstance(r, Exception)]
    assert not errors, errors
    # every reviewer's correction landed: eight Correction nodes, eight superseded claims, eight replacements
    assert graph.read("MATCH (k:Correction {kind: 'claim', state: 'applied'}) RETURN count(k) AS n") == [
        {"n": N_CLAIMS}
    ]
    assert graph.read("MATCH (c:Claim {status: 'superseded'}) RETURN count(c) AS n") == [{"n": N_CLAIMS}]
    assert graph.read("MATCH (:Claim)-[:SUPERSEDES]->(:Claim) RETURN count(*) AS n") == [{"n": N_CLAIMS}]
    # every feedback landed too, through the same compare-and-set: eight dismissals, each with its own lines
    d = graph.read("MATCH (d:Decision {id: 'decision:pr:1'}) RETURN d.holds AS h, d.label AS l")[0]
    rows = graph.read("MATCH (k:Correction {kind: 'wrong'}) RETURN k.by AS by, k.lines_key AS lk ORDER BY by")
    assert [(r["by"], r["lk"]) for r in rows] == [(f"lead{i}", f"{i:016x}") for i in range(N_CLAIMS)]
    # no write skew: each reviewer saw "the decision keeps other support", yet the last one took its support away
    assert d["h"] is False and d["l"] == "compensation"
    assert graph.read("MATCH (a:Action {id: 'action:pr:1'}) RETURN a.status AS s") == [{"s": "compensate"}]
    fell = [r for r in results if hasattr(r, "report") and r.report.fell_decisions]
    assert len(fell) == 1  # exactly one correction (the last to commit) reports the decision falling


def test_16_reviewers_applying_the_same_correction_apply_it_once(store: Store, repo_graph: tuple[str, Graph]) -> None:
    repo, graph = repo_graph
    cid = graph.read("MATCH (c:Claim) RETURN c.id AS id ORDER BY id LIMIT 1")[0]["id"]
    rev = preview_correction(graph, cid, "Same words from everyone.", "r").revision
    results = run_all(
        [
            lambda: apply_correction(store.repo_graph(repo), cid, "Same words from everyone.", "r", rev)
            for _ in range(16)
        ]
    )
    assert not [r for r in results if isinstance(r, Exception)], results
    assert sorted(r.status for r in results) == ["already_applied"] * 15 + ["applied"]
    assert len({r.replacement for r in results}) == 1
    assert graph.read("MATCH (k:Correction) RETURN count(k) AS n") == [{"n": 1}]


SCENARIO: dict[str, Any] = {
    "sources": [
        {
            "id": f"s{i}",
            "kind": "doc",
            "title": f"S{i}",
            "text": f"Record {i}: value {i} confirmed.",
            "derived_from": [f"s{i - 4}"] if i >= 4 else [],
        }
        for i in range(8)
    ],
    "claims": [
        {"id": f"c{i}", "statement": f"value {i}", "source": f"s{i % 8}", "quote": f"value {i % 8} confirmed"}
        for i in range(12)
    ]
    + [{"id": f"x{i}", "statement": f"derived {i}"} for i in range(4)],
    "justifications": [
        *({"conclusion": f"x{i}", "premises": [f"c{i}", f"c{i + 4}"]} for i in range(4)),
        *({"conclusion": f"x{i}", "premises": [f"c{i + 8}"]} for i in range(4)),
        {"conclusion": "x0", "premises": ["x3"]},
        {"conclusion": "x3", "premises": ["x0"]},  # a cycle
        *({"conclusion": f"d{i}", "premises": [f"x{i}"]} for i in range(4)),
        *({"conclusion": f"d{i}", "premises": [f"x{(i + 1) % 4}", f"c{i}"]} for i in range(4)),
    ],
    "decisions": [{"id": f"d{i}", "summary": f"decision {i}"} for i in range(4)],
    "actions": [
        {"id": f"a{i}", "summary": f"action {i}", "decision": f"d{i}", "executed": i % 2 == 0} for i in range(4)
    ],
}


def test_concurrent_quarantines_and_corrections_are_serializable(store: Store) -> None:
    ws = f"conc-{uuid.uuid4().hex[:8]}"
    load_scenario(store, SCENARIO, workspace=ws)
    graph = store.workspace_graph(ws)
    try:
        rng = random.Random(7)
        ops = [("quarantine", f"s{i}") for i in rng.sample(range(8), 6)] + [
            ("correct", c) for c in rng.sample([f"c{i}" for i in range(12)] + ["x1", "x2"], 10)
        ]
        workers: list[Callable[[], Any]] = []
        for kind, target in ops:
            if kind == "quarantine":
                workers.append(lambda t=target: quarantine_source(store.workspace_graph(ws), t, by="q"))
            else:
                workers.append(lambda t=target: correct_until_applied(store.workspace_graph(ws), t, f"fixed {t}", "r"))
        results = run_all(workers)
        assert not [r for r in results if isinstance(r, Exception)], results
        # replay the oracle in commit order (each step's revision) and compare every step and the end state
        oracle = Oracle(SCENARIO)
        for (kind, target), res in sorted(zip(ops, results, strict=True), key=lambda x: x[1].report.revision):
            d = res.as_dict()
            if kind == "quarantine":
                expected = oracle.quarantine(target)
            else:
                expected = oracle.correct(target, res.replacement, res.source)
            assert (sorted(d["fell"]["claims"]), sorted(d["fell"]["decisions"]), sorted(d["kept"])) == (
                expected["fell_claims"],
                expected["fell_decisions"],
                expected["kept"],
            ), (kind, target)
        assert status(graph) == oracle.status()
        revisions = sorted(r.report.revision for r in results)
        assert revisions == list(range(revisions[0], revisions[0] + len(ops)))  # one write each, none lost
    finally:
        graph.delete()

"""Scenario files: every kind of bad input fails the load with a message naming it, and nothing is written."""

from __future__ import annotations

import copy
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from rguard_core.db import Store
from rguard_core.errors import InvalidInput, ScenarioError
from rguard_core.memory import load_scenario, status
from rguard_core.memory.scenario import parse_scenario

BASE: dict[str, Any] = {
    "workspace": "unused",
    "sources": [
        {"id": "email", "kind": "email", "title": "E", "text": "The invoice was paid on Monday."},
        {
            "id": "fwd",
            "kind": "email",
            "title": "F",
            "text": "Forwarded: the invoice was paid.",
            "derived_from": ["email"],
        },
    ],
    "claims": [
        {"id": "paid", "statement": "Invoice paid", "source": "email", "quote": "The invoice was paid"},
        {"id": "paid-fwd", "statement": "Invoice paid (fwd)", "source": "fwd", "quote": "the invoice was paid"},
        {"id": "settled", "statement": "Account settled"},
    ],
    "justifications": [
        {"conclusion": "settled", "premises": ["paid"]},
        {"conclusion": "close", "premises": ["settled"]},
    ],
    "decisions": [{"id": "close", "summary": "Close the account"}],
    "actions": [{"id": "closed", "summary": "Account closed", "decision": "close", "executed": False}],
}


def _variant(path: list[Any], value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


@pytest.mark.parametrize(
    ("doc", "named"),
    [
        (_variant(["claims", 0, "quote"], "The invoice was PAID"), "'paid'"),
        (_variant(["claims", 0, "quote"], "   "), "'paid'"),
        (_variant(["claims", 0, "source"], "nowhere"), "'nowhere'"),
        (_variant(["claims", 1, "id"], "paid"), "duplicate id 'paid'"),
        (_variant(["decisions", 0, "id"], "settled"), "duplicate id 'settled'"),
        (_variant(["sources", 1, "derived_from"], ["ghost"]), "'ghost'"),
        (_variant(["sources", 0, "derived_from"], ["fwd"]), "cycle"),
        (_variant(["justifications", 0, "premises"], ["paid", "missing-claim"]), "'missing-claim'"),
        (_variant(["justifications", 0, "premises"], ["close"]), "'close', which is a decision"),
        (_variant(["justifications", 1, "conclusion"], "no-such-decision"), "'no-such-decision'"),
        (_variant(["actions", 0, "decision"], "nope"), "'nope'"),
        (_variant(["actions", 0, "executed"], "yes"), "'closed'"),
        (_variant(["claims", 2, "quote"], "paid"), "'settled' has a quote but no 'source'"),
        (_variant(["claims", 2, "source"], "email"), "'settled' names source 'email' but has no 'quote'"),
        (_variant(["claims"], "not a list"), "'claims' must be a list"),
    ],
)
def test_bad_scenarios_fail_naming_the_problem(doc: dict[str, Any], named: str) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(doc)
    assert named in str(err.value)


def test_failed_load_writes_nothing_and_keeps_the_previous_workspace(store: Store, tmp_path: Path) -> None:
    ws = f"keep-{uuid.uuid4().hex[:8]}"
    graph = store.workspace_graph(ws)
    try:
        load_scenario(store, BASE, workspace=ws)
        before = status(graph)
        nodes = graph.read("MATCH (n) RETURN count(n) AS n")[0]["n"]
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(_variant(["claims", 1, "quote"], "not in the text")))
        with pytest.raises(ScenarioError, match="paid-fwd"):
            load_scenario(store, bad, workspace=ws)
        assert status(graph) == before
        assert graph.read("MATCH (n) RETURN count(n) AS n")[0]["n"] == nodes
    finally:
        graph.delete()


def test_failed_load_into_a_new_workspace_creates_no_graph(store: Store) -> None:
    ws = f"none-{uuid.uuid4().hex[:8]}"
    with pytest.raises(ScenarioError):
        load_scenario(store, _variant(["actions", 0, "decision"], "ghost"), workspace=ws)
    assert not store.workspace_graph(ws).exists()


def test_unreadable_files_and_bad_workspace_names_are_clear(store: Store, tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="not found"):
        load_scenario(store, tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(ScenarioError, match="not valid JSON"):
        load_scenario(store, broken)
    with pytest.raises(InvalidInput, match="invalid workspace"):
        load_scenario(store, BASE, workspace="bad name")
    with pytest.raises(ScenarioError, match="no workspace"):
        load_scenario(store, {k: v for k, v in BASE.items() if k != "workspace"})


def test_load_stores_verbatim_evidence_and_replaces_on_reload(store: Store) -> None:
    ws = f"ev-{uuid.uuid4().hex[:8]}"
    graph = store.workspace_graph(ws)
    try:
        first = load_scenario(store, BASE, workspace=ws)
        rows = graph.read(
            "MATCH (s:Source)-[:HAS_FRAGMENT]->(f:Fragment)<-[:EVIDENCED_BY]-(c:Claim) "
            "RETURN c.id AS id, c.quote AS quote, c.start AS start, c.end AS end, f.text AS ftext, s.text AS text ORDER BY id"
        )
        assert [r["id"] for r in rows] == ["paid", "paid-fwd"]
        for r in rows:
            assert r["text"][r["start"] : r["end"]] == r["quote"] == r["ftext"]
        assert graph.read("MATCH (:Source {id: 'fwd'})-[:DERIVED_FROM]->(p:Source) RETURN p.id AS p") == [
            {"p": "email"}
        ]
        st = status(graph)
        # two claims, one email: the forwarded copy is not an independent source
        assert st["claims"]["paid"] == {"holds": True, "sources": 1}
        assert st["claims"]["paid-fwd"] == {"holds": True, "sources": 1}
        assert st["actions"]["closed"] == {"status": "active"}
        second = load_scenario(store, BASE, workspace=ws)
        assert (
            second.replaced == first.counts["sources"] + 3 + 2 + 2 + 1 + 1
        )  # sources, claims, fragments, justs, decision, action
        assert second.revision > first.revision
        assert graph.read("MATCH (c:Claim) RETURN count(c) AS n")[0]["n"] == 3
    finally:
        graph.delete()


def test_huge_scenarios_load_in_batches_and_a_half_load_is_refused(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rguard_core.errors import ConflictError
    from rguard_core.memory import loader, quarantine_source

    ws = f"batch-{uuid.uuid4().hex[:8]}"
    graph = store.workspace_graph(ws)
    try:
        single = load_scenario(store, BASE, workspace=ws)
        expected = status(graph)
        monkeypatch.setattr(loader, "SINGLE_QUERY_ROWS", 3)
        monkeypatch.setattr(loader, "BATCH", 2)
        batched = load_scenario(store, BASE, workspace=ws)
        assert batched.revision == single.revision + 1 and status(graph) == expected
        # a batched load that dies half way leaves the workspace marked "loading": every command refuses it
        calls = {"n": 0}
        real_query = type(graph).query

        def dying(self, cypher, params=None, **kw):  # type: ignore[no-untyped-def]
            if cypher.startswith("UNWIND $rows") and (calls.__setitem__("n", calls["n"] + 1) or calls["n"] > 3):
                raise KeyboardInterrupt("killed mid-load")
            return real_query(self, cypher, params, **kw)

        monkeypatch.setattr(type(graph), "query", dying)
        with pytest.raises(KeyboardInterrupt):
            load_scenario(store, BASE, workspace=ws)
        monkeypatch.setattr(type(graph), "query", real_query)
        for call in (lambda: status(graph), lambda: quarantine_source(graph, "email")):
            with pytest.raises(ConflictError, match="load it again"):
                call()
        load_scenario(store, BASE, workspace=ws)
        assert status(graph) == expected
    finally:
        graph.delete()

"""The store: derived graph names, recording runner, typed errors, missing graphs read as empty."""

from __future__ import annotations

import pytest

from rguard_core.db import QueryLog, Store, repo_graph_name, validate_repo, workspace_graph_name
from rguard_core.errors import InvalidInput, InvalidRepoName, QueryFailed, QueryTimeout
from rguard_core.schema import ensure_schema


@pytest.mark.parametrize("bad", ["", "a", "a/b/c", "a b/c", "../x", "a/..", "o/n;DROP", "x__y/z", "a/b\nc", "a/b\x00"])
def test_invalid_repo_names_are_refused(bad: str) -> None:
    with pytest.raises(InvalidRepoName):
        repo_graph_name(bad)


def test_repo_and_workspace_names_are_derived() -> None:
    assert repo_graph_name("Kludex/starlette") == "rguard__Kludex__starlette"
    assert validate_repo(" acme/billing ") == "acme/billing"
    assert workspace_graph_name("fin-ops") == "rguard_ws__fin-ops"
    with pytest.raises(InvalidInput):
        workspace_graph_name("a b")


def test_store_refuses_underived_graph_names(store: Store) -> None:
    with pytest.raises(InvalidInput):
        store.graph("users_graph")


def test_missing_graph_reads_as_empty(store: Store) -> None:
    g = store.repo_graph("nobody/nothing-here")
    assert g.read("MATCH (n) RETURN n.id AS id") == []
    assert not g.exists()


def test_query_log_records_statement_params_rows_ms(graph) -> None:  # type: ignore[no-untyped-def]
    log = QueryLog()
    g = graph.with_log(log)
    g.query("UNWIND $xs AS x CREATE (:T {id: x})", {"xs": ["a", "b", "c"]}, name="create")
    rows = g.read("MATCH (t:T) RETURN t.id AS id ORDER BY id", name="list")
    assert [r["id"] for r in rows] == ["a", "b", "c"]
    assert [r.name for r in log.records] == ["create", "list"]
    assert log.records[1].rows == 3 and log.records[1].ms >= 0
    assert log.records[0].params == {"xs": ["a", "b", "c"]}


def test_nodes_come_back_as_plain_dicts(graph) -> None:  # type: ignore[no-untyped-def]
    graph.query("CREATE (:Source:PR {id: 'pr:1', number: 1})")
    (row,) = graph.read("MATCH (n:PR) RETURN n")
    assert row["n"]["id"] == "pr:1" and set(row["n"]["_labels"]) == {"Source", "PR"}


def test_timeout_raises_typed_error(graph) -> None:  # type: ignore[no-untyped-def]
    graph.query("CREATE (:T {id: 'x'})")
    with pytest.raises(QueryTimeout) as err:
        graph.query("UNWIND range(1, 50000000) AS x WITH x WHERE x % 7 = 0 RETURN count(x) AS c", timeout_ms=5)
    assert err.value.timeout_ms == 5 and "range" in err.value.query


def test_bad_cypher_raises_query_failed_with_context(graph) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(QueryFailed) as err:
        graph.query("MATCH (n RETURN n", {"p": 1})
    assert err.value.params == {"p": 1} and err.value.graph == graph.name


def test_paged_reads_return_every_row_once(graph) -> None:  # type: ignore[no-untyped-def]
    graph.query("UNWIND range(1, 2345) AS i CREATE (:T {id: toString(i), i: i})")
    seen = [r["i"] for r in graph.paged("MATCH (t:T) RETURN t.i AS i ORDER BY i", page_size=500)]
    assert seen == list(range(1, 2346))


def test_schema_setup_is_idempotent_and_enforces_unique_ids(graph) -> None:  # type: ignore[no-untyped-def]
    ensure_schema(graph)
    ensure_schema(graph)
    idx = graph.read("CALL db.indexes() YIELD label, properties RETURN label, properties")
    labels = {r["label"] for r in idx}
    assert {"PR", "Decision", "Claim", "File"} <= labels
    graph.query("CREATE (:Source {id: 's1'})")
    with pytest.raises(QueryFailed):
        graph.query("CREATE (:Source {id: 's1'})")

"""Graph names are injective: two repositories never share a graph, and `repos` reads names back from the graph."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from rguard_core.db import Store, repo_from_graph_name, repo_graph_name
from rguard_core.explore.graph_export import export_graph
from rguard_core.ingest.pipeline import ingest_snapshot

SNAPSHOT = Path(__file__).resolve().parent / "fixtures" / "snapshot" / "repos" / "acme" / "ledger"
TRICKY = [
    "a_/b",
    "a/_b",
    "a_/_b",
    "_a/b",
    "a/b_",
    "a-/b",
    "a./b",
    "a/.b",
    "a_b/c",
    "a/b_c",
    "A/b",
    "x_/y_",
    "o_/n.",
    "_/_",
    "a_/b~1",
    "1/2",
]


def test_known_collision_is_gone() -> None:
    assert repo_graph_name("a_/b") != repo_graph_name("a/_b")
    assert repo_graph_name("Kludex/starlette") == "rguard__Kludex__starlette"  # old names kept where unambiguous


def test_names_are_injective_and_read_back() -> None:
    names = {}
    for repo in TRICKY:
        try:
            g = repo_graph_name(repo)
        except Exception:  # noqa: BLE001 — invalid names are refused, which is fine; they just cannot collide
            continue
        assert g not in names, f"{repo} and {names.get(g)} share graph {g}"
        names[g] = repo
        assert repo_from_graph_name(g) == repo
    assert len(names) >= 14
    assert repo_from_graph_name("rguard__a___b~7") is None and repo_from_graph_name("other") is None


def test_two_tricky_repositories_get_two_graphs(store: Store, tmp_path: Path) -> None:
    tag = uuid.uuid4().hex[:6]
    first, second = f"t{tag}_/ledger", f"t{tag}/_ledger"
    for repo in (first, second):
        owner, name = repo.split("/")
        (tmp_path / "repos" / owner).mkdir(parents=True, exist_ok=True)
        (tmp_path / "repos" / owner / name).symlink_to(SNAPSHOT, target_is_directory=True)
    try:
        ingest_snapshot(store, tmp_path, repo=first)
        assert first in store.list_repos() and second not in store.list_repos()
        ingest_snapshot(store, tmp_path, repo=second)
        repos = store.list_repos()
        assert first in repos and second in repos
        a, b = export_graph(store, first), export_graph(store, second)
        assert a["repo"] == first and b["repo"] == second
        assert len(a["nodes"]) == len(b["nodes"])  # same content, each in its own graph, not merged
        names = {n["props"].get("full_name") for n in a["nodes"] if "Repo" in n["labels"]}
        assert names == {first}
    finally:
        for repo in (first, second):
            store.repo_graph(repo).delete()


def test_a_graph_filled_under_a_colliding_old_name_is_not_offered(store: Store) -> None:
    """`a_/b` used to be written to rguard__a___b, which now means `a/_b`; the Repo node tells them apart."""
    tag = uuid.uuid4().hex[:6]
    g = store.graph(f"rguard__c{tag}___d")  # the old name of c{tag}_/d
    g.query("CREATE (:Repo {id: 'repo', full_name: $n})", {"n": f"c{tag}_/d"})
    try:
        assert f"c{tag}/_d" not in store.list_repos() and f"c{tag}_/d" not in store.list_repos()
    finally:
        g.delete()


@pytest.mark.parametrize("bad", ["a__b/c", "a/b__c"])
def test_double_underscores_stay_refused(bad: str) -> None:
    with pytest.raises(Exception, match="double underscore"):
        repo_graph_name(bad)

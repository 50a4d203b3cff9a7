"""The demo seed loads idempotently: repository graph and memory workspaces."""

from __future__ import annotations

import pytest

from rguard_core.db import Store
from rguard_core.seed import DEMO_REPO, DEMO_SNAPSHOT, MEMORY_DIR, load_demo


def test_seed_loads_once_and_is_idempotent(store: Store) -> None:
    if not (DEMO_SNAPSHOT / "repos").is_dir():
        pytest.skip("demo seed not written yet")
    first = load_demo(store, force=True)
    assert first.loaded and DEMO_REPO in store.list_repos()
    second = load_demo(store)
    assert not second.loaded, "an unchanged seed is not re-ingested"
    assert sorted(second.workspaces) == sorted(first.workspaces)
    assert len(first.workspaces) == len(list(MEMORY_DIR.glob("*.json"))) >= 3
    decisions = store.repo_graph(DEMO_REPO).read("MATCH (d:Decision) RETURN count(d) AS n")[0]["n"]
    assert decisions >= 15

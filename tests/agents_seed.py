"""The demo seed for the agent surfaces' tests (MCP, pre-commit, Action), and private copies that tests may write to."""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from rguard_core.db import Store
from rguard_core.ingest.pipeline import ingest_snapshot
from rguard_core.seed import DEMO_REPO, DEMO_SNAPSHOT, load_demo
from tests.fixtures.guard.seed_cases import CASES, case_diff

CASE = {c[0]: c for c in CASES}


def seed_diff(case_id: str) -> str:
    return case_diff(*CASE[case_id][3:])


def load_seed(store: Store) -> str:
    if not DEMO_SNAPSHOT.is_dir():
        pytest.skip(f"demo seed missing at {DEMO_SNAPSHOT}")
    load_demo(store)
    return DEMO_REPO


def private_seed(store: Store, root: Path, edit: Callable[[Path], None] | None = None) -> str:
    """A copy of the seed under a new OWNER (so writes never touch the shared seed), optionally edited first."""
    owner = f"ag{uuid.uuid4().hex[:10]}"
    dest = root / "repos" / owner / "tollgate"
    shutil.copytree(DEMO_SNAPSHOT / "repos" / "acme" / "tollgate", dest)
    if edit is not None:
        edit(dest)
    repo = f"{owner}/tollgate"
    ingest_snapshot(store, root, repo=repo)
    return repo


def edit_pr_body(number: int, old: str, new: str) -> Callable[[Path], None]:
    def edit(dest: Path) -> None:
        p = dest / "pulls" / f"{number}.json"
        data = json.loads(p.read_text(encoding="utf-8"))
        assert old in data["body"]
        data["body"] = data["body"].replace(old, new)
        p.write_text(json.dumps(data), encoding="utf-8")

    return edit

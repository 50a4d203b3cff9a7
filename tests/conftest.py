"""Shared fixtures: one real embedded FalkorDB per test session, a unique graph per test."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from rguard_core.config import Settings
from rguard_core.db import Graph, Store, open_store

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
REALDATA = SHARED / "realdata"


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("rguard-data")
    os.environ["RGUARD_DATA_DIR"] = str(d)  # so CLI calls in-process use the same embedded engine
    os.environ.pop("FALKORDB_URL", None)
    return d


@pytest.fixture(scope="session")
def settings(data_dir: Path) -> Settings:
    return Settings.from_env()


@pytest.fixture(scope="session")
def store(settings: Settings) -> Iterator[Store]:
    s = open_store(settings)
    yield s
    s.close()  # stop this session's embedded server instead of leaving it running


@pytest.fixture
def graph(store: Store) -> Iterator[Graph]:
    """A fresh, uniquely named graph, deleted afterwards."""
    g = store.graph(f"rguard_test_{uuid.uuid4().hex[:12]}")
    yield g
    g.delete()


@pytest.fixture
def repo_name() -> str:
    """A unique OWNER/NAME so repository graphs of different tests never collide."""
    return f"test-{uuid.uuid4().hex[:8]}/demo"


def realdata_or_skip() -> Path:
    if not (REALDATA / "github").is_dir():
        pytest.skip(f"../shared/realdata not present at {REALDATA}; real-data tests skipped")
    return REALDATA

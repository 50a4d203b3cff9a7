"""FalkorDB access: embedded or server connection, derived graph names, and a recording query runner.

Every statement goes through ``Graph.query``: it is parameterised, time-limited (``QueryTimeout``),
and recorded with its parameters, row count and milliseconds so pages can show the Cypher they ran.
A read on a graph that does not exist yet returns no rows instead of raising.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict
from urllib.parse import urlsplit

from .cluster_client import node_connections, open_url
from .config import Settings
from .errors import ConnectionFailed, InvalidInput, InvalidRepoName, QueryFailed, QueryTimeout, ResultTruncated
from .jsontypes import JSONObject, ParamsIn, Row

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
    """The graph that holds a repository: ``rguard__<owner>__<name>``, injective over valid names.

    Parts never contain ``__``, so the first ``__`` after the prefix separates owner from name — unless the
    owner ends with ``_`` (``a_/b`` and ``a/_b`` would both read ``a___b``). Those owners, which GitHub does
    not allow but snapshots and local clones may use, get ``~<len(owner)>`` appended (``~`` never occurs in a
    part), so every other graph keeps the name earlier versions gave it.
    """
    owner, name = validate_repo(repo).split("/")
    base = f"{REPO_PREFIX}{owner}__{name}"
    return f"{base}~{len(owner)}" if owner.endswith("_") else base


def repo_from_graph_name(graph: str) -> str | None:
    """The ``owner/name`` a graph name was derived from, or None when it is not one ``repo_graph_name`` makes."""
    if not graph.startswith(REPO_PREFIX):
        return None
    body = graph[len(REPO_PREFIX) :]
    m = re.fullmatch(r"(.+)~(\d{1,3})", body)
    if m:
        text, n = m[1], int(m[2])
        owner, sep, name = text[:n], text[n : n + 2], text[n + 2 :]
        if sep != "__":
            return None
    else:
        owner, _, name = body.partition("__")
    try:
        repo = validate_repo(f"{owner}/{name}")
    except InvalidRepoName:
        return None
    return repo if repo_graph_name(repo) == graph else None


def workspace_graph_name(workspace: str) -> str:
    """The graph that holds a memory workspace: ``rguard_ws__<name>``."""
    ws = (workspace or "").strip()
    if not _PART.fullmatch(ws) or "__" in ws or ws in (".", ".."):
        raise InvalidInput(f"invalid workspace name {workspace!r}; use letters, digits, '_', '.', '-'")
    return f"{WORKSPACE_PREFIX}{ws}"


class ClientOptions(TypedDict):
    """The redis-py client options every connection is opened with (see ``Store._client_kwargs``)."""

    socket_timeout: float
    socket_connect_timeout: float
    retry: Any  # redis.retry.Retry


@dataclass
class QueryRecord:
    name: str
    query: str
    params: ParamsIn
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

    def as_dicts(self, with_params: bool = False) -> list[JSONObject]:
        out = []
        for r in self.records:
            d: JSONObject = {"name": r.name, "query": r.query, "ms": round(r.ms, 3), "rows": r.rows}
            if with_params:
                d["params"] = _jsonable(r.params)
            out.append(d)
        return out


log = logging.getLogger(__name__)

# How long a read of the server's limits is trusted before a query reads them again (Store.refresh_limits):
# one GRAPH.CONFIG round trip per this many seconds at most, and whole-graph reads always read them first.
LIMITS_TTL_S = 2.0


class Store:
    """A connection to FalkorDB: the data dir's engine (engine/manager.py) or a server at ``FALKORDB_URL``.

    ``target`` is for display and never holds a password. ``result_cap`` is the server's RESULTSET_SIZE when
    it caps results (the official image ships 10,000): every read that comes back at the cap raises
    ResultTruncated, and paged reads stay below it, so a capped server can never hand back half an answer.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.timeout_ms = settings.query_timeout_ms
        self.result_cap: int | None = None
        self.notes: list[str] = []
        self._replica_down = False  # the read replica could not be reached: reads go to the primary
        self._limits_at = 0.0  # when the server's limits were last read (time.monotonic), for refresh_limits
        url = settings.falkordb_url
        if url:
            self.target = redact_url(url)
            self.embedded = False
            self._db: Any = _connect(
                self.target, lambda kw: open_url(url, dict(kw)), self._client_kwargs(), secret=_password(url)
            )
            self._check_server_settings()
        else:
            from .engine import ensure_engine

            self.target = f"embedded:{settings.data_dir.resolve()}"
            self.embedded = True
            socket_path = ensure_engine(settings)
            self._db = _connect(
                self.target,
                lambda kw: _falkordb().FalkorDB(unix_socket_path=str(socket_path), **kw),
                self._client_kwargs(),
            )
        self.read_db: Any = self._db
        read_url = settings.falkordb_read_url
        if read_url and not self.embedded:
            self.read_target = redact_url(read_url)
            try:
                self.read_db = _connect(
                    self.read_target,
                    lambda kw: open_url(read_url, dict(kw)),
                    self._client_kwargs(),
                    secret=_password(read_url),
                )
            except ConnectionFailed as e:
                self.reads_from_primary(e.why)  # a replica down must not stop a command the primary can answer
            else:
                self._check_server_settings(self.read_db)

    def _client_kwargs(self) -> ClientOptions:
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        # No silent retries: a write re-sent after a lost reply could apply twice; the caller decides.
        return {
            "socket_timeout": self._socket_timeout_s(),
            "socket_connect_timeout": 5.0,
            "retry": Retry(NoBackoff(), 0),
        }

    def _check_server_settings(self, db: Any = None) -> None:
        """Read the server's result cap and query time ceiling, and live within them."""
        db = db or self._db
        cap = self._config_get("RESULTSET_SIZE", db)
        if cap == 0:
            raise ConnectionFailed(
                self.target,
                "the server returns no rows at all (RESULTSET_SIZE 0); set it to -1 (unlimited) or at least 1000",
            )
        if cap is not None and cap > 0 and (self.result_cap is None or cap < self.result_cap):
            self.result_cap = cap
            self.notes.append(f"server caps results at {cap} rows (RESULTSET_SIZE); bulk reads page below it")
        self._limits_at = time.monotonic()
        ceiling = self._config_get("TIMEOUT_MAX", db)
        if ceiling and 0 < ceiling < self.timeout_ms:
            self.notes.append(f"server TIMEOUT_MAX {ceiling} ms is below RGUARD_QUERY_TIMEOUT_MS; using {ceiling} ms")
            self.timeout_ms = ceiling

    def reads_from_primary(self, why: str) -> None:
        """The read replica cannot be reached: send reads to the primary from now on, and say so once."""
        if self._replica_down:
            return
        self._replica_down = True
        self.read_db = self._db
        note = f"read replica {getattr(self, 'read_target', '')} unreachable ({why}); reading from the primary"
        self.notes.append(note)
        log.warning("rguard: %s", note)

    def refresh_limits(self, force: bool = False) -> None:
        """Read the server's result cap again (at most every LIMITS_TTL_S unless ``force``): an operator may lower
        it under a running process, and a failover may land on a node with the image's default of 10,000. A cap
        read once at connect and trusted after that let a lowered cap pass short answers off as whole ones
        (``memory status`` counted 1,000 of 8,793 claims). Both ends count: the primary and the read replica."""
        if self.embedded or (not force and time.monotonic() - self._limits_at < LIMITS_TTL_S):
            return
        self._limits_at = time.monotonic()
        dbs = {id(self._db): self._db, id(self.read_db): self.read_db}.values()
        caps = [c for c in (self._config_get("RESULTSET_SIZE", db) for db in dbs) if c is not None]
        if not caps:
            return  # the server does not say (an old server): keep what connect found
        if 0 in caps:
            raise ConnectionFailed(
                self.target,
                "the server now returns no rows at all (RESULTSET_SIZE 0); set it to -1 (unlimited) or at least 1000",
            )
        positive = [c for c in caps if c > 0]
        cap = min(positive) if positive else None
        if cap != self.result_cap:
            was = "no cap" if self.result_cap is None else f"{self.result_cap} rows"
            now = "no cap" if cap is None else f"{cap} rows"
            self.notes.append(f"server's result cap (RESULTSET_SIZE) changed from {was} to {now}")
            self.result_cap = cap

    def _config_get(self, key: str, db: Any) -> int | None:
        """``key``'s value on the server, or the tightest one across a cluster's primaries (a 0 cap wins, then
        the smallest positive value; -1 means unlimited); None when no node says."""
        values = [v for v in (_config_value(key, conn) for conn in _nodes_or_empty(db)) if v is not None]
        if not values:
            return None
        if 0 in values:
            return 0
        positive = [v for v in values if v > 0]
        return min(positive) if positive else values[0]

    def _socket_timeout_s(self) -> float:
        # The server enforces the per-query limit; the socket must outlast it, or a slow query surfaces as a
        # bare socket timeout (redis-py's default of 5 s, then retried) instead of QueryTimeout.
        # A server that stops answering (gone, hung) must surface within the limit plus a small margin.
        return self.timeout_ms / 1000 + 3

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
        """Every graph on the server, or on all of a cluster's primaries (a graph is one key on one shard)."""
        try:
            return sorted(self._db.list_graphs() or [])
        except Exception as e:  # noqa: BLE001
            raise ConnectionFailed(self.target, e) from e

    def list_repos(self) -> list[str]:
        """Repositories that have a graph, as ``owner/name`` read back from each graph's Repo node."""
        out = []
        for g in self.list_graphs():
            derived = repo_from_graph_name(g)
            if derived is None:
                continue
            rows = self.graph(g).read("MATCH (r:Repo {id: 'repo'}) RETURN r.full_name AS name", name="repo_name")
            stored = rows[0]["name"] if rows and isinstance(rows[0].get("name"), str) else None
            if stored is not None and stored != derived:
                # A graph an earlier version filled under a colliding name (a_/b and a/_b): its content is
                # not the repository this name now stands for, so it is not offered as one.
                continue
            out.append(derived)
        return sorted(out)

    def list_workspaces(self) -> list[str]:
        return [g[len(WORKSPACE_PREFIX) :] for g in self.list_graphs() if g.startswith(WORKSPACE_PREFIX)]

    def has_graph(self, name: str) -> bool:
        return name in self.list_graphs()

    def reconnect(self) -> None:
        """After the embedded engine went away: ensure it runs again (raises when it cannot) and reconnect."""
        if not self.embedded:
            return
        from .engine import ensure_engine

        socket_path = ensure_engine(self.settings)
        with contextlib.suppress(Exception):
            self._db.connection.close()
        self._db = _connect(
            self.target, lambda kw: _falkordb().FalkorDB(unix_socket_path=str(socket_path), **kw), self._client_kwargs()
        )
        self.read_db = self._db

    def ping(self) -> bool:
        try:
            self._db.connection.ping()
            return True
        except Exception:  # noqa: BLE001
            return False

    def close(self) -> None:
        """Drop this process's connections; the engine keeps running for other users (engine stop ends it)."""
        for db in {id(self._db): self._db, id(self.read_db): self.read_db}.values():
            with contextlib.suppress(Exception):
                db.connection.close()


class Graph:
    """One named graph with a recording, time-limited, parameterised query runner."""

    def __init__(self, store: Store, name: str, log: QueryLog | None = None) -> None:
        self.store = store
        self.name = name
        self.log = log

    @property
    def _g(self) -> Any:
        # resolved per call: after the embedded engine restarts, the store holds a new client
        return self.store._db.select_graph(self.name)

    @property
    def _ro(self) -> Any:
        return self.store.read_db.select_graph(self.name)

    def with_log(self, log: QueryLog) -> Graph:
        return Graph(self.store, self.name, log)

    def query(
        self,
        cypher: str,
        params: ParamsIn | None = None,
        *,
        name: str = "query",
        read_only: bool = False,
        timeout_ms: int | None = None,
    ) -> list[Row]:
        """Run one statement; rows come back as dicts keyed by the RETURN aliases."""
        params = params or {}
        limit = timeout_ms or self.store.timeout_ms
        self.store.refresh_limits()
        t0 = time.perf_counter()
        for attempt in (1, 2):
            try:
                if read_only:
                    res = self._ro.ro_query(cypher, params, timeout=limit)
                else:
                    res = self._g.query(cypher, params, timeout=limit)
                header = [h[1] if isinstance(h, (list, tuple)) else h for h in (res.header or [])]
                rows = [dict(zip(header, (_plain(v) for v in row), strict=False)) for row in res.result_set or []]
                break
            except Exception as e:  # noqa: BLE001 — translated into typed errors below
                msg = str(e)
                if "empty key" in msg and read_only:
                    rows = []
                    break
                if read_only and attempt == 1 and self.store.read_db is not self.store._db and _is_connection_error(e):
                    self.store.reads_from_primary(_scrub(msg, None))  # the replica went away: the primary answers
                    continue
                if self.store.embedded and _is_connection_error(e):
                    # the engine was stopped or killed: start it again for this and later statements; a read is
                    # safe to repeat, a write is not (it may have been applied), so only a read is retried
                    self.store.reconnect()
                    if read_only and attempt == 1:
                        continue
                raise _translate(e, self, cypher, params, limit) from e
        cap = self.store.result_cap
        if cap is not None and len(rows) >= cap:
            raise ResultTruncated(self.name, cypher, params, cap)
        ms = (time.perf_counter() - t0) * 1000
        if self.log is not None:
            self.log.add(QueryRecord(name, cypher, params, ms, len(rows)))
        return rows

    def write_many(self, cypher: str, batches: Sequence[ParamsIn], *, name: str = "write") -> None:
        """Run one write statement per parameter batch, in order, serialising the next batch while the
        database works on the current one (bulk ingest spends as long building parameters as writing)."""
        from concurrent.futures import Future, ThreadPoolExecutor

        from falkordb.helpers import stringify_param_value

        def header(params: ParamsIn) -> str:
            return "CYPHER " + " ".join(f"`{k}`={stringify_param_value(v)}" for k, v in params.items()) + " "

        def send(text: str, params: ParamsIn) -> None:
            t0 = time.perf_counter()
            try:
                self._g.query(text, None, timeout=self.store.timeout_ms)
            except Exception as e:  # noqa: BLE001
                raise _translate(e, self, cypher, params, self.store.timeout_ms) from e
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

    def read(self, cypher: str, params: ParamsIn | None = None, *, name: str = "read") -> list[Row]:
        return self.query(cypher, params, name=name, read_only=True)

    def row_window(self, default: int) -> int:
        """How many rows one read may ask for: ``default``, or fewer than the server's result cap."""
        cap = self.store.result_cap
        return default if cap is None else max(1, min(default, cap - 1))

    def read_each(
        self,
        cypher: str,
        ids: list[Any],
        params: ParamsIn | None = None,
        *,
        key: str = "ids",
        name: str = "read_each",
    ) -> list[Row]:
        """An ``UNWIND $ids`` read over any number of ids, in chunks whose answers stay below the result cap.

        On a server without a cap this is one read. With a cap, a chunk that still comes back at the cap is
        split in half and read again, down to one id; only then is the answer too big (ResultTruncated).
        """
        self.store.refresh_limits(force=True)  # a read of many ids: the cap it pages below must be today's
        if self.store.result_cap is None or not ids:
            return self.read(cypher, {**(params or {}), key: list(ids)}, name=name) if ids else []
        out: list[Row] = []
        pending = [list(ids[i : i + self.row_window(len(ids))]) for i in range(0, len(ids), self.row_window(len(ids)))]
        while pending:
            chunk = pending.pop(0)
            try:
                out.extend(self.read(cypher, {**(params or {}), key: chunk}, name=name))
            except ResultTruncated:
                if len(chunk) == 1:
                    raise
                half = len(chunk) // 2
                pending[:0] = [chunk[:half], chunk[half:]]
        return out

    def paged(
        self, cypher: str, params: ParamsIn | None = None, *, page_size: int = 5000, name: str = "paged"
    ) -> Iterator[Row]:
        """Yield rows of an ORDER BY read page by page (SKIP/LIMIT), so big reads never load at once."""
        if "ORDER BY" not in cypher.upper():
            raise InvalidInput("paged reads need an ORDER BY so pages are stable")
        self.store.refresh_limits(force=True)  # a whole-graph read: page below today's cap, not connect's
        cap = self.store.result_cap
        if cap is not None:
            page_size = max(1, min(page_size, cap - 1))
        skip = 0
        while True:
            rows = self.read(
                f"{cypher} SKIP $_skip LIMIT $_limit", {**(params or {}), "_skip": skip, "_limit": page_size}, name=name
            )
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


def redact_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` — every URL RGuard shows goes through this."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable URL>"
    netloc = parts.netloc
    if "@" in netloc:
        cred, _, host = netloc.rpartition("@")
        user, colon, _pw = cred.partition(":")
        netloc = f"{user}:***@{host}" if colon else (f"***@{host}" if parts.scheme.startswith("redis") else netloc)
    query = parts.query
    if query:
        query = "&".join(
            f"{k}=***" if k.lower() in ("password", "pass", "pwd", "token") else (f"{k}={v}" if sep else k)
            for k, sep, v in (q.partition("=") for q in query.split("&"))
        )
    if netloc == parts.netloc and query == parts.query:
        return url
    return (
        f"{parts.scheme}://{netloc}{parts.path}"
        + (f"?{query}" if query else "")
        + (f"#{parts.fragment}" if parts.fragment else "")
    )


def _falkordb() -> Any:
    import falkordb

    return falkordb


def _password(url: str) -> str | None:
    try:
        return urlsplit(url).password
    except ValueError:
        return None


def _connect(
    target: str, make: Callable[[ClientOptions], Any], kwargs: ClientOptions, secret: str | None = None
) -> Any:
    """Open and ping a client; driver failures become one ConnectionFailed that says what to do."""
    from redis.exceptions import AuthenticationError, ResponseError

    try:
        db = make(kwargs)
        db.connection.ping()
        return db
    except AuthenticationError as e:
        text = str(e).lower()
        if "invalid" in text or "wrong" in text:
            why = "the server refused the password in FALKORDB_URL (wrong user name or password)"
        else:
            why = "the server needs a password; put it in FALKORDB_URL as redis://:PASSWORD@host:port"
        raise ConnectionFailed(target, why) from e
    except ResponseError as e:
        if "NOAUTH" in str(e) or "WRONGPASS" in str(e):
            raise ConnectionFailed(
                target, "the server needs a password; put it in FALKORDB_URL as redis://:PASSWORD@host:port"
            ) from e
        raise ConnectionFailed(target, _scrub(str(e), secret)) from e
    except Exception as e:  # noqa: BLE001 — any other driver failure is a connection failure here
        raise ConnectionFailed(target, _scrub(str(e), secret)) from e


def _nodes_or_empty(db: Any) -> list[Any]:
    try:
        return node_connections(db)
    except Exception:  # noqa: BLE001 — the cluster's layout cannot be read: no node says anything
        return []


def _config_value(key: str, conn: Any) -> int | None:
    try:
        reply = conn.execute_command("GRAPH.CONFIG", "GET", key)
    except Exception:  # noqa: BLE001 — an old server without this key: keep the defaults
        return None
    if isinstance(reply, list) and len(reply) == 2 and not isinstance(reply[0], list):
        reply = [reply]
    for item in reply or []:
        if isinstance(item, list) and len(item) == 2 and str(item[0]).upper() == key:
            try:
                return int(item[1])
            except (TypeError, ValueError):
                return None
    return None


def _scrub(text: str, secret: str | None) -> str:
    return text.replace(secret, "***") if secret else text


def _is_connection_error(e: Exception) -> bool:
    from redis.exceptions import ConnectionError as RedisConnectionError

    return isinstance(e, (RedisConnectionError, ConnectionRefusedError, BrokenPipeError, FileNotFoundError))


def _translate(e: Exception, graph: Graph, cypher: str, params: ParamsIn, limit: int) -> Exception:
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    if isinstance(e, RedisTimeoutError):
        return ConnectionFailed(
            graph.store.target,
            f"no answer within {limit} ms plus a margin (the server is "
            "busy or hung); a write may or may not have been applied — check before retrying",
        )
    if isinstance(e, (RedisConnectionError, OSError)):
        return ConnectionFailed(
            graph.store.target,
            f"the server went away during the query ({e}); a write may or "
            "may not have been applied — check before retrying",
        )
    if "timed out" in str(e).lower():
        return QueryTimeout(graph.name, cypher, params, limit)
    return QueryFailed(graph.name, cypher, params, e)


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

"""Every error RGuard raises on purpose, each carrying the context a user needs to act on it.

RGuardError
├── ConfigError                   a setting is missing or malformed
├── InvalidInput                  bad user input (repo name, diff, scenario file, CLI args)
│   ├── InvalidRepoName
│   ├── DiffParseError
│   │   └── DiffTooLarge          a diff over the one input limit (guard/request.py), refused unread
│   └── ScenarioError             a memory scenario file that cannot load (nothing written)
├── StoreError                    the graph store failed
│   ├── ConnectionFailed          cannot start or reach FalkorDB
│   │   └── EngineStartFailed     the data dir's embedded engine cannot start (unwritable dir, corrupt file)
│   ├── QueryFailed               a statement failed (carries query, params, graph)
│   │   ├── QueryTimeout          a statement ran past its time limit
│   │   └── ResultTruncated       the server capped a result (RESULTSET_SIZE); nothing is used half-read
│   ├── UnknownRepository         no graph exists for that repository
│   └── IncompleteGraph           the last ingest into the graph did not finish (nothing is served)
├── SourceError                   an external history source failed
│   ├── GitHubError               carries status, url
│   │   ├── RepoNotFound          404: no such repository (nothing written)
│   │   └── RateLimited           carries reset_at: when to retry
│   ├── SnapshotError             a snapshot folder is missing or malformed
│   ├── BadRecord                 a GitHub/snapshot record has the wrong shape (carries where, field)
│   └── GitSourceError            a local git clone cannot be read
├── LLMError                      the LLM endpoint failed or answered garbage (no silent fallback)
└── ConflictError                 a compare-and-set lost (409-style)
    └── StaleCorrectionPreview    the graph changed since the preview was taken
"""

from __future__ import annotations

from .jsontypes import ParamsIn


class RGuardError(Exception):
    """Base of every deliberate RGuard error; ``str(e)`` is a message a user can act on."""


class ConfigError(RGuardError):
    pass


class InvalidInput(RGuardError):
    pass


class InvalidRepoName(InvalidInput):
    def __init__(self, name: str, why: str = "") -> None:
        self.name = name
        detail = f": {why}" if why else ""
        super().__init__(
            f"invalid repository name {name!r}{detail}; expected OWNER/NAME using letters, digits, '_', '.', '-'"
        )


class DiffParseError(InvalidInput):
    pass


class DiffTooLarge(DiffParseError):
    def __init__(self, what: str, limit: int, size: int | None = None, hint: str = "") -> None:
        self.what, self.limit, self.size = what, limit, size
        measured = f"{size:,} bytes, " if size is not None else ""
        super().__init__(
            f"{what} is {measured}over {limit:,} bytes (the guard's input limit); "
            f"{hint or 'guard it in parts (for example one directory at a time)'}"
        )


class ScenarioError(InvalidInput):
    pass


class StoreError(RGuardError):
    pass


class ConnectionFailed(StoreError):
    def __init__(self, target: str, cause: BaseException | str) -> None:
        self.target = target
        self.why = str(cause)
        super().__init__(f"cannot reach FalkorDB at {target}: {cause}")


class EngineStartFailed(ConnectionFailed):
    def __init__(self, data_dir: object, why: str) -> None:
        self.data_dir = str(data_dir)
        self.why = why
        StoreError.__init__(self, f"cannot start the FalkorDB engine for {data_dir}: {why}")
        self.target = f"embedded:{data_dir}"


class QueryFailed(StoreError):
    def __init__(self, graph: str, query: str, params: ParamsIn | None, cause: BaseException | str) -> None:
        self.graph = graph
        self.query = query
        self.params = params or {}
        self.cause = cause
        super().__init__(f"query on graph {graph!r} failed: {cause}\n  query: {_short(query)}")


class QueryTimeout(QueryFailed):
    def __init__(self, graph: str, query: str, params: ParamsIn | None, timeout_ms: int) -> None:
        self.timeout_ms = timeout_ms
        super().__init__(graph, query, params, f"timed out after {timeout_ms} ms")


class ResultTruncated(QueryFailed):
    def __init__(self, graph: str, query: str, params: ParamsIn | None, cap: int) -> None:
        self.cap = cap
        super().__init__(
            graph,
            query,
            params,
            f"the server returned exactly its result cap of {cap} rows "
            "(RESULTSET_SIZE), so the answer may be cut short; page the read or raise the cap",
        )


class UnknownRepository(StoreError):
    def __init__(self, repo: str) -> None:
        self.repo = repo
        super().__init__(f"no graph for repository {repo!r}; ingest it first (python -m rguard_core ingest ...)")


class IncompleteGraph(StoreError):
    def __init__(self, repo: str, state: str, source: str | None, at: str | None) -> None:
        self.repo = repo
        self.state = state
        since = f" (ingest from {source} started {at})" if source else ""
        kind, _, where = (source or "").partition(":")
        again = {
            "snapshot": f" (python -m rguard_core ingest snapshot {where} --repo {repo})",
            "git": f" (python -m rguard_core ingest git {where} --repo {repo})",
            "github": f" (python -m rguard_core ingest github {repo})",
        }.get(kind, "")
        super().__init__(
            f"the graph of {repo} is not completely written: its last ingest is still '{state}'{since}; it was "
            f"killed or failed half way (or is running now): wait for it, or run the ingest again{again}"
        )


class SourceError(RGuardError):
    pass


class GitHubError(SourceError):
    def __init__(self, message: str, status: int | None = None, url: str | None = None) -> None:
        self.status = status
        self.url = url
        super().__init__(message)


class RepoNotFound(GitHubError):
    def __init__(self, repo: str, url: str | None = None) -> None:
        self.repo = repo
        super().__init__(f"no such repository: {repo} (GitHub answered 404; nothing was written)", 404, url)


class RateLimited(GitHubError):
    def __init__(self, reset_at: float, url: str | None = None) -> None:
        import datetime as _dt

        self.reset_at = reset_at
        when = _dt.datetime.fromtimestamp(reset_at, tz=_dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        super().__init__(
            f"GitHub rate limit reached; retry after {when} (or set GITHUB_TOKEN for a higher limit)", 403, url
        )


class SnapshotError(SourceError):
    pass


class BadRecord(SourceError):
    """A record (a snapshot file or a GitHub answer) that does not have the shape GitHub gives."""

    def __init__(self, where: str, field: str, problem: str) -> None:
        self.where = where
        self.field = field
        super().__init__(f"{where}: {field} {problem}; fix or remove that record (nothing was written)")


class GitSourceError(SourceError):
    pass


class LLMError(RGuardError):
    pass


class ConflictError(RGuardError):
    pass


class StaleCorrectionPreview(ConflictError):
    def __init__(self, target: str, expected: int, actual: int | None) -> None:
        self.target = target
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"{target} changed since the preview (previewed revision {expected}, now {actual}); preview again"
        )


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"

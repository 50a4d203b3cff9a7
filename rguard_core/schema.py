"""Idempotent schema setup for repository and workspace graphs: indexes, constraints, fulltext.

Re-running is always safe: "already indexed" / "already exists" answers count as success.
"""

from __future__ import annotations

from .db import Graph
from .errors import QueryFailed

# Every node label carries a unique string ``id``.
REPO_LABELS = (
    "Repo",
    "Person",
    "PR",
    "Issue",
    "Comment",
    "Doc",
    "Commit",
    "File",
    "Source",
    "Fragment",
    "Claim",
    "Justification",
    "Decision",
    "Alternative",
    "Action",
    "Correction",
    "Incident",
    "Symbol",
)
WORKSPACE_LABELS = ("Source", "Fragment", "Claim", "Justification", "Decision", "Action", "Correction", "Incident")
EXTRA_RANGE_INDEXES = (("PR", "number"), ("Issue", "number"), ("File", "path"), ("Person", "login"), ("Symbol", "name"))
FULLTEXT = (("Decision", ("summary", "quote")), ("Claim", ("statement", "quote")))
# The sources' own words for "why" (rguard_core/explore/why.py): a title weighs more than a line deep in the thread.
SOURCE_FULLTEXT = (("title", 3.0), ("text", 1.0))
UNIQUE_ID_LABELS = ("Repo", "Source", "Claim", "Decision", "Correction")

_ALREADY = ("already indexed", "already exists", "already created")


def ensure_schema(graph: Graph, workspace: bool = False) -> None:
    """Create every index and constraint the graph needs; a no-op when they already exist."""
    labels = WORKSPACE_LABELS if workspace else REPO_LABELS
    existing = _existing_indexes(graph)
    for label in labels:
        if (label, "id") not in existing:
            _idempotent(graph, f"CREATE INDEX FOR (n:{label}) ON (n.id)")
    if not workspace:
        for label, prop in EXTRA_RANGE_INDEXES:
            if (label, prop) not in existing:
                _idempotent(graph, f"CREATE INDEX FOR (n:{label}) ON (n.{prop})")
    for label, props in FULLTEXT:
        if (label, props[0], "FULLTEXT") not in existing:
            args = ", ".join(f"'{p}'" for p in props)
            _idempotent(graph, f"CALL db.idx.fulltext.createNodeIndex('{label}', {args})")
    if not workspace:
        ensure_source_fulltext(graph, existing)
    for label in UNIQUE_ID_LABELS:
        if label in labels:
            _unique_constraint(graph, label)
    _wait_constraints(graph)


CONSTRAINT_WAIT_S = 30.0


def _wait_constraints(graph: Graph) -> None:
    """Wait until no constraint is still being built, so no asynchronous schema work of this graph is left
    running when setup returns (and a later delete, kill or restart finds it complete)."""
    import time

    deadline = time.monotonic() + CONSTRAINT_WAIT_S
    while True:
        rows = graph.read(
            "CALL db.constraints() YIELD label, status "
            "RETURN collect(CASE WHEN status = 'FAILED' THEN label END) AS failed, "
            "sum(CASE WHEN status = 'PENDING' THEN 1 ELSE 0 END) AS pending",
            name="schema.constraints",
        )
        failed = [x for x in (rows[0]["failed"] if rows else []) if x]
        pending = int(rows[0]["pending"] or 0) if rows else 0
        if failed:
            raise QueryFailed(
                graph.name,
                "GRAPH.CONSTRAINT CREATE UNIQUE",
                None,
                f"unique id constraint failed on {', '.join(failed)} (duplicate ids in the graph?)",
            )
        if not pending or time.monotonic() > deadline:
            return
        time.sleep(0.005)


def ensure_source_fulltext(graph: Graph, existing: set[tuple[str, ...]] | None = None) -> None:
    """The weighted full-text index over every Source's title and text (idempotent; older graphs get it lazily)."""
    existing = _existing_indexes(graph) if existing is None else existing
    if ("Source", SOURCE_FULLTEXT[0][0], "FULLTEXT") in existing:
        return
    fields = ", ".join(f"{{field: '{f}', weight: {w}}}" for f, w in SOURCE_FULLTEXT)
    _idempotent(graph, f"CALL db.idx.fulltext.createNodeIndex('Source', {fields})")


def _existing_indexes(graph: Graph) -> set[tuple[str, ...]]:
    rows = graph.read(
        "CALL db.indexes() YIELD label, properties, types RETURN label, properties, types", name="schema.indexes"
    )
    out: set[tuple[str, ...]] = set()
    for r in rows:
        types = r.get("types") or {}
        for prop in r.get("properties") or []:
            out.add((r["label"], prop))
            kinds = types.get(prop, []) if isinstance(types, dict) else []
            for k in kinds:
                out.add((r["label"], prop, str(k).upper()))
    return out


def _idempotent(graph: Graph, cypher: str) -> None:
    try:
        graph.query(cypher, name="schema")
    except QueryFailed as e:
        if not any(a in str(e.cause).lower() for a in _ALREADY):
            raise


def _unique_constraint(graph: Graph, label: str) -> None:
    try:
        graph.raw_command("GRAPH.CONSTRAINT", "CREATE", graph.name, "UNIQUE", "NODE", label, "PROPERTIES", 1, "id")
    except Exception as e:  # noqa: BLE001 — "already exists" is success; anything else is a real failure
        if not any(a in str(e).lower() for a in _ALREADY):
            raise QueryFailed(graph.name, f"GRAPH.CONSTRAINT CREATE UNIQUE NODE {label} id", None, e) from e

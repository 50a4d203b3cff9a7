"""Is a graph whole? One check every read and write path calls before serving or changing a graph.

Ingest marks the Repo node ``ingest_state = 'writing'`` before its first write and ``'complete'`` after its
last (ingest/pipeline.py). A graph still marked ``writing`` was left by an ingest that was killed or failed
half way (or one that is running right now): guarding, answering or correcting on it would serve a part as
the whole, so every entry point refuses it with IncompleteGraph until an ingest completes.
Graphs without an ingest record (memory workspaces, hand-made test graphs) have nothing to check.
"""

from __future__ import annotations

from dataclasses import dataclass

from .db import WORKSPACE_PREFIX, Graph
from .errors import IncompleteGraph

COMPLETE = "complete"
STATE_Q = (
    "MATCH (r:Repo {id: 'repo'}) RETURN r.ingest_state AS state, r.ingest_source AS source, "
    "r.ingested_at AS at, r.full_name AS repo"
)


@dataclass(frozen=True)
class IngestState:
    state: str | None
    source: str | None
    at: str | None
    repo: str | None

    @property
    def complete(self) -> bool:
        return self.state is None or self.state == COMPLETE


def ingest_state(graph: Graph) -> IngestState | None:
    """The graph's ingest record, or None when it has none."""
    rows = graph.read(STATE_Q, name="graph_state.check")
    if not rows:
        return None
    r = rows[0]
    return IngestState(r.get("state"), r.get("source"), r.get("at"), r.get("repo"))


def require_complete(graph: Graph) -> None:
    """Raise IncompleteGraph when the last ingest into ``graph`` did not finish."""
    if graph.name.startswith(WORKSPACE_PREFIX):
        return  # a memory workspace is loaded by one statement, not ingested: nothing to check, no query spent
    st = ingest_state(graph)
    if st is None or st.complete:
        return
    raise IncompleteGraph(st.repo or graph.name, str(st.state), st.source, st.at)

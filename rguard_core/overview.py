"""What a repository's graph holds, for the dashboard's home page and ``rguard status``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .db import Store

COUNTED = ("PR", "Issue", "Comment", "Doc", "Commit", "Person", "File", "Decision", "Claim", "Alternative",
           "Action", "Correction", "Incident")


@dataclass
class RepoOverview:
    repo: str
    exists: bool
    counts: dict[str, int] = field(default_factory=dict)
    ingest_state: str | None = None
    ingested_at: str | None = None
    ingest_source: str | None = None
    coverage: dict[str, Any] = field(default_factory=dict)


def repo_overview(store: Store, repo: str) -> RepoOverview:
    """Node counts per label and the last ingest's state and coverage; an unknown repo is simply empty."""
    graph = store.repo_graph(repo)
    if not graph.exists():
        return RepoOverview(repo, False)
    rows = graph.read("MATCH (n) UNWIND labels(n) AS l WITH l WHERE l IN $labels RETURN l AS label, count(*) AS c",
                      {"labels": list(COUNTED)}, name="overview.counts")
    counts = {lbl: 0 for lbl in COUNTED} | {r["label"]: r["c"] for r in rows}
    meta = graph.read("MATCH (r:Repo {id: 'repo'}) RETURN r.ingest_state AS state, r.ingested_at AS at, "
                      "r.ingest_source AS src, r.coverage AS cov", name="overview.repo")
    m = meta[0] if meta else {}
    cov = json.loads(m["cov"]) if m.get("cov") else {}
    return RepoOverview(repo, True, counts, m.get("state"), m.get("at"), m.get("src"), cov)

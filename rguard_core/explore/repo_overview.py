"""What a repository's graph holds, for the dashboard's home page and ``rguard status``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..db import Store
from ..jsontypes import JSONObject

COUNTED = (
    "PR",
    "Issue",
    "Comment",
    "Doc",
    "Commit",
    "Person",
    "File",
    "Decision",
    "Claim",
    "Alternative",
    "Action",
    "Correction",
    "Incident",
)


@dataclass(frozen=True)
class RepoOverview:
    repo: str
    exists: bool
    counts: dict[str, int] = field(default_factory=dict)
    ingest_state: str | None = None
    ingested_at: str | None = None
    ingest_source: str | None = None
    coverage: JSONObject = field(default_factory=dict)  # the last ingest's coverage report, as stored


def repo_overview(store: Store, repo: str) -> RepoOverview:
    """Node counts per label and the last ingest's state and coverage; an unknown repo is simply empty."""
    graph = store.repo_graph(repo)
    if not graph.exists():
        return RepoOverview(repo, False)
    rows = graph.read(
        "MATCH (n) UNWIND labels(n) AS l WITH l WHERE l IN $labels RETURN l AS label, count(*) AS c",
        {"labels": list(COUNTED)},
        name="overview.counts",
    )
    counts = {lbl: 0 for lbl in COUNTED} | {r["label"]: r["c"] for r in rows}
    meta = graph.read(
        "MATCH (r:Repo {id: 'repo'}) RETURN r.ingest_state AS state, r.ingested_at AS at, "
        "r.ingest_source AS src, r.coverage AS cov",
        name="overview.repo",
    )
    m = meta[0] if meta else {}
    cov = json.loads(m["cov"]) if m.get("cov") else {}
    return RepoOverview(repo, True, counts, m.get("state"), m.get("at"), m.get("src"), cov)


# --- health: what needs a person's attention, with titles and somewhere to go ------------------------------------
RECENT = 8
TOP_FILES = 8


@dataclass(frozen=True)
class HealthItem:
    """One line of the dashboard: a readable label, where it leads (a node to focus or a status to filter)."""

    label: str
    when: str | None = None
    focus: str | None = None  # a node id, file:<path> or dir:<path> the decision graph focuses
    status: str | None = None  # a decision status the decision graph filters on
    url: str | None = None


@dataclass
class RepoHealth:
    repo: str
    counts: dict[str, int] = field(default_factory=dict)  # needs_review, fallen_decisions, fallen_claims, ...
    needs_review: list[HealthItem] = field(default_factory=list)
    replaced: list[HealthItem] = field(default_factory=list)  # superseded or reverted decisions
    quarantined: list[HealthItem] = field(default_factory=list)
    corrections: list[HealthItem] = field(default_factory=list)
    quarantines: list[HealthItem] = field(default_factory=list)
    top_files: list[HealthItem] = field(default_factory=list)
    ingested_at: str | None = None
    ingest_state: str | None = None
    age_days: float | None = None


_Q_STATUS_COUNTS = (
    "MATCH (d:Decision) OPTIONAL MATCH (nd:Decision)-[:SUPERSEDES]->(d) WITH d, count(nd) AS newer "
    "OPTIONAL MATCH (d)-[:DERIVED_FROM]->(s:Source)<-[:REVERTS]-(r:Source) "
    "WHERE coalesce(r.merged_at, r.created_at, '') > coalesce(s.merged_at, s.created_at, '') "
    "WITH d, newer, count(r) AS reverts "
    "RETURN d.id AS id, d.summary AS summary, d.status AS status, d.holds AS holds, d.label AS label, newer, reverts"
)


def repo_health(store: Store, repo: str) -> RepoHealth:
    """The dashboard's figures for ``repo``: decisions needing review or replaced, fallen claims, quarantined
    sources, recent corrections and quarantines, ingest freshness and the files carrying the most decisions."""
    import datetime as dt

    from .graph_view import decision_status
    from .labels import labels, shorten

    h = RepoHealth(repo)
    graph = store.repo_graph(repo)
    if not graph.exists():
        return h
    for r in graph.read(_Q_STATUS_COUNTS, name="health.decisions"):
        st = decision_status(r["status"], r["holds"], r["label"], int(r["newer"] or 0))
        item = HealthItem(shorten(r["summary"] or r["id"], 90), focus=r["id"])
        if st == "needs review":
            h.needs_review.append(item)
        elif st == "fallen":
            h.counts["fallen_decisions"] = h.counts.get("fallen_decisions", 0) + 1
        if st == "superseded" or int(r["reverts"] or 0):
            h.replaced.append(
                HealthItem(item.label + (" (reverted)" if int(r["reverts"] or 0) else " (superseded)"), focus=r["id"])
            )
    rows = graph.read(
        "MATCH (c:Claim) RETURN sum(CASE WHEN c.holds = false THEN 1 ELSE 0 END) AS fallen, count(c) AS total",
        name="health.claims",
    )
    h.counts["fallen_claims"] = int(rows[0]["fallen"] or 0) if rows else 0
    q = graph.read(
        "MATCH (s:Source) WHERE s.quarantined = true RETURN s.id AS id, s.quarantine_reason AS reason, "
        "s.quarantined_at AS at ORDER BY at DESC",
        name="health.quarantined",
    )
    names = labels(graph, [r["id"] for r in q])
    h.quarantined = [
        HealthItem(
            names[r["id"]].text(70) + (f" — {shorten(r['reason'], 60)}" if r["reason"] else ""),
            r["at"],
            r["id"],
            url=names[r["id"]].url,
        )
        for r in q
    ]
    corr = graph.read(
        "MATCH (k:Correction) OPTIONAL MATCH (k)-[:ABOUT]->(x) RETURN k.kind AS kind, k.by AS by, "
        "k.created_at AS at, coalesce(k.reason, k.statement, '') AS reason, x.id AS target "
        "ORDER BY at DESC LIMIT $k",
        {"k": RECENT},
        name="health.corrections",
    )
    inc = graph.read(
        # a lifted quarantine (its incident undone) no longer holds: it stays in the Corrections page's history
        "MATCH (i:Incident) WHERE coalesce(i.state, 'applied') = 'applied' "
        "RETURN i.source_id AS sid, i.by AS by, i.created_at AS at, i.reason AS reason "
        "ORDER BY at DESC LIMIT $k",
        {"k": RECENT},
        name="health.incidents",
    )
    names = labels(graph, [r["target"] for r in corr if r["target"]] + [r["sid"] for r in inc if r["sid"]])
    h.corrections = [
        HealthItem(
            f"{r['kind'] or 'correction'} by {r['by'] or '?'} on "
            f"{names[r['target']].text(60) if r['target'] in names else 'a removed node'}"
            + (f": {shorten(r['reason'], 60)}" if r["reason"] else ""),
            r["at"],
            r["target"],
        )
        for r in corr
    ]
    h.quarantines = [
        HealthItem(
            f"{names[r['sid']].text(60) if r['sid'] in names else r['sid']} quarantined by "
            f"{r['by'] or '?'}" + (f": {shorten(r['reason'], 60)}" if r["reason"] else ""),
            r["at"],
            r["sid"],
        )
        for r in inc
    ]
    files = graph.read(
        "MATCH (f:File)<-[:TOUCHES]-(:Source)<-[:DERIVED_FROM]-(d:Decision) "
        "RETURN f.path AS path, count(DISTINCT d) AS n ORDER BY n DESC, path LIMIT $k",
        {"k": TOP_FILES},
        name="health.files",
    )
    h.top_files = [HealthItem(f"{r['path']} · {r['n']} decision(s)", focus=f"file:{r['path']}") for r in files]
    meta = graph.read(
        "MATCH (r:Repo {id: 'repo'}) RETURN r.ingested_at AS at, r.ingest_state AS state", name="health.ingest"
    )
    if meta:
        h.ingested_at, h.ingest_state = meta[0]["at"], meta[0]["state"]
        try:
            at = dt.datetime.fromisoformat(str(h.ingested_at).replace("Z", "+00:00"))
            h.age_days = round((dt.datetime.now(dt.UTC) - at.astimezone(dt.UTC)).total_seconds() / 86400, 1)
        except ValueError:
            h.age_days = None
    h.counts.update(needs_review=len(h.needs_review), replaced=len(h.replaced), quarantined=len(h.quarantined))
    return h

"""What the judge and the report need about each candidate decision: its fields, source, and code change."""

from __future__ import annotations

from ..db import Graph
from ..jsontypes import JSONObject, Row
from .model import DecisionInfo
from .revert import change_hunks
from .tokens import file_kind, is_test_path

MAX_PATCH_CHARS = 60_000  # one stored patch; longer ones are cut at a hunk boundary

TEXT_CHARS = 4000  # of a revert's own text (S16 reads its reasons there, near the top); other sources send none
INFO_Q = """
MATCH (d:Decision) WHERE d.id IN $ids WITH d
MATCH (d)
OPTIONAL MATCH (s:Source) WHERE s.id = d.source_id
WITH d, s
OPTIONAL MATCH (s)<-[:ADDS]-(p:PR)
WITH d, s, min(p.merged_at) AS added_at
RETURN d.id AS id, d.summary AS summary, d.quote AS quote, d.source_id AS source_id,
       coalesce(d.status, 'active') AS status, coalesce(d.score_factor, 1.0) AS score_factor,
       s.kind AS kind, s.number AS number, s.path AS path, s.url AS url, s.title AS title,
       coalesce(s.merged_at, s.date, s.created_at, added_at) AS at, d.stated AS stated, d.stated_rule AS stated_rule,
       d.explained AS explained,
       CASE WHEN toLower(left(coalesce(s.title, s.text, ''), 80)) CONTAINS 'revert'
            THEN left(coalesce(s.text, s.body, s.message, ''), $text_chars) ELSE '' END AS text
"""

# The change behind a decision (``p``): its own PR or commit, or for an ADR the PR that added it; started from the
# decisions' id index. Every query below that reads a decision's change begins so.
_CHANGE_OF = """
MATCH (d:Decision) WHERE d.id IN $ids WITH d
MATCH (s:Source) WHERE s.id = d.source_id
WITH d, s
OPTIONAL MATCH (s)<-[:ADDS]-(adder:PR)
WITH d, CASE WHEN adder IS NULL THEN s ELSE adder END AS p
"""
PATCHES_Q = (
    _CHANGE_OF
    + """MATCH (p)-[t:TOUCHES]->(f:File)
WHERE f.path IN $paths OR t.previous_path IN $paths OR d.id IN $everywhere
   OR any(x IN $suffixes WHERE f.path ENDS WITH x)
RETURN d.id AS decision, f.path AS path, t.previous_path AS previous_path, t.patch AS patch
"""
)

# The size of each decision's whole change (every file its source touched, not only the diff's): what S10 reads a
# revert's share against.
SIZES_Q = (
    _CHANGE_OF
    + """MATCH (p)-[t:TOUCHES]->(:File)
RETURN d.id AS decision, sum(coalesce(t.additions, 0) + coalesce(t.deletions, 0)) AS lines
"""
)

# The decision's hunks on every other file (not the diff's): what it took out there tells whether the lines it
# wrote in the diff's files were moved from elsewhere (S13). Read only for decisions of at most MOVED_MAX_LINES
# changed lines: a move worth the name is small, and the patches of a sweeping change are not worth the read.
OTHERS_Q = (
    _CHANGE_OF
    + """MATCH (p)-[t:TOUCHES]->(f:File)
WHERE NOT f.path IN $paths AND (t.previous_path IS NULL OR NOT t.previous_path IN $paths)
RETURN d.id AS decision, f.path AS path, t.patch AS patch
"""
)
MOVED_MAX_LINES = 600

REPO_URL_Q = "MATCH (r:Repo {id: 'repo'}) RETURN r.url AS url, r.full_name AS name"


# The claims a decision rests on (its premises' verbatim quotes), for the paraphrase rules: what they say was
# rejected or limited counts like the decision's own words. A claim that no longer holds is left out.
# Start from the decisions (their id index), not from the claims: the planner otherwise scans every claim of the
# graph and filters on d.id last (168 ms per guard on a 20,000-PR graph, 1.5 ms this way; same rows).
CLAIMS_Q = """
MATCH (d:Decision) WHERE d.id IN $ids WITH d
MATCH (d)<-[:JUSTIFIES]-(:Justification)-[:PREMISE]->(c:Claim)
WHERE coalesce(c.holds, true) AND coalesce(c.status, 'active') <> 'superseded'
RETURN d.id AS decision, c.quote AS quote
ORDER BY d.id, c.id
"""
MAX_CLAIMS = 8  # per decision
MAX_CLAIM_CHARS = 600


def decision_infos(graph: Graph, ids: list[str]) -> dict[str, DecisionInfo]:
    rows = graph.read(INFO_Q, {"ids": ids, "text_chars": TEXT_CHARS}, name="decisions.info")
    infos = {r["id"]: _info(r) for r in rows}
    if infos:
        for r in graph.read(CLAIMS_Q, {"ids": list(infos)}, name="decisions.claims"):
            info = infos.get(r["decision"])
            quote = (r.get("quote") or "")[:MAX_CLAIM_CHARS]
            if info is not None and quote and len(info.claims) < MAX_CLAIMS and quote not in info.claims:
                info.claims.append(quote)
    return infos


def attach_patches(
    graph: Graph,
    infos: dict[str, DecisionInfo],
    paths: list[str],
    everywhere: list[str],
    suffixes: list[str] | None = None,
) -> None:
    """Fill ``patches``: the decision's hunks on the diff's paths (on every path for ``everywhere`` ids), and on
    files ending in ``suffixes`` (the kinds of file the diff adds: a new migration is judged against old ones)."""
    if not infos:
        return
    rows = graph.read(
        PATCHES_Q,
        {"ids": list(infos), "paths": paths, "everywhere": everywhere, "suffixes": suffixes or []},
        name="decisions.patches",
    )
    for r in rows:
        info = infos.get(r["decision"])
        patch = r.get("patch") or ""
        if info is None or not patch:
            continue
        patch = _bounded(patch)
        info.patches[r["path"]] = patch
        if r.get("previous_path"):
            info.patches.setdefault(r["previous_path"], patch)
    for r in graph.read(SIZES_Q, {"ids": list(infos)}, name="decisions.sizes"):
        info = infos.get(r["decision"])
        if info is not None and r.get("lines"):
            info.changed_lines = int(r["lines"])
    small = [i for i, x in infos.items() if i not in everywhere and (x.changed_lines or 0) <= MOVED_MAX_LINES]
    if small:
        for r in graph.read(OTHERS_Q, {"ids": small, "paths": paths}, name="decisions.others"):
            info = infos.get(r["decision"])
            path = r.get("path") or ""
            if info is None or not r.get("patch") or is_test_path(path) or file_kind(path) == "prose":
                continue
            taken = frozenset(x for h in change_hunks(_bounded(r["patch"]), path) for x in h.removed)
            if taken:
                info.removed_elsewhere[path] = taken


def _info(r: Row) -> DecisionInfo:
    kind = r.get("kind") or "pr"
    return DecisionInfo(
        id=r["id"],
        summary=r.get("summary") or "",
        quote=r.get("quote") or "",
        source_id=r.get("source_id") or "",
        source_kind=kind,
        source_number=r.get("number"),
        source_path=r.get("path"),
        source_url=r.get("url") or f"rguard:{r.get('source_id') or r['id']}",
        source_title=r.get("title") or "",
        status=r.get("status") or "active",
        score_factor=float(r.get("score_factor") or 1.0),
        at=r.get("at"),
        stated=r.get("stated") is not False,  # a graph ingested before choice.py: every decision stated
        stated_rule=r.get("stated_rule"),
        explained=r.get("explained") is not False,
        text=r.get("text") or "",
    )


def source_ref(info: DecisionInfo) -> JSONObject:
    """The contract's ``source`` object (JSON, as a finding prints it): kind pr|issue|doc|commit|correction, number,
    path."""
    kind = {"human_correction": "correction"}.get(info.source_kind, info.source_kind)
    if kind not in ("pr", "issue", "doc", "commit", "correction"):
        kind = "correction" if info.source_id.startswith("src:hc:") else "pr"
    return {
        "kind": kind,
        "number": info.source_number if kind in ("pr", "issue") else None,
        "path": info.source_path if kind == "doc" else None,
    }


def _bounded(patch: str) -> str:
    if len(patch) <= MAX_PATCH_CHARS:
        return patch
    cut = patch.rfind("\n@@ ", 0, MAX_PATCH_CHARS)
    return patch[: cut if cut > 0 else MAX_PATCH_CHARS]


RECENT_Q = """
MATCH (d:Decision)
OPTIONAL MATCH (s:Source) WHERE s.id = d.source_id
WITH d, s, coalesce(s.merged_at, s.date, s.created_at, '') AS at
RETURN d.id AS decision_id, d.summary AS summary, coalesce(d.status, 'active') AS status, s.title AS title,
       s.url AS url, at
ORDER BY at DESC, decision_id
LIMIT $limit
"""


def recent_decisions(graph: Graph, limit: int) -> list[JSONObject]:
    """The newest decisions with their title, status and link (the MCP server's repository resource)."""
    return [dict(r) for r in graph.read(RECENT_Q, {"limit": limit}, name="decisions.recent")]

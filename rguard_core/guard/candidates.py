"""Candidate decisions for a diff, by parameterised multi-hop Cypher; each keeps its hop kind and node path.

Hops (``Candidate.hops``):
  touches  File<-TOUCHES-PR<-DERIVED_FROM-Decision            the decision's own change touched the file
  issue    File<-TOUCHES-PR-FIXES|REFERENCES->Issue|PR ...<-Decision   linked through an issue or PR
  adr      File<-TOUCHES-PR-ADDS->Doc<-DERIVED_FROM-Decision   an ADR's decision reaches files that came with it
  symbol   Symbol<-MENTIONS-PR<-DERIVED_FROM-Decision, or decision text naming an identifier (new/renamed paths)
  superseded_by  a superseded decision replaced by the head of its SUPERSEDES chain
  import   File-IMPORTS|RE_EXPORTS|DYNAMIC_IMPORT|REQUIRES-File<-TOUCHES-PR<-Decision (code map; import_hop.py)
"""

from __future__ import annotations

import re

from ..db import Graph
from .model import Candidate, ParsedDiff

TOUCH_LIMIT = 30
TOUCH_SCAN = 120  # most recent decisions read from hot files; older ones come back through shared symbols
LINK_SCAN = 60
LINK_LIMIT = 20
ADR_LIMIT = 20
SYMBOL_LIMIT = 20
SYMBOL_MAX_DEGREE = 25  # a symbol that many PRs mention (``request``) says nothing about one decision
SYMBOL_MIN_SHARED = 2

# A WITH after the indexed File lookup keeps the planner from starting at a label scan of every Source.
# Each expansion is written from the file (``(f)<-[:TOUCHES]-(p)``) after ``WITH f``: the planner then walks the
# file's own touches instead of scanning sources (half the time on a hot file of a 10,000-PR graph).
TOUCHES_Q = """
MATCH (f:File) WHERE f.path IN $paths
WITH f
MATCH (f)<-[:TOUCHES]-(p:Source)
WHERE NOT p.id IN $exclude
WITH f, p ORDER BY coalesce(p.merged_at, p.date, '') DESC LIMIT $limit
MATCH (d:Decision)-[:DERIVED_FROM]->(p)
WHERE d.source_id = p.id
RETURN d.id AS decision, p.id AS via, f.id AS file, f.path AS path
"""

# Older decisions on hot files that share rare symbols with the diff (the recency scan would miss them).
TOUCHES_BY_SYMBOL_Q = """
MATCH (p:Source) WHERE p.id IN $sources
WITH p
MATCH (p)-[:TOUCHES]->(f:File)
WHERE f.path IN $paths
MATCH (d:Decision)-[:DERIVED_FROM]->(p)
WHERE d.source_id = p.id
RETURN d.id AS decision, p.id AS via, f.id AS file, f.path AS path
"""

# Rare symbols only: who mentioned them (ranks touches candidates and drives the symbol hop).
SYMBOL_USERS_Q = """
MATCH (s:Symbol) WHERE s.name IN $idents
WITH s
MATCH (s)<-[:MENTIONS]-(p:Source)
WITH s, collect(p.id) AS users
WHERE size(users) <= $max_degree
RETURN s.name AS name, users
"""

ISSUE_Q = """
MATCH (f:File) WHERE f.path IN $paths
WITH f
MATCH (f)<-[:TOUCHES]-(p:Source)
WITH f, p ORDER BY coalesce(p.merged_at, p.date, '') DESC LIMIT $scan
MATCH (p)-[:FIXES|REFERENCES]->(i:Source)<-[:FIXES|REFERENCES]-(q:Source)<-[:DERIVED_FROM]-(d:Decision)
WHERE q <> p AND d.source_id = q.id AND NOT q.id IN $exclude
RETURN DISTINCT d.id AS decision, f.id AS file, f.path AS path, p.id AS via, i.id AS link, q.id AS source
LIMIT $limit
UNION
MATCH (f:File) WHERE f.path IN $paths
WITH f
MATCH (f)<-[:TOUCHES]-(p:Source)
WITH f, p ORDER BY coalesce(p.merged_at, p.date, '') DESC LIMIT $scan
MATCH (p)-[:FIXES|REFERENCES]-(q:PR)<-[:DERIVED_FROM]-(d:Decision)
WHERE q <> p AND d.source_id = q.id AND NOT q.id IN $exclude
RETURN DISTINCT d.id AS decision, f.id AS file, f.path AS path, p.id AS via, q.id AS link, q.id AS source
LIMIT $limit
"""

# ADRs are few: start from them, not from every PR that touched a hot file.
ADR_Q = """
MATCH (doc:Doc)
WITH doc
MATCH (doc)<-[:ADDS]-(p:Source)
WHERE NOT p.id IN $exclude
WITH doc, p
MATCH (d:Decision)-[:DERIVED_FROM]->(doc)
WHERE d.source_id = doc.id
WITH d, doc, p
MATCH (p)-[:TOUCHES]->(f:File)
WHERE f.path IN $paths
RETURN DISTINCT d.id AS decision, f.id AS file, f.path AS path, p.id AS via, doc.id AS doc
LIMIT $limit
"""

DECISION_TEXT_Q = """
CALL db.idx.fulltext.queryNodes('Decision', $query) YIELD node, score
WHERE NOT node.source_id IN $exclude
RETURN node.id AS decision, node.source_id AS via, score
ORDER BY score DESC
LIMIT $limit
"""

SYMBOL_DECISIONS_Q = """
MATCH (d:Decision) WHERE d.source_id IN $sources
RETURN d.id AS decision, d.source_id AS via
"""

# Every change to the diff's files whose stored patch holds one of the diff's lines the other way round (it
# added a line the diff removes, or removed one it adds back): the recency limits above must not hide the
# change a revert undoes, however old. Exact line search in FalkorDB; revert.py then checks the revert.
REVERTED_Q = """
MATCH (f:File) WHERE f.path IN $paths
WITH f
MATCH (p:Source)-[t:TOUCHES]->(f)
WHERE NOT p.id IN $exclude
WITH f, p, size([l IN $lines WHERE t.patch CONTAINS l]) AS hits
WHERE hits > 0
WITH f, p, hits ORDER BY hits DESC LIMIT $limit
MATCH (d:Decision)-[:DERIVED_FROM]->(p)
WHERE d.source_id = p.id
RETURN d.id AS decision, p.id AS via, f.id AS file, f.path AS path
"""
REVERTED_LIMIT = 10  # (change, file) pairs, those holding most of the diff's lines first: the reverted change leads

KNOWN_FILES_Q = "MATCH (f:File) WHERE f.path IN $paths RETURN f.path AS path"

SUPERSEDED_Q = """
MATCH (d:Decision) WHERE d.id IN $ids WITH d
MATCH (d)
OPTIONAL MATCH chain = (n:Decision)-[:SUPERSEDES*1..6]->(d)
WHERE NOT ()-[:SUPERSEDES]->(n)
WITH d, n, chain ORDER BY length(chain) DESC
WITH d, collect(n)[0] AS head, collect([x IN nodes(chain) | x.id])[0] AS ids
RETURN d.id AS decision, d.status AS status, head.id AS head, ids
"""

_FT_SAFE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{3,60}$")


def symbol_users(graph: Graph, idents: list[str]) -> dict[str, list[str]]:
    """Source ids that mention each rare identifier of the diff (at most SYMBOL_MAX_DEGREE users)."""
    if not idents:
        return {}
    rows = graph.read(
        SYMBOL_USERS_Q, {"idents": idents, "max_degree": SYMBOL_MAX_DEGREE}, name="candidates.symbol_users"
    )
    return {r["name"]: list(r["users"]) for r in rows}


def touch_rows(graph: Graph, diff: ParsedDiff, exclude: list[str]) -> list[dict[str, str]]:
    """The most recent decisions whose own change touched the diff's files (ranked later by rank_touches)."""
    return graph.read(
        TOUCHES_Q, {"paths": diff.paths, "exclude": exclude, "limit": TOUCH_SCAN}, name="candidates.touches"
    )


def touch_rows_by_symbol(
    graph: Graph, diff: ParsedDiff, exclude: list[str], users: dict[str, list[str]]
) -> list[dict[str, str]]:
    """Decisions on the diff's files whose PRs share rare symbols with it, however old."""
    sources = sorted({s for ids in users.values() for s in ids} - set(exclude))
    if not sources:
        return []
    return graph.read(
        TOUCHES_BY_SYMBOL_Q, {"sources": sources, "paths": diff.paths}, name="candidates.touches_by_symbol"
    )


def reverted(graph: Graph, diff: ParsedDiff, exclude: list[str], lines: list[str]) -> list[Candidate]:
    """Decisions whose own change wrote lines the diff removes (or removed lines it adds back), however old."""
    if not lines:
        return []
    rows = graph.read(
        REVERTED_Q,
        {"paths": diff.paths, "exclude": exclude, "lines": lines, "limit": REVERTED_LIMIT},
        name="candidates.reverted",
    )
    keep: dict[str, Candidate] = {}
    for r in rows:
        c = keep.get(r["decision"])
        if c is None:
            keep[r["decision"]] = Candidate(
                r["decision"], ["touches"], [r["file"], r["via"], r["decision"]], [r["path"]]
            )
        elif r["path"] not in c.files:
            c.files.append(r["path"])
    return list(keep.values())


def rank_touches(rows: list[dict[str, str]], users: dict[str, list[str]]) -> list[Candidate]:
    """Keep TOUCH_LIMIT decisions: those whose PR shares rare symbols with the diff first, then the newest."""
    shared: dict[str, int] = {}
    for ids in users.values():
        for sid in ids:
            shared[sid] = shared.get(sid, 0) + 1
    ranked = sorted(enumerate(rows), key=lambda ir: (-shared.get(ir[1]["via"], 0), ir[0]))
    keep: dict[str, Candidate] = {}
    for _, r in ranked:
        c = keep.get(r["decision"])
        if c is not None:
            c.files += [r["path"]] if r["path"] not in c.files else []
        elif len(keep) < TOUCH_LIMIT:
            keep[r["decision"]] = Candidate(
                r["decision"], ["touches"], [r["file"], r["via"], r["decision"]], [r["path"]]
            )
    return list(keep.values())


def linked(graph: Graph, diff: ParsedDiff, exclude: list[str]) -> list[Candidate]:
    rows = graph.read(
        ISSUE_Q,
        {"paths": diff.paths, "exclude": exclude, "limit": LINK_LIMIT, "scan": LINK_SCAN},
        name="candidates.issue",
    )
    out = []
    for r in rows:
        path = [r["file"], r["via"], r["link"]] + ([r["source"]] if r["source"] != r["link"] else []) + [r["decision"]]
        out.append(Candidate(r["decision"], ["issue"], path, [r["path"]]))
    return out


def adrs(graph: Graph, diff: ParsedDiff, exclude: list[str]) -> list[Candidate]:
    rows = graph.read(ADR_Q, {"paths": diff.paths, "exclude": exclude, "limit": ADR_LIMIT}, name="candidates.adr")
    return [
        Candidate(r["decision"], ["adr"], [r["file"], r["via"], r["doc"], r["decision"]], [r["path"]]) for r in rows
    ]


def known_files(graph: Graph, diff: ParsedDiff) -> set[str]:
    return {r["path"] for r in graph.read(KNOWN_FILES_Q, {"paths": diff.paths}, name="candidates.known_files")}


def symbols(
    graph: Graph, idents: list[str], users: dict[str, list[str]], files: list[str], exclude: list[str]
) -> list[Candidate]:
    """Decisions whose PRs used at least two of the same rare identifiers, or whose text names them."""
    wanted = set(idents)
    names_by_source: dict[str, list[str]] = {}
    for name, ids in users.items():
        if name in wanted:
            for sid in ids:
                names_by_source.setdefault(sid, []).append(name)
    sources = [s for s, n in names_by_source.items() if len(n) >= SYMBOL_MIN_SHARED and s not in exclude]
    sources = sorted(sources, key=lambda s: -len(names_by_source[s]))[:SYMBOL_LIMIT]
    out: list[Candidate] = []
    if sources:
        for r in graph.read(SYMBOL_DECISIONS_Q, {"sources": sources}, name="candidates.symbol"):
            names = sorted(names_by_source[r["via"]])
            out.append(
                Candidate(
                    r["decision"], ["symbol"], [f"sym:{n}" for n in names[:5]] + [r["via"], r["decision"]], files, names
                )
            )
    words = [w for w in idents if _FT_SAFE.match(w)][:30]
    if words:
        rows = graph.read(
            DECISION_TEXT_Q,
            {"query": "|".join(words), "exclude": exclude, "limit": SYMBOL_LIMIT},
            name="candidates.decision_text",
        )
        out += [Candidate(r["decision"], ["symbol"], [r["via"], r["decision"]], files) for r in rows]
    return out


def resolve_superseded(graph: Graph, cands: list[Candidate]) -> list[Candidate]:
    """Replace superseded decisions by the head of their SUPERSEDES chain (superseded ones are not warned on)."""
    ids = sorted({c.decision_id for c in cands})
    if not ids:
        return cands
    rows = graph.read(SUPERSEDED_Q, {"ids": ids}, name="candidates.superseded")
    heads = {r["decision"]: (r["head"], r["ids"] or []) for r in rows if r.get("head")}
    out = []
    for c in cands:
        if c.decision_id in heads:
            head, chain = heads[c.decision_id]
            extra = [x for x in reversed(chain) if x != c.decision_id]
            c = Candidate(
                head, [*c.hops, "superseded_by"], c.path + extra, c.files, c.symbols, [*c.replaces, c.decision_id]
            )
        out.append(c)
    return out


HOP_RANK = {"touches": 0, "adr": 1, "issue": 2, "symbol": 3, "import": 4}


def merge(cands: list[Candidate]) -> list[Candidate]:
    """One candidate per decision: hop kinds unioned (strongest first), the strongest hop's path kept."""
    by: dict[str, Candidate] = {}
    cands = sorted(cands, key=lambda c: (HOP_RANK.get(c.hops[0], 9), len(c.path)))
    for c in cands:
        cur = by.get(c.decision_id)
        if cur is None:
            by[c.decision_id] = Candidate(
                c.decision_id, list(c.hops), list(c.path), list(c.files), list(c.symbols), list(c.replaces)
            )
            continue
        cur.replaces += [r for r in c.replaces if r not in cur.replaces]
        cur.hops += [h for h in c.hops if h not in cur.hops]
        cur.files += [f for f in c.files if f not in cur.files]
        cur.symbols += [s for s in c.symbols if s not in cur.symbols]
    return list(by.values())

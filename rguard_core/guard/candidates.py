"""Candidate decisions for a diff, by parameterised multi-hop Cypher; each keeps its hop kind and node path.

Hops (``Candidate.hops``):
  touches  File<-TOUCHES-PR<-DERIVED_FROM-Decision            the decision's own change touched the file
  issue    File<-TOUCHES-PR-FIXES|REFERENCES->Issue|PR ...<-Decision   linked through an issue or PR
  adr      File<-TOUCHES-PR-ADDS->Doc<-DERIVED_FROM-Decision   an ADR's decision reaches files that came with it
  symbol   Symbol<-MENTIONS-PR<-DERIVED_FROM-Decision, or decision text naming an identifier (new/renamed paths)
  superseded_by  a superseded decision replaced by the head of its SUPERSEDES chain
"""

from __future__ import annotations

import re
from typing import Any

from ..db import Graph
from .model import Candidate, ParsedDiff

TOUCH_LIMIT = 60
LINK_LIMIT = 30
ADR_LIMIT = 20
SYMBOL_LIMIT = 20
SYMBOL_MAX_DEGREE = 25  # a symbol that many PRs mention (``request``) says nothing about one decision
SYMBOL_MIN_SHARED = 2

TOUCHES_Q = """
MATCH (f:File) WHERE f.path IN $paths
MATCH (p:Source)-[:TOUCHES]->(f)
MATCH (d:Decision)-[:DERIVED_FROM]->(p)
WHERE d.source_id = p.id AND NOT p.id IN $exclude
OPTIONAL MATCH (p)-[:MENTIONS]->(s:Symbol) WHERE s.name IN $idents
WITH d, p, f, count(s) AS shared
RETURN d.id AS decision, p.id AS via, f.id AS file, f.path AS path, shared
ORDER BY shared DESC, coalesce(p.merged_at, p.date, '') DESC
LIMIT $limit
"""

ISSUE_Q = """
MATCH (f:File) WHERE f.path IN $paths
MATCH (p:Source)-[:TOUCHES]->(f)
MATCH (p)-[:FIXES|REFERENCES]->(i:Source)<-[:FIXES|REFERENCES]-(q:Source)<-[:DERIVED_FROM]-(d:Decision)
WHERE q <> p AND d.source_id = q.id AND NOT q.id IN $exclude
RETURN DISTINCT d.id AS decision, f.id AS file, f.path AS path, p.id AS via, i.id AS link, q.id AS source
LIMIT $limit
UNION
MATCH (f:File) WHERE f.path IN $paths
MATCH (p:Source)-[:TOUCHES]->(f)
MATCH (p)-[:FIXES|REFERENCES]-(q:PR)<-[:DERIVED_FROM]-(d:Decision)
WHERE q <> p AND d.source_id = q.id AND NOT q.id IN $exclude
RETURN DISTINCT d.id AS decision, f.id AS file, f.path AS path, p.id AS via, q.id AS link, q.id AS source
LIMIT $limit
"""

ADR_Q = """
MATCH (f:File) WHERE f.path IN $paths
MATCH (p:Source)-[:TOUCHES]->(f)
MATCH (p)-[:ADDS]->(doc:Doc)<-[:DERIVED_FROM]-(d:Decision)
WHERE d.source_id = doc.id AND NOT p.id IN $exclude
RETURN DISTINCT d.id AS decision, f.id AS file, f.path AS path, p.id AS via, doc.id AS doc
LIMIT $limit
"""

SYMBOL_Q = """
MATCH (s:Symbol) WHERE s.name IN $idents
MATCH (p:Source)-[:MENTIONS]->(s)
WITH s, collect(p) AS ps WHERE size(ps) <= $max_degree
UNWIND ps AS p
MATCH (d:Decision)-[:DERIVED_FROM]->(p)
WHERE d.source_id = p.id AND NOT p.id IN $exclude
WITH d, p, collect(s.name) AS names
WHERE size(names) >= $min_shared
RETURN d.id AS decision, p.id AS via, names
ORDER BY size(names) DESC
LIMIT $limit
"""

DECISION_TEXT_Q = """
CALL db.idx.fulltext.queryNodes('Decision', $query) YIELD node, score
WHERE NOT node.source_id IN $exclude
RETURN node.id AS decision, node.source_id AS via, score
ORDER BY score DESC
LIMIT $limit
"""

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


def base_params(diff: ParsedDiff, exclude: list[str]) -> dict[str, Any]:
    return {"paths": diff.paths, "idents": diff.identifiers, "exclude": exclude}


def touches(graph: Graph, diff: ParsedDiff, exclude: list[str]) -> list[Candidate]:
    rows = graph.read(TOUCHES_Q, {**base_params(diff, exclude), "limit": TOUCH_LIMIT}, name="candidates.touches")
    return [Candidate(r["decision"], ["touches"], [r["file"], r["via"], r["decision"]], [r["path"]]) for r in rows]


def linked(graph: Graph, diff: ParsedDiff, exclude: list[str]) -> list[Candidate]:
    rows = graph.read(ISSUE_Q, {"paths": diff.paths, "exclude": exclude, "limit": LINK_LIMIT}, name="candidates.issue")
    out = []
    for r in rows:
        path = [r["file"], r["via"], r["link"]] + ([r["source"]] if r["source"] != r["link"] else []) + [r["decision"]]
        out.append(Candidate(r["decision"], ["issue"], path, [r["path"]]))
    return out


def adrs(graph: Graph, diff: ParsedDiff, exclude: list[str]) -> list[Candidate]:
    rows = graph.read(ADR_Q, {"paths": diff.paths, "exclude": exclude, "limit": ADR_LIMIT}, name="candidates.adr")
    return [Candidate(r["decision"], ["adr"], [r["file"], r["via"], r["doc"], r["decision"]], [r["path"]]) for r in rows]


def known_files(graph: Graph, diff: ParsedDiff) -> set[str]:
    return {r["path"] for r in graph.read(KNOWN_FILES_Q, {"paths": diff.paths}, name="candidates.known_files")}


def symbols(graph: Graph, idents: list[str], files: list[str], exclude: list[str]) -> list[Candidate]:
    """Decisions whose PRs used the same (rare) identifiers, or whose text names them."""
    if not idents:
        return []
    params = {"idents": idents, "exclude": exclude, "max_degree": SYMBOL_MAX_DEGREE,
              "min_shared": SYMBOL_MIN_SHARED, "limit": SYMBOL_LIMIT}
    out = [
        Candidate(r["decision"], ["symbol"], [f"sym:{n}" for n in r["names"][:5]] + [r["via"], r["decision"]],
                  files, list(r["names"]))
        for r in graph.read(SYMBOL_Q, params, name="candidates.symbol")
    ]
    words = [w for w in idents if _FT_SAFE.match(w)][:30]
    if words:
        rows = graph.read(DECISION_TEXT_Q, {"query": "|".join(words), "exclude": exclude, "limit": SYMBOL_LIMIT},
                          name="candidates.decision_text")
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
            c = Candidate(head, [*c.hops, "superseded_by"], c.path + extra, c.files, c.symbols,
                          [*c.replaces, c.decision_id])
        out.append(c)
    return out


HOP_RANK = {"touches": 0, "adr": 1, "issue": 2, "symbol": 3}


def merge(cands: list[Candidate]) -> list[Candidate]:
    """One candidate per decision: hop kinds unioned (strongest first), the strongest hop's path kept."""
    by: dict[str, Candidate] = {}
    cands = sorted(cands, key=lambda c: (HOP_RANK.get(c.hops[0], 9), len(c.path)))
    for c in cands:
        cur = by.get(c.decision_id)
        if cur is None:
            by[c.decision_id] = Candidate(c.decision_id, list(c.hops), list(c.path), list(c.files), list(c.symbols),
                                          list(c.replaces))
            continue
        cur.replaces += [r for r in c.replaces if r not in cur.replaces]
        cur.hops += [h for h in c.hops if h not in cur.hops]
        cur.files += [f for f in c.files if f not in cur.files]
        cur.symbols += [s for s in c.symbols if s not in cur.symbols]
    return list(by.values())

"""Guard hop ``import``: decisions on the files a diff's files import, or that import them (the code map).

A decision is attached to the files its own change touched. Code that imports those files, and the files
they import, are at risk too, but only through the import: the hop adds the decision as a candidate and
lets the judge compare the diff with the decision's change (all of its files: the diff's files are not
among them, so the offline judge's cross-file bar applies). The hop never raises a label past a note: an
import-only candidate is ``contradicts`` only when the judge finds the contradiction in the diff; otherwise
it is at most ``related`` (score <= IMPORT_MAX_SCORE). One the judge calls unrelated stays a note only
under rule I1: the diff's changed code lines use a specific name (``check``, ``SECRET``; not ``return``)
that the decision's change also uses in the neighbouring file (added, removed or context lines) — the diff
changes how it uses the decided code. Otherwise it is dropped: being next to a decision is not news. The finding's path is the import chain:
``file:<diff file> → file:<neighbour> → <source> → <decision>`` (either file may be the importer), and its
reason names the two files.

Only proven edges (``codemap build``) are walked; a graph without a code map yields nothing here.
"""

from __future__ import annotations

from ..db import Graph
from .judge_offline import patch_hunks
from .model import Candidate, DecisionInfo, Judgement, ParsedDiff
from .tokens import ChangeSet, change_set, is_identifier, is_specific

NEIGHBOUR_SCAN = 60  # neighbouring files read per diff (least imported first: hubs say least about one change)
IMPORT_LIMIT = 10  # decisions the hop adds, newest first
IMPORT_MAX_SCORE = 0.45  # at most a note: below every contradiction (0.5+)
I1_SCORE = 0.2  # rule I1's note: the lowest related score the offline judge gives
I1_MIN_LEN = 3
RELS = "IMPORTS|RE_EXPORTS|DYNAMIC_IMPORT|REQUIRES"

IMPORT_Q = f"""
MATCH (f:File) WHERE f.path IN $paths
WITH f
MATCH (f)-[e:{RELS}]->(g:File)
WHERE NOT g.path IN $paths
WITH f, e, g ORDER BY coalesce(g.fan_in, 0), g.path LIMIT $scan
MATCH (p:Source)-[:TOUCHES]->(g)
WHERE NOT p.id IN $exclude
MATCH (d:Decision)-[:DERIVED_FROM]->(p)
WHERE d.source_id = p.id
RETURN d.id AS decision, p.id AS via, f.id AS file, f.path AS path, g.id AS other, g.path AS other_path,
       type(e) AS kind, e.line AS line, 'imports' AS direction, coalesce(p.merged_at, p.date, '') AS at
UNION
MATCH (f:File) WHERE f.path IN $paths
WITH f
MATCH (f)<-[e:{RELS}]-(g:File)
WHERE NOT g.path IN $paths
WITH f, e, g ORDER BY coalesce(g.fan_in, 0), g.path LIMIT $scan
MATCH (p:Source)-[:TOUCHES]->(g)
WHERE NOT p.id IN $exclude
MATCH (d:Decision)-[:DERIVED_FROM]->(p)
WHERE d.source_id = p.id
RETURN d.id AS decision, p.id AS via, f.id AS file, f.path AS path, g.id AS other, g.path AS other_path,
       type(e) AS kind, e.line AS line, 'imported_by' AS direction, coalesce(p.merged_at, p.date, '') AS at
"""


def candidates(graph: Graph, diff: ParsedDiff, exclude: list[str]) -> list[Candidate]:
    """Decisions one import away from the diff's files (newest first, IMPORT_LIMIT of them)."""
    rows = graph.read(IMPORT_Q, {"paths": diff.paths, "exclude": exclude, "scan": NEIGHBOUR_SCAN},
                      name="candidates.import")
    rows.sort(key=lambda r: (str(r.get("at") or ""), r["direction"] == "imports"), reverse=True)
    out: dict[str, Candidate] = {}
    for r in rows:
        if r["decision"] in out:
            continue
        if len(out) >= IMPORT_LIMIT:
            break
        out[r["decision"]] = Candidate(r["decision"], ["import"], [r["file"], r["other"], r["via"], r["decision"]],
                                       [r["path"]])
    return list(out.values())


def only_import(hops: list[str]) -> bool:
    return [h for h in hops if h != "superseded_by"] == ["import"]


def cap(c: Candidate, j: Judgement, diff_sets: dict[str, ChangeSet], info: DecisionInfo) -> Judgement:
    """An import-only candidate's label: the judge's contradiction stands; anything else is at most a note."""
    if not only_import(c.hops):
        return j
    via = f"reached through the import {chain_text(c.path)}"
    if j.label == "contradicts":
        return Judgement(j.label, j.score, f"{j.reason}; {via}")
    if j.label == "related":
        return Judgement(j.label, min(j.score, IMPORT_MAX_SCORE), f"{j.reason}; {via} only")
    names = shared_names(c, diff_sets, info)
    if not names:
        return j
    other = c.path[1].removeprefix("file:") if len(c.path) > 1 else "its file"
    shown = ", ".join(f"`{n}`" for n in names[:5])
    return Judgement("related", I1_SCORE, f"I1: the diff changes code using {shown}, which the decision's change "
                                          f"in {other} uses too ({via})")


def shared_names(c: Candidate, diff_sets: dict[str, ChangeSet], info: DecisionInfo) -> list[str]:
    """Specific names on the diff's changed code lines that the decision's change uses in the neighbour file."""
    other = c.path[1].removeprefix("file:") if len(c.path) > 1 else ""
    patch = info.patches.get(other)
    mine = [diff_sets[p] for p in c.files if p in diff_sets]
    if not patch or not mine:
        return []
    theirs = change_set(patch_hunks(patch), other)
    used = set(theirs.added) | set(theirs.removed) | set(theirs.context)
    changed: set[str] = set()
    for cs in mine:
        if cs.kind != "prose" and not cs.test:
            changed |= set(cs.changed_idents)
    return sorted(n for n in changed & used if len(n) >= I1_MIN_LEN and is_identifier(n) and is_specific(n))


def chain_text(path: list[str]) -> str:
    """``a.py → b.py`` from a finding path that starts with the import hop's two files."""
    files = [p.removeprefix("file:") for p in path if p.startswith("file:")]
    return " - ".join(files[:2])

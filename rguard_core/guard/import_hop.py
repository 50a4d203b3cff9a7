"""Guard hop ``import``: decisions on the files a diff's files import, or that import them (the code map).

A decision is attached to the files its own change touched. Code that imports those files, and the files
they import, are at risk too, but only through the import: the hop adds the decision as a candidate and
lets the judge compare the diff with the decision's change (all of its files: the diff's files are not
among them, so the offline judge's cross-file bar applies). Rule I1 asks whether a name crosses the import:
the diff's changed code lines use a name that the decision's hunks in the neighbouring file define or sit
in (a function, class or module constant: ``def check``, ``SECRET =``, a hunk header). An import-only
candidate is ``contradicts`` only when the judge finds the contradiction in the diff *and* I1 holds; when
only one of them holds it is a note (``related``, score <= IMPORT_MAX_SCORE); otherwise it is dropped,
whatever token overlap the judge saw: being next to a decision is not news.
Measured on the seed's 93 labelled cases with the seed tree's code map: taking the judge's cross-file
"related" as a note added 33 notes (3 quiet benign cases became notes); sharing any name the decision's
change used added 14 more at 0.2, on names such as ``Decimal`` that two files share without one using the
other's code. On our own last 60 commits, a judge contradiction without I1 (a negated line in another file
of the same kind) turned one note into a false warning; with I1 required it stays a note. The finding's path is the import chain:
``file:<diff file> → file:<neighbour> → <source> → <decision>`` (either file may be the importer), and its
reason names the two files.

Only proven edges (``codemap build``) are walked: those of the commit last mapped, also when a stored PR is
guarded. A graph without a code map yields nothing here.
"""

from __future__ import annotations

import re

from ..db import Graph
from .model import Candidate, DecisionInfo, Judgement, ParsedDiff
from .tokens import ChangeSet, is_identifier, is_specific

NEIGHBOUR_SCAN = 60  # neighbouring files read per diff (least imported first: hubs say least about one change)
IMPORT_LIMIT = 10  # decisions the hop adds, newest first
IMPORT_MAX_SCORE = 0.45  # at most a note: below every contradiction (0.5+)
I1_SCORE = 0.2  # rule I1's note: the lowest related score the offline judge gives
I1_MIN_LEN = 3
RELS = "IMPORTS|RE_EXPORTS|DYNAMIC_IMPORT|REQUIRES"
_DEF = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:def|class|function\*?|interface|type|enum)\s+"
    r"([A-Za-z_$][\w$]*)"
)
_CONST = re.compile(r"^(?:export\s+)?(?:const\s+|let\s+|var\s+)?([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=(?!=)")


def _branch(pattern: str, direction: str) -> str:
    """One direction of the hop: files the diff's files import (``->``) or are imported by (``<-``), newest
    decisions on them; both directions are the same walk with the arrow turned."""
    return f"""
MATCH (f:File) WHERE f.path IN $paths
WITH f
MATCH {pattern}
WHERE NOT g.path IN $paths
WITH f, e, g ORDER BY coalesce(g.fan_in, 0), g.path LIMIT $scan
MATCH (p:Source)-[:TOUCHES]->(g)
WHERE NOT p.id IN $exclude
MATCH (d:Decision)-[:DERIVED_FROM]->(p)
WHERE d.source_id = p.id
RETURN d.id AS decision, p.id AS via, f.id AS file, f.path AS path, g.id AS other, g.path AS other_path,
       type(e) AS kind, e.line AS line, '{direction}' AS direction, coalesce(p.merged_at, p.date, '') AS at
"""


IMPORT_Q = (
    _branch(f"(f)-[e:{RELS}]->(g:File)", "imports") + "UNION" + _branch(f"(f)<-[e:{RELS}]-(g:File)", "imported_by")
)


def candidates(graph: Graph, diff: ParsedDiff, exclude: list[str]) -> list[Candidate]:
    """Decisions one import away from the diff's files (newest first, IMPORT_LIMIT of them)."""
    rows = graph.read(
        IMPORT_Q, {"paths": diff.paths, "exclude": exclude, "scan": NEIGHBOUR_SCAN}, name="candidates.import"
    )
    rows.sort(key=lambda r: (str(r.get("at") or ""), r["direction"] == "imports"), reverse=True)
    out: dict[str, Candidate] = {}
    for r in rows:
        if r["decision"] in out:
            continue
        if len(out) >= IMPORT_LIMIT:
            break
        out[r["decision"]] = Candidate(
            r["decision"], ["import"], [r["file"], r["other"], r["via"], r["decision"]], [r["path"]]
        )
    return list(out.values())


def only_import(hops: list[str]) -> bool:
    return [h for h in hops if h != "superseded_by"] == ["import"]


def cap(c: Candidate, j: Judgement, diff_sets: dict[str, ChangeSet], info: DecisionInfo) -> Judgement:
    """An import-only candidate's label: a contradiction only when the judge finds one and a name crosses the
    import (I1); a note when only one of the two holds; otherwise dropped."""
    if not only_import(c.hops):
        return j
    via = f"reached through the import {chain_text(c.path)}"
    names = shared_names(c, diff_sets, info)
    if j.label == "contradicts" and names:
        return Judgement(
            j.label,
            j.score,
            f"{j.reason}; {via}, using {_shown(names)}",
            (*j.rules, ("I1", f"{via}, using {_shown(names)}")),
        )
    if j.label == "contradicts":
        why = f"{via}, but the diff uses nothing the decision's change defines there, so it is a note, not a warning"
        return Judgement("related", min(j.score, IMPORT_MAX_SCORE), f"{j.reason}; {why}", (*j.rules, ("I1", why)))
    if not names:
        return Judgement("unrelated", 0.0, f"no name the decision changed is changed across the import ({via})")
    other = c.path[1].removeprefix("file:") if len(c.path) > 1 else "its file"
    score = min(max(j.score, I1_SCORE) if j.label == "related" else I1_SCORE, IMPORT_MAX_SCORE)
    why = f"the diff changes code using {_shown(names)}, which the decision's change in {other} defines or changes ({via})"
    return Judgement("related", score, f"I1: {why}", (("I1", why),))


def _shown(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names[:5])


def shared_names(c: Candidate, diff_sets: dict[str, ChangeSet], info: DecisionInfo) -> list[str]:
    """Names on the diff's changed code lines that the decision's hunks in the neighbour file define."""
    other = c.path[1].removeprefix("file:") if len(c.path) > 1 else ""
    patch = info.patches.get(other)
    mine = [diff_sets[p] for p in c.files if p in diff_sets]
    if not patch or not mine:
        return []
    defined = defined_names(patch)
    changed: set[str] = set()
    for cs in mine:
        if cs.kind != "prose" and not cs.test:
            changed |= set(cs.changed_idents)
    return sorted(n for n in changed & defined if len(n) >= I1_MIN_LEN and is_identifier(n) and is_specific(n))


def defined_names(patch: str) -> set[str]:
    """Functions, classes and module constants a patch's hunks define or sit in (hunk headers, any line kind)."""
    out: set[str] = set()
    for line in patch.splitlines():
        text = line.split("@@", 2)[-1] if line.startswith("@@") else line[1:]
        m = _DEF.match(text) or _CONST.match(text)
        if m:
            out.add(m.group(1))
    return out


def chain_text(path: list[str]) -> str:
    """``a.py → b.py`` from a finding path that starts with the import hop's two files."""
    files = [p.removeprefix("file:") for p in path if p.startswith("file:")]
    return " - ".join(files[:2])

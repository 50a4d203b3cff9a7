"""Focus + context for the decision graph: start from something, see its neighbourhood, list what does not fit.

- ``search(store, repo, text)``: what a person types — decision words, a file path, ``@login``, ``pr:12``,
  ``#12``, ``PR 12``, ``issue 3`` — becomes a short list of labelled hits (decisions, sources, files, people).
- ``focus_view(store, repo, node_id, hops)``: the decisions the node reaches, plus the decisions those share a
  source, a claim, a supersede or a revert with, drawn through the product-level view (graph_view.py) and trimmed to
  the nodes within ``hops`` edges of the focus.
- ``overview_view(store, repo, statuses)``: with nothing focused, decisions grouped by directory; past
  ``GROUP_OVER`` decisions only the directories are drawn (click one to focus it) and the list holds the rest.
- ``decision_rows``: the list view beside the canvas.
No Streamlit here.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

from ..db import Graph, Store
from ..errors import InvalidInput, UnknownRepository
from ..jsontypes import Row
from .graph_view import (
    _DECISION_STATUS_CYPHER,
    DECISION_STATUSES,
    STATUSES,
    GraphView,
    ViewEdge,
    ViewNode,
    _Neighbourhood,
    _short,
    decision_status,
)

MAX_HOPS = 4
DEFAULT_HOPS = 2
FOCUS_DECISIONS = 12  # decisions a focus brings before trimming by hops: enough context, still readable
PER_COLUMN = 10  # nodes of one type around a focus (one column of the layered drawing)
FOCUS_NODES = 40  # at most this many nodes around a focus, nearest first: a column of 20 still fits at zoom ≥ 0.7
GROUP_OVER = 40  # more decisions than this: draw directories, not decisions
SEARCH_LIMIT = 25
LIST_LIMIT = 500
_NUMBER = re.compile(r"^\s*(?:(pr|pull|issue|#)\s*[:#]?\s*#?)(\d+)\s*$", re.I)
_PREFIXES = (
    "decision:",
    "claim:",
    "pr:",
    "issue:",
    "comment:",
    "review:",
    "doc:",
    "action:",
    "corr:",
    "src:",
    "commit:",
    "file:",
    "person:",
    "dir:",
)
WORST_FIRST = ("fallen", "needs review", "superseded", "holds")


@dataclass(frozen=True)
class SearchHit:
    id: str  # a view node id, or file:<path>, person:<login>, dir:<path/>
    type: str  # decision | source | claim | file | person | dir
    label: str
    status: str
    why: str  # how the text matched: number, file, person, text, id


@dataclass(frozen=True)
class DecisionRow:
    id: str
    summary: str
    status: str
    source: str  # PR #12, ADR title
    url: str | None
    when: str | None
    files: tuple[str, ...]


def _graph(store: Store, repo: str) -> Graph:
    g = store.repo_graph(repo)
    if not g.exists():
        raise UnknownRepository(repo)
    return g


# --- search ------------------------------------------------------------------------------------------------------
def search(store: Store, repo: str, text: str, limit: int = SEARCH_LIMIT) -> list[SearchHit]:
    """Labelled hits for what a person typed, best first; an empty list when nothing matches."""
    q = " ".join((text or "").split())
    if not q:
        return []
    if len(q) > 200:
        raise InvalidInput("search text is longer than 200 characters")
    g = _graph(store, repo)
    hits: list[SearchHit] = []
    m = _NUMBER.match(q)
    if m:
        hits += _by_number(g, m.group(1).lower(), int(m.group(2)))
    if q.startswith(_PREFIXES):
        hits += _by_id(g, q)
    if q.startswith("@"):
        hits += _people(g, q[1:])
    if "/" in q or re.search(r"\.\w{1,5}$", q):
        hits += _files(g, q)
    if not m:
        hits += _decisions_by_text(g, q)
        if len(hits) < limit:
            hits += _files(g, q) if "/" not in q else []
            hits += _people(g, q.lstrip("@")) if " " not in q else []
    seen: set[str] = set()
    out = []
    for h in hits:
        if h.id not in seen:
            seen.add(h.id)
            out.append(h)
    return out[:limit]


_Q_DECISION_HITS = (
    "UNWIND $ids AS did MATCH (d:Decision {id: did}) OPTIONAL MATCH (nd:Decision)-[:SUPERSEDES]->(d) "
    "WITH d, count(nd) AS newer RETURN d.id AS id, d.summary AS summary, d.status AS status, d.holds AS holds, "
    "d.label AS label, newer"
)


def _decision_hits(g: Graph, ids: list[str], why: str) -> list[SearchHit]:
    if not ids:
        return []
    rows = {r["id"]: r for r in g.read(_Q_DECISION_HITS, {"ids": ids}, name="focus.decision_hits")}
    return [
        SearchHit(
            i,
            "decision",
            _short(rows[i]["summary"] or i, 90),
            decision_status(rows[i]["status"], rows[i]["holds"], rows[i]["label"], int(rows[i]["newer"] or 0)),
            why,
        )
        for i in ids
        if i in rows
    ]


def _by_number(g: Graph, kind: str, n: int) -> list[SearchHit]:
    labels = ["PR"] if kind in ("pr", "pull") else ["Issue"] if kind == "issue" else ["PR", "Issue"]
    out: list[SearchHit] = []
    for label in labels:
        rows = g.read(
            f"MATCH (s:{label} {{number: $n}}) RETURN s.id AS id, s.title AS title, s.quarantined AS q, "
            "[(d:Decision)-[:DERIVED_FROM]->(s) | d.id] AS ds",
            {"n": n},
            name="focus.by_number",
        )
        for r in rows:
            out += _decision_hits(g, sorted(r["ds"]), "number")
            name = f"{'PR' if label == 'PR' else 'Issue'} #{n}"
            out.append(
                SearchHit(
                    r["id"],
                    "source",
                    f"{name} · {_short(r['title'] or '', 80)}",
                    "quarantined" if r["q"] else "holds",
                    "number",
                )
            )
    return out


def _by_id(g: Graph, q: str) -> list[SearchHit]:
    if q.startswith("decision:"):
        return _decision_hits(g, [q], "id")
    if q.startswith(("file:", "person:", "dir:")):
        return [SearchHit(q, q.split(":", 1)[0], q.split(":", 1)[1], "holds", "id")]
    for label, typ, title in (
        ("Source", "source", "coalesce(n.title, n.path, n.id)"),
        ("Claim", "claim", "n.statement"),
        ("Action", "action", "n.summary"),
    ):
        rows = g.read(f"MATCH (n:{label} {{id: $id}}) RETURN n.id AS id, {title} AS t", {"id": q}, name="focus.by_id")
        if rows:
            return [SearchHit(q, typ, _short(rows[0]["t"] or q, 90), "holds", "id")]
    return []


def _people(g: Graph, login: str) -> list[SearchHit]:
    rows = (
        g.read(
            "MATCH (p:Person) WHERE toLower(p.login) CONTAINS toLower($q) "
            "RETURN p.login AS login, size([(p)-[:AUTHORED]->(:PR) | 1]) AS prs ORDER BY prs DESC, login LIMIT 5",
            {"q": login.strip()},
            name="focus.people",
        )
        if login.strip()
        else []
    )
    return [
        SearchHit(f"person:{r['login']}", "person", f"@{r['login']} · {r['prs']} PR(s)", "holds", "person")
        for r in rows
        if r["prs"]
    ]


def _files(g: Graph, q: str) -> list[SearchHit]:
    rows = g.read(
        "MATCH (f:File) WHERE f.path CONTAINS $q WITH f LIMIT 200 "
        "RETURN f.path AS path, size([(f)<-[:TOUCHES]-(:PR) | 1]) AS prs ORDER BY prs DESC, path LIMIT 8",
        {"q": q.strip()},
        name="focus.files",
    )
    out = [SearchHit(f"file:{r['path']}", "file", f"{r['path']} · {r['prs']} PR(s)", "holds", "file") for r in rows]
    dirs = sorted({r["path"].rsplit("/", 1)[0] + "/" for r in rows if "/" in r["path"] and q.strip() in r["path"]})
    out += [SearchHit(f"dir:{d}", "dir", f"{d} (directory)", "holds", "file") for d in dirs[:3]]
    return out


def _fulltext(g: Graph, query: str, name: str) -> list[str]:
    rows = g.read(
        "CALL db.idx.fulltext.queryNodes('Decision', $q) YIELD node, score "
        "RETURN node.id AS id ORDER BY score DESC, id LIMIT $k",
        {"q": query, "k": SEARCH_LIMIT},
        name=name,
    )
    return [r["id"] for r in rows]


def _decisions_by_text(g: Graph, q: str) -> list[SearchHit]:
    words = [w for w in re.findall(r"[^\W_]+(?:_+[^\W_]+)*", q) if len(w) > 1]
    ids = _fulltext(g, " ".join(words), "focus.text") if words else []
    if not ids and len(words) > 1:
        # every word first (the full-text index ANDs them); then any of them, best first: "gzip compression"
        # found nothing while "gzip" found five decisions (issue 23, item 7). Words are letters and digits only,
        # so "|" is the index's own OR, never text from the query.
        ids = _fulltext(g, "|".join(words), "focus.text_any")
    if not ids:
        rows = g.read(
            "MATCH (d:Decision) WHERE toLower(d.summary) CONTAINS $q RETURN d.id AS id ORDER BY id LIMIT $k",
            {"q": q.lower(), "k": SEARCH_LIMIT},
            name="focus.contains",
        )
        ids = [r["id"] for r in rows]
    return _decision_hits(g, ids, "text")


# --- what a focus reaches ----------------------------------------------------------------------------------------
_Q_START = {
    "decision": "MATCH (d:Decision {id: $id}) RETURN d.id AS id",
    "source": (
        "MATCH (s:Source {id: $id}) WITH s "
        "OPTIONAL MATCH (d1:Decision)-[:DERIVED_FROM]->(s) "
        "OPTIONAL MATCH (s)-[:HAS_FRAGMENT]->(:Fragment)<-[:EVIDENCED_BY]-(:Claim)<-[:PREMISE]-(:Justification)"
        "-[:JUSTIFIES]->(d2:Decision) "
        "WITH collect(DISTINCT d1.id) + collect(DISTINCT d2.id) AS ids UNWIND ids AS id RETURN DISTINCT id"
    ),
    "claim": (
        "MATCH (c:Claim {id: $id})<-[:PREMISE]-(:Justification)-[:JUSTIFIES]->(x) WITH x "
        "OPTIONAL MATCH (x)<-[:PREMISE]-(:Justification)-[:JUSTIFIES]->(d2:Decision) "
        "WITH collect(DISTINCT CASE WHEN x:Decision THEN x.id END) + collect(DISTINCT d2.id) AS ids "
        "UNWIND ids AS id RETURN DISTINCT id"
    ),
    "action": "MATCH (:Action {id: $id})-[:IMPLEMENTS]->(d:Decision) RETURN d.id AS id",
    "correction": "MATCH (:Correction {id: $id})-[:ABOUT]->(x) RETURN x.id AS id",
    "file": (
        "MATCH (f:File {path: $path})<-[:TOUCHES|CHANGES]-(x) OPTIONAL MATCH (x)<-[:DERIVED_FROM]-(d1:Decision) "
        "OPTIONAL MATCH (x)-[:IMPLEMENTS]->(d2:Decision) WITH collect(DISTINCT d1.id) + collect(DISTINCT d2.id) AS ids "
        "UNWIND ids AS id RETURN DISTINCT id"
    ),
    "dir": (
        "MATCH (f:File) WHERE f.path STARTS WITH $path MATCH (f)<-[:TOUCHES]-(:Source)<-[:DERIVED_FROM]-(d:Decision) "
        "RETURN DISTINCT d.id AS id"
    ),
    "person": (
        "MATCH (:Person {login: $login})-[:AUTHORED]->(s:Source)<-[:DERIVED_FROM]-(d:Decision) "
        "RETURN DISTINCT d.id AS id"
    ),
}
# long pattern comprehensions with anonymous nodes came back empty on FalkorDB 4.x: plain MATCHes, UNION'ed
_RELATED_PATTERNS = (
    "(d)-[:SUPERSEDES]->(o:Decision)",
    "(d)<-[:SUPERSEDES]-(o:Decision)",
    "(d)-[:DERIVED_FROM]->(:Source)-[:REVERTS]->(:Source)<-[:DERIVED_FROM]-(o:Decision)",
    "(d)-[:DERIVED_FROM]->(:Source)<-[:REVERTS]-(:Source)<-[:DERIVED_FROM]-(o:Decision)",
    "(d)-[:DERIVED_FROM]->(:Source)<-[:DERIVED_FROM]-(o:Decision)",
    "(d)<-[:JUSTIFIES]-(:Justification)-[:PREMISE]->(:Claim)<-[:PREMISE]-(:Justification)-[:JUSTIFIES]->(o:Decision)",
)
_Q_RELATED = " UNION ".join(
    f"UNWIND $ids AS did MATCH (d:Decision {{id: did}}) MATCH {p} WHERE o.id <> did RETURN DISTINCT o.id AS id"
    for p in _RELATED_PATTERNS
)
_Q_FILES_OF = (
    "UNWIND $ids AS did MATCH (:Decision {id: did})-[:DERIVED_FROM]->(:Source)-[:TOUCHES]->(f:File) "
    "RETURN DISTINCT f.path AS path ORDER BY path"
)
_Q_FILE_DECISIONS = (
    "UNWIND $paths AS path MATCH (f:File {path: path})<-[:TOUCHES]-(:Source)<-[:DERIVED_FROM]-(o:Decision) "
    "OPTIONAL MATCH (o)-[:DERIVED_FROM]->(s:Source) WITH path, o, max(coalesce(s.merged_at, s.created_at)) AS when "
    "ORDER BY coalesce(when, '') DESC RETURN path, collect(o.id)[0..$k] AS ds"
)
FILE_HUBS = 2  # a focused decision's code files, drawn as hubs to the other decisions on them
_Q_NEWEST = (
    "UNWIND $ids AS did MATCH (d:Decision {id: did}) OPTIONAL MATCH (d)-[:DERIVED_FROM]->(s:Source) "
    "WITH d, max(coalesce(s.merged_at, s.created_at, s.date)) AS when "
    "RETURN d.id AS id ORDER BY coalesce(when, '') DESC, id"
)


def _focus_type(node_id: str) -> str:
    prefix = node_id.split(":", 1)[0]
    return {
        "decision": "decision",
        "claim": "claim",
        "action": "action",
        "corr": "correction",
        "file": "file",
        "dir": "dir",
        "person": "person",
    }.get(prefix, "source")


def reached_decisions(g: Graph, node_id: str) -> list[str]:
    """The decisions a node leads to (newest first): its own, those its claims justify, a file's, a person's."""
    kind = _focus_type(node_id)
    value = node_id.split(":", 1)[1] if kind in ("file", "dir", "person") else node_id
    params = {"file": {"path": value}, "dir": {"path": value}, "person": {"login": value}}.get(kind, {"id": value})
    ids = [r["id"] for r in g.read(_Q_START[kind], params, name=f"focus.start.{kind}") if r["id"]]
    if kind == "correction":  # what the correction is about leads on
        ids = [d for x in ids if not str(x).startswith("corr:") for d in reached_decisions(g, str(x))]
    ids = [i for i in ids if str(i).startswith("decision:")]
    return _newest(g, ids)


def _newest(g: Graph, ids: list[str]) -> list[str]:
    return [r["id"] for r in g.read(_Q_NEWEST, {"ids": ids}, name="focus.newest")] if ids else []


def focus_view(store: Store, repo: str, node_id: str, hops: int = DEFAULT_HOPS) -> GraphView:
    """The neighbourhood of ``node_id``: nodes within ``hops`` view edges of it (decision groups kept whole)."""
    if not 1 <= hops <= MAX_HOPS:
        raise InvalidInput(f"hops must be between 1 and {MAX_HOPS}, got {hops}")
    g = _graph(store, repo)
    start = reached_decisions(g, node_id)
    if not start:
        return GraphView(repo, True, focus=node_id, message="Nothing in the decision graph leads from here yet.")
    first = start[:FOCUS_DECISIONS]
    near: list[str] = []
    hubs: dict[str, list[str]] = {}
    if hops > 1:
        for r in g.read(_Q_RELATED, {"ids": first}, name="focus.related"):
            if r["id"] not in first and r["id"] not in near:
                near.append(r["id"])
        if _focus_type(node_id) == "decision":
            files = [r["path"] for r in g.read(_Q_FILES_OF, {"ids": first}, name="focus.files_of")]
            code = [f for f in files if not f.startswith(("tests/", "test/", "docs/"))]
            paths = list(dict.fromkeys(code))[:FILE_HUBS]
            for r in g.read(_Q_FILE_DECISIONS, {"paths": paths, "k": 6}, name="focus.file_hubs") if paths else []:
                hubs[r["path"]] = list(r["ds"])
                near += [x for x in r["ds"] if x not in first and x not in near]
    chosen = first + near[: max(0, FOCUS_DECISIONS - len(first)) + 6]
    view = GraphView(repo, True, decisions_total=len(start) + len(near), focus=node_id)
    _Neighbourhood(g, chosen, ()).read().assemble(view, FOCUS_NODES * 3)
    present = {n.id for n in view.nodes}
    for path, ds in hubs.items():
        hub = f"file:{path}"
        view.nodes.append(
            ViewNode(
                hub, "group", "file", path.rsplit("/", 1)[-1], f"File {path}\nother decisions that touched it", "holds"
            )
        )
        view.edges += [ViewEdge(hub, d, "CONTAINS", f"{path} → decision") for d in ds if d in present]
    anchor = node_id if view.node(node_id) else None
    if anchor is None and _focus_type(node_id) in ("file", "dir", "person"):
        _add_anchor(view, node_id, first)
        anchor = node_id
    _trim(view, anchor or first[0], hops + (1 if anchor is None else 0))
    shown = {n.id for n in view.nodes if n.type == "decision"}
    view.decisions_shown = len(shown)
    view.hidden = [d for d in start if d not in shown]
    if view.hidden:
        view.message = f"{len(view.hidden)} more decision(s) reached from here are in the list beside the graph."
    return view


EXPANDED_NODES = 70  # a focus plus the neighbours clicked open stays under this many nodes


def expand(store: Store, repo: str, view: GraphView, node_id: str) -> bool:
    """Add ``node_id``'s one-hop neighbourhood to ``view`` (click to expand); False when it would not fit."""
    extra = focus_view(store, repo, node_id, 1)
    have = {n.id for n in view.nodes}
    new = [n for n in extra.nodes if n.id not in have]
    if len(view.nodes) + len(new) > EXPANDED_NODES:
        return False
    view.nodes += new
    seen = {(e.source, e.target, e.word) for e in view.edges}
    view.edges += [e for e in extra.edges if (e.source, e.target, e.word) not in seen]
    shown = [n.id for n in view.nodes if n.type == "decision"]
    view.hidden = [d for d in view.hidden + extra.hidden if d not in shown]
    view.decisions_shown = len(shown)
    return True


def _add_anchor(view: GraphView, node_id: str, decisions: list[str]) -> None:
    kind, value = node_id.split(":", 1)
    label = {"file": value.rsplit("/", 1)[-1], "dir": value, "person": f"@{value}"}[kind]
    title = {"file": f"File {value}", "dir": f"Directory {value}", "person": f"Person @{value}"}[kind]
    view.nodes.insert(0, ViewNode(node_id, "group", kind, label, f"{title}\n{len(decisions)} decision(s)", "holds"))
    present = {n.id for n in view.nodes}
    view.edges += [ViewEdge(node_id, d, "CONTAINS", f"{title} → decision") for d in decisions if d in present]


def _trim(view: GraphView, anchor: str, hops: int) -> None:
    """Keep the nodes within ``hops`` undirected view edges of ``anchor``, at most FOCUS_NODES, nearest first."""
    adj: dict[str, set[str]] = {}
    for e in view.edges:
        adj.setdefault(e.source, set()).add(e.target)
        adj.setdefault(e.target, set()).add(e.source)
    dist = {anchor: 0}
    queue = deque([anchor])
    while queue:
        n = queue.popleft()
        if dist[n] >= hops:
            continue
        for m in sorted(adj.get(n, ())):
            if m not in dist:
                dist[m] = dist[n] + 1
                queue.append(m)
    types = {n.id: n.type for n in view.nodes}
    per_type: dict[str, int] = {}
    kept: set[str] = set()
    for n in sorted(dist, key=lambda n: (dist[n], n)):
        t = types.get(n, "group")
        if len(kept) >= FOCUS_NODES or (per_type.get(t, 0) >= PER_COLUMN and n != anchor):
            continue  # one drawn column (a node type) stays short enough to read; the list shows the rest
        per_type[t] = per_type.get(t, 0) + 1
        kept.add(n)
    view.nodes = [n for n in view.nodes if n.id in kept]
    view.edges = [e for e in view.edges if e.source in kept and e.target in kept]


# --- nothing focused: directories --------------------------------------------------------------------------------
# two light reads instead of one wide one (the wide one took 0.7 s on 5,000 decisions, these 0.25 s together)
_Q_BY_DIR = (
    "MATCH (d:Decision) OPTIONAL MATCH (nd:Decision)-[:SUPERSEDES]->(d) WITH d, count(nd) AS newer "
    f"WITH d, {_DECISION_STATUS_CYPHER} AS st "
    "WHERE size($statuses) = 0 OR st IN $statuses "
    "OPTIONAL MATCH (d)-[:DERIVED_FROM]->(s:Source) "
    "WITH d, st, max(coalesce(s.merged_at, s.created_at, s.date)) AS when, "
    "[p IN collect(DISTINCT s.path) WHERE p IS NOT NULL] AS docs "
    "RETURN d.id AS id, d.summary AS summary, d.quote AS quote, st, when, docs ORDER BY coalesce(when, '') DESC, id"
)
_Q_DECISION_FILES = (
    "MATCH (f:File)<-[:TOUCHES]-(:Source)<-[:DERIVED_FROM]-(d:Decision) "
    "RETURN d.id AS id, collect(DISTINCT f.path) AS files"
)


def graph_signature(store: Store, repo: str) -> str:
    """Changes whenever the overview could: an ingest, a correction, feedback or a quarantine (for page caches)."""
    g = store.repo_graph(repo)
    if not g.exists():
        return "missing"
    rows = g.read(
        "MATCH (r:Repo {id: 'repo'}) WITH r.ingested_at AS at "
        "OPTIONAL MATCH (d:Decision) WITH at, count(d) AS d OPTIONAL MATCH (k:Correction) WITH at, d, count(k) AS k "
        "OPTIONAL MATCH (i:Incident) RETURN at, d, k, count(i) AS i",
        name="focus.signature",
    )
    r = rows[0] if rows else {}
    return f"{r.get('at')}|{r.get('d')}|{r.get('k')}|{r.get('i')}"


def directory_of(path: str, depth: int = 2) -> str:
    """'starlette/middleware/' for starlette/middleware/cors.py; top-level files group under './'."""
    parts = path.split("/")[:-1][:depth]
    return "/".join(parts) + "/" if parts else "./"


def _main_dir(files: list[str]) -> str:
    code = [f for f in files if not f.startswith(("tests/", "test/", "docs/"))] or files
    if not code:
        return "(no files)"
    dirs = [directory_of(f) for f in code]
    return max(sorted(set(dirs)), key=dirs.count)


def overview_view(store: Store, repo: str, statuses: tuple[str, ...] = (), group_over: int = GROUP_OVER) -> GraphView:
    """Decisions grouped by the directory they touch most; past ``group_over`` only the directories are drawn."""
    bad = [s for s in statuses if s not in DECISION_STATUSES]
    if bad:
        raise InvalidInput(f"unknown decision status {bad[0]!r}; choose from {', '.join(DECISION_STATUSES)}")
    g = store.repo_graph(repo)
    if not g.exists():
        return GraphView(repo, False, message=f"No graph for {repo} yet: ingest it first.")
    rows = g.read(_Q_BY_DIR, {"statuses": list(statuses)}, name="focus.by_dir")
    files = {r["id"]: r["files"] for r in g.read(_Q_DECISION_FILES, name="focus.decision_files")} if rows else {}
    view = GraphView(repo, True, decisions_total=len(rows))
    if not rows:
        view.message = "No decision matches these filters." if statuses else "No decisions recorded yet."
        return view
    groups: dict[str, list[Row]] = {}
    for r in rows:
        groups.setdefault(_main_dir(list(files.get(r["id"]) or []) + list(r["docs"] or [])), []).append(r)
    for d, members in sorted(groups.items()):
        worst = next((s for s in WORST_FIRST if any(m["st"] == s for m in members)), "holds")
        counts = ", ".join(
            f"{sum(m['st'] == s for m in members)} {s}" for s in WORST_FIRST if any(m["st"] == s for m in members)
        )
        view.nodes.append(
            ViewNode(
                f"dir:{d}",
                "group",
                "dir",
                f"{d} · {len(members)}",
                f"Directory {d}\n{len(members)} decision(s): {counts}",
                worst,
            )
        )
    if len(rows) <= group_over:
        for d, members in groups.items():
            for m in members:
                summary = m["summary"] or m["id"]
                view.nodes.append(
                    ViewNode(
                        m["id"],
                        "decision",
                        "decision",
                        _short(summary, 90),  # the widget wraps it to its cell
                        f"Decision: {summary}\nstatus: {m['st']}\n“{m['quote'] or ''}”",
                        m["st"],
                        m["when"],
                    )
                )
                view.edges.append(ViewEdge(f"dir:{d}", m["id"], "CONTAINS", f"{d} → decision"))
        view.decisions_shown = len(rows)
    else:
        view.hidden = [r["id"] for r in rows]
        view.message = (
            f"{len(rows)} decisions in {len(groups)} directories: click a directory to see its decisions, "
            "or search above; the list beside the graph holds them all."
        )
    return view


# --- the list view -----------------------------------------------------------------------------------------------
_Q_ROWS = (
    "UNWIND $ids AS did MATCH (d:Decision {id: did}) OPTIONAL MATCH (nd:Decision)-[:SUPERSEDES]->(d) "
    "WITH d, count(nd) AS newer OPTIONAL MATCH (d)-[:DERIVED_FROM]->(s:Source) "
    "WITH d, newer, collect(s) AS srcs "
    "RETURN d.id AS id, d.summary AS summary, d.status AS status, d.holds AS holds, d.label AS label, newer, "
    "[s IN srcs | s.id] AS sids, [s IN srcs | s.url] AS urls, [s IN srcs | s.title] AS titles, "
    "[s IN srcs | coalesce(s.merged_at, s.created_at, s.date)] AS whens, "
    "[(d)-[:DERIVED_FROM]->(:Source)-[:TOUCHES]->(f:File) | f.path][0..4] AS files"
)


def decision_rows(store: Store, repo: str, ids: list[str]) -> list[DecisionRow]:
    """Rows for the list beside the canvas, in the order given (at most LIST_LIMIT)."""
    from .labels import source_name

    g = _graph(store, repo)
    ids = ids[:LIST_LIMIT]
    rows = {r["id"]: r for r in g.read(_Q_ROWS, {"ids": ids}, name="focus.rows")} if ids else {}
    out = []
    for i in ids:
        r = rows.get(i)
        if r is None:
            continue
        sid = (r["sids"] or [""])[0] or ""
        doc_title = next(
            (t for s, t in zip(r["sids"], r["titles"], strict=False) if str(s).startswith("doc:") and t), None
        )
        url = next((u for u in r["urls"] if u), None)
        when = max((w for w in r["whens"] if w), default=None)
        out.append(
            DecisionRow(
                i,
                r["summary"] or i,
                decision_status(r["status"], r["holds"], r["label"], int(r["newer"] or 0)),
                _short(doc_title, 40) if doc_title else source_name(sid) if sid else "",
                url,
                str(when)[:10] if when else None,
                tuple(r["files"] or ()),
            )
        )
    return out


assert set(WORST_FIRST) <= set(STATUSES)

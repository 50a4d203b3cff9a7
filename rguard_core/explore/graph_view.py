"""The decision graph view: a repository's product-level graph, filtered and capped. No Streamlit here.

Shown: Sources (PR, issue, ADR, comment, human correction), Claims, Decisions, Actions and Corrections, with
edges in readable words. Fragments, justifications, people, commits and files stay in the database (the
detail pane in node_detail.py shows them). The view is decision-centred: filters pick decisions, newest
first, and each decision brings its neighbourhood until the node cap is reached.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..db import Graph, Store
from ..errors import InvalidInput
from ..jsontypes import Params, Row
from ..memory.model import LABEL_RANK

DEFAULT_CAP = 150
CAP_STEP = 150
MAX_CAP = 750  # "show more" stops here: never thousands of nodes at once
MAX_TEXT = 200

NODE_TYPES = ("source", "claim", "decision", "action", "correction", "group")
STATUSES = ("holds", "fallen", "superseded", "needs review", "held", "quarantined")
DECISION_STATUSES = ("holds", "fallen", "superseded", "needs review")
SOURCE_KINDS = ("pr", "issue", "comment", "doc", "human_correction")
EDGE_WORDS = ("SUPPORTS", "JUSTIFIES", "IMPLEMENTS", "CORRECTS", "SUPERSEDES", "REJECTED", "REVERTS", "CONTAINS")

STATUS_MEANING = {
    "holds": "supported by its sources as stored",
    "fallen": "lost its support: nothing it rests on holds now (a claim fell, was corrected away, or its source "
    "was quarantined)",
    "superseded": "replaced by a newer claim or decision",
    "needs review": "holds, but the memory engine flagged it and no undo cleared that: something it used fell or "
    "was corrected, or it fell once and holds again; or an action to compensate",
    "held": "an action held back because its decision no longer holds",
    "quarantined": "a source marked untrusted; nothing it says counts",
}

# the memory engine's labels (memory/model.LABEL_RANK: review < correction < compensation); any of them on a
# decision that holds means "needs review"
REVIEW_LABELS = tuple(str(label) for label in LABEL_RANK if label)
# The decision status in Cypher; must agree with decision_status() below (a test pins both on the same graph).
_DECISION_STATUS_CYPHER = (
    "CASE WHEN d.status = 'superseded' OR newer > 0 THEN 'superseded' "
    "WHEN d.holds = false THEN 'fallen' "
    f"WHEN d.label IN [{', '.join(repr(label) for label in REVIEW_LABELS)}] THEN 'needs review' ELSE 'holds' END"
)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def decision_status(status: str | None, holds: bool | None, label: str | None, newer: int = 0) -> str:
    """A decision's status (one of DECISION_STATUSES) from its stored properties; the one definition every page
    (Decision graph, Corrections, home) and the CLI/MCP read models use. ``newer``: decisions that SUPERSEDE it.

    What the memory engine stores means (memory/engine.py, writes.py, undo.py):

    - ``holds`` is the truth *now*: every step (quarantine, correction, lift, revert, recompute) writes the least
      fixed point of support, and writes it together with the label.
    - ``label`` is a record that only moves up (``max_label``, LABEL_RANK ``review`` < ``correction`` <
      ``compensation``): ``review`` — a step took away some of its support but it kept holding; ``correction`` —
      a step made it fall; ``compensation`` — it fell while an action on it had been executed. An undo puts the
      earlier label back only when the step it undoes set the label and the decision holds again; so when
      support comes back another way (its other source's quarantine lifted, a recompute), the decision holds
      while still labelled ``correction``. That is a decision that fell once and holds again, which no one has
      cleared.

    So: ``superseded`` when replaced (its own status, or a newer decision); ``fallen`` when it does not hold;
    ``needs review`` when it holds but carries any label (it lost support once); else ``holds`` (also when
    support was never computed). A label never makes a holding decision ``fallen``.
    """
    if status == "superseded" or newer > 0:
        return "superseded"
    if holds is False:
        return "fallen"
    return "needs review" if label in REVIEW_LABELS else "holds"


def claim_status(status: str | None, holds: bool | None) -> str:
    """A claim's status: ``superseded`` when corrected away (or withdrawn), ``fallen`` when its support does not
    hold now, else ``holds`` (also when support was never computed). Claims carry no label."""
    if status == "superseded":
        return "superseded"
    return "fallen" if holds is False else "holds"


def action_status(status: str | None) -> str:
    return {"held": "held", "compensate": "needs review"}.get(status or "", "holds")


def source_status(quarantined: bool | None) -> str:
    return "quarantined" if quarantined else "holds"


def correction_status(state: str | None) -> str:
    return "needs review" if state == "pending" else "holds"


@dataclass(frozen=True)
class ViewFilter:
    """What the analyst asked to see; ``check()`` raises InvalidInput on anything malformed."""

    file_path: str = ""
    statuses: tuple[str, ...] = ()
    source_kinds: tuple[str, ...] = ()
    date_from: str | None = None  # YYYY-MM-DD, inclusive
    date_to: str | None = None
    text: str = ""
    cap: int = DEFAULT_CAP

    def check(self) -> ViewFilter:
        bad = [s for s in self.statuses if s not in DECISION_STATUSES]
        if bad:
            raise InvalidInput(f"unknown decision status {bad[0]!r}; choose from {', '.join(DECISION_STATUSES)}")
        bad = [k for k in self.source_kinds if k not in SOURCE_KINDS]
        if bad:
            raise InvalidInput(f"unknown source kind {bad[0]!r}; choose from {', '.join(SOURCE_KINDS)}")
        for name, d in (("from", self.date_from), ("to", self.date_to)):
            if d is not None and not _DATE.match(d):
                raise InvalidInput(f"date {name} must look like 2025-01-31, got {d!r}")
        if self.date_from and self.date_to and self.date_from > self.date_to:
            raise InvalidInput(f"date range is empty: from {self.date_from} is after to {self.date_to}")
        if len(self.text) > MAX_TEXT or len(self.file_path) > MAX_TEXT:
            raise InvalidInput(f"filter text is longer than {MAX_TEXT} characters")
        if not 1 <= self.cap <= MAX_CAP:
            raise InvalidInput(f"node cap must be between 1 and {MAX_CAP}, got {self.cap}")
        return self


@dataclass(frozen=True)
class ViewNode:
    id: str
    type: str  # one of NODE_TYPES
    kind: str  # source kind, claim kind, correction kind, or the type again
    label: str  # short text drawn on the node
    title: str  # plain-text hover text (the widget escapes it)
    status: str  # one of STATUSES
    when: str | None = None


@dataclass(frozen=True)
class ViewEdge:
    source: str
    target: str
    word: str  # one of EDGE_WORDS
    title: str = ""


@dataclass
class GraphView:
    """What the page draws, plus what it needs to say about what it left out."""

    repo: str
    exists: bool
    nodes: list[ViewNode] = field(default_factory=list)
    edges: list[ViewEdge] = field(default_factory=list)
    decisions_total: int = 0  # decisions matching the filter
    decisions_shown: int = 0
    cap: int = DEFAULT_CAP
    message: str = ""
    focus: str | None = None  # the node this view is centred on (focus.py), drawn larger
    hidden: list[str] = field(default_factory=list)  # decisions that matched but did not fit (the list shows them)

    @property
    def capped(self) -> bool:
        return self.decisions_shown < self.decisions_total

    def node(self, node_id: str) -> ViewNode | None:
        return next((n for n in self.nodes if n.id == node_id), None)


def build_view(store: Store, repo: str, flt: ViewFilter | None = None) -> GraphView:
    """The filtered, capped product graph of ``repo``; an unknown or empty repository gives an empty view."""
    flt = (flt or ViewFilter()).check()
    graph = store.repo_graph(repo)
    if not graph.exists():
        return GraphView(repo, False, cap=flt.cap, message=f"No graph for {repo} yet: ingest it first.")
    total, page = select_decisions(graph, flt)
    view = GraphView(repo, True, decisions_total=total, cap=flt.cap)
    if total == 0:
        view.message = "No decision matches these filters." if _filtered(flt) else "No decisions recorded yet."
        return view
    hood = _Neighbourhood(graph, page, flt.source_kinds).read()
    hood.assemble(view, flt.cap)
    if view.capped:
        view.message = (
            f"Showing {view.decisions_shown} of {total} decisions ({len(view.nodes)} nodes, cap "
            f"{flt.cap}). Narrow the filters or show more."
        )
    return view


def _filtered(f: ViewFilter) -> bool:
    return bool(f.file_path or f.statuses or f.source_kinds or f.date_from or f.date_to or f.text)


def select_decisions(graph: Graph, flt: ViewFilter) -> tuple[int, list[str]]:
    """How many decisions match, and the ids of the newest ``flt.cap`` of them (newest first)."""
    params: Params = {"limit": flt.cap}
    if flt.file_path:
        # a decision reaches a file through the source it derives from (TOUCHES) or its action (CHANGES)
        q = (
            "MATCH (fl:File) WHERE fl.path CONTAINS $path MATCH (fl)<-[:TOUCHES|CHANGES]-(x) "
            "OPTIONAL MATCH (x)<-[:DERIVED_FROM]-(d1:Decision) OPTIONAL MATCH (x)-[:IMPLEMENTS]->(d2:Decision) "
            "WITH collect(DISTINCT d1) + collect(DISTINCT d2) AS ds UNWIND ds AS d WITH DISTINCT d "
        )
        params["path"] = flt.file_path
    else:
        q = "MATCH (d:Decision) "
    if flt.text.strip():
        # the text test reads only the decision itself: filter before any per-decision traversal
        q += (
            "WITH d WHERE toLower(coalesce(d.summary, '')) CONTAINS $text "
            "OR toLower(coalesce(d.quote, '')) CONTAINS $text OR d.id = $raw_text "
        )
        params["text"], params["raw_text"] = flt.text.strip().lower(), flt.text.strip()
    q += (
        "OPTIONAL MATCH (d)-[:DERIVED_FROM]->(s:Source) "
        "WITH d, max(coalesce(s.merged_at, s.created_at, s.date)) AS when, collect(s.kind) AS kinds "
    )
    where = []
    if flt.statuses:
        # the status needs a SUPERSEDES count per decision: only pay for it when a status is asked for
        q += (
            "OPTIONAL MATCH (nd:Decision)-[:SUPERSEDES]->(d) WITH d, when, kinds, count(nd) AS newer "
            f"WITH d, when, kinds, {_DECISION_STATUS_CYPHER} AS st "
        )
        where.append("st IN $statuses")
        params["statuses"] = list(flt.statuses)
    if flt.date_from:
        where.append("substring(when, 0, 10) >= $date_from")
        params["date_from"] = flt.date_from
    if flt.date_to:
        where.append("substring(when, 0, 10) <= $date_to")
        params["date_to"] = flt.date_to
    if where:
        q += "WHERE " + " AND ".join(where) + " "
    if flt.source_kinds:
        # kept when its own source or a source of one of its claims is of a chosen kind
        q += (
            "OPTIONAL MATCH (d)<-[:JUSTIFIES]-(:Justification)-[:PREMISE]->(:Claim)-[:EVIDENCED_BY]->(:Fragment)"
            "<-[:HAS_FRAGMENT]-(cs:Source) WITH d, when, kinds, collect(cs.kind) AS claim_kinds "
            "WHERE any(k IN kinds + claim_kinds WHERE k IN $kinds) "
        )
        params["kinds"] = list(flt.source_kinds)
    q += (
        "WITH d.id AS id, when ORDER BY coalesce(when, '') DESC, id "
        "WITH collect(id) AS ids RETURN size(ids) AS total, ids[0..$limit] AS page"
    )
    rows = graph.read(q, params, name="view.select_decisions")
    if not rows:
        return 0, []
    return int(rows[0]["total"] or 0), list(rows[0]["page"] or [])


_Q_DECISIONS = (
    "UNWIND $ids AS did MATCH (d:Decision {id: did}) OPTIONAL MATCH (nd:Decision)-[:SUPERSEDES]->(d) "
    "WITH d, count(nd) AS newer OPTIONAL MATCH (d)-[:DERIVED_FROM]->(s:Source) "
    "RETURN d.id AS id, d.summary AS summary, d.quote AS quote, d.status AS status, d.holds AS holds, "
    "d.label AS label, newer, max(coalesce(s.merged_at, s.created_at, s.date)) AS when, collect(s.id) AS derived"
)
_Q_PREMISES = (
    "UNWIND $ids AS xid MATCH (c:Claim)<-[:PREMISE]-(:Justification)-[:JUSTIFIES]->(x:{label} {{id: xid}}) "
    "RETURN DISTINCT x.id AS target, c.id AS id, c.statement AS statement, c.quote AS quote, c.kind AS kind, "
    "c.source_id AS source_id, c.status AS status, c.holds AS holds"
)
_Q_REPLACEMENTS = (
    "UNWIND $ids AS cid MATCH (nc:Claim)-[:SUPERSEDES]->(c:Claim {id: cid}) "
    "RETURN c.id AS target, nc.id AS id, nc.statement AS statement, nc.quote AS quote, nc.kind AS kind, "
    "nc.source_id AS source_id, nc.status AS status, nc.holds AS holds"
)
_Q_ALTERNATIVES = (
    "UNWIND $ids AS did MATCH (a:Alternative)-[:REJECTED_FOR]->(d:Decision {id: did}) "
    "RETURN d.id AS decision, a.text AS text, a.source_id AS source_id"
)
_Q_ACTIONS = (
    "UNWIND $ids AS did MATCH (a:Action)-[:IMPLEMENTS]->(d:Decision {id: did}) "
    "RETURN d.id AS decision, a.id AS id, a.summary AS summary, a.status AS status, a.executed AS executed"
)
_Q_SUPERSEDES = (
    "UNWIND $ids AS did MATCH (nd:Decision)-[:SUPERSEDES]->(d:Decision {id: did}) RETURN nd.id AS new, d.id AS old"
)
# a later PR that reverts a decision's PR: drawn as reverting decision -> reverted decision
_Q_REVERTS = (
    "UNWIND $ids AS did MATCH (d:Decision {id: did})-[:DERIVED_FROM]->(s:Source) "
    "MATCH (s)-[:REVERTS]-(o:Source)<-[:DERIVED_FROM]-(od:Decision) "
    "WITH d, s, o, od WHERE coalesce(o.merged_at, o.created_at, '') <> coalesce(s.merged_at, s.created_at, '') "
    "RETURN DISTINCT CASE WHEN coalesce(o.merged_at, o.created_at, '') > coalesce(s.merged_at, s.created_at, '') "
    "THEN od.id ELSE d.id END AS new, CASE WHEN coalesce(o.merged_at, o.created_at, '') > "
    "coalesce(s.merged_at, s.created_at, '') THEN d.id ELSE od.id END AS old"
)
_Q_SOURCES = (
    "UNWIND $ids AS sid MATCH (s:Source {id: sid}) "
    "RETURN s.id AS id, s.kind AS kind, s.title AS title, s.number AS number, s.path AS path, s.by AS by, "
    "s.quarantined AS quarantined, coalesce(s.merged_at, s.created_at, s.date) AS when, "
    "substring(coalesce(s.text, ''), 0, 240) AS excerpt"
)
# Corrections are few: scan them rather than look every visible node up without a label.
_Q_CORRECTIONS = (
    "MATCH (k:Correction) WITH k MATCH (k)-[:ABOUT]->(x) WHERE x.id IN $ids "
    "RETURN x.id AS target, k.id AS id, k.kind AS kind, k.by AS by, coalesce(k.reason, k.statement, '') AS reason, "
    "k.state AS state, k.created_at AS when"
)


@dataclass
class _Group:
    """The nodes and edges one decision brings into the view."""

    nodes: dict[str, ViewNode] = field(default_factory=dict)
    edges: list[ViewEdge] = field(default_factory=list)


class _Neighbourhood:
    """Reads everything the selected decisions bring along, then adds decisions in order up to the cap."""

    def __init__(self, graph: Graph, decision_ids: list[str], kinds: tuple[str, ...]) -> None:
        self.g = graph
        self.ids = decision_ids
        self.kinds = kinds
        self.groups: dict[str, _Group] = {d: _Group() for d in decision_ids}
        self.sources: dict[str, ViewNode] = {}
        self.extra_edges: list[ViewEdge] = []

    def read(self) -> _Neighbourhood:
        decisions = self.g.read_each(_Q_DECISIONS, self.ids, name="view.decisions")
        derived = {r["id"]: [s for s in r["derived"] if s] for r in decisions}
        claims = self.g.read_each(_Q_PREMISES.format(label="Decision"), self.ids, name="view.claims")
        claim_ids = sorted({r["id"] for r in claims})
        sub = self.g.read_each(_Q_PREMISES.format(label="Claim"), claim_ids, name="view.claim_premises")
        repl = self.g.read_each(_Q_REPLACEMENTS, claim_ids + sorted({r["id"] for r in sub}), name="view.replacements")
        alts = self.g.read_each(_Q_ALTERNATIVES, self.ids, name="view.alternatives")
        acts = self.g.read_each(_Q_ACTIONS, self.ids, name="view.actions")
        want = {s for ss in derived.values() for s in ss} | {r["source_id"] for r in claims + sub + repl + alts}
        self._read_sources(sorted(s for s in want if s))
        for r in decisions:
            self._decision(r, derived[r["id"]])
        self._claims(claims, sub, repl)
        self._alternatives(alts)
        self._actions(acts)
        self._corrections()
        sup = self.g.read_each(_Q_SUPERSEDES, self.ids, name="view.supersedes")
        self.extra_edges += [ViewEdge(r["new"], r["old"], "SUPERSEDES") for r in sup]
        rev = self.g.read(_Q_REVERTS, {"ids": self.ids}, name="view.reverts")
        self.extra_edges += [ViewEdge(r["new"], r["old"], "REVERTS", "a later PR reverted this one") for r in rev]
        return self

    def _read_sources(self, ids: list[str]) -> None:
        for r in self.g.read_each(_Q_SOURCES, ids, name="view.sources"):
            kind = r["kind"] or "source"
            if kind == "commit" or (self.kinds and kind not in self.kinds):
                continue  # commits stay in the detail pane; a kind filter hides other kinds
            label = source_label(r)
            title = f"{label} ({kind})\n{r['excerpt'] or ''}"
            self.sources[r["id"]] = ViewNode(
                r["id"], "source", kind, label, title, source_status(r["quarantined"]), r["when"]
            )

    def _add_source(self, grp: _Group, sid: str | None, target: str, word: str, title: str = "") -> None:
        node = self.sources.get(sid or "")
        if node is not None:
            grp.nodes[node.id] = node
            grp.edges.append(ViewEdge(node.id, target, word, title))

    def _decision(self, r: Row, derived: list[str]) -> None:
        grp = self.groups[r["id"]]
        st = decision_status(r["status"], r["holds"], r["label"], int(r["newer"] or 0))
        summary = r["summary"] or r["quote"] or r["id"]
        grp.nodes[r["id"]] = ViewNode(
            r["id"],
            "decision",
            "decision",
            _short(summary),
            f"Decision: {summary}\nstatus: {st}\n“{r['quote'] or ''}”",
            st,
            r["when"],
        )
        for sid in derived:
            self._add_source(grp, sid, r["id"], "SUPPORTS")

    def _claims(self, claims: list[Row], sub: list[Row], repl: list[Row]) -> None:
        owners: dict[str, set[str]] = {}
        for r in claims:
            owners.setdefault(r["id"], set()).add(r["target"])
            self._claim(self.groups[r["target"]], r, "JUSTIFIES", r["target"])
        for rows, word in ((sub, "JUSTIFIES"), (repl, "SUPERSEDES")):
            for r in rows:
                for did in sorted(owners.get(r["target"], ())):
                    owners.setdefault(r["id"], set()).add(did)
                    self._claim(self.groups[did], r, word, r["target"])

    def _claim(self, grp: _Group, r: Row, word: str, target: str) -> None:
        st = claim_status(r["status"], r["holds"])
        text = r["statement"] or r["quote"] or r["id"]
        grp.nodes[r["id"]] = ViewNode(
            r["id"],
            "claim",
            r["kind"] or "claim",
            _short(text),
            f"Claim ({r['kind'] or 'claim'}): {text}\nstatus: {st}",
            st,
        )
        grp.edges.append(ViewEdge(r["id"], target, word))
        self._add_source(grp, r["source_id"], r["id"], "SUPPORTS")

    def _alternatives(self, rows: list[Row]) -> None:
        # one REJECTED edge per (source, decision), carrying every alternative that source rejected
        texts: dict[tuple[str, str], list[str]] = {}
        for r in rows:
            texts.setdefault((r["source_id"], r["decision"]), []).append(f"rejected alternative: {r['text']}")
        for (sid, did), lines in texts.items():
            self._add_source(self.groups[did], sid, did, "REJECTED", "\n".join(lines))

    def _actions(self, rows: list[Row]) -> None:
        for r in rows:
            st = action_status(r["status"])
            done = "executed" if r["executed"] else "not executed"
            summary = r["summary"] or r["id"]
            self.groups[r["decision"]].nodes[r["id"]] = ViewNode(
                r["id"], "action", "action", _short(summary), f"Action: {summary}\n{done}; status: {st}", st
            )
            self.groups[r["decision"]].edges.append(ViewEdge(r["id"], r["decision"], "IMPLEMENTS"))

    def _corrections(self) -> None:
        where: dict[str, list[_Group]] = {}
        for grp in self.groups.values():
            for nid in grp.nodes:
                where.setdefault(nid, []).append(grp)
        rows = self.g.read_each(_Q_CORRECTIONS, sorted(where), name="view.corrections")
        for r in rows:
            label = correction_label(r["kind"], r["by"])
            node = ViewNode(
                r["id"],
                "correction",
                r["kind"] or "correction",
                _short(label),
                f"{label}: {r['reason']}".rstrip(": "),
                correction_status(r["state"]),
                r["when"],
            )
            for grp in where.get(r["target"], []):
                grp.nodes[node.id] = node
                grp.edges.append(ViewEdge(node.id, r["target"], "CORRECTS"))

    def assemble(self, view: GraphView, cap: int) -> None:
        """Add whole decision groups, newest first, while they fit under the cap (the first always fits)."""
        nodes: dict[str, ViewNode] = {}
        edges: dict[tuple[str, str, str], ViewEdge] = {}
        for did in self.ids:
            grp = self.groups[did]
            new = [n for n in grp.nodes if n not in nodes]
            if nodes and len(nodes) + len(new) > cap:
                break
            for nid, node in grp.nodes.items():
                if len(nodes) >= cap and nid not in nodes:
                    continue  # only a first decision bigger than the cap is cut
                nodes[nid] = node
            for e in grp.edges:
                edges.setdefault((e.source, e.target, e.word), e)
            view.decisions_shown += 1
        for e in self.extra_edges:
            edges.setdefault((e.source, e.target, e.word), e)
        view.nodes = list(nodes.values())
        view.edges = [e for e in edges.values() if e.source in nodes and e.target in nodes]


def correction_label(kind: str | None, by: str | None) -> str:
    """'Claim correction by ana', 'Quarantine correction by sec', 'Correction by ?'."""
    head = f"{kind} correction" if kind and kind != "correction" else "correction"
    return f"{head[0].upper()}{head[1:]} by {by or '?'}"


def source_label(r: Row) -> str:
    """A short name for a source (a row or a Source node's properties): PR #12, Issue #3, Review on #12, the ADR's title, Correction by X."""
    kind, sid = r.get("kind"), str(r.get("id") or "")
    if kind in ("pr", "issue") and r.get("number") is not None:
        return f"{'PR' if kind == 'pr' else 'Issue'} #{r['number']}"
    if kind == "comment":
        m = re.match(r"^(review|comment):(?:pr|issue):(\d+):", sid)
        if m:
            return f"{'Review' if m.group(1) == 'review' else 'Comment'} on #{m.group(2)}"
    if kind == "doc":
        return _short(r.get("title") or str(r.get("path") or sid).rsplit("/", 1)[-1])
    if kind == "human_correction":
        return f"Correction text by {r.get('by') or '?'}"
    return _short(sid)


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"

"""One node of the decision graph in full: its source text with the quote at its stored offsets, status and
revision, what it rests on and what rests on it (a walk of stored edges), rejected alternatives, who to ask (the
guard's one ranking: for a decision ``guard.experts.for_decisions``, the call the Guard's findings use, with the
reasons each person is named), and its blast radius
(everything downstream, the same walk the correction preview uses). No Streamlit here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..db import Graph, Store
from ..errors import InvalidInput, UnknownRepository
from ..evidence import Span, is_verbatim
from ..guard import experts
from ..jsontypes import JSONObject, ParamsIn, Props, Row
from ..memory.graphio import downstream, seeds_of_source
from .graph_view import (
    action_status,
    claim_status,
    correction_label,
    correction_status,
    decision_status,
    source_label,
    source_status,
)

MAX_FILES = 30

_FIND = " UNION ".join(
    f"MATCH (n:{label} {{id: $id}}) RETURN '{kind}' AS type, n AS n"
    for label, kind in (
        ("Decision", "decision"),
        ("Claim", "claim"),
        ("Source", "source"),
        ("Action", "action"),
        ("Correction", "correction"),
    )
)
# What a linked node needs for its label and status; every neighbour query returns these columns.
_SHOW = (
    "m.id AS id, labels(m) AS labels, m.kind AS kind, m.statement AS statement, m.summary AS summary, "
    "m.title AS title, m.number AS number, m.path AS path, m.by AS by, m.status AS status, m.holds AS holds, "
    "m.label AS label, m.quarantined AS quarantined, m.state AS state, m.reason AS reason, "
    "size([(m)<-[:SUPERSEDES]-(x:Decision) | x]) AS newer"
)
_Q_SOURCE = (
    "MATCH (s:Source {id: $id}) RETURN s.id AS id, s.kind AS kind, s.text AS text, s.url AS url, s.title AS title, "
    "s.number AS number, s.path AS path, s.by AS by"
)


@dataclass(frozen=True)
class QuoteSpan:
    start: int
    end: int
    quote: str
    verified: bool  # the stored offsets still point at exactly the stored quote


@dataclass(frozen=True)
class SourceText:
    """A source's full text and the quoted spans to highlight in it."""

    source_id: str
    kind: str
    label: str
    url: str | None
    text: str
    spans: list[QuoteSpan] = field(default_factory=list)

    def pieces(self) -> list[tuple[str, bool]]:
        """The text cut into (piece, highlighted) runs; only verified spans are highlighted."""
        marks = sorted((s.start, s.end) for s in self.spans if s.verified and s.end > s.start)
        out: list[tuple[str, bool]] = []
        pos = 0
        for start, end in marks:
            if end <= pos:
                continue
            start = max(start, pos)
            if start > pos:
                out.append((self.text[pos:start], False))
            out.append((self.text[start:end], True))
            pos = end
        if pos < len(self.text):
            out.append((self.text[pos:], False))
        return out


@dataclass(frozen=True)
class Link:
    id: str
    type: str  # source | claim | decision | action | correction | incident
    label: str
    status: str
    relation: str  # the edge word: SUPPORTS, JUSTIFIES, IMPLEMENTS, CORRECTS, SUPERSEDES, REJECTED, ...
    note: str = ""


@dataclass(frozen=True)
class Expert:
    login: str
    reason: str
    last_active: str | None = None


@dataclass(frozen=True)
class RejectedAlternative:
    text: str
    quote: str
    source_id: str
    url: str | None
    verified: bool


@dataclass(frozen=True)
class NodeDetail:
    """Everything the detail pane shows for one node."""

    id: str
    type: str
    kind: str
    label: str
    text: str
    status: str
    revision: int | None
    url: str | None
    evidence: SourceText | None = None
    rests_on: list[Link] = field(default_factory=list)
    rested_on_by: list[Link] = field(default_factory=list)
    related: list[Link] = field(default_factory=list)  # supersedes / superseded by / corrections / incidents
    alternatives: list[RejectedAlternative] = field(default_factory=list)
    who_to_ask: list[Expert] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)
    facts: JSONObject = field(default_factory=dict)  # a few stored values by name, shown as JSON on the page

    @property
    def can_blast(self) -> bool:
        return self.type in ("source", "claim")

    def as_dict(self) -> JSONObject:
        return asdict(self)


@dataclass(frozen=True)
class BlastRadius:
    """Everything downstream of a source or claim: the claims, decisions and actions that rest on it."""

    node_id: str
    seeds: list[str]
    claims: list[str]
    decisions: list[str]
    actions: list[str]

    def ids(self) -> set[str]:
        return set(self.claims) | set(self.decisions) | set(self.actions)

    def as_dict(self) -> JSONObject:
        return asdict(self)


def _graph(store: Store, repo: str) -> Graph:
    graph = store.repo_graph(repo)
    if not graph.exists():
        raise UnknownRepository(repo)
    return graph


def find_node(graph: Graph, node_id: str) -> tuple[str, Props]:
    """(type, properties) of a product-level node, or InvalidInput when there is none with that id."""
    rows = graph.read(_FIND, {"id": node_id}, name="detail.find") if node_id else []
    if not rows:
        raise InvalidInput(f"no source, claim, decision, action or correction with id {node_id!r} in this repository")
    return rows[0]["type"], rows[0]["n"]


def node_detail(store: Store, repo: str, node_id: str) -> NodeDetail:
    """The detail pane for ``node_id`` in ``repo``."""
    graph = _graph(store, repo)
    kind, props = find_node(graph, node_id)
    build = {"decision": _decision, "claim": _claim, "source": _source, "action": _action, "correction": _correction}
    return build[kind](graph, props)


# --- per type ---------------------------------------------------------------------------------------------------
def _decision(g: Graph, p: Props) -> NodeDetail:
    nid = p["id"]
    prm = {"id": nid}
    newer = _links(g, "(n:Decision {id: $id})<-[:SUPERSEDES]-(m:Decision)", prm, "SUPERSEDES", "superseded by")
    evidence = _quoted(g, p)
    derived = _links(g, "(n:Decision {id: $id})-[:DERIVED_FROM]->(m:Source)", prm, "SUPPORTS", "derived from")
    implemented = _links(g, "(n:Decision {id: $id})<-[:IMPLEMENTS]-(m:Action)", prm, "IMPLEMENTS")
    sources = [x.id for x in derived]
    return NodeDetail(
        nid,
        "decision",
        "decision",
        p.get("summary") or nid,
        p.get("quote") or "",
        decision_status(p.get("status"), p.get("holds"), p.get("label"), len(newer)),
        p.get("rev"),
        evidence.url if evidence else None,
        evidence=evidence,
        rests_on=_justifications(g, "Decision", nid) + derived,
        rested_on_by=implemented,
        related=(
            _links(g, "(n:Decision {id: $id})-[:SUPERSEDES]->(m:Decision)", prm, "SUPERSEDES", "supersedes")
            + newer
            + _about(g, "Decision", nid)
        ),
        alternatives=_alternatives(g, nid),
        who_to_ask=who_to_ask(g, sources, nid),
        files=_files(g, sources, [x.id for x in implemented]),
        commits=_commits(g, sources),
        facts={"label": p.get("label"), "extractor": p.get("extractor"), "score_factor": p.get("score_factor")},
    )


def _claim(g: Graph, p: Props) -> NodeDetail:
    nid = p["id"]
    prm = {"id": nid}
    evidence = _quoted(g, p)
    src = _links(g, "(n:Claim {id: $id})-[:EVIDENCED_BY]->(:Fragment)<-[:HAS_FRAGMENT]-(m:Source)", prm, "SUPPORTS")
    rested_on_by = _links(g, "(n:Claim {id: $id})<-[:PREMISE]-(:Justification)-[:JUSTIFIES]->(m)", prm, "JUSTIFIES")
    decisions = [x.id for x in rested_on_by if x.type == "decision"]
    rows = g.read(
        "UNWIND $ids AS did MATCH (:Decision {id: did})-[:DERIVED_FROM]->(s:Source) RETURN DISTINCT s.id AS id",
        {"ids": decisions},
        name="detail.decision_sources",
    )
    return NodeDetail(
        nid,
        "claim",
        p.get("kind") or "claim",
        p.get("statement") or nid,
        p.get("quote") or "",
        claim_status(p.get("status"), p.get("holds")),
        p.get("rev"),
        evidence.url if evidence else None,
        evidence=evidence,
        rests_on=src + _justifications(g, "Claim", nid),
        rested_on_by=rested_on_by,
        related=(
            _links(g, "(n:Claim {id: $id})-[:SUPERSEDES]->(m:Claim)", prm, "SUPERSEDES", "replaces")
            + _links(g, "(n:Claim {id: $id})<-[:SUPERSEDES]-(m:Claim)", prm, "SUPERSEDES", "replaced by")
            + _about(g, "Claim", nid)
        ),
        who_to_ask=who_to_ask(g, [x.id for x in src] + [r["id"] for r in rows]),
        facts={"kind": p.get("kind"), "extractor": p.get("extractor"), "confidence": p.get("confidence")},
    )


def _source(g: Graph, p: Props) -> NodeDetail:
    nid = p["id"]
    prm = {"id": nid}
    label = source_label(p)
    kind = p.get("kind") or "source"
    frags = g.read(
        "MATCH (:Source {id: $id})-[:HAS_FRAGMENT]->(f:Fragment) RETURN f.start AS start, f.end AS end, "
        "f.text AS text ORDER BY start",
        prm,
        name="detail.fragments",
    )
    text = p.get("text") or ""
    spans = [_span(nid, text, f["start"], f["end"], f["text"]) for f in frags]
    return NodeDetail(
        nid,
        "source",
        kind,
        label,
        p.get("title") or label,
        source_status(p.get("quarantined")),
        p.get("rev"),
        p.get("url"),
        evidence=SourceText(nid, kind, label, p.get("url"), text, spans),
        rested_on_by=(
            _links(g, "(n:Source {id: $id})-[:HAS_FRAGMENT]->(:Fragment)<-[:EVIDENCED_BY]-(m:Claim)", prm, "SUPPORTS")
            + _links(g, "(n:Source {id: $id})<-[:DERIVED_FROM]-(m:Decision)", prm, "SUPPORTS", "derived from it")
            + _links(
                g,
                "(n:Source {id: $id})-[:HAS_FRAGMENT]->(:Fragment)<-[:EVIDENCED_BY]-(:Alternative)"
                "-[:REJECTED_FOR]->(m:Decision)",
                prm,
                "REJECTED",
                "an alternative it rejected",
            )
        ),
        related=(
            _links(g, "(n:Source {id: $id})-[:SUPERSEDES]->(m:Source)", prm, "SUPERSEDES", "supersedes")
            + _links(g, "(n:Source {id: $id})<-[:SUPERSEDES]-(m:Source)", prm, "SUPERSEDES", "superseded by")
            + _about(g, "Source", nid)
        ),
        who_to_ask=who_to_ask(g, [nid]) or ([Expert(p["by"], "wrote this correction")] if p.get("by") else []),
        files=_files(g, [nid], []),
        commits=_commits(g, [nid]),
        facts={
            k: p.get(k) for k in ("author", "state", "created_at", "merged_at", "status", "by") if p.get(k) is not None
        },
    )


def _action(g: Graph, p: Props) -> NodeDetail:
    nid = p["id"]
    rests_on = _links(g, "(n:Action {id: $id})-[:IMPLEMENTS]->(m:Decision)", {"id": nid}, "IMPLEMENTS")
    rows = g.read(
        "UNWIND $ids AS did MATCH (:Decision {id: did})-[:DERIVED_FROM]->(s:Source) RETURN DISTINCT s.id AS id",
        {"ids": [x.id for x in rests_on]},
        name="detail.decision_sources",
    )
    return NodeDetail(
        nid,
        "action",
        "action",
        p.get("summary") or nid,
        p.get("summary") or "",
        action_status(p.get("status")),
        p.get("rev"),
        None,
        rests_on=rests_on,
        related=_about(g, "Action", nid),
        who_to_ask=who_to_ask(g, [r["id"] for r in rows]),
        files=_files(g, [], [nid]),
        facts={"executed": bool(p.get("executed")), "stored status": p.get("status")},
    )


def _correction(g: Graph, p: Props) -> NodeDetail:
    nid = p["id"]
    rests_on: list[Link] = []
    evidence = None
    if p.get("source_id"):
        rests_on = _links(g, "(m:Source {id: $sid})", {"sid": p["source_id"]}, "SUPPORTS", "the reviewer's words")
        src = g.read(_Q_SOURCE, {"id": p["source_id"]}, name="detail.source")
        if src:
            text = src[0]["text"] or ""
            evidence = SourceText(
                src[0]["id"],
                src[0]["kind"] or "",
                source_label(src[0]),
                src[0]["url"],
                text,
                [_span(src[0]["id"], text, 0, len(text), text)],
            )
    return NodeDetail(
        nid,
        "correction",
        p.get("kind") or "correction",
        correction_label(p.get("kind"), p.get("by")),
        p.get("reason") or p.get("statement") or "",
        correction_status(p.get("state")),
        p.get("rev"),
        None,
        evidence=evidence,
        rests_on=rests_on,
        rested_on_by=_links(g, "(n:Correction {id: $id})-[:ABOUT]->(m)", {"id": nid}, "CORRECTS"),
        who_to_ask=[Expert(p["by"], "made this correction")] if p.get("by") else [],
        facts={
            k: p.get(k)
            for k in ("kind", "by", "reason", "state", "created_at", "target_id", "replacement_id")
            if p.get(k) is not None
        },
    )


# --- shared walks ------------------------------------------------------------------------------------------------
def _links(g: Graph, pattern: str, params: ParamsIn, relation: str, note: str = "") -> list[Link]:
    # pattern is a literal from this module binding the neighbour as ``m``; values only come in as parameters
    rows = g.read(f"MATCH {pattern} RETURN DISTINCT {_SHOW} ORDER BY id", params, name=f"detail.{relation.lower()}")
    return [_link(r, relation, note) for r in rows]


def _link(r: Row, relation: str, note: str) -> Link:
    labels = set(r["labels"] or [])
    if "Decision" in labels:
        return Link(
            r["id"],
            "decision",
            r["summary"] or r["id"],
            decision_status(r["status"], r["holds"], r["label"], int(r["newer"] or 0)),
            relation,
            note,
        )
    if "Claim" in labels:
        return Link(r["id"], "claim", r["statement"] or r["id"], claim_status(r["status"], r["holds"]), relation, note)
    if "Action" in labels:
        return Link(r["id"], "action", r["summary"] or r["id"], action_status(r["status"]), relation, note)
    if "Correction" in labels:
        return Link(
            r["id"],
            "correction",
            f"{correction_label(r['kind'], r['by'])}: {r['reason'] or ''}".rstrip(": "),
            correction_status(r["state"]),
            relation,
            note,
        )
    if "Incident" in labels:
        return Link(r["id"], "incident", r["reason"] or "source quarantined", "quarantined", relation, note)
    return Link(r["id"], "source", source_label(r), source_status(r["quarantined"]), relation, note)


def _justifications(g: Graph, label: str, nid: str) -> list[Link]:
    rows = g.read(
        f"MATCH (n:{label} {{id: $id}})<-[:JUSTIFIES]-(j:Justification)-[:PREMISE]->(m:Claim) "
        f"RETURN DISTINCT {_SHOW}, j.holds AS jholds ORDER BY id",
        {"id": nid},
        name="detail.justifications",
    )
    return [
        _link(r, "JUSTIFIES", "" if r["jholds"] is not False else "its justification no longer holds") for r in rows
    ]


def _about(g: Graph, label: str, nid: str) -> list[Link]:
    return _links(g, f"(n:{label} {{id: $id}})<-[:ABOUT]-(m:Correction)", {"id": nid}, "CORRECTS") + _links(
        g, f"(n:{label} {{id: $id}})<-[:ABOUT]-(m:Incident)", {"id": nid}, "INCIDENT"
    )


def _quoted(g: Graph, p: Props) -> SourceText | None:
    sid = p.get("source_id")
    if not sid:
        return None
    rows = g.read(_Q_SOURCE, {"id": sid}, name="detail.source")
    if not rows:
        return None
    s = rows[0]
    text = s["text"] or ""
    spans = [_span(sid, text, p.get("start"), p.get("end"), p.get("quote") or "")] if p.get("start") is not None else []
    return SourceText(sid, s["kind"] or "", source_label(s), s["url"], text, spans)


def _span(sid: str, text: str, start: Any, end: Any, quote: str) -> QuoteSpan:
    s, e = int(start or 0), int(end or 0)
    return QuoteSpan(s, e, quote, is_verbatim(text, Span(sid, s, e, quote)))


def _alternatives(g: Graph, did: str) -> list[RejectedAlternative]:
    rows = g.read(
        "MATCH (a:Alternative)-[:REJECTED_FOR]->(:Decision {id: $id}) OPTIONAL MATCH (s:Source {id: a.source_id}) "
        "RETURN a.text AS text, a.quote AS quote, a.source_id AS sid, a.start AS start, a.end AS end, s.url AS url, "
        "s.text AS stext ORDER BY sid, start",
        {"id": did},
        name="detail.alternatives",
    )
    return [
        RejectedAlternative(
            r["text"] or r["quote"] or "",
            r["quote"] or "",
            r["sid"],
            r["url"],
            _span(r["sid"], r["stext"] or "", r["start"], r["end"], r["quote"] or "").verified,
        )
        for r in rows
    ]


def _files(g: Graph, source_ids: list[str], action_ids: list[str]) -> list[str]:
    rows = g.read(
        "UNWIND $sids AS sid MATCH (:Source {id: sid})-[:TOUCHES]->(f:File) RETURN DISTINCT f.path AS path "
        "UNION UNWIND $aids AS aid MATCH (:Action {id: aid})-[:CHANGES]->(f:File) RETURN DISTINCT f.path AS path",
        {"sids": source_ids, "aids": action_ids},
        name="detail.files",
    )
    return sorted(r["path"] for r in rows if r["path"])[:MAX_FILES]


def _commits(g: Graph, source_ids: list[str]) -> list[str]:
    rows = g.read(
        "UNWIND $ids AS sid MATCH (c:Commit)-[:PART_OF]->(:Source {id: sid}) RETURN DISTINCT c.id AS id",
        {"ids": source_ids},
        name="detail.commits",
    )
    return sorted({r["id"] for r in rows} | {s for s in source_ids if s.startswith("commit:")})


def who_to_ask(g: Graph, source_ids: list[str], decision_id: str | None = None) -> list[Expert]:
    """Whom to ask about these sources (a decision's: ``decision_id``), by the guard's one ranking
    (``guard.experts``, rules H1–H4) over the files the sources touched, each with why they are named. For a
    decision this is ``experts.for_decisions``, the same call the Guard's findings use."""
    if not source_ids and decision_id is None:
        return []
    days = g.store.settings.inactive_days
    ranked: list[experts.Expert]
    if decision_id is not None:
        ranked = list(experts.for_decisions(g, [decision_id], days)[decision_id].experts)
    else:
        files = _touched(g, source_ids)
        pagerank, betweenness = experts.centrality(g)
        people = experts.People(experts.editors(g, files), pagerank, betweenness, experts.latest_activity(g))
        ranked, _ = experts.ranked(people, files, experts.source_voices(g, source_ids), days)
    if not ranked:
        return []
    wrote, comments, seen = _involvement(g, source_ids)
    out = []
    for e in ranked:
        why = []
        if e.login in wrote:
            why.append(f"wrote {', '.join(wrote[e.login])}")
        if e.login in comments:
            why.append(f"commented {comments[e.login]}× in the discussion")
        if e.edits:
            why.append(f"edited these files ({e.edits} edits)")
        out.append(Expert(e.login, "; ".join(why) or "named in the discussion", e.last_active or seen.get(e.login)))
    return out


def _touched(g: Graph, source_ids: list[str]) -> list[str]:
    rows = g.read(
        "UNWIND $ids AS sid MATCH (:Source {id: sid})-[:TOUCHES]->(f:File) RETURN DISTINCT f.path AS path",
        {"ids": source_ids},
        name="detail.who.files",
    )
    return sorted(r["path"] for r in rows if r["path"])


def _involvement(g: Graph, source_ids: list[str]) -> tuple[dict[str, list[str]], dict[str, int], dict[str, str]]:
    """Who wrote which of these sources, who commented how often, and when each was last active: the reasons."""
    human = "coalesce(p.is_bot, false) = false"
    # each walk starts from the sources (index lookups) and only then fans out: the planner would otherwise
    # start from every Person, which costs half a second on a 20k-PR graph
    authors = g.read(
        f"UNWIND $ids AS sid MATCH (s:Source {{id: sid}}) WITH s MATCH (s)<-[:AUTHORED]-(p:Person) WHERE {human} "
        "RETURN p.login AS login, p.last_active AS last_active, s.id AS id, s.kind AS kind, s.number AS number, "
        "s.title AS title, s.path AS path ORDER BY login, id",
        {"ids": source_ids},
        name="detail.who.authors",
    )
    reviewers = g.read(
        f"UNWIND $ids AS sid MATCH (s:Source {{id: sid}}) WITH s MATCH (s)<-[:ON]-(c:Comment)<-[:AUTHORED]-(p:Person) "
        f"WHERE {human} RETURN p.login AS login, p.last_active AS last_active, count(c) AS n ORDER BY n DESC, login",
        {"ids": source_ids},
        name="detail.who.reviewers",
    )
    wrote: dict[str, list[str]] = {}
    seen: dict[str, str] = {}
    for r in authors:
        wrote.setdefault(r["login"], []).append(source_label(r))
        if r["last_active"]:
            seen[r["login"]] = r["last_active"]
    comments: dict[str, int] = {}
    for r in reviewers:
        comments[r["login"]] = comments.get(r["login"], 0) + int(r["n"] or 0)
        if r["last_active"]:
            seen[r["login"]] = r["last_active"]
    return wrote, comments, seen


# --- blast radius ------------------------------------------------------------------------------------------------
def blast_radius(store: Store, repo: str, node_id: str) -> BlastRadius:
    """Everything downstream of a source or claim through PREMISE/JUSTIFIES, plus the actions implementing it."""
    graph = _graph(store, repo)
    kind, _ = find_node(graph, node_id)
    if kind not in ("source", "claim"):
        raise InvalidInput(f"blast radius is for a source or a claim; {node_id!r} is a {kind}")
    seeds = seeds_of_source(graph, node_id) if kind == "source" else [node_id]
    claims, decisions = downstream(graph, seeds)
    rows = graph.read(
        "UNWIND $ids AS did MATCH (a:Action)-[:IMPLEMENTS]->(:Decision {id: did}) RETURN DISTINCT a.id AS id",
        {"ids": sorted(decisions)},
        name="detail.blast.actions",
    )
    return BlastRadius(node_id, seeds, sorted(claims), sorted(decisions), sorted(r["id"] for r in rows))

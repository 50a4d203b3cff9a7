"""Human labels for node ids: every id a person sees comes with its title, its source's name and a link.

``short_label(id)`` needs no graph (PR #12, Issue #3, Claim in Issue #19, Decision from PR #12);
``labels(graph, ids)`` reads titles and links for many ids at once, one indexed lookup per label.
Pages, the CLI and the guard review all call these, so an id reads the same everywhere. No Streamlit here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..db import Graph

_PREFIX_TYPE = {
    "decision": "decision",
    "claim": "claim",
    "action": "action",
    "corr": "correction",
    "inc": "incident",
    "file": "file",
    "person": "person",
    "alt": "alternative",
    "sym": "symbol",
}
_SOURCE_PREFIXES = ("pr", "issue", "comment", "review", "doc", "commit", "src")
_COMMENT = re.compile(r"^(review|comment):(pr|issue):(\d+):")
_CLAIMED = re.compile(r"^(?:claim|alt):(.+):\d+:\d+$")
TITLE_LIMIT = 90


@dataclass(frozen=True)
class NodeLabel:
    """What a person reads instead of an id: ``title`` (the node's own words), ``where`` (its source) and a link."""

    id: str
    type: str  # decision | claim | source | action | correction | incident | file | person | alternative | symbol
    title: str
    where: str  # the source's short name (PR #12, Issue #3, an ADR's title), or ""
    url: str | None = None

    def text(self, limit: int = TITLE_LIMIT) -> str:
        """'PR #12 · Keep unknown cost as None' — one line, shortened to ``limit`` characters of title."""
        title = shorten(self.title, limit)
        if not self.where or self.where == title:
            return title or self.id
        return f"{self.where} · {title}" if title else self.where


def node_type(node_id: str) -> str:
    prefix = node_id.split(":", 1)[0]
    if prefix in _SOURCE_PREFIXES:
        return "source"
    return _PREFIX_TYPE.get(prefix, "other")


def source_of(node_id: str) -> str | None:
    """The source id a decision, claim, alternative or action id is built on (``decision:pr:12`` → ``pr:12``)."""
    prefix, _, rest = node_id.partition(":")
    if prefix in ("decision", "action"):
        return rest or None
    if prefix in ("claim", "alt"):
        m = _CLAIMED.match(node_id)
        return m.group(1) if m else None
    return node_id if prefix in _SOURCE_PREFIXES else None


def source_name(source_id: str) -> str:
    """PR #12, Issue #3, Review on #12, Comment on #3, the ADR file's name, Commit 1a2b3c4, Correction text."""
    prefix, _, rest = source_id.partition(":")
    if prefix in ("pr", "issue") and rest.isdigit():
        return f"{'PR' if prefix == 'pr' else 'Issue'} #{rest}"
    m = _COMMENT.match(source_id)
    if m:
        return f"{'Review' if m.group(1) == 'review' else 'Comment'} on #{m.group(3)}"
    if prefix == "doc":
        return rest.rsplit("/", 1)[-1]
    if prefix == "commit":
        return f"Commit {rest[:7]}"
    if prefix == "src":
        return "Correction text"
    return source_id


def short_label(node_id: str) -> str:
    """A label from the id alone, for when the graph is not at hand."""
    kind = node_type(node_id)
    src = source_of(node_id)
    if kind == "source":
        return source_name(node_id)
    if kind == "decision" and src:
        return f"Decision from {source_name(src)}"
    if kind == "claim" and src:
        return f"Claim in {source_name(src)}"
    if kind == "action" and src:
        return f"Change in {source_name(src)}"
    if kind == "alternative" and src:
        return f"Alternative in {source_name(src)}"
    if kind == "file":
        return node_id.split(":", 1)[1]
    if kind == "person":
        return "@" + node_id.split(":", 1)[1]
    if kind == "correction":
        return "Correction"
    if kind == "incident":
        return "Quarantine incident"
    return node_id


def shorten(text: str | None, limit: int = TITLE_LIMIT) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_Q_OWN = {
    "decision": "UNWIND $ids AS x MATCH (n:Decision {id: x}) RETURN n.id AS id, n.summary AS title",
    "claim": "UNWIND $ids AS x MATCH (n:Claim {id: x}) RETURN n.id AS id, n.statement AS title",
    "action": "UNWIND $ids AS x MATCH (n:Action {id: x}) RETURN n.id AS id, n.summary AS title",
    "alternative": "UNWIND $ids AS x MATCH (n:Alternative {id: x}) RETURN n.id AS id, n.text AS title",
    "correction": (
        "UNWIND $ids AS x MATCH (n:Correction {id: x}) RETURN n.id AS id, "
        "coalesce(n.kind, 'correction') + ' correction by ' + coalesce(n.by, '?') + "
        "coalesce(': ' + n.reason, '') AS title"
    ),
    "incident": (
        "UNWIND $ids AS x MATCH (n:Incident {id: x}) RETURN n.id AS id, "
        "'quarantine of ' + coalesce(n.source_id, '?') + coalesce(': ' + n.reason, '') AS title"
    ),
}
_Q_SOURCES = (
    "UNWIND $ids AS x MATCH (s:Source {id: x}) RETURN s.id AS id, s.kind AS kind, s.title AS title, "
    "s.url AS url, s.path AS path, substring(coalesce(s.text, ''), 0, 120) AS text"
)


def labels(graph: Graph, ids: Iterable[str]) -> dict[str, NodeLabel]:
    """Labels for ``ids`` (unknown ids get their id-only label); one query per node type present."""
    wanted = list(dict.fromkeys(i for i in ids if i))
    by_type: dict[str, list[str]] = {}
    for i in wanted:
        by_type.setdefault(node_type(i), []).append(i)
    own: dict[str, str] = {}
    for kind, q in _Q_OWN.items():
        if by_type.get(kind):
            own.update(
                {r["id"]: r["title"] or "" for r in graph.read(q, {"ids": by_type[kind]}, name=f"labels.{kind}")}
            )
    source_ids = sorted({s for i in wanted if (s := source_of(i))})
    sources = (
        {r["id"]: r for r in graph.read(_Q_SOURCES, {"ids": source_ids}, name="labels.sources")} if source_ids else {}
    )
    out: dict[str, NodeLabel] = {}
    for i in wanted:
        kind = node_type(i)
        sid = source_of(i)
        src = sources.get(sid or "")
        where = _where(sid, src) if sid else ""
        url = src["url"] if src and str(src.get("url") or "").startswith(("http://", "https://")) else None
        if kind == "source":
            title = (src or {}).get("title") or (src or {}).get("text") or ""
            out[i] = NodeLabel(i, kind, shorten(title, 200), where or source_name(i), url)
        elif kind in ("file", "person", "symbol", "other"):
            out[i] = NodeLabel(i, kind, short_label(i), "", None)
        else:
            out[i] = NodeLabel(i, kind, own.get(i) or short_label(i), where, url)
    return out


def _where(sid: str, src: dict | None) -> str:  # type: ignore[type-arg]
    if src and src.get("kind") == "doc" and src.get("title"):
        return shorten(src["title"], 60)
    return source_name(sid)

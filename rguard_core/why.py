"""'Why' answers with receipts: fulltext search over decisions and claims, answered with verbatim quotes.

The whole question is tried first; when it finds nothing, its content words (stop words dropped) are
searched with OR. Every hit is retrieved with its source text and shown only if its quote is still
exactly at its stored offsets; a claim that does not hold, or anything from a quarantined source, is
withheld. An optional LLM synthesis may cite only ids this request both searched and retrieved
(allowed = searched ∩ retrieved, enforced here); if no citation survives, there is no synthesis.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from .db import Graph, Store
from .errors import InvalidInput, UnknownRepository
from .evidence import Span, is_verbatim
from .llm import LLMClient
from .views import claim_status, decision_status, source_label

MAX_QUESTION = 500
MAX_DECISIONS = 8
SEARCH_K = 25
MAX_BECAUSE = 3
NO_ANSWER = "no source-backed answer yet"
REFUSAL = ("I don't grade or review code; I answer why this repository's recorded decisions were made, with "
           "quotes and links (for example “why do we keep unknown prices as null?”), and the Guard page checks a "
           "diff against earlier decisions.")

STOP_WORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
him his how i if in into is it its itself just me more most my myself no nor not now of off on once only or
other our ours out over own same she should so some such than that the their theirs them then there these they
this those through to too under until up very was we were what when where which while who whom why will with
would you your yours ever still
""".split())
_TOKEN = re.compile(r"[^\W_]+")  # letters and digits only: nothing RediSearch could read as syntax
_GRADE = re.compile(
    r"\b(?:grade|score|rate|review|critique|assess|evaluate|audit|judge)\s+(?:(?:my|this|the|our|that|these)\s+)?"
    r"(?:code|diff|pr|pull\s+request|patch|commit|function|implementation|changes?|file)\b", re.I)
_QUALITY = re.compile(r"\b(?:is|are)\s+(?:my|this|the|our)\s+(?:code|diff|pr|patch|implementation|changes?)\s+"
                      r"(?:good|ok|okay|correct|fine|bad|clean|right|any\s+good)\b", re.I)
_SCORE = re.compile(r"\bwhat\s+(?:grade|score|rating|mark)\b|\bout\s+of\s+(?:10|ten|100)\b", re.I)
_ID_LIKE = re.compile(r"\b(?:decision|claim|pr|issue|doc|comment|review|commit|src):[^\s,;)\]\"'`]+")


@dataclass(frozen=True)
class Receipt:
    """A verbatim quote and where it is: the evidence behind an answer."""

    id: str
    type: str  # decision | claim
    text: str  # summary or statement
    quote: str
    source_id: str
    source: str  # a readable source name: PR #10, Issue #3, ...
    url: str | None
    status: str
    start: int
    end: int


@dataclass
class WhyDecision:
    receipt: Receipt
    score: float
    because: list[Receipt] = field(default_factory=list)  # holding claims that matched and justify it


@dataclass
class WhyAnswer:
    repo: str
    question: str
    kind: str  # answer | none | refusal
    message: str
    mode: str = ""  # sentence | words: which search found the hits
    query: str = ""  # the fulltext query that was run last
    decisions: list[WhyDecision] = field(default_factory=list)
    withheld: int = 0  # hits not shown: claim does not hold, source quarantined, or quote no longer verbatim
    synthesis: str | None = None
    cited: list[str] = field(default_factory=list)
    rejected_citations: list[str] = field(default_factory=list)
    allowed: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def tokens(question: str) -> list[str]:
    """The question's words, with every character RediSearch could parse as syntax removed."""
    return _TOKEN.findall(question)


def content_words(words: list[str]) -> list[str]:
    """Words that carry meaning: stop words and single letters dropped, duplicates removed, order kept."""
    out = [w for w in words if w.lower() not in STOP_WORDS and len(w) > 1]
    return list(dict.fromkeys(w.lower() for w in out))


def is_review_request(question: str) -> bool:
    """True when the question asks to grade or review code rather than why something was decided."""
    if re.match(r"\s*why\b", question, re.I):
        return False
    return bool(_GRADE.search(question) or _QUALITY.search(question) or _SCORE.search(question))


def why(store: Store, repo: str, question: str, llm: LLMClient | None = None, limit: int = MAX_DECISIONS) -> WhyAnswer:
    """Answer 'why …?' from the repository's decisions and claims, with quotes and links."""
    q = " ".join((question or "").split())
    if not q:
        raise InvalidInput("ask a question, for example: why do we keep unknown prices as null?")
    if len(q) > MAX_QUESTION:
        raise InvalidInput(f"the question is {len(q)} characters; keep it under {MAX_QUESTION}")
    if is_review_request(q):
        return WhyAnswer(repo, q, "refusal", REFUSAL)
    graph = store.repo_graph(repo)
    if not graph.exists():
        raise UnknownRepository(repo)
    ans = WhyAnswer(repo, q, "none", NO_ANSWER)
    hits = _search(graph, tokens(q), ans)
    searched = set(hits) | {d for h in hits.values() for d in h.decisions}
    _retrieve(graph, hits, ans, limit)
    retrieved = {d.receipt.id for d in ans.decisions} | {c.id for d in ans.decisions for c in d.because}
    allowed = searched & retrieved
    ans.allowed = sorted(allowed)
    if ans.decisions:
        ans.kind, ans.message = "answer", f"{len(ans.decisions)} decision(s) with their quotes"
        if llm is not None:
            _synthesise(llm, ans, allowed)
    return ans


@dataclass
class _Hit:
    type: str
    rank_score: float
    decisions: list[str] = field(default_factory=list)  # for a claim: the decisions it justifies


def _fulltext(graph: Graph, label: str, query: str) -> list[str]:
    # label is one of two literals; the query text is a parameter made only of letters, digits, spaces and '|'
    rows = graph.read(f"CALL db.idx.fulltext.queryNodes('{label}', $q) YIELD node, score "
                      "RETURN node.id AS id ORDER BY score DESC, id LIMIT $k", {"q": query, "k": SEARCH_K},
                      name=f"why.fulltext.{label.lower()}")
    return [r["id"] for r in rows]


def _search(graph: Graph, words: list[str], ans: WhyAnswer) -> dict[str, _Hit]:
    """Fulltext hits (id → hit), whole sentence first, then content words OR'ed."""
    attempts = [("sentence", " ".join(words))] if words else []
    cw = content_words(words)
    if cw:
        attempts.append(("words", "|".join(cw)))
    for mode, query in attempts:
        ans.mode, ans.query = mode, query
        decisions, claims = _fulltext(graph, "Decision", query), _fulltext(graph, "Claim", query)
        if decisions or claims:
            hits = {d: _Hit("decision", 1 / (i + 1)) for i, d in enumerate(decisions)}
            for i, c in enumerate(claims):
                hits[c] = _Hit("claim", 1 / (i + 1))
            _claim_decisions(graph, hits)
            return hits
    return {}


def _claim_decisions(graph: Graph, hits: dict[str, _Hit]) -> None:
    claims = [h for h, v in hits.items() if v.type == "claim"]
    rows = graph.read("UNWIND $ids AS cid MATCH (:Claim {id: cid})<-[:PREMISE]-(:Justification)-[:JUSTIFIES]->"
                      "(d:Decision) RETURN cid, collect(DISTINCT d.id) AS ds", {"ids": claims}, name="why.claim_decisions")
    for r in rows:
        hits[r["cid"]].decisions = sorted(r["ds"])


_Q_RETRIEVE = (
    "UNWIND $ids AS xid MATCH (x:{label} {{id: xid}}) OPTIONAL MATCH (s:Source {{id: x.source_id}}) "
    "OPTIONAL MATCH (nd:Decision)-[:SUPERSEDES]->(x) "
    "RETURN x.id AS id, x.summary AS summary, x.statement AS statement, x.quote AS quote, x.start AS start, "
    "x.end AS end, x.status AS status, x.holds AS holds, x.label AS label, x.source_id AS source_id, "
    "s.text AS text, s.url AS url, s.kind AS kind, s.number AS number, s.title AS title, s.path AS path, "
    "s.by AS by, s.quarantined AS quarantined, count(nd) AS newer"
)


def _retrieve(graph: Graph, hits: dict[str, _Hit], ans: WhyAnswer, limit: int) -> None:
    """Fetch every hit with its source text; keep only verified quotes, holding claims, trusted sources."""
    score: dict[str, float] = {}
    for hid, h in hits.items():
        for did in ([hid] if h.type == "decision" else h.decisions):
            score[did] = score.get(did, 0.0) + h.rank_score
    claim_ids = [h for h, v in hits.items() if v.type == "claim"]
    claims = {r.id: r for r in _receipts(graph, "Claim", claim_ids, ans)}
    top = sorted(score, key=lambda d: (-score[d], d))
    decisions = {r.id: r for r in _receipts(graph, "Decision", top, ans)}
    # a decision that no longer holds (reverted, superseded, fallen) never comes before one that does
    top.sort(key=lambda d: d not in decisions or decisions[d].status != "holds")
    for did in top:
        if did not in decisions:
            continue
        own = decisions[did]
        because = [claims[c] for c in claim_ids if c in claims and did in hits[c].decisions
                   and claims[c].quote != own.quote][:MAX_BECAUSE]  # a claim repeating the decision adds nothing
        ans.decisions.append(WhyDecision(decisions[did], round(score[did], 4), because))
        if len(ans.decisions) >= limit:
            break


def _receipts(graph: Graph, label: str, ids: list[str], ans: WhyAnswer) -> list[Receipt]:
    if not ids:
        return []
    out = []
    for r in graph.read(_Q_RETRIEVE.format(label=label), {"ids": ids}, name=f"why.retrieve.{label.lower()}"):
        text, quote = r["text"] or "", r["quote"] or ""
        start, end = int(r["start"] or 0), int(r["end"] or 0)
        status = (decision_status(r["status"], r["holds"], r["label"], int(r["newer"] or 0)) if label == "Decision"
                  else claim_status(r["status"], r["holds"]))
        verified = bool(quote) and is_verbatim(text, Span(r["source_id"] or "", start, end, quote))
        if not verified or r["quarantined"] or (label == "Claim" and status != "holds"):
            ans.withheld += 1  # never show the text of a claim that does not hold or of an untrusted source
            continue
        out.append(Receipt(r["id"], label.lower(), r["summary"] or r["statement"] or quote, quote, r["source_id"],
                           source_label({**r, "id": r["source_id"]}), r["url"], status, start, end))
    return out


_SYSTEM = (
    "You explain why a software team made its decisions, using ONLY the receipts given (each has an id, a summary "
    "and a verbatim quote). Answer in at most three sentences. Reply with a JSON object: "
    '{"answer": "<text>", "cites": ["<receipt id>", ...]}. Cite only receipt ids from the list. '
    'If the receipts do not answer the question, reply {"answer": "", "cites": []}.'
)


def _validate(obj: Any) -> tuple[str, list[str]]:
    if not isinstance(obj, dict) or not isinstance(obj.get("answer"), str) or not isinstance(obj.get("cites"), list):
        raise ValueError('expected {"answer": str, "cites": [str, ...]}')
    if not all(isinstance(c, str) for c in obj["cites"]):
        raise ValueError("every cite must be a string id")
    return obj["answer"].strip(), list(dict.fromkeys(obj["cites"]))


def _synthesise(llm: LLMClient, ans: WhyAnswer, allowed: set[str]) -> None:
    lines = []
    for d in ans.decisions:
        lines.append(f"- id {d.receipt.id} (decision, {d.receipt.status}): {d.receipt.text} | quote: “{d.receipt.quote}”")
        lines += [f"  - id {c.id} (claim): “{c.quote}”" for c in d.because]
    text, cites = llm.complete_json(_SYSTEM, f"Question: {ans.question}\n\nReceipts:\n" + "\n".join(lines), _validate)
    ans.cited = [c for c in cites if c in allowed]
    ans.rejected_citations = [c for c in cites if c not in allowed]
    # an id named in the prose that was never retrieved taints the whole synthesis, not just the citation list
    stray = sorted({m for m in _ID_LIKE.findall(text) if m.rstrip(".") not in allowed})
    ans.rejected_citations += [s for s in stray if s not in ans.rejected_citations]
    if text and ans.cited and not stray:
        ans.synthesis = text
    else:
        ans.cited = []
        ans.message = f"{ans.message}; synthesis: {NO_ANSWER}"

"""'Why' answers with receipts: weighted full-text retrieval expanded through the graph, answered with verbatim quotes.

How a question finds its decision (each channel is a named rule with its weight in ``CHANNELS``):

- ``decision``: FalkorDB's full-text index over decision summaries and quotes;
- ``claim``: the index over claims (rationale sentences, problems, reasons) → the decisions they justify;
- ``source``: the weighted index over the sources' own words (title × 3, text × 1) → the decision a PR or ADR
  states, the decisions of the PRs that fix or cite an issue, the decision of the PR a comment is on;
- ``symbol`` / ``file``: identifiers (``max_age``) and files (``staticfiles``, ``sessions.py``) the question
  names → the decisions of the PRs whose changed lines use them or that touched them, weighed down by how
  many PRs share them.

Each channel's scores are scaled to its best hit, weighted and summed per decision. A decision whose PR was
later reverted, or that a newer decision supersedes, is multiplied by ``REPLACED_FACTOR`` and says what
replaced it. The "because" of an answer is a rationale claim that justifies the decision — a statement, never
the decision's own title or quote. Every hit is retrieved with its source text and shown only if its quote is
still exactly at its stored offsets; a claim that does not hold, or anything from a quarantined source, is
withheld. An optional LLM synthesis may cite only ids this request both searched and retrieved
(allowed = searched ∩ retrieved, enforced here); if no citation survives, there is no synthesis.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from ..db import Graph, Store
from ..errors import InvalidInput, UnknownRepository
from ..evidence import Span, is_verbatim
from ..graph_state import require_complete
from ..ingest.extract.sentences import Sentence, sentences
from ..ingest.extract.statements import is_statement
from ..jsontypes import JSONObject
from ..llm import LLMClient
from ..schema import ensure_source_fulltext
from .graph_view import claim_status, decision_status, source_label
from .labels import source_name

MAX_QUESTION = 500
MAX_DECISIONS = 8
SEARCH_K = 40
MAX_BECAUSE = 2
NO_ANSWER = "no source-backed answer yet"
REFUSAL = (
    "I don't grade or review code; I answer why this repository's recorded decisions were made, with "
    "quotes and links (for example “why do we keep unknown prices as null?”), and the Guard page checks a "
    "diff against earlier decisions."
)


@dataclass(frozen=True)
class Channel:
    """One way a question reaches decisions, with the weight its (best-scaled) score carries."""

    id: str
    weight: float
    why: str


CHANNELS = {
    c.id: c
    for c in (
        Channel("decision", 1.0, "the decision's own summary or quote uses the question's words"),
        Channel("claim", 0.7, "a claim justifying the decision uses the question's words"),
        Channel("source", 1.2, "the PR, issue, comment or ADR the decision comes from uses the question's words"),
        Channel("linked", 0.5, "an issue or comment linked to the decision's PR uses the question's words"),
        Channel("symbol", 0.6, "the decision's PR changed lines that use an identifier the question names"),
        Channel("file", 0.4, "the decision's PR touched a file the question names"),
    )
}
REPLACED_FACTOR = 0.45  # reverted or superseded: below what replaced it, still findable
PREFIX_MIN = 8  # words this long are also searched by prefix (compression ~ compress…), cut to PREFIX_KEEP letters
PREFIX_KEEP = 6

STOP_WORDS = frozenset(
    """
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
him his how i if in into is it its itself just me more most my myself no nor not now of off on once only or
other our ours out over own same she should so some such than that the their theirs them then there these they
this those through to too under until up very was we were what when where which while who whom why will with
would you your yours ever still don doesn didn isn aren wasn won anymore instead way get gets got like
""".split()
)
_TOKEN = re.compile(r"[^\W_]+(?:_+[^\W_]+)*")  # words; snake_case identifiers stay whole (never query syntax)
_GRADE = re.compile(
    r"\b(?:grade|score|rate|review|critique|assess|evaluate|audit|judge)\s+(?:(?:my|this|the|our|that|these)\s+)?"
    r"(?:code|diff|pr|pull\s+request|patch|commit|function|implementation|changes?|file)\b",
    re.I,
)
_QUALITY = re.compile(
    r"\b(?:is|are)\s+(?:my|this|the|our)\s+(?:code|diff|pr|patch|implementation|changes?)\s+"
    r"(?:good|ok|okay|correct|fine|bad|clean|right|any\s+good)\b",
    re.I,
)
_SCORE = re.compile(r"\bwhat\s+(?:grade|score|rating|mark)\b|\bout\s+of\s+(?:10|ten|100)\b", re.I)
_ID_LIKE = re.compile(r"\b(?:decision|claim|pr|issue|doc|comment|review|commit|src):[^\s,;)\]\"'`]+")
_REASON_CUE = re.compile(
    r"\b(because|since|so that|otherwise|to avoid|to prevent|which means|this means|would|"
    r"in order to|causes?|breaks?|leaks?|security|vulnerab|the reason|must|never|can't|cannot)\b",
    re.I,
)


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
    source_text: str = field(default="", repr=False, compare=False)  # for the context sentence; not serialised


@dataclass
class WhyDecision:
    receipt: Receipt
    score: float
    because: list[Receipt] = field(default_factory=list)  # holding rationale claims that justify it
    channels: list[str] = field(default_factory=list)  # which CHANNELS found it, strongest first
    replaced_by: list[str] = field(default_factory=list)  # readable: "reverted by PR #1681", "superseded by …"
    note: str = ""  # what to say when it has no stated reason, or was replaced
    context: Receipt | None = None  # no rationale claim: the source sentence nearest the question (not a claim)


@dataclass
class WhyAnswer:
    repo: str
    question: str
    kind: str  # answer | none | refusal
    message: str
    mode: str = ""  # words: the content words searched; none when the question had none
    query: str = ""  # the full-text query that was run
    decisions: list[WhyDecision] = field(default_factory=list)
    withheld: int = 0  # hits not shown: claim does not hold, source quarantined, or quote no longer verbatim
    synthesis: str | None = None
    cited: list[str] = field(default_factory=list)
    rejected_citations: list[str] = field(default_factory=list)
    allowed: list[str] = field(default_factory=list)

    def as_dict(self) -> JSONObject:
        out = asdict(self)
        for d in out["decisions"]:  # the sources' full texts stay out of the JSON answer
            for r in [d["receipt"], *d["because"], *([d["context"]] if d["context"] else [])]:
                r.pop("source_text", None)
        return out


def tokens(question: str) -> list[str]:
    """The question's words (snake_case kept whole), with every character RediSearch could parse as syntax removed."""
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


def fulltext_query(words: list[str]) -> str:
    """Content words OR'ed; long words also by prefix; snake_case identifiers also by their parts."""
    terms: list[str] = []
    for w in words:
        terms.append(w)
        if "_" in w:
            terms += [p for p in w.split("_") if len(p) > 1 and p not in STOP_WORDS]
        elif len(w) >= PREFIX_MIN and w.isalpha():
            terms.append(w[:PREFIX_KEEP] + "*")
    return "|".join(dict.fromkeys(terms))


def why(store: Store, repo: str, question: str, llm: LLMClient | None = None, limit: int = MAX_DECISIONS) -> WhyAnswer:
    """Answer 'why …?' from the repository's decisions, claims and sources, with quotes and links."""
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
    require_complete(graph)
    ans = WhyAnswer(repo, q, "none", NO_ANSWER)
    words = content_words(tokens(q))
    if not words:
        ans.mode = "none"
        return ans
    ensure_source_fulltext(graph)
    ans.mode, ans.query = "words", fulltext_query(words)
    found = _Search(graph, words, ans.query).run()
    _retrieve(graph, found, ans, limit)
    retrieved = {d.receipt.id for d in ans.decisions} | {c.id for d in ans.decisions for c in d.because}
    allowed = (set(found.scores) | found.claims_seen) & retrieved
    ans.allowed = sorted(allowed)
    if ans.decisions:
        ans.kind, ans.message = "answer", f"{len(ans.decisions)} decision(s) with their quotes"
        if llm is not None:
            _synthesise(llm, ans, allowed)
    return ans


# --- retrieval ---------------------------------------------------------------------------------------------------
@dataclass
class _Found:
    scores: dict[str, float] = field(default_factory=dict)  # decision id -> combined score
    channels: dict[str, dict[str, float]] = field(default_factory=dict)  # decision id -> channel -> contribution
    claim_hits: dict[str, float] = field(default_factory=dict)  # claim id -> best scaled score (for the "because")
    claims_seen: set[str] = field(default_factory=set)


class _Term:
    """What one question word reaches: per decision, the best weighted channel score (0..max weight)."""

    def __init__(self) -> None:
        self.best: dict[str, float] = {}
        self.via: dict[str, str] = {}

    def add(self, decision: str, channel: str, scaled: float) -> None:
        value = CHANNELS[channel].weight * scaled
        if value > self.best.get(decision, 0.0):
            self.best[decision], self.via[decision] = value, channel


_Q_CLAIM_DECISIONS = (
    "UNWIND $ids AS cid MATCH (:Claim {id: cid})<-[:PREMISE]-(:Justification)-[:JUSTIFIES]->"
    "(d:Decision) RETURN cid, collect(DISTINCT d.id) AS ds"
)
# a source's own decision, and the decisions its links reach: PRs fixing or citing an issue, the PR a comment is on
_Q_SOURCE_DECISIONS = (
    "UNWIND $ids AS sid MATCH (s:Source {id: sid}) "
    "RETURN sid, [(d:Decision)-[:DERIVED_FROM]->(s) | d.id] AS own, "
    "[(s)-[:ON]->(:Source)<-[:DERIVED_FROM]-(d:Decision) | d.id] + "
    "[(s)<-[:FIXES|REFERENCES]-(:Source)<-[:DERIVED_FROM]-(d:Decision) | d.id] + "
    "[(s)-[:ON]->(:Issue)<-[:FIXES|REFERENCES]-(:Source)<-[:DERIVED_FROM]-(d:Decision) | d.id] AS linked"
)
_Q_SYMBOLS = (
    "UNWIND $names AS nm MATCH (y:Symbol {name: nm})<-[:MENTIONS]-(p:Source)<-[:DERIVED_FROM]-(d:Decision) "
    "RETURN nm, collect(DISTINCT d.id) AS ds"
)
_Q_FILES = (
    "UNWIND $stems AS stem UNWIND [stem + '.py', stem + '.md', stem] AS name MATCH (f:File) "
    "WHERE f.path = name OR f.path ENDS WITH ('/' + name) "
    "MATCH (f)<-[:TOUCHES]-(p:Source)<-[:DERIVED_FROM]-(d:Decision) RETURN stem, collect(DISTINCT d.id) AS ds"
)


class _Search:
    """Per question word: the full-text postings of three indexes mapped to decisions through the graph, plus the
    identifiers and files it names; words are weighed by how few decisions they reach (IDF), so a decision that
    matches more of the question's rarer words ranks first."""

    def __init__(self, graph: Graph, words: list[str], query: str) -> None:
        self.g, self.words, self.query = graph, words, query
        self.found = _Found()
        self.terms: dict[str, _Term] = {w: _Term() for w in words}

    def run(self) -> _Found:
        hits: dict[str, dict[str, list[tuple[str, float]]]] = {}
        for w in self.words:
            q = fulltext_query([w])
            hits[w] = {label: self._fulltext(label, q) for label in ("Decision", "Claim", "Source")}
        self._map(hits)
        self._symbols()
        self._files()
        total = max(1, self._decision_count())
        for term in self.terms.values():
            if not term.best:
                continue
            idf = math.log(1 + total / len(term.best))
            for did, value in term.best.items():
                self.found.scores[did] = self.found.scores.get(did, 0.0) + idf * value
                per = self.found.channels.setdefault(did, {})
                per[term.via[did]] = per.get(term.via[did], 0.0) + idf * value
        return self.found

    def _fulltext(self, label: str, query: str) -> list[tuple[str, float]]:
        # label is one of three literals; the query is a parameter of letters, digits, '_', '|' and a trailing '*'
        rows = self.g.read(
            f"CALL db.idx.fulltext.queryNodes('{label}', $q) YIELD node, score "
            "RETURN node.id AS id, score ORDER BY score DESC, id LIMIT $k",
            {"q": query, "k": SEARCH_K},
            name=f"why.fulltext.{label.lower()}",
        )
        return _scaled([(r["id"], float(r["score"] or 0.0)) for r in rows])

    def _map(self, hits: dict[str, dict[str, list[tuple[str, float]]]]) -> None:
        claim_ids = sorted({c for h in hits.values() for c, _ in h["Claim"]})
        source_ids = sorted({s for h in hits.values() for s, _ in h["Source"]})
        claims = (
            {r["cid"]: r["ds"] for r in self.g.read(_Q_CLAIM_DECISIONS, {"ids": claim_ids}, name="why.claim_decisions")}
            if claim_ids
            else {}
        )
        sources = (
            {r["sid"]: r for r in self.g.read(_Q_SOURCE_DECISIONS, {"ids": source_ids}, name="why.source_decisions")}
            if source_ids
            else {}
        )
        self.found.claims_seen = set(claim_ids)
        for w, h in hits.items():
            term = self.terms[w]
            for did, s in h["Decision"]:
                term.add(did, "decision", s)
            for cid, s in h["Claim"]:
                self.found.claim_hits[cid] = self.found.claim_hits.get(cid, 0.0) + s
                for did in claims.get(cid, []):
                    term.add(did, "claim", s)
            for sid, s in h["Source"]:
                r = sources.get(sid)
                if r is None:
                    continue
                for did in set(r["own"]):
                    term.add(did, "source", s)
                for did in set(r["linked"]) - set(r["own"]):
                    term.add(did, "linked", s)

    def _decision_count(self) -> int:
        rows = self.g.read("MATCH (d:Decision) RETURN count(d) AS n", name="why.decision_count")
        return int(rows[0]["n"]) if rows else 0

    def _symbols(self) -> None:
        names = {w: w for w in self.words if "_" in w or (any(c.isdigit() for c in w) and any(c.isalpha() for c in w))}
        if not names:
            return
        for r in self.g.read(_Q_SYMBOLS, {"names": list(names)}, name="why.symbols"):
            for did in r["ds"]:
                self.terms[names[r["nm"]]].add(did, "symbol", 1.0)

    def _files(self) -> None:
        stems: dict[str, str] = {}
        for a, b in zip(self.words, self.words[1:], strict=False):
            if (a + b).isalnum():
                stems.setdefault(a + b, a)  # "static files" names staticfiles.py
        for w in self.words:
            if len(w) >= 4 and w.isalnum():
                stems.setdefault(w, w)
                stems.setdefault(w[:-1] if w.endswith("s") else w + "s", w)
        if not stems:
            return
        for r in self.g.read(_Q_FILES, {"stems": list(stems)}, name="why.files"):
            for did in r["ds"]:
                self.terms[stems[r["stem"]]].add(did, "file", 1.0)


def _scaled(rows: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """Scores divided by the best one (TF-IDF scores of different indexes are not comparable; ranks are)."""
    best = max((s for _, s in rows), default=0.0)
    return [(i, (s / best) if best > 0 else 1.0) for i, s in rows]


_Q_REPLACED = (
    "UNWIND $ids AS did MATCH (d:Decision {id: did}) "
    "OPTIONAL MATCH (d)-[:DERIVED_FROM]->(s:Source)<-[:REVERTS]-(r:Source) "
    "WHERE coalesce(r.merged_at, r.created_at, '') > coalesce(s.merged_at, s.created_at, '') "
    "RETURN d.id AS id, [(nd:Decision)-[:SUPERSEDES]->(d) | nd.id] AS superseded_by, "
    "collect(DISTINCT r.id) AS reverted_by"
)
_Q_RETRIEVE = (
    "UNWIND $ids AS xid MATCH (x:{label} {{id: xid}}) OPTIONAL MATCH (s:Source {{id: x.source_id}}) "
    "OPTIONAL MATCH (nd:Decision)-[:SUPERSEDES]->(x) "
    "RETURN x.id AS id, x.summary AS summary, x.statement AS statement, x.quote AS quote, x.start AS start, "
    "x.end AS end, x.status AS status, x.holds AS holds, x.label AS label, x.kind AS ckind, "
    "x.source_id AS source_id, s.text AS text, s.url AS url, s.kind AS kind, s.number AS number, s.title AS title, "
    "s.path AS path, s.by AS by, s.quarantined AS quarantined, count(nd) AS newer"
)
_Q_BECAUSE = (
    "UNWIND $ids AS did MATCH (c:Claim)<-[:PREMISE]-(:Justification)-[:JUSTIFIES]->(d:Decision {id: did}) "
    "RETURN d.id AS did, collect(DISTINCT c.id) AS cs"
)


def _retrieve(graph: Graph, found: _Found, ans: WhyAnswer, limit: int) -> None:
    """Rank, demote what was replaced, fetch every hit with its source text; keep only verified, holding, trusted."""
    scores = dict(found.scores)
    top = sorted(scores, key=lambda d: (-scores[d], d))[: limit * 3]
    replaced = {r["id"]: r for r in graph.read(_Q_REPLACED, {"ids": top}, name="why.replaced")} if top else {}
    notes: dict[str, list[str]] = {}
    for did in top:
        r = replaced.get(did)
        if not r:
            continue
        by = [f"superseded by {source_name(x.split(':', 1)[1])}" for x in r["superseded_by"]]
        by += [f"reverted by {source_name(x)}" for x in r["reverted_by"]]
        if by:
            notes[did] = sorted(set(by))
            scores[did] *= REPLACED_FACTOR
    top = sorted(top, key=lambda d: (-scores[d], d))
    decisions = {r.id: r for r in _receipts(graph, "Decision", top, ans)}
    # a decision that no longer holds (reverted, superseded, fallen) never comes before one that does
    top.sort(key=lambda d: d not in decisions or decisions[d].status != "holds")
    kept = [d for d in top if d in decisions][:limit]
    justifying = {r["did"]: r["cs"] for r in graph.read(_Q_BECAUSE, {"ids": kept}, name="why.because")} if kept else {}
    claim_ids = sorted({c for cs in justifying.values() for c in cs})
    found.claims_seen |= set(claim_ids)  # the graph walk searched them: they may be cited
    claims = {r.id: r for r in _receipts(graph, "Claim", claim_ids, ans)}
    for did in kept:
        own = decisions[did]
        because = _because(own, [claims[c] for c in justifying.get(did, []) if c in claims], found, ans.question)
        per = found.channels.get(did, {})
        d = WhyDecision(own, round(scores[did], 4), because, sorted(per, key=lambda c: -per[c]), notes.get(did, []))
        if not because:
            d.context = _context(own, ans.question)
        if d.replaced_by:
            d.note = "; ".join(d.replaced_by) + " — read what replaced it first."
        elif not because:
            d.note = "No reason was recorded as a claim for this decision" + (
                "; the sentence of its source nearest the question is shown as context." if d.context else "."
            )
        ans.decisions.append(d)


def _because(own: Receipt, claims: list[Receipt], found: _Found, question: str) -> list[Receipt]:
    """Rationale claims for a decision: statements, not its title or quote, best matching the question first."""
    words = set(content_words(tokens(question)))
    title_like = {_norm(own.text), _norm(own.quote)}
    out = []
    for c in claims:
        if _norm(c.quote) in title_like or _norm(c.text) in title_like or not is_statement(c.quote):
            continue
        overlap = len(words & set(content_words(tokens(c.quote))))
        reason = 1 if _REASON_CUE.search(c.quote) else 0
        out.append((found.claim_hits.get(c.id, 0.0) + overlap + reason, c))
    out.sort(key=lambda x: (-x[0], x[1].id))
    return [c for _, c in out[:MAX_BECAUSE]]


def _context(own: Receipt, question: str) -> Receipt | None:
    """The sentence of the decision's own source that shares most words with the question (not its quote, never
    the title), at its exact offsets; None when no sentence shares a word."""
    text = own.source_text
    words = set(content_words(tokens(question)))
    best: tuple[int, Sentence] | None = None
    for s in sentences(text):
        if s.text == own.quote or _norm(s.text) in {_norm(own.text), _norm(own.quote)} or not is_statement(s.text):
            continue
        overlap = len(words & set(content_words(tokens(s.text))))
        if overlap and (best is None or overlap > best[0]):
            best = (overlap, s)
    if best is None:
        return None
    s = best[1]
    return Receipt(
        f"{own.source_id}:{s.start}:{s.end}",
        "context",
        s.text,
        s.text,
        own.source_id,
        own.source,
        own.url,
        own.status,
        s.start,
        s.end,
    )


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _receipts(graph: Graph, label: str, ids: list[str], ans: WhyAnswer) -> list[Receipt]:
    if not ids:
        return []
    out = []
    for r in graph.read(_Q_RETRIEVE.format(label=label), {"ids": ids}, name=f"why.retrieve.{label.lower()}"):
        text, quote = r["text"] or "", r["quote"] or ""
        start, end = int(r["start"] or 0), int(r["end"] or 0)
        status = (
            decision_status(r["status"], r["holds"], r["label"], int(r["newer"] or 0))
            if label == "Decision"
            else claim_status(r["status"], r["holds"])
        )
        verified = bool(quote) and is_verbatim(text, Span(r["source_id"] or "", start, end, quote))
        if not verified or r["quarantined"] or (label == "Claim" and status != "holds"):
            ans.withheld += 1
            continue  # never show the text of a claim that does not hold or of an untrusted source
        out.append(
            Receipt(
                r["id"],
                label.lower(),
                r["summary"] or r["statement"] or quote,
                quote,
                r["source_id"],
                source_label({**r, "id": r["source_id"]}),
                r["url"],
                status,
                start,
                end,
                text if label == "Decision" else "",
            )
        )
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
        lines.append(
            f"- id {d.receipt.id} (decision, {d.receipt.status}): {d.receipt.text} | quote: “{d.receipt.quote}”"
        )
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

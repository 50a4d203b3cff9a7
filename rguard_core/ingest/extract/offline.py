"""The offline extractor: deterministic cue-word rules over sentences. Proposes quotes; never paraphrases them."""

from __future__ import annotations

import re

from .base import Candidate, Proposal, SourceDoc
from .sentences import Sentence, sentences
from .statements import is_statement

_DECISION = re.compile(
    r"\b(we (?:decided|chose|will|now|keep|use|agreed)|decided to|decision|this (?:pr|change|patch) (?:makes|changes|adds|switches|keeps|removes|ensures|uses)|"
    r"instead|from now on|always|never|must|no longer|by default|stays?|keeps?|switch(?:es|ed)? to|use[sd]? |"
    r"should (?:be|not|always|never)|only|is now|are now|make[sd]? )",
    re.I,
)
_ALTERNATIVE = re.compile(
    r"\b(instead of|rather than|considered|rejected|decided against|alternative|as opposed to|i'?d rather not|"
    r"we (?:won'?t|will not|don'?t want to)|not going to|over using|ruled out|discarded|was proposed|option [a-z0-9])",
    re.I,
)
_REASON = re.compile(
    r"\b(because|since|so that|otherwise|to avoid|to prevent|which means|this means|would (?:break|cause|lead|leak|allow)|"
    r"security|vulnerab|leak|race|unsafe|breaks?|broken|regression|expensive|slow|memory|under-?bill|over-?bill|"
    r"the reason|in order to|causes?|fails?|error|bug|incorrect|wrong)",
    re.I,
)
_PROBLEM = re.compile(
    r"\b(when|fails?|error|bug|crash|wrong|incorrect|should|expected|instead|doesn'?t|does not|can'?t|cannot|unable|missing|leak|issue|problem)",
    re.I,
)


class OfflineExtractor:
    """Cue-word extraction: the decision sentence of a PR/ADR/commit, rejected alternatives, reasons, problems."""

    name = "offline"

    def extract(self, doc: SourceDoc) -> Proposal:
        sents = sentences(doc.text)
        if doc.role == "decision":
            return self._decision_source(doc, sents)
        return Proposal(alternatives=_alternatives(sents), claims=self._claims(doc, sents))

    def _decision_source(self, doc: SourceDoc, sents: list[Sentence]) -> Proposal:
        if doc.kind == "doc":
            return _adr(doc, sents)
        alt_sents = [s for s in sents if s.start >= len(doc.title)]
        alts = _alternatives(alt_sents)
        # a sentence that names an alternative is not picked as the decision (nor as its rationale)
        alt_texts = {s.text for s in [x for x in alt_sents if _ALTERNATIVE.search(x.text)][:MAX_ALTERNATIVES]}
        body = [s for s in sents if s.start >= len(doc.title)]
        scored = [(_decision_score(s.text), -i, s) for i, s in enumerate(body) if s.text not in alt_texts]
        scored = [x for x in scored if x[0] > 0]
        title = doc.title.strip()
        decision: Candidate | None
        claims = [
            Candidate(s.text, s.text, "rationale")
            for s in body
            if _REASON.search(s.text) and s.text not in alt_texts and is_statement(s.text)
        ]
        if scored and (max(scored)[0] >= 4 or not title):
            best = max(scored)[2]
            decision = Candidate(quote=best.text, summary=title or best.text)
            cues = list(dict.fromkeys(m.group(0).strip().lower() for m in _DECISION.finditer(best.text)))[:3]
            why = "cue words: " + ", ".join(cues)
        elif title and doc.text.startswith(title):
            decision = Candidate(quote=title, summary=title)
            why = f"{doc.kind} title with rationale" if claims else f"{doc.kind} title (no stated rationale)"
        else:
            first = body[0] if body else (sents[0] if sents else None)
            decision = Candidate(quote=first.text, summary=title or first.text) if first else None
            why = "first sentence"
        if decision and title and decision.quote != title and doc.text.startswith(title):
            claims.insert(0, Candidate(title, title, "rationale"))
        if not claims and decision:
            claims = [Candidate(decision.quote, decision.summary, "rationale")]
        return Proposal(decision=decision, alternatives=alts, claims=claims[:6], why=why)

    def _claims(self, doc: SourceDoc, sents: list[Sentence]) -> list[Candidate]:
        out: list[Candidate] = []
        sents = [s for s in sents if is_statement(s.text)]  # chatter, greetings and questions are not claims
        if doc.kind == "issue":
            title = doc.title.strip()
            if title and doc.text.startswith(title):
                out.append(Candidate(title, title, "problem"))
            body = [s for s in sents if s.start >= len(title)]
            picked = [s for s in body if _PROBLEM.search(s.text) or _REASON.search(s.text)][:3] or body[:1]
            out += [Candidate(s.text, s.text, "problem") for s in picked]
        else:
            out += [Candidate(s.text, s.text, "reason") for s in sents if _REASON.search(s.text)][:4]
        return out


def _decision_score(text: str) -> int:
    hits = len(_DECISION.findall(text))
    return hits * 2 + (1 if _REASON.search(text) else 0) if hits else 0


# "X instead of Y" states X, the change's own choice, and rejects Y: the alternative is the clause from the cue on
# (starlette #3307, "returns the full representation instead of treating the range as unsatisfiable", listed its
# own fix as rejected). "Instead of Y, X" rejects what comes before the comma. Still a verbatim substring.
MAX_ALTERNATIVES = 4  # per source
_CONTRAST = re.compile(r"\b(?:instead of|rather than|as opposed to|over using)\b", re.I)
_CLAUSE_END = re.compile(r";|\s[-\u2014]\s|,\s*(?:because|since|so|which|as|but)\b")
ALT_CLAUSE_MIN = 12  # characters: a shorter clause ("instead of it") says too little on its own


def _alternative(text: str) -> str:
    """The part of a sentence that names what was rejected: the contrast clause, else the whole sentence."""
    m = _CONTRAST.search(text)
    if m is None:
        return text
    if m.start() == 0:
        comma = text.find(",", m.end())
        clause = text[:comma] if comma > 0 else text
    else:
        end = _CLAUSE_END.search(text, m.end())
        clause = text[m.start() : end.start() if end else len(text)].rstrip(" .")
    return clause if len(clause) >= ALT_CLAUSE_MIN else text


def _alternatives(sents: list[Sentence]) -> list[Candidate]:
    out = [_alternative(s.text) for s in sents if _ALTERNATIVE.search(s.text)][:MAX_ALTERNATIVES]
    return [Candidate(x, x) for x in out]


def _adr(doc: SourceDoc, sents: list[Sentence]) -> Proposal:
    def section(*names: str) -> list[Sentence]:
        return [s for s in sents if any(n in s.section for n in names)]

    decided = section("decision")
    context = section("context", "problem", "motivation")
    options = section("alternative", "option", "considered", "rejected")
    title = doc.title.strip()
    first = decided[0] if decided else (sents[0] if sents else None)
    decision = Candidate(first.text, title or first.text) if first else None
    claims = [Candidate(s.text, s.text, "problem") for s in context[:4]]
    if not claims and decision:
        claims = [Candidate(decision.quote, decision.summary, "rationale")]
    alts = [Candidate(s.text, s.text) for s in options[:5]]
    why = "ADR: its Decision section" if decided else "ADR: its first sentence"
    return Proposal(decision=decision, alternatives=alts, claims=claims, why=why)

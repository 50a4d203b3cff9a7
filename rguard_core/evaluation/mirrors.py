"""Undeclared mirrors: find sources whose text is a near-duplicate of a known-bad source, and link them.

A source's text is cut into fragments (sentences and lines). Each fragment's fingerprint is the set of
hashed word 3-shingles (lower-cased words and numbers; punctuation, case and spacing do not count).
A fragment of B *near-duplicates* A when at least ``FRAGMENT_MIN`` of its shingles occur in A's text.
B mirrors A when at least ``SOURCE_MIN`` of B's fragments near-duplicate A, or at least that share of A's
fragments near-duplicate B (a copy padded with its own text). Quoting one sentence of A is not enough.
A detected mirror is linked to its original with an inferred ``DERIVED_FROM`` edge, so it and the original
are one lineage: quarantining the original's lineage then quarantines the mirror too.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass

from ..db import Graph

SHINGLE = 3
FRAGMENT_MIN = 0.5
SOURCE_MIN = 0.5
_WORD = re.compile(r"[a-z0-9]+")
_FRAGMENT_SPLIT = re.compile(r"(?<=[.!?;])\s+|\n+")


@dataclass(frozen=True)
class MirrorMatch:
    mirror: str
    original: str
    similarity: float  # share of fragments that near-duplicate the other source (the larger direction)
    fragments: int  # how many of the mirror's fragments near-duplicate the original


def fragments(text: str) -> list[str]:
    """Sentence- or line-sized pieces of a text with at least one full shingle."""
    return [
        f for f in (p.strip() for p in _FRAGMENT_SPLIT.split(text or "")) if len(_WORD.findall(f.lower())) >= SHINGLE
    ]


def shingles(text: str) -> set[int]:
    """Hashed word k-shingles (CRC32: stable across processes, unlike ``hash``)."""
    words = _WORD.findall((text or "").lower())
    return {zlib.crc32(" ".join(words[i : i + SHINGLE]).encode()) for i in range(len(words) - SHINGLE + 1)}


def _near_dups(frags: list[str], other: set[int]) -> int:
    n = 0
    for f in frags:
        sh = shingles(f)
        if sh and len(sh & other) / len(sh) >= FRAGMENT_MIN:
            n += 1
    return n


def find_mirrors(
    texts: dict[str, str], originals: Iterable[str], declared: dict[str, set[str]] | None = None
) -> list[MirrorMatch]:
    """Sources in ``texts`` that mirror one of ``originals`` and do not already declare it as a parent."""
    declared = declared or {}
    originals = [o for o in dict.fromkeys(originals) if o in texts]
    frags = {sid: fragments(t) for sid, t in texts.items()}
    whole = {sid: shingles(t) for sid, t in texts.items()}
    out: list[MirrorMatch] = []
    for orig in originals:
        for sid in sorted(texts):
            if sid in originals or orig in declared.get(sid, set()) or not frags[sid] or not frags[orig]:
                continue
            forward = _near_dups(frags[sid], whole[orig])
            backward = _near_dups(frags[orig], whole[sid])
            sim = max(forward / len(frags[sid]), backward / len(frags[orig]))
            if sim >= SOURCE_MIN:
                out.append(MirrorMatch(sid, orig, round(sim, 4), forward))
    return out


SOURCES_Q = """
MATCH (s:Source)
RETURN s.id AS id, s.text AS text, [(s)-[:DERIVED_FROM]->(p:Source) | p.id] AS parents
ORDER BY id
"""
LINK_Q = """
UNWIND $pairs AS x
MATCH (m:Source {id: x.mirror}), (o:Source {id: x.original})
MERGE (m)-[r:DERIVED_FROM]->(o)
SET r.inferred = 'near-duplicate', r.similarity = x.similarity
RETURN count(r) AS n
"""
LINEAGE_Q = """
MATCH (m:Source)-[:DERIVED_FROM*1..20]->(s:Source)
WHERE s.id IN $ids
RETURN DISTINCT m.id AS id ORDER BY id
"""


def detect_mirrors(graph: Graph, originals: Iterable[str]) -> list[MirrorMatch]:
    """Read every source's text from the graph and return the undeclared mirrors of ``originals``."""
    texts: dict[str, str] = {}
    declared: dict[str, set[str]] = {}
    for r in graph.paged(SOURCES_Q, name="eval.mirrors.sources"):
        texts[r["id"]] = r.get("text") or ""
        declared[r["id"]] = set(r.get("parents") or [])
    return find_mirrors(texts, originals, declared)


def link_mirrors(graph: Graph, matches: list[MirrorMatch]) -> int:
    """Record each mirror as derived from its original (an inferred lineage edge); returns edges written."""
    if not matches:
        return 0
    pairs = [{"mirror": m.mirror, "original": m.original, "similarity": m.similarity} for m in matches]
    rows = graph.query(LINK_Q, {"pairs": pairs}, name="eval.mirrors.link")
    return int(rows[0]["n"]) if rows else 0


def lineage_of(graph: Graph, source_ids: Iterable[str]) -> list[str]:
    """The given sources plus every source that derives from one of them (declared or inferred)."""
    ids = sorted(set(source_ids))
    rows = graph.read(LINEAGE_Q, {"ids": ids}, name="eval.mirrors.lineage")
    return ids + [r["id"] for r in rows if r["id"] not in ids]

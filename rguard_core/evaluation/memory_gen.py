"""Seeded generator of layered evidence graphs for the memory benchmark (a scenario dict per seed).

Shape of one instance (base variant): 12 sources, 3 of them compromised; about 36 observations
(3 verbatim quotes per source), 18 first-layer and 16 second-layer derived claims, 20 decisions.
Justifications are AND over 1–3 premises; a claim or decision with several justifications holds by
OR. Premises are shared between justifications, a few justifications close cycles between the two
derived layers, and each decision has executed and pending actions. Two honest "decoy" sources
repeat one sentence of a compromised source, and two honest sources declare ``derived_from`` another
honest one, so lineage and near-duplicate detection have something to get wrong.

Hidden-mirror variant: each compromised source gets an undeclared near-identical copy (a mirror: the
same sentences with small edits, another title, no ``derived_from``). Half of the *alternative
proofs* (a second or later justification that rescues a conclusion whose first proof rests on a
compromised source) are rewired to rest on an observation quoted from a mirror instead. The systems
are told only about the original compromised sources; the oracle knows the mirrors are compromised too.
Everything is a pure function of (seed, variant).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .scenario_doc import (
    ScenarioAction,
    ScenarioClaim,
    ScenarioDecision,
    ScenarioDoc,
    ScenarioJustification,
    ScenarioSource,
)

VARIANTS = ("base", "hidden-mirror")
N_SOURCES, N_COMPROMISED, OBS_PER_SOURCE, SENTENCES = 12, 3, 3, 7
N_L1, N_L2, N_DECISIONS, N_CYCLES, N_CORROBORATED = 18, 16, 20, 4, 4

VENDORS = [
    "Globex",
    "Initech",
    "Umbrella",
    "Hooli",
    "Stark",
    "Wayne",
    "Acme",
    "Vandelay",
    "Tyrell",
    "Cyberdyne",
    "Soylent",
    "Wonka",
    "Gringotts",
    "Oscorp",
    "Massive",
    "Dunder",
    "Pied Piper",
    "Aperture",
    "Monarch",
    "Nakatomi",
]
TOPICS = [
    "bank account",
    "invoice total",
    "delivery date",
    "unit price",
    "payment terms",
    "shipping address",
    "contract renewal",
    "tax number",
    "credit limit",
    "warranty period",
    "discount rate",
    "customs code",
]
VERBS = [
    "confirmed",
    "reported",
    "changed",
    "approved",
    "disputed",
    "updated",
    "verified",
    "recorded",
    "flagged",
    "requested",
    "cancelled",
    "amended",
]
KINDS = ["email", "record", "agent_report", "web_page", "ledger", "ticket"]
# Edits a mirror makes to a copied sentence: near-identical text that no exact-match check would link.
SYNONYMS = {
    "confirmed": "verified",
    "verified": "confirmed",
    "changed": "updated",
    "updated": "changed",
    "reported": "stated",
    "approved": "accepted",
    "recorded": "logged",
    "requested": "asked for",
    "the": "the",
    "new": "fresh",
    "was": "is",
    "of": "for",
}


@dataclass(frozen=True)
class MemoryInstance:
    """One benchmark input: the scenario every system is fed, what they are told, and the hidden truth."""

    seed: int
    variant: str
    scenario: ScenarioDoc
    reported: tuple[str, ...]  # compromised sources the systems are told about
    truly_bad: tuple[str, ...]  # reported + hidden mirrors: what the oracle quarantines
    mirrors: dict[str, str] = field(default_factory=dict)  # mirror source -> the original it copies (hidden)
    decoys: tuple[str, ...] = ()  # honest sources that repeat one sentence of a compromised source
    mirror_proofs: int = 0  # alternative proofs rewired to rest on a mirror
    alternative_proofs: int = 0  # rescuing alternative proofs before rewiring


def generate(seed: int, variant: str = "base") -> MemoryInstance:
    """The instance for ``seed``: retries inside the same random stream until every metric is defined."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; choose one of: {', '.join(VARIANTS)}")
    rng = random.Random(f"rguard-memory-bench:{seed}")
    for _ in range(100):
        inst = _build(rng, seed, variant)
        if _well_formed(inst):
            return inst
    raise RuntimeError(f"seed {seed}: could not generate an instance where every metric is defined")


def _well_formed(inst: MemoryInstance) -> bool:
    from .memory_oracle import judge  # the oracle is the definition of "poisoned" and "fell"

    truth = judge(inst.scenario, set(inst.truly_bad))
    every = {c["id"] for c in inst.scenario["claims"]} | {d["id"] for d in inst.scenario["decisions"]}
    enough = truth.poisoned and truth.valid and truth.fell_decisions and truth.before == every
    return bool(enough) and (inst.variant == "base" or inst.mirror_proofs > 0)


def _build(rng: random.Random, seed: int, variant: str) -> MemoryInstance:
    b = _Builder(rng)
    sources = [f"s{i:02d}" for i in range(1, N_SOURCES + 1)]
    compromised = sorted(rng.sample(sources, N_COMPROMISED))
    honest = [s for s in sources if s not in compromised]
    for sid in sources:
        b.add_source(sid)
    decoys = tuple(sorted(rng.sample(honest, 2)))
    for d in decoys:  # an honest source quoting one sentence of a compromised one
        b.copy_sentence(d, rng.choice(compromised))
    derived = rng.sample([s for s in honest if s not in decoys], 4)
    for child, parent in zip(derived[:2], derived[2:], strict=True):
        b.sources[child]["derived_from"] = [parent]
    obs = [b.observe(sid, k) for sid in sources for k in rng.sample(range(SENTENCES), OBS_PER_SOURCE)]
    b.corroborate(obs, N_CORROBORATED)
    l1 = b.layer("l1", N_L1, lambda: b.premises(obs, [], 1, 2))
    l2 = b.layer("l2", N_L2, lambda: b.premises(obs, l1, 1, 3))
    b.close_cycles(l1, l2, N_CYCLES)
    b.decisions(obs, l1, l2)
    scenario = b.scenario()
    inst = MemoryInstance(seed, variant, scenario, tuple(compromised), tuple(compromised), decoys=decoys)
    if variant == "hidden-mirror":
        inst = _hide_mirrors(rng, inst, b)
    return inst


class _Builder:
    """Accumulates sources, claims, justifications, decisions and actions as scenario JSON."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.sources: dict[str, ScenarioSource] = {}
        self.sentences: dict[str, list[str]] = {}
        self.claims: list[ScenarioClaim] = []
        self.justs: list[ScenarioJustification] = []
        self.decs: list[ScenarioDecision] = []
        self.actions: list[ScenarioAction] = []

    def add_source(self, sid: str) -> None:
        vendor = self.rng.choice(VENDORS)
        self.sentences[sid] = [_sentence(self.rng) for _ in range(SENTENCES)]
        self.sources[sid] = {
            "id": sid,
            "kind": self.rng.choice(KINDS),
            "title": f"{vendor} {self.rng.choice(TOPICS)} note",
            "text": "",
        }
        self._render(sid)

    def _render(self, sid: str) -> None:
        self.sources[sid]["text"] = " ".join(self.sentences[sid])

    def copy_sentence(self, into: str, origin: str) -> None:
        self.sentences[into][self.rng.randrange(SENTENCES)] = self.rng.choice(self.sentences[origin])
        self._render(into)

    def observe(self, sid: str, k: int, cid: str | None = None) -> str:
        cid = cid or f"{sid}-o{k}"
        quote = self.sentences[sid][k]
        self.claims.append({"id": cid, "statement": f"Memo {cid}: {quote}", "source": sid, "quote": quote})
        return cid

    def corroborate(self, obs: list[str], n: int) -> None:
        """Give some observations a second footing: a justification from observations of other sources."""
        source = {c["id"]: c["source"] for c in self.claims if c.get("source")}
        for cid in self.rng.sample(obs, n):
            others = [o for o in obs if source[o] != source[cid]]
            prem = list(dict.fromkeys(self.rng.choice(others) for _ in range(self.rng.randint(1, 2))))
            self.justs.append({"id": f"j-{cid}-corroborated-{len(self.justs)}", "conclusion": cid, "premises": prem})

    def premises(self, low: list[str], mid: list[str], lo: int, hi: int) -> list[str]:
        pool = low + mid * 2  # prefer the layer just below, so paths get long
        n = self.rng.randint(lo, hi)
        return list(dict.fromkeys(self.rng.choice(pool) for _ in range(n)))

    def layer(self, prefix: str, n: int, pick: Callable[[], list[str]]) -> list[str]:
        ids = []
        for i in range(n):
            cid = f"{prefix}-{i:02d}"
            self.claims.append({"id": cid, "statement": f"Memo {cid}: derived finding {i} of layer {prefix}."})
            for _ in range(1 + (self.rng.random() < 0.45)):
                self.justs.append({"id": f"j-{cid}-{len(self.justs)}", "conclusion": cid, "premises": pick()})
            ids.append(cid)
        return ids

    def close_cycles(self, l1: list[str], l2: list[str], n: int) -> None:
        """Justify some l1 claims by l2 claims that already rest on them: cycles the fixed point must not trust."""
        uses = [(j["conclusion"], p) for j in self.justs if j["conclusion"] in l2 for p in j["premises"] if p in l1]
        for upper, lower in self.rng.sample(uses, min(n, len(uses))):
            self.justs.append({"id": f"j-{lower}-cycle-{len(self.justs)}", "conclusion": lower, "premises": [upper]})

    def decisions(self, obs: list[str], l1: list[str], l2: list[str]) -> None:
        for i in range(N_DECISIONS):
            did = f"d{i:02d}"
            self.decs.append({"id": did, "summary": f"Decision {i}: act on the findings behind {did}."})
            for _ in range(self.rng.choices([1, 2, 3], [0.45, 0.4, 0.15])[0]):
                pool = l1 + l2 + (obs if self.rng.random() < 0.2 else [])
                prem = list(dict.fromkeys(self.rng.choice(pool) for _ in range(self.rng.randint(1, 2))))
                self.justs.append({"id": f"j-{did}-{len(self.justs)}", "conclusion": did, "premises": prem})
            for a in range(1 + (self.rng.random() < 0.2) if self.rng.random() < 0.85 else 0):
                self.actions.append(
                    {
                        "id": f"a-{did}-{a}",
                        "summary": f"Carry out {did} (step {a})",
                        "decision": did,
                        "executed": self.rng.random() < 0.5,
                    }
                )

    def scenario(self) -> ScenarioDoc:
        return {
            "sources": [s.copy() for s in self.sources.values()],
            "claims": [c.copy() for c in self.claims],
            "justifications": [{**j, "premises": list(j["premises"])} for j in self.justs],
            "decisions": [d.copy() for d in self.decs],
            "actions": [a.copy() for a in self.actions],
        }


def _sentence(rng: random.Random) -> str:
    vendor, topic, verb = rng.choice(VENDORS), rng.choice(TOPICS), rng.choice(VERBS)
    n = rng.randint(1000, 9999)
    value = rng.choice(
        [
            f"EUR {rng.randint(1, 99)},{rng.randint(100, 999)}",
            f"{rng.choice([14, 30, 45, 60, 90])} days",
            f"DE{rng.randint(10, 99)}-{rng.randint(1000, 9999)}-{rng.randint(1000, 9999)}",
            f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        ]
    )
    date = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    return rng.choice(
        [
            f"{vendor} {verb} the {topic} for order {n} to {value} on {date}.",
            f"On {date} {vendor} {verb} that the {topic} of account {n} is {value}.",
            f"The {topic} that {vendor} {verb} for shipment {n} was {value}.",
            f"{vendor} {verb} a new {topic} of {value} under contract {n}.",
        ]
    )


def mirror_sentence(rng: random.Random, sentence: str) -> str:
    """A near-identical copy: a few words swapped for synonyms, case or punctuation changed."""
    words = sentence.split(" ")
    out: list[str] = []
    for w in words:
        r = rng.random()
        if r < 0.04 and len(out) > 1:
            continue  # a dropped word
        if r < 0.16 and w in SYNONYMS:
            w = SYNONYMS[w]
        elif r < 0.22:
            w = w.upper() if w.islower() else w.lower()
        out.append(w)
    text = " ".join(out)
    text = re.sub(r"\.$", ";" if rng.random() < 0.5 else ".", text)
    return text if text != sentence else text.replace(" ", "  ", 1)


def _hide_mirrors(rng: random.Random, inst: MemoryInstance, b: _Builder) -> MemoryInstance:
    from .memory_oracle import judge, sources_behind

    mirrors: dict[str, str] = {}
    for i, orig in enumerate(inst.reported):
        mid = f"s{N_SOURCES + 1 + i:02d}"
        b.sentences[mid] = [mirror_sentence(rng, s) for s in b.sentences[orig]]
        if rng.random() < 0.5:  # a forwarding header of its own
            b.sentences[mid].insert(0, f"Forwarded by {rng.choice(VENDORS)} operations, see below.")
        b.sources[mid] = {
            "id": mid,
            "kind": rng.choice(KINDS),
            "title": f"{rng.choice(VENDORS)} forwarded copy",
            "text": "",
        }
        b._render(mid)
        mirrors[mid] = orig
    sc = b.scenario()
    told = judge(sc, set(inst.reported))
    first: dict[str, str] = {}
    for j in sc["justifications"]:
        first.setdefault(j["conclusion"], j["id"])
    # A rescue is an alternative proof that still holds once the originals are quarantined.
    rescues = [
        j
        for j in sc["justifications"]
        if first[j["conclusion"]] != j["id"]
        and first[j["conclusion"]] not in told.after_justs
        and j["id"] in told.after_justs
    ]
    chosen = rng.sample(rescues, (len(rescues) + 1) // 2) if rescues else []
    by_id = {j["id"]: j for j in b.justs}
    just_of = {j["id"]: j for j in sc["justifications"]}
    for j in chosen:
        behind = sources_behind(sc, just_of[first[j["conclusion"]]]["premises"])
        mid = rng.choice(sorted(m for m, o in mirrors.items() if o in behind) or sorted(mirrors))
        k = rng.randrange(SENTENCES)
        cid = f"{mid}-o{k}"
        if not any(c["id"] == cid for c in b.claims):
            b.observe(mid, k, cid)
        by_id[j["id"]]["premises"] = [cid]
    return MemoryInstance(
        inst.seed,
        inst.variant,
        b.scenario(),
        inst.reported,
        tuple(sorted([*inst.reported, *mirrors])),
        mirrors,
        inst.decoys,
        len(chosen),
        len(rescues),
    )

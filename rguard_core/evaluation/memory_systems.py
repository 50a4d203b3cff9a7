"""The systems the memory benchmark compares, all fed the same scenario and told the same bad sources.

Every system first widens the reported sources to their declared lineage (sources that declare
``derived_from`` a reported one): that metadata is in every system's input.
- plain: memory with source attribution. It withdraws exactly the claims attributed to a bad source
  (its observations) and keeps serving everything else; it has no notion of support, so every
  decision stays standing and none is labelled.
- delete-cascade: deletes everything downstream of a bad source: each claim or decision with a
  justification that has a deleted premise (any path, alternative support ignored). A deleted decision
  is labelled ``compensation`` if one of its actions was executed, else ``correction``.
- rguard: the real memory engine on the real FalkorDB: ``load_scenario`` into a fresh workspace graph,
  ``quarantine_source`` per bad source (one step each), then ``status`` for decisions and labels and
  ``retrieve`` for the claims it still returns. With ``detect_mirrors`` it first links undeclared
  near-duplicate copies of the reported sources as their lineage (see mirrors.py).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from ..db import Store
from .memory_gen import MemoryInstance
from .mirrors import MirrorMatch, detect_mirrors, lineage_of, link_mirrors
from .scenario_doc import ScenarioDoc

SYSTEMS = ("plain", "delete-cascade", "rguard")
RETRIEVE_WORD = "memo"  # every generated claim statement starts with it, so one query can list all served claims


@dataclass(frozen=True)
class SystemOutcome:
    """What a system serves and believes after being told about the bad sources."""

    system: str
    served: set[str]  # claims it still returns
    standing: set[str]  # decisions it still treats as standing
    labels: dict[str, str | None]
    quarantined: list[str] = field(default_factory=list)
    mirrors: list[MirrorMatch] = field(default_factory=list)


def _declared_lineage(scenario: ScenarioDoc, reported: tuple[str, ...]) -> set[str]:
    parents = {s["id"]: set(s.get("derived_from") or []) for s in scenario["sources"]}
    bad = set(reported)
    grew = True
    while grew:
        new = {s for s, ps in parents.items() if ps & bad} - bad
        bad |= new
        grew = bool(new)
    return bad


def run_plain(inst: MemoryInstance) -> SystemOutcome:
    sc = inst.scenario
    bad = _declared_lineage(sc, inst.reported)
    served = {c["id"] for c in sc["claims"] if c.get("source") not in bad}
    return SystemOutcome(
        "plain", served, {d["id"] for d in sc["decisions"]}, {d["id"]: None for d in sc["decisions"]}, sorted(bad)
    )


def run_delete_cascade(inst: MemoryInstance) -> SystemOutcome:
    sc = inst.scenario
    bad = _declared_lineage(sc, inst.reported)
    deleted = {c["id"] for c in sc["claims"] if c.get("source") in bad}
    grew = True
    while grew:
        new = {j["conclusion"] for j in sc["justifications"] if set(j["premises"]) & deleted} - deleted
        deleted |= new
        grew = bool(new)
    executed = {a["decision"] for a in sc["actions"] if a.get("executed")}
    labels = {
        d["id"]: (("compensation" if d["id"] in executed else "correction") if d["id"] in deleted else None)
        for d in sc["decisions"]
    }
    return SystemOutcome(
        "delete-cascade",
        {c["id"] for c in sc["claims"]} - deleted,
        {d["id"] for d in sc["decisions"]} - deleted,
        labels,
        sorted(bad),
    )


def run_rguard(store: Store, inst: MemoryInstance, *, detect: bool = False, keep: bool = False) -> SystemOutcome:
    """Run the instance through the real engine in a throwaway workspace graph (deleted afterwards)."""
    from ..memory import load_scenario, quarantine_source, retrieve, status

    ws = f"eval-{inst.variant}-{inst.seed}-{uuid.uuid4().hex[:8]}"
    load_scenario(store, {**inst.scenario, "workspace": ws})
    graph = store.workspace_graph(ws)
    try:
        matches = detect_mirrors(graph, inst.reported) if detect else []
        link_mirrors(graph, matches)
        bad = lineage_of(graph, inst.reported)
        for sid in bad:
            quarantine_source(graph, sid, reason="memory benchmark: reported compromised", by="eval")
        st = status(graph)
        found = retrieve(graph, RETRIEVE_WORD, limit=len(inst.scenario["claims"]) + 10)
        served = {h["id"] for h in found.results if h["kind"] == "claim"}
        standing = {d for d, v in st["decisions"].items() if v["holds"]}
        labels = {d: v["label"] for d, v in st["decisions"].items()}
        return SystemOutcome("rguard+mirrors" if detect else "rguard", served, standing, labels, bad, matches)
    finally:
        if not keep:
            graph.delete()

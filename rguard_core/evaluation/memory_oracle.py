"""The benchmark's oracle: plain set logic over a scenario dict, sharing no code with rguard_core.memory.

- An observation (a claim with ``source`` and ``quote``) holds while its source is not bad.
- A justification holds when it has premises and all of them hold; a claim or decision holds when it is
  a holding observation or any justification of it holds. Holding sets grow by repeated sweeps from the
  observations until nothing changes (the least fixed point: a cycle never supports itself).
- Quarantining all bad sources, a decision that held before: ``compensation`` if it no longer holds and
  one of its actions was executed, ``correction`` if it no longer holds otherwise, ``review`` if it still
  holds but the observations reachable from it through justifications whose premises all held (before)
  include one from a bad source, else no label. (Quarantining the bad sources one at a time with labels
  that only move up gives the same final labels, so one step is enough here.)
- poisoned = claims that held before and not after; valid = claims that hold after; fell = decisions
  that held before and not after.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .scenario_doc import ScenarioDoc


@dataclass(frozen=True)
class Truth:
    before: frozenset[str]  # claims and decisions holding with nothing quarantined
    after: frozenset[str]  # ... with every bad source quarantined
    after_justs: frozenset[str]  # justifications holding after
    poisoned: frozenset[str]
    valid: frozenset[str]
    fell_decisions: frozenset[str]
    labels: dict[str, str | None]


def holding(scenario: ScenarioDoc, bad: Iterable[str]) -> tuple[set[str], set[str]]:
    """(claims and decisions that hold, justifications that hold) with the ``bad`` sources quarantined."""
    bad = set(bad)
    nodes = {c["id"] for c in scenario["claims"] if c.get("source") and c.get("quote") and c["source"] not in bad}
    justs: set[str] = set()
    changed = True
    while changed:
        changed = False
        for j in scenario["justifications"]:
            if j["id"] not in justs and j["premises"] and all(p in nodes for p in j["premises"]):
                justs.add(j["id"])
                if j["conclusion"] not in nodes:
                    nodes.add(j["conclusion"])
                changed = True
    return nodes, justs


def sources_behind(scenario: ScenarioDoc, start: Iterable[str], bad: Iterable[str] = ()) -> set[str]:
    """Sources of the holding observations reachable from ``start`` through holding justifications."""
    nodes, justs = holding(scenario, bad)
    source = {c["id"]: c["source"] for c in scenario["claims"] if c.get("source") and c.get("quote")}
    bad = set(bad)
    seen: set[str] = set()
    todo = [n for n in start if n in nodes]
    found: set[str] = set()
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        if n in source and source[n] not in bad:
            found.add(source[n])
        for j in scenario["justifications"]:
            if j["conclusion"] == n and j["id"] in justs:
                todo += j["premises"]
    return found


def judge(scenario: ScenarioDoc, bad: Iterable[str]) -> Truth:
    """What should happen when every source in ``bad`` is quarantined."""
    bad = set(bad)
    before, _ = holding(scenario, set())
    after, after_justs = holding(scenario, bad)
    claims = {c["id"] for c in scenario["claims"]}
    decisions = [d["id"] for d in scenario["decisions"]]
    executed = {a["decision"] for a in scenario["actions"] if a.get("executed")}
    labels: dict[str, str | None] = {}
    for d in decisions:
        if d not in before:
            labels[d] = None
        elif d not in after:
            labels[d] = "compensation" if d in executed else "correction"
        else:
            labels[d] = "review" if sources_behind(scenario, [d]) & bad else None
    return Truth(
        before=frozenset(before),
        after=frozenset(after),
        after_justs=frozenset(after_justs),
        poisoned=frozenset((before - after) & claims),
        valid=frozenset(after & claims),
        fell_decisions=frozenset(d for d in decisions if d in before and d not in after),
        labels=labels,
    )

"""The memory benchmark's scenario document: what memory_gen generates and every system is fed.

It is the JSON of ``memory load FILE.json`` (memory/scenario.py validates it when RGuard loads it), so it stays a
dict with these keys; the oracle and the baselines read it as such.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict


class ScenarioSource(TypedDict):
    id: str
    kind: str
    title: str
    text: str
    derived_from: NotRequired[list[str]]


class ScenarioClaim(TypedDict):
    id: str
    statement: str
    source: NotRequired[str]  # an observation quotes its source; a derived claim has neither
    quote: NotRequired[str]


class ScenarioJustification(TypedDict):
    id: str
    conclusion: str
    premises: list[str]


class ScenarioDecision(TypedDict):
    id: str
    summary: str


class ScenarioAction(TypedDict):
    id: str
    summary: str
    decision: str
    executed: bool


class ScenarioDoc(TypedDict):
    sources: list[ScenarioSource]
    claims: list[ScenarioClaim]
    justifications: list[ScenarioJustification]
    decisions: list[ScenarioDecision]
    actions: list[ScenarioAction]

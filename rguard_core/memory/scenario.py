"""Memory scenario files: parse and validate completely before anything is written.

A quote that is not verbatim, a dangling id, a duplicate id, a lineage cycle or a malformed field fails the
load with a ScenarioError naming it. Ids share one namespace across sources, claims, justifications,
decisions and actions, so a conclusion or premise id is never ambiguous.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ScenarioError
from ..evidence import RejectedQuote, Span, anchor
from ..files import read_regular
from ..jsontypes import JSONObject


@dataclass(frozen=True)
class SourceSpec:
    id: str
    kind: str
    title: str
    text: str
    url: str | None = None
    derived_from: tuple[str, ...] = ()


@dataclass(frozen=True)
class ClaimSpec:
    id: str
    statement: str
    span: Span | None = None  # set for observations: the verbatim quote with offsets

    @property
    def source_id(self) -> str | None:
        return self.span.source_id if self.span else None


@dataclass(frozen=True)
class JustificationSpec:
    id: str
    conclusion: str
    premises: tuple[str, ...]


@dataclass(frozen=True)
class DecisionSpec:
    id: str
    summary: str


@dataclass(frozen=True)
class ActionSpec:
    id: str
    summary: str
    decision: str
    executed: bool


@dataclass
class Scenario:
    workspace: str | None
    sources: list[SourceSpec] = field(default_factory=list)
    claims: list[ClaimSpec] = field(default_factory=list)
    justifications: list[JustificationSpec] = field(default_factory=list)
    decisions: list[DecisionSpec] = field(default_factory=list)
    actions: list[ActionSpec] = field(default_factory=list)


def read_scenario_file(path: str | Path) -> Scenario:
    """Read and validate a scenario JSON file."""
    p = Path(path)
    try:
        raw = json.loads(read_regular(p, "scenario file").decode("utf-8"))
    except FileNotFoundError:
        raise ScenarioError(f"scenario file not found: {p}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(f"cannot read scenario file {p}: {e}") from None
    except json.JSONDecodeError as e:
        raise ScenarioError(f"scenario file {p} is not valid JSON: {e}") from None
    return parse_scenario(raw)


def parse_scenario(raw: Any) -> Scenario:
    """Validate a scenario document (already decoded JSON); raises ScenarioError naming what is wrong."""
    if not isinstance(raw, dict):
        raise ScenarioError("a scenario must be a JSON object with sources, claims, justifications, decisions, actions")
    ws = raw.get("workspace")
    if ws is not None and not isinstance(ws, str):
        raise ScenarioError("'workspace' must be a string")
    ids = _IdRegistry()
    sources = [_source(x, i, ids) for i, x in enumerate(_list(raw, "sources"))]
    decisions = [_decision(x, i, ids) for i, x in enumerate(_list(raw, "decisions"))]
    texts = {s.id: s.text for s in sources}
    claims = [_claim(x, i, ids, texts) for i, x in enumerate(_list(raw, "claims"))]
    scenario = Scenario(ws, sources, claims, [], decisions, [])
    just_raw = _list(raw, "justifications")
    reserved = _all_explicit_ids(raw)  # generated justification ids never take a user's id
    for i, x in enumerate(just_raw):
        scenario.justifications.append(_justification(x, i, ids, reserved))
    scenario.actions = [_action(x, i, ids) for i, x in enumerate(_list(raw, "actions"))]
    _check_references(scenario)
    return scenario


def _all_explicit_ids(raw: JSONObject) -> set[str]:
    out: set[str] = set()
    for key in ("sources", "claims", "justifications", "decisions", "actions"):
        items = raw.get(key)
        if isinstance(items, list):
            out.update(x["id"] for x in items if isinstance(x, dict) and isinstance(x.get("id"), str))
    return out


class _IdRegistry:
    def __init__(self) -> None:
        self.kind_of: dict[str, str] = {}

    def add(self, raw_id: Any, kind: str, where: str) -> str:
        if not isinstance(raw_id, str) or not raw_id.strip():
            raise ScenarioError(f"{where}: 'id' must be a non-empty string")
        if raw_id in self.kind_of:
            raise ScenarioError(f"duplicate id {raw_id!r}: used by a {self.kind_of[raw_id]} and a {kind}")
        self.kind_of[raw_id] = kind
        return raw_id


def _list(raw: JSONObject, key: str) -> list[Any]:
    value = raw.get(key, [])
    if not isinstance(value, list):
        raise ScenarioError(f"'{key}' must be a list")
    return value


def _obj(x: Any, where: str) -> JSONObject:
    if not isinstance(x, dict):
        raise ScenarioError(f"{where} must be an object")
    return x


def _text(x: JSONObject, key: str, where: str, required: bool = True, default: str = "") -> str:
    value = x.get(key)
    if value is None:
        if required:
            raise ScenarioError(f"{where}: missing '{key}'")
        return default
    if not isinstance(value, str):
        raise ScenarioError(f"{where}: '{key}' must be a string")
    return value


def _source(x: Any, i: int, ids: _IdRegistry) -> SourceSpec:
    x = _obj(x, f"sources[{i}]")
    sid = ids.add(x.get("id"), "source", f"sources[{i}]")
    where = f"source {sid!r}"
    derived = x.get("derived_from") or []
    if not isinstance(derived, list) or not all(isinstance(d, str) for d in derived):
        raise ScenarioError(f"{where}: 'derived_from' must be a list of source ids")
    url = x.get("url")
    if url is not None and not isinstance(url, str):
        raise ScenarioError(f"{where}: 'url' must be a string")
    return SourceSpec(
        sid,
        _text(x, "kind", where, required=False, default="document"),
        _text(x, "title", where, required=False),
        _text(x, "text", where),
        url,
        tuple(dict.fromkeys(derived)),
    )


def _claim(x: Any, i: int, ids: _IdRegistry, texts: dict[str, str]) -> ClaimSpec:
    x = _obj(x, f"claims[{i}]")
    cid = ids.add(x.get("id"), "claim", f"claims[{i}]")
    where = f"claim {cid!r}"
    statement = _text(x, "statement", where)
    source = x.get("source")
    quote = x.get("quote")
    if source is None and quote is None:
        return ClaimSpec(cid, statement)
    if source is None:
        raise ScenarioError(f"{where} has a quote but no 'source' to check it against")
    if not isinstance(source, str) or source not in texts:
        raise ScenarioError(f"{where} cites unknown source {source!r}")
    if quote is None:
        raise ScenarioError(
            f"{where} names source {source!r} but has no 'quote'; an observation needs a verbatim quote"
        )
    if not isinstance(quote, str):
        raise ScenarioError(f"{where}: 'quote' must be a string")
    found = anchor(source, texts[source], quote)
    if isinstance(found, RejectedQuote):
        why = {
            "not_verbatim": "is not a verbatim substring of",
            "empty": "is empty; it must quote",
            "too_long": "is too long to quote from",
        }
        raise ScenarioError(f"{where}: quote {quote[:80]!r} {why.get(found.reason, found.reason)} source {source!r}")
    return ClaimSpec(cid, statement, found)


def _justification(x: Any, i: int, ids: _IdRegistry, reserved: set[str]) -> JustificationSpec:
    x = _obj(x, f"justifications[{i}]")
    conclusion = x.get("conclusion")
    if not isinstance(conclusion, str) or not conclusion:
        raise ScenarioError(f"justifications[{i}]: 'conclusion' must be a claim or decision id")
    jid = x.get("id")
    if jid is None:
        n = 0
        while f"just:{conclusion}:{n}" in reserved or f"just:{conclusion}:{n}" in ids.kind_of:
            n += 1
        jid = f"just:{conclusion}:{n}"
        reserved.add(jid)
    jid = ids.add(jid, "justification", f"justifications[{i}]")
    premises = x.get("premises")
    if not isinstance(premises, list) or not all(isinstance(p, str) for p in premises):
        raise ScenarioError(f"justification {jid!r}: 'premises' must be a list of claim ids")
    return JustificationSpec(jid, conclusion, tuple(dict.fromkeys(premises)))


def _decision(x: Any, i: int, ids: _IdRegistry) -> DecisionSpec:
    x = _obj(x, f"decisions[{i}]")
    did = ids.add(x.get("id"), "decision", f"decisions[{i}]")
    return DecisionSpec(did, _text(x, "summary", f"decision {did!r}"))


def _action(x: Any, i: int, ids: _IdRegistry) -> ActionSpec:
    x = _obj(x, f"actions[{i}]")
    aid = ids.add(x.get("id"), "action", f"actions[{i}]")
    where = f"action {aid!r}"
    executed = x.get("executed", False)
    if not isinstance(executed, bool):
        raise ScenarioError(f"{where}: 'executed' must be true or false")
    return ActionSpec(aid, _text(x, "summary", where), _text(x, "decision", where), executed)


def _check_references(sc: Scenario) -> None:
    claims = {c.id for c in sc.claims}
    decisions = {d.id for d in sc.decisions}
    sources = {s.id: s for s in sc.sources}
    for s in sc.sources:
        for d in s.derived_from:
            if d not in sources:
                raise ScenarioError(f"source {s.id!r} derives from unknown source {d!r}")
    _check_lineage_acyclic(sources)
    for j in sc.justifications:
        if j.conclusion not in claims and j.conclusion not in decisions:
            raise ScenarioError(f"justification {j.id!r} concludes unknown claim or decision {j.conclusion!r}")
        for p in j.premises:
            if p not in claims:
                what = "a decision, not a claim" if p in decisions else "unknown"
                raise ScenarioError(f"justification {j.id!r} has premise {p!r}, which is {what}")
    for a in sc.actions:
        if a.decision not in decisions:
            raise ScenarioError(f"action {a.id!r} implements unknown decision {a.decision!r}")


def _check_lineage_acyclic(sources: dict[str, SourceSpec]) -> None:
    state: dict[str, int] = {}  # 1 visiting, 2 done
    for start in sources:
        if state.get(start):
            continue
        stack = [(start, iter(sources[start].derived_from))]
        state[start] = 1
        while stack:
            sid, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[sid] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                raise ScenarioError(f"source lineage has a cycle through {nxt!r} (derived_from must not loop)")
            elif not state.get(nxt):
                state[nxt] = 1
                stack.append((nxt, iter(sources[nxt].derived_from)))

"""Load a memory scenario into its workspace graph: validated completely, then written in ONE query.

Loading into a workspace that already has a graph REPLACES it: the same query deletes the old nodes (earlier
incidents and corrections included) and writes the scenario, so readers see either the old workspace or the
new one, never a mix. The memory revision keeps counting up across loads, so a preview taken against the old
contents can never be applied to the new ones. Bad input raises ScenarioError before anything is written.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from pathlib import Path

from ..db import Graph, Store
from ..errors import ScenarioError
from ..jsontypes import JSONObject, Params, Props
from ..schema import ensure_schema
from .engine import action_status, least_fixed_point
from .graphio import STATE_ID, read_revision
from .model import ActionState, ClaimState, DecisionState, JustState, SupportGraph
from .scenario import Scenario, parse_scenario, read_scenario_file

# Replacing a workspace starts with MATCH on its memory state, so it is serialized with every step's
# compare-and-set (see writes.py) and bumps the revision they check; a new workspace starts at 0.
_REPLACE_HEAD = "MATCH (m0:MemoryState {id: $state_id}) WITH m0.rev + 1 AS rev"
_NEW_HEAD = "WITH 0 AS rev"
_RESET = """
OPTIONAL MATCH (old) DETACH DELETE old
WITH DISTINCT rev
CREATE (:MemoryState {id: $state_id, rev: rev, epoch: $epoch, workspace: $workspace, loaded_at: $now, state: $state})
"""
# (parameter, clause over one row x): run as one query for a normal scenario, in batches for a huge one
_PARTS = (
    ("sources", "CREATE (n:Source) SET n = x"),
    ("lineage", "MATCH (a:Source {id: x.s}), (b:Source {id: x.p}) CREATE (a)-[:DERIVED_FROM]->(b)"),
    ("fragments", "MATCH (s:Source {id: x.source_id}) CREATE (s)-[:HAS_FRAGMENT]->(f:Fragment) SET f = x"),
    ("claims", "CREATE (n:Claim) SET n = x"),
    ("evidence", "MATCH (c:Claim {id: x.c}), (f:Fragment {id: x.f}) CREATE (c)-[:EVIDENCED_BY]->(f)"),
    ("decisions", "CREATE (n:Decision) SET n = x"),
    ("justs", "CREATE (n:Justification) SET n = x"),
    ("premises", "MATCH (j:Justification {id: x.j}), (c:Claim {id: x.c}) CREATE (j)-[:PREMISE]->(c)"),
    ("concludes_claims", "MATCH (j:Justification {id: x.j}), (t:Claim {id: x.t}) CREATE (j)-[:JUSTIFIES]->(t)"),
    ("concludes_decisions", "MATCH (j:Justification {id: x.j}), (t:Decision {id: x.t}) CREATE (j)-[:JUSTIFIES]->(t)"),
    ("actions", "MATCH (d:Decision {id: x.decision}) CREATE (a:Action)-[:IMPLEMENTS]->(d) SET a = x.props"),
)
# Each part's rows, by parameter name: node property maps (``SET n = x``) or the ids an edge joins.
Parts = dict[str, list[Props]]
# Above this many rows one query could outlast the embedded client's 5 s socket timeout: write in batches.
SINGLE_QUERY_ROWS = 40_000
BATCH = 5_000


def _single_query() -> str:
    body = "".join(
        f"WITH count(*) AS _{i}\nUNWIND ${param} AS x {clause}\n" for i, (param, clause) in enumerate(_PARTS)
    )
    return _RESET + body + "WITH count(*) AS _end\nMATCH (m:MemoryState {id: $state_id}) RETURN m.rev AS rev"


@dataclass
class LoadResult:
    workspace: str
    graph: str
    revision: int
    replaced: int  # nodes the previous contents of the workspace had
    counts: dict[str, int]
    holding: dict[str, int]

    def as_dict(self) -> JSONObject:
        return {
            "workspace": self.workspace,
            "graph": self.graph,
            "revision": self.revision,
            "replaced": self.replaced,
            "counts": self.counts,
            "holding": self.holding,
        }


def load_scenario(
    store: Store, scenario: Scenario | JSONObject | str | Path, workspace: str | None = None
) -> LoadResult:
    """Validate a scenario (object, decoded JSON or file path) and write it as its workspace's whole graph."""
    if isinstance(scenario, (str, Path)):
        scenario = read_scenario_file(scenario)
    elif isinstance(scenario, dict):
        scenario = parse_scenario(scenario)
    ws = workspace or scenario.workspace
    if not ws:
        raise ScenarioError("no workspace: give --workspace or a 'workspace' field in the scenario")
    graph = store.workspace_graph(ws)  # validates the name before anything is written
    sg = support_graph_of(scenario)
    after = least_fixed_point(sg, set())
    parts = _params(scenario, sg, after.nodes, after.justs)
    meta: Params = {
        "state_id": STATE_ID,
        "epoch": uuid.uuid4().hex,
        "workspace": ws,
        "now": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    ensure_schema(graph, workspace=True)
    before = graph.read("MATCH (n) WHERE NOT n:MemoryState RETURN count(n) AS n", name="memory.load.before")
    if sum(len(parts[p]) for p, _ in _PARTS) <= SINGLE_QUERY_ROWS:
        head = _REPLACE_HEAD if read_revision(graph, allow_loading=True) is not None else _NEW_HEAD
        rows = graph.query(head + _single_query(), {**parts, **meta, "state": "ready"}, name="memory.load")
        if not rows:
            raise ScenarioError(f"workspace {ws!r} changed while loading; nothing was written, load again")
        revision = int(rows[0]["rev"])
    else:
        revision = _load_in_batches(graph, parts, meta)
    counts = {
        k: len(v)
        for k, v in (
            ("sources", scenario.sources),
            ("claims", scenario.claims),
            ("justifications", scenario.justifications),
            ("decisions", scenario.decisions),
            ("actions", scenario.actions),
        )
    }
    holding = {
        "claims": sum(after.nodes[c.id] for c in scenario.claims),
        "decisions": sum(after.nodes[d.id] for d in scenario.decisions),
    }
    return LoadResult(ws, graph.name, revision, int(before[0]["n"]) if before else 0, counts, holding)


def _load_in_batches(graph: Graph, parts: Parts, meta: Params) -> int:
    """A scenario too big for one query: validated already, written in batches under a ``loading`` state.

    Every memory command refuses a workspace whose state is ``loading`` (a load in progress, or one that was
    interrupted: load it again), so nobody reasons over half a scenario.
    """
    old = read_revision(graph, allow_loading=True)
    revision = 0 if old is None else old + 1
    graph.delete()  # far faster than deleting node by node; the schema is rebuilt below
    ensure_schema(graph, workspace=True)
    graph.query("WITH $rev AS rev" + _RESET, {**meta, "rev": revision, "state": "loading"}, name="memory.load.reset")
    for param, clause in _PARTS:
        rows = parts[param]
        for i in range(0, len(rows), BATCH):
            graph.query(f"UNWIND $rows AS x {clause}", {"rows": rows[i : i + BATCH]}, name=f"memory.load.{param}")
    graph.query("MATCH (m:MemoryState {id: $id}) SET m.state = 'ready'", {"id": STATE_ID}, name="memory.load.ready")
    return revision


def support_graph_of(sc: Scenario) -> SupportGraph:
    """The engine's view of a scenario (nothing quarantined, nothing superseded yet)."""
    sg = SupportGraph()
    for s in sc.sources:
        sg.lineage[s.id] = s.derived_from
    for c in sc.claims:
        sg.claims[c.id] = ClaimState(c.id, c.source_id, c.span is not None)
    for d in sc.decisions:
        sg.decisions[d.id] = DecisionState(d.id)
    for j in sc.justifications:
        sg.justs[j.id] = JustState(j.id, (j.conclusion,), j.premises)
    for a in sc.actions:
        sg.actions[a.id] = ActionState(a.id, (a.decision,), a.executed)
    return sg


def _params(sc: Scenario, sg: SupportGraph, holds: dict[str, bool], just_holds: dict[str, bool]) -> Parts:
    fragments: dict[str, Props] = {}
    claims: list[Props] = []
    evidence: list[Props] = []
    for c in sc.claims:
        props: Props = {
            "id": c.id,
            "statement": c.statement,
            "rev": 0,
            "status": "active",
            "holds": holds[c.id],
        }
        if c.span is not None:
            fid = f"frag:{c.span.source_id}:{c.span.start}:{c.span.end}"
            fragments[fid] = {
                "id": fid,
                "source_id": c.span.source_id,
                "start": c.span.start,
                "end": c.span.end,
                "text": c.span.text,
            }
            props.update(quote=c.span.text, source_id=c.span.source_id, start=c.span.start, end=c.span.end)
            evidence.append({"c": c.id, "f": fid})
        claims.append(props)
    return {
        "sources": [
            _clean(
                {
                    "id": s.id,
                    "kind": s.kind,
                    "title": s.title,
                    "text": s.text,
                    "url": s.url,
                    "quarantined": False,
                    "rev": 0,
                }
            )
            for s in sc.sources
        ],
        "lineage": [{"s": s.id, "p": p} for s in sc.sources for p in s.derived_from],
        "fragments": list(fragments.values()),
        "claims": claims,
        "evidence": evidence,
        "decisions": [{"id": d.id, "summary": d.summary, "rev": 0, "holds": holds[d.id]} for d in sc.decisions],
        "justs": [{"id": j.id, "holds": just_holds[j.id]} for j in sc.justifications],
        "premises": [{"j": j.id, "c": p} for j in sc.justifications for p in j.premises],
        "concludes_claims": [{"j": j.id, "t": j.conclusion} for j in sc.justifications if j.conclusion in sg.claims],
        "concludes_decisions": [
            {"j": j.id, "t": j.conclusion} for j in sc.justifications if j.conclusion in sg.decisions
        ],
        "actions": [
            {
                "decision": a.decision,
                "props": {
                    "id": a.id,
                    "summary": a.summary,
                    "executed": a.executed,
                    "rev": 0,
                    "status": action_status(a.executed, holds[a.decision]),
                },
            }
            for a in sc.actions
        ],
    }


def _clean(d: Props) -> Props:
    return {k: v for k, v in d.items() if v is not None}


def load_scenario_file(store: Store, path: str | Path, if_missing: bool = False) -> str:
    """Load one scenario file into its workspace (skipped when ``if_missing`` and it is loaded); its workspace name."""
    scenario = read_scenario_file(path)
    if not scenario.workspace:
        raise ScenarioError(f"scenario file {path} has no 'workspace' field")
    if if_missing and read_revision(store.workspace_graph(scenario.workspace), allow_loading=True) is not None:
        return scenario.workspace
    return load_scenario(store, scenario).workspace

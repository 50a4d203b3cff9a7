"""What graph a guard eval scores: the repository the cases file names, and whether reviewers have edited it.

An eval on a graph reviewers have corrected, quarantined or dismissed findings on measures their edits as much
as the guard. ``pristine_copy`` loads the demo seed afresh into its own graph (``rguard-eval/tollgate``), so
the demo cases can be scored on exactly the seed; for any other repository ``graph_state`` says how many
reviewer edits are in force, and the result carries that statement.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..db import Store, validate_repo
from ..errors import InvalidInput, UnknownRepository
from ..jsontypes import JSONObject
from ..seed import DEMO_REPO, DEMO_SNAPSHOT, seed_fingerprint

PRISTINE_DEMO = "rguard-eval/tollgate"

EDITS_Q = (
    "MATCH (c) WHERE (c:Correction OR c:Incident) AND coalesce(c.state, 'applied') = 'applied' "
    "AND coalesce(c.kind, 'quarantine') <> 'revert' AND coalesce(c.kind, '') <> 'lift' "
    "RETURN CASE WHEN c:Incident THEN 'quarantine' ELSE c.kind END AS kind, count(c) AS n"
)


@dataclass(frozen=True)
class GraphState:
    """The graph an eval ran on and the reviewer edits in force there."""

    repo: str
    cases_repo: str
    pristine: bool
    edits: dict[str, int]

    @property
    def statement(self) -> str:
        where = self.repo if self.repo == self.cases_repo else f"{self.repo} (the cases name {self.cases_repo})"
        if self.pristine:
            return f"scored on {where}, a pristine graph: no corrections, quarantines or feedback in force"
        listed = ", ".join(f"{n} {k}" for k, n in sorted(self.edits.items()))
        return f"scored on {where} as reviewers left it, NOT a pristine graph: {listed} in force"

    def as_dict(self) -> JSONObject:
        return {
            "repo": self.repo,
            "cases_repo": self.cases_repo,
            "pristine": self.pristine,
            "edits": self.edits,
            "statement": self.statement,
        }


def graph_state(store: Store, repo: str, cases_repo: str) -> GraphState:
    """Refuses an unknown repository; otherwise counts the reviewer edits in force on it."""
    graph = store.repo_graph(validate_repo(repo))
    if not graph.exists():
        raise UnknownRepository(repo)
    edits = {r["kind"]: int(r["n"]) for r in graph.read(EDITS_Q, name="eval.graph_state") if r["n"]}
    return GraphState(repo, cases_repo, not edits, edits)


def can_copy(cases_repo: str) -> bool:
    return cases_repo == DEMO_REPO


def pristine_copy(store: Store, cases_repo: str) -> str:
    """A fresh graph of the cases' source (the demo seed), loaded unless the same seed version is there already."""
    from ..ingest.pipeline import ingest_snapshot  # late: evaluation stays light to import

    if not can_copy(cases_repo):
        raise InvalidInput(f"no seed to rebuild {cases_repo} from; score it as ingested (the result says so)")
    graph = store.repo_graph(PRISTINE_DEMO)
    fp = seed_fingerprint()
    if graph.exists() and graph_state(store, PRISTINE_DEMO, cases_repo).pristine:
        rows = graph.read("MATCH (r:Repo {id: 'repo'}) RETURN r.seed AS seed", name="eval.pristine.check")
        if rows and rows[0]["seed"] == fp:
            return PRISTINE_DEMO
    graph.delete()
    owner, name = PRISTINE_DEMO.split("/")
    with tempfile.TemporaryDirectory(prefix="rguard-pristine-") as tmp:
        shutil.copytree(DEMO_SNAPSHOT / "repos" / "acme" / "tollgate", Path(tmp) / "repos" / owner / name)
        ingest_snapshot(store, tmp, repo=PRISTINE_DEMO)
    graph.query("MATCH (r:Repo {id: 'repo'}) SET r.seed = $fp", {"fp": fp}, name="eval.pristine.mark")
    return PRISTINE_DEMO

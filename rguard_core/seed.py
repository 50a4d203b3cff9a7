"""Load the demo seed (our fictional ``acme/tollgate`` history and memory scenarios) idempotently."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .db import Store
from .errors import SnapshotError
from .ingest.pipeline import ingest_snapshot
from .resources import seeds_dir

SEEDS = seeds_dir()
DEMO_SNAPSHOT = SEEDS / "demo" / "github"
DEMO_REPO = "acme/tollgate"
MEMORY_DIR = SEEDS / "memory"


@dataclass
class SeedResult:
    repo: str
    loaded: bool  # False when the same seed was already in the graph
    workspaces: list[str] = field(default_factory=list)
    summary: str = ""


def seed_fingerprint(root: Path = DEMO_SNAPSHOT) -> str:
    """A hash of every seed file, so a changed seed is re-loaded and an unchanged one is not."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def load_demo(store: Store, force: bool = False, progress: Callable[[str, int, int], None] | None = None) -> SeedResult:
    """Ingest the demo snapshot unless the same version is already loaded; then the memory scenarios."""
    if not DEMO_SNAPSHOT.is_dir():
        raise SnapshotError(f"demo seed missing at {DEMO_SNAPSHOT}")
    fp = seed_fingerprint()
    graph = store.repo_graph(DEMO_REPO)
    rows = graph.read("MATCH (r:Repo {id: 'repo'}) RETURN r.seed AS seed, r.ingest_state AS state", name="seed.check")
    loaded = False
    summary = "already loaded"
    if force or not rows or rows[0].get("seed") != fp or rows[0].get("state") != "complete":
        res = ingest_snapshot(store, DEMO_SNAPSHOT, repo=DEMO_REPO, progress=progress)
        graph.query("MATCH (r:Repo {id: 'repo'}) SET r.seed = $fp", {"fp": fp}, name="seed.mark")
        c = res.coverage
        summary = f"{c.pulls} PRs, {c.issues} issues, {c.docs} ADRs, {c.decisions} decisions, {c.claims} claims"
        loaded = True
    return SeedResult(DEMO_REPO, loaded, _load_memory(store, force), summary)


def _load_memory(store: Store, force: bool) -> list[str]:
    """Each scenario file is its own workspace; an existing workspace keeps its incidents unless forced."""
    from .memory import load_scenario
    from .memory.scenario import read_scenario_file

    names = []
    existing = set(store.list_workspaces())
    for path in sorted(MEMORY_DIR.glob("*.json")):
        scenario = read_scenario_file(path)
        if not scenario.workspace:
            continue  # seed scenarios always name their workspace; a nameless one is skipped, not guessed
        if force or scenario.workspace not in existing:
            load_scenario(store, scenario)
        names.append(scenario.workspace)
    return names

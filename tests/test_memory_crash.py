"""Crash safety: a writer killed (SIGKILL) between the steps of apply/quarantine leaves either nothing or the
complete change, and a retry ends in exactly the state an uninterrupted run produces."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rguard_core.db import Graph, Store
from rguard_core.memory import apply_correction, load_scenario, preview_correction, quarantine_source
from tests.test_memory_corrections import SCENARIO

ROOT = Path(__file__).resolve().parent.parent
TEXT = "Supplier A delivers in 15 days."
VOLATILE = {"created_at", "quarantined_at", "loaded_at", "epoch", "workspace"}

WRITER = textwrap.dedent("""
    import sys, time
    from rguard_core.db import open_store
    from rguard_core.memory import apply_correction, quarantine_source, writes

    ws, op, target, point = sys.argv[1:5]
    original = writes.cas_write

    def paused(*args, **kwargs):
        if point == "before_write":
            print("PAUSED", flush=True)
            time.sleep(120)
        rev = original(*args, **kwargs)
        if point == "after_write":
            print("PAUSED", flush=True)
            time.sleep(120)
        return rev

    writes.cas_write = paused
    graph = open_store().workspace_graph(ws)
    if op == "correct":
        apply_correction(graph, target, sys.argv[5], "crash-test", int(sys.argv[6]))
    else:
        quarantine_source(graph, target, reason="crash", by="crash-test")
    print("FINISHED", flush=True)
""")


def snapshot(graph: Graph) -> dict[str, Any]:
    """Every node and edge, minus timestamps and per-load randomness; incident ids normalised."""
    nodes = {}
    incidents = 0
    for r in graph.read("MATCH (n) RETURN n ORDER BY n.id"):
        props = {k: v for k, v in r["n"].items() if k not in VOLATILE}
        key = props["id"]
        if "Incident" in props["_labels"]:
            incidents += 1
            key = f"incident#{incidents}"
            props.pop("id")
        nodes[key] = props
    edges = sorted(
        (r["t"], r["a"] if not r["a"].startswith("inc:") else "incident", r["b"])
        for r in graph.read("MATCH (a)-[e]->(b) RETURN type(e) AS t, a.id AS a, b.id AS b")
    )
    return {"nodes": nodes, "edges": edges}


@pytest.fixture
def pair(store: Store) -> Iterator[tuple[Graph, Graph]]:
    """A workspace the crashing writer works on and a reference workspace for the uninterrupted run."""
    graphs = []
    for _ in range(2):
        ws = f"crash-{uuid.uuid4().hex[:8]}"
        load_scenario(store, SCENARIO, workspace=ws)
        graphs.append(store.workspace_graph(ws))
    yield graphs[0], graphs[1]
    for g in graphs:
        g.delete()


def kill_writer_at(ws: str, point: str, *args: str) -> None:
    """Start the writer in its own process, SIGKILL it once it reports it reached ``point``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, ws, *args[:2], point, *args[2:]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        assert line == "PAUSED", f"writer did not reach {point}: {line!r} {proc.stderr.read() if proc.stderr else ''}"
        proc.kill()
        proc.wait(timeout=30)
        assert proc.returncode == -9
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("point", ["before_write", "after_write"])
def test_correction_writer_killed_then_retried_ends_in_the_same_state(pair: tuple[Graph, Graph], point: str) -> None:
    crashed, reference = pair
    pristine = snapshot(crashed)
    rev = preview_correction(crashed, "fast", TEXT, "crash-test").revision
    kill_writer_at(crashed.name.removeprefix("rguard_ws__"), point, "correct", "fast", TEXT, str(rev))
    done = apply_correction(reference, "fast", TEXT, "crash-test", rev)
    if point == "before_write":
        assert snapshot(crashed) == pristine  # killed before the write: nothing at all was written
    else:
        assert snapshot(crashed) == snapshot(reference)  # killed after it: the whole correction is there
    retry = apply_correction(crashed, "fast", TEXT, "crash-test", rev)
    assert retry.status == ("applied" if point == "before_write" else "already_applied")
    assert retry.replacement == done.replacement
    assert snapshot(crashed) == snapshot(reference)


@pytest.mark.parametrize("point", ["before_write", "after_write"])
def test_quarantine_writer_killed_then_retried_ends_in_the_same_state(pair: tuple[Graph, Graph], point: str) -> None:
    crashed, reference = pair
    pristine = snapshot(crashed)
    kill_writer_at(crashed.name.removeprefix("rguard_ws__"), point, "quarantine", "memo")
    quarantine_source(reference, "memo", reason="crash", by="crash-test")
    assert snapshot(crashed) == (pristine if point == "before_write" else snapshot(reference))
    retry = quarantine_source(crashed, "memo", reason="crash", by="crash-test")
    assert retry.already_quarantined is (point == "after_write")
    assert snapshot(crashed) == snapshot(reference)

"""The recorded starlette snapshot (../shared/realdata): every quote verbatim, re-ingest gives the same graph."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rguard_core.db import Store
from rguard_core.explore.graph_export import export_graph
from rguard_core.ingest.pipeline import ingest_snapshot
from tests.conftest import realdata_or_skip


def _canon(data: dict) -> tuple[list[str], list[str]]:  # type: ignore[type-arg]
    skip = {"ingested_at", "ingest_source"}
    nodes = sorted(
        json.dumps({k: v for k, v in n["props"].items() if k not in skip}, sort_keys=True) for n in data["nodes"]
    )
    return nodes, sorted(json.dumps(e, sort_keys=True) for e in data["edges"])


def test_starlette_snapshot_ingests_verbatim_and_idempotently(store: Store, tmp_path: Path, repo_name: str) -> None:
    real = realdata_or_skip()
    owner, name = repo_name.split("/")
    dst = tmp_path / "repos" / owner / name
    shutil.copytree(real / "github" / "repos" / "Kludex" / "starlette", dst)  # a unique graph for this test
    res = ingest_snapshot(store, tmp_path)
    pulls = {int(p.stem) for p in (dst / "pulls").glob("*.json")}
    assert res.coverage.pulls == len(pulls) == 50
    assert res.coverage.decisions >= 15

    data = export_graph(store, repo_name)
    texts = {n["id"]: n["props"]["text"] for n in data["nodes"] if "Source" in n["labels"]}
    quoted = [n["props"] for n in data["nodes"] if "quote" in n["props"]]
    assert len(quoted) >= 100
    for p in quoted:
        assert texts[p["source_id"]][p["start"] : p["end"]] == p["quote"], p["id"]
    assert {f"pr:{n}" for n in pulls} <= set(texts)
    assert sum("Repo" in n["labels"] for n in data["nodes"]) == 1

    ingest_snapshot(store, tmp_path)
    assert _canon(export_graph(store, repo_name)) == _canon(data)

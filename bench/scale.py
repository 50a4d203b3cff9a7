"""Costs that must stay flat as history grows (issue #22), measured in one run on generated repositories:
the 1-file guard at 1,000 and 10,000 PRs (``bench.guard``'s generator) and appending one PR with
``ingest snapshot --since-pr`` at 1,000 and 10,000 (``bench.synth``'s snapshot, merged in number order).
Prints one table of figures and ratios and writes bench/results/scale.json.

Run: ``python -m bench.scale [--small 1000] [--large 10000] [--appends 15] [--diffs 30]``. Targets: each ratio
large/small at most the one in TARGETS. Between sizes the engine is left to finish any append-only-file rewrite
(a big ingest triggers them), so a figure is the steady cost, not the tail of the ingest before it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from rguard_core.config import Settings
from rguard_core.db import Store, open_store
from rguard_core.guard import run_guard
from rguard_core.ingest.pipeline import ingest_snapshot

from .guard import ingest_synth
from .guard_scale import one_file_diffs
from .synth import synth_snapshot

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"guard_one_file": 1.3, "append_one_pr": 1.5}


def settle(store: Store, quiet_s: float = 2.0) -> None:
    """Wait until the server rewrites no append-only file, then a little longer."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        info = store._db.connection.info("persistence")
        if not info.get("aof_rewrite_in_progress") and not info.get("aof_rewrite_scheduled"):
            break
        time.sleep(0.2)
    time.sleep(quiet_s)


def guard_one_file(store: Store, size: int, n_diffs: int, runs: int = 2) -> dict[str, Any]:
    repo = ingest_synth(store, size)
    diffs = one_file_diffs(store, repo, n_diffs)
    settle(store)
    for d in diffs[:3]:
        run_guard(store, repo, d)  # the query cache
    ms = []
    for _ in range(runs):
        for d in diffs:
            t0 = time.perf_counter()
            run_guard(store, repo, d, mode="sequential")
            ms.append((time.perf_counter() - t0) * 1000)
    store.repo_graph(repo).delete()
    return {"p50_ms": round(statistics.median(ms), 1), "n": len(ms)}


def append_one_pr(store: Store, size: int, appends: int, tmp: Path) -> dict[str, Any]:
    repo = f"bench/append-{size}"
    root = synth_snapshot(tmp / f"append-{size}", size + appends, repo=repo)
    nums = sorted(int(p.stem) for p in (root / "repos" / repo / "pulls").glob("*.json"))
    store.repo_graph(repo).delete()
    t0 = time.perf_counter()
    ingest_snapshot(store, root, repo, until_pr=nums[size - 1])
    full_s = time.perf_counter() - t0
    settle(store)
    ms = []
    for prev, nxt in zip(nums[size - 1 : -1], nums[size:], strict=True):
        t0 = time.perf_counter()
        res = ingest_snapshot(store, root, repo, since_pr=prev, until_pr=nxt)
        ms.append((time.perf_counter() - t0) * 1000)
        assert res.coverage.pulls == 1, f"an append of one PR ingested {res.coverage.pulls}"
    store.repo_graph(repo).delete()
    return {"p50_ms": round(statistics.median(ms), 1), "n": len(ms), "first_ingest_s": round(full_s, 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", type=int, default=1_000)
    ap.add_argument("--large", type=int, default=10_000)
    ap.add_argument("--appends", type=int, default=15)
    ap.add_argument("--diffs", type=int, default=30)
    args = ap.parse_args()
    rows: dict[str, dict[int, dict[str, Any]]] = {"guard_one_file": {}, "append_one_pr": {}}
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Settings(data_dir=Path(tmp) / "data"))
        for size in (args.small, args.large):
            rows["guard_one_file"][size] = guard_one_file(store, size, args.diffs)
            rows["append_one_pr"][size] = append_one_pr(store, size, args.appends, Path(tmp))
            print(f"{size} PRs: {json.dumps({k: v[size] for k, v in rows.items()})}", flush=True)
        store.close()
    table = []
    for what, by_size in rows.items():
        small, large = by_size[args.small]["p50_ms"], by_size[args.large]["p50_ms"]
        ratio = round(large / max(small, 1e-9), 2)
        table.append({"what": what, "small_ms": small, "large_ms": large, "ratio": ratio, "target": TARGETS[what]})
    print(f"\n| what | {args.small:,} PRs | {args.large:,} PRs | ratio | target |\n|---|---|---|---|---|")
    for r in table:
        ok = "met" if r["ratio"] <= r["target"] else "NOT met"
        print(f"| {r['what']} | {r['small_ms']} ms | {r['large_ms']} ms | {r['ratio']}× | ≤ {r['target']}× ({ok}) |")
    res = ROOT / "bench" / "results"
    res.mkdir(parents=True, exist_ok=True)
    (res / "scale.json").write_text(
        json.dumps({"sizes": [args.small, args.large], "table": table, "rows": rows}, indent=2) + "\n"
    )


if __name__ == "__main__":
    main()

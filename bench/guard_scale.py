"""Guard cost as history grows (issue #26's speed targets): the 1-file guard on generated repositories of 1,000
and 10,000 PRs (the same generator, ``bench.guard.synth_history``), and a 100-file diff on the larger one.
Writes bench/results/guard_scale.json; prints where the time went (per query name, and the judge).

Run: ``python -m bench.guard_scale [--small 1000] [--large 10000] [--diffs 30] [--runs 2]``. Targets: the 1-file
guard's p50 at the large size at most 1.3x its p50 at the small one; the 100-file diff at most 300 ms p50.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from rguard_core.config import Settings
from rguard_core.db import Store, open_store
from rguard_core.guard import run_guard
from rguard_core.guard.diffparse import diff_from_patches

from .guard import _pct, _reverse, ingest_synth, sample_diffs

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"one_file_ratio_max": 1.3, "hundred_files_p50_ms": 300}


def one_file_diffs(store: Store, repo: str, n: int) -> list[str]:
    return [d for d in sample_diffs(store, repo, 4 * n) if d.count("diff --git") == 1][:n]


def hundred_file_diff(store: Store, repo: str) -> str:
    """The newest change of 100 distinct files, every other one reversed: a large refactor or a revert of many."""
    rows = store.repo_graph(repo).read(
        "MATCH (p:PR)-[t:TOUCHES]->(f:File) RETURN f.path AS path, t.patch AS patch, p.number AS n ORDER BY n DESC"
    )
    newest: dict[str, dict[str, Any]] = {}
    for r in rows:
        newest.setdefault(r["path"], r)
        if len(newest) == 100:
            break
    picked = [
        {"path": r["path"], "status": "modified", "patch": _reverse(r["patch"] or "") if i % 2 else r["patch"]}
        for i, r in enumerate(newest.values())
    ]
    return diff_from_patches(picked)


def measure(store: Store, repo: str, diffs: list[str], runs: int) -> dict[str, Any]:
    totals: list[float] = []
    judge: list[float] = []
    per_query: dict[str, list[float]] = defaultdict(list)
    for _ in range(runs):
        for d in diffs:
            t0 = time.perf_counter()
            rep = run_guard(store, repo, d, mode="sequential")
            totals.append((time.perf_counter() - t0) * 1000)
            judge.append(rep.timings_ms.get("judge", 0.0))
            for q in rep.cypher:
                per_query[str(q["name"])].append(float(q["ms"]))
    top = sorted(per_query.items(), key=lambda kv: -sum(kv[1]))[:8]
    return {
        "diffs": len(diffs),
        "runs": runs,
        "total_p50_ms": _pct(totals, 50),
        "total_p95_ms": _pct(totals, 95),
        "judge_p50_ms": _pct(judge, 50),
        "queries_p50_ms": {k: round(statistics.median(v), 2) for k, v in top},
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", type=int, default=1_000)
    ap.add_argument("--large", type=int, default=10_000)
    ap.add_argument("--diffs", type=int, default=30)
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args()
    out: dict[str, Any] = {"targets": TARGETS}
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Settings(data_dir=Path(tmp) / "data"))
        for size in (args.small, args.large):
            repo = ingest_synth(store, size)
            diffs = one_file_diffs(store, repo, args.diffs)
            for d in diffs[:3]:
                run_guard(store, repo, d)  # warm the query cache
            out[f"one_file_{size}"] = measure(store, repo, diffs, args.runs)
            print(f"{size} PRs, 1-file diffs: {json.dumps(out[f'one_file_{size}'])}", flush=True)
            if size == args.large:
                big = hundred_file_diff(store, repo)
                run_guard(store, repo, big)
                out[f"hundred_files_{size}"] = measure(store, repo, [big], max(3, args.runs))
                print(f"{size} PRs, 100-file diff: {json.dumps(out[f'hundred_files_{size}'])}", flush=True)
            store.repo_graph(repo).delete()
        store.close()
    small, large = out[f"one_file_{args.small}"], out[f"one_file_{args.large}"]
    ratio = round(large["total_p50_ms"] / max(small["total_p50_ms"], 1e-9), 2)
    out["one_file_ratio"] = ratio
    out["met"] = {
        "one_file_ratio": ratio <= TARGETS["one_file_ratio_max"],
        "hundred_files_p50": out[f"hundred_files_{args.large}"]["total_p50_ms"] <= TARGETS["hundred_files_p50_ms"],
    }
    res = ROOT / "bench" / "results"
    res.mkdir(parents=True, exist_ok=True)
    (res / "guard_scale.json").write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps({"one_file_ratio": ratio, "met": out["met"]}, indent=2))


if __name__ == "__main__":
    main()

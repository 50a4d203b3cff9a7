"""Incremental ingest benchmark: what appending one PR costs on a graph holding 1,000 and on one holding 5,000.

For each size, the first N PRs of a generated snapshot are ingested in one go, then the next PRs are appended
one at a time exactly as ``ingest snapshot --since-pr`` appends them (``known_from_graph`` for the numbers the
PR names, build, merge-write, increments, support for its decisions). If the cost follows the PR, the two
medians are about equal; a cost that followed the history would be five times larger at 5,000.

Run: ``python -m bench.ingest_incremental [--sizes 1000 5000] [--appends 30]``. Writes
bench/results/ingest_incremental.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from rguard_core.config import Settings
from rguard_core.db import open_store
from rguard_core.evaluation.replay import delta_history, snapshot_steps
from rguard_core.ingest.extract.offline import OfflineExtractor
from rguard_core.ingest.pipeline import append_history, ingest_history, known_from_graph

from .synth import synth_snapshot

ROOT = Path(__file__).resolve().parent.parent


def measure(size: int, appends: int, tmp: Path) -> dict[str, float]:
    store = open_store(Settings.from_env())
    repo = f"bench/incremental-{size}"
    root = synth_snapshot(tmp / f"s{size}", size + appends, repo=repo)
    hist, steps = snapshot_steps(root, repo)
    store.repo_graph(repo).delete()
    ex = OfflineExtractor()
    t0 = time.perf_counter()
    ingest_history(store, delta_history(hist, steps[:size], repo), ex, "bench")
    full_s = time.perf_counter() - t0
    graph = store.repo_graph(repo)
    per_pr: list[float] = []
    for step in steps[size : size + appends]:
        delta = delta_history(hist, [step], repo)
        t = time.perf_counter()
        append_history(store, delta, ex, "bench", known_from_graph(graph, delta))
        per_pr.append((time.perf_counter() - t) * 1000)
    store.repo_graph(repo).delete()
    return {
        "history_prs": size,
        "appends": len(per_pr),
        "full_ingest_s": round(full_s, 2),
        "append_ms_p50": round(statistics.median(per_pr), 1),
        "append_ms_p90": round(sorted(per_pr)[int(0.9 * (len(per_pr) - 1))], 1),
        "append_ms_mean": round(statistics.fmean(per_pr), 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000])
    ap.add_argument("--appends", type=int, default=30)
    args = ap.parse_args()
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            row = measure(size, args.appends, Path(tmp))
            print(json.dumps(row), flush=True)
            out.append(row)
    res = ROOT / "bench" / "results"
    res.mkdir(parents=True, exist_ok=True)
    (res / "ingest_incremental.json").write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

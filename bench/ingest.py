"""Ingest benchmark: PRs/s and peak memory on the starlette snapshot and a generated 5,000-PR snapshot.

Run: ``python -m bench.ingest [--prs 5000]``. Writes bench/results/ingest.json.
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
import tracemalloc
from pathlib import Path

from rguard_core.config import Settings
from rguard_core.db import Store, open_store
from rguard_core.ingest.pipeline import ingest_snapshot

from .synth import synth_snapshot

ROOT = Path(__file__).resolve().parent.parent
REALDATA = ROOT.parent / "shared" / "realdata" / "github"


def measure(store: Store, path: Path, repo: str) -> dict[str, float]:
    store.repo_graph(repo).delete()
    t0 = time.perf_counter()
    res = ingest_snapshot(store, path, repo=repo)
    secs = time.perf_counter() - t0
    # a second run under tracemalloc gives the Python-side peak without slowing the timed run
    store.repo_graph(repo).delete()
    tracemalloc.start()
    ingest_snapshot(store, path, repo=repo)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    info = store._db.connection.info("memory")
    return {
        "prs": res.coverage.pulls,
        "seconds": round(secs, 3),
        "prs_per_s": round(res.coverage.pulls / secs, 1),
        "python_peak_mb": round(peak / 2**20, 1),
        "falkordb_used_mb": round(info.get("used_memory", 0) / 2**20, 1),
        "decisions": res.coverage.decisions,
        "claims": res.coverage.claims,
        **{f"t_{k}": v for k, v in res.timings_s.items()},
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--prs", type=int, default=5000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Settings(data_dir=Path(tmp) / "data"))
        results = {}
        if REALDATA.is_dir():
            results["starlette"] = measure(store, REALDATA, "Kludex/starlette")
        synth = synth_snapshot(Path(tmp) / "synth", args.prs)
        results[f"synthetic_{args.prs}"] = measure(store, synth, "bench/synthetic")
        results["max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        store.close()
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "ingest.json").write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

"""CLI wall time, process start included, and what durability costs. Writes bench/results/cli.json.

Run: ``python -m bench.cli [--runs 15]``. Every figure is a subprocess wall time (``python -m rguard_core …``)
on a throwaway data dir holding the demo seed:

- cold: no engine running (it is stopped first), so the command starts it and loads the append-only file;
- warm ``repos`` and warm ``guard`` (a one-line diff of tollgate/ratelimit.py): the engine is already up;
- fsync: the same writes under ``appendfsync always`` and ``everysec`` — single-statement writes (what a
  correction, quarantine or feedback is made of), a memory correction through the CLI, and a snapshot ingest.

CPU time (user+sys of the child) is reported beside wall time: on a loaded machine wall time is mostly waiting
for a core, CPU time is what the command itself costs.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TARGETS_MS = {"warm_guard": 300, "warm_repos": 200, "cold_repos": 3000}
SCENARIO = ROOT / "seeds" / "memory" / "forged_invoice.json"
SNAPSHOT = ROOT / "tests" / "fixtures" / "snapshot"


def env_for(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FALKORDB_URL", "FALKORDB_READ_URL")}
    env.update({"PYTHONPATH": str(ROOT), "RGUARD_DATA_DIR": str(data_dir), **extra})
    return env


def timed(data_dir: Path, *args: str, **extra: str) -> tuple[float, float]:
    """(wall ms, child CPU ms) of one CLI call; raises when it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(
        [sys.executable, "-m", "rguard_core", *args],
        env=env_for(data_dir, **extra),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    wall = (time.perf_counter() - t0) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode not in (0, 3):
        raise RuntimeError(f"{args}: {res.stderr}")
    cpu = ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000
    return wall, cpu


def summary(samples: list[tuple[float, float]]) -> dict[str, float]:
    walls = sorted(s[0] for s in samples)
    return {
        "wall_p50_ms": round(statistics.median(walls), 1),
        "wall_p90_ms": round(walls[min(len(walls) - 1, int(len(walls) * 0.9))], 1),
        "cpu_p50_ms": round(statistics.median(s[1] for s in samples), 1),
        "runs": len(samples),
    }


def guard_diff(path: Path) -> Path:
    src = ROOT / "seeds" / "demo" / "tree" / "tollgate" / "ratelimit.py"
    a = src.read_text().splitlines(keepends=True)
    b = [line.replace("limit_per_minute=600", "limit_per_minute=1200") for line in a]
    path.write_text("".join(difflib.unified_diff(a, b, "a/tollgate/ratelimit.py", "b/tollgate/ratelimit.py")))
    return path


def cli_latency(runs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="rguard-bench-cli-") as tmp:
        d = Path(tmp) / "data"
        diff = guard_diff(Path(tmp) / "ratelimit.diff")
        try:
            timed(d, "seed")
            cold = []
            for _ in range(max(3, runs // 5)):
                timed(d, "engine", "stop")
                cold.append(timed(d, "repos"))
            warm_repos = [timed(d, "repos") for _ in range(runs)]
            warm_guard = [timed(d, "guard", "--repo", "acme/tollgate", "--diff", str(diff)) for _ in range(runs)]
        finally:
            timed(d, "engine", "stop")
    return {"cold_repos": summary(cold), "warm_repos": summary(warm_repos), "warm_guard": summary(warm_guard)}


def write_cost(policy: str, writes: int) -> dict[str, Any]:
    """Median ms of single-statement writes, of a CLI correction, and of a snapshot ingest under ``policy``."""
    with tempfile.TemporaryDirectory(prefix=f"rguard-bench-fsync-{policy}-") as tmp:
        d = Path(tmp) / "data"
        os.environ["RGUARD_ENGINE_FSYNC"] = policy
        try:
            from rguard_core.config import Settings
            from rguard_core.db import Store

            store = Store(Settings(data_dir=d, engine_fsync=policy))
            g = store.graph("rguard_test_bench_fsync")
            g.query("CREATE (:T {id: 'root', rev: 0})")
            per_write = []
            for i in range(writes):
                t0 = time.perf_counter()
                g.query("MATCH (t:T {id: 'root'}) WHERE t.rev = $rev SET t.rev = $rev + 1", {"rev": i})
                per_write.append((time.perf_counter() - t0) * 1000)
            store.close()
            timed(d, "memory", "load", str(SCENARIO), "--workspace", "w", RGUARD_ENGINE_FSYNC=policy)
            claims = ("inv1001-paid-portal", "inv1002-paid-portal", "inv1002-paid-bank", "inv1001-amount")
            correct = [
                timed(
                    d,
                    "memory",
                    "correct",
                    c,
                    "--text",
                    "Corrected.",
                    "--by",
                    "b",
                    "--workspace",
                    "w",
                    RGUARD_ENGINE_FSYNC=policy,
                )
                for c in claims
            ]
            ingest = [timed(d, "ingest", "snapshot", str(SNAPSHOT), RGUARD_ENGINE_FSYNC=policy) for _ in range(3)]
        finally:
            os.environ.pop("RGUARD_ENGINE_FSYNC", None)
            timed(d, "engine", "stop")
    return {
        "write_p50_ms": round(statistics.median(per_write), 3),
        "write_p90_ms": round(sorted(per_write)[int(len(per_write) * 0.9)], 3),
        "cli_correct": summary(correct),
        "cli_ingest_snapshot": summary(ingest),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--writes", type=int, default=300)
    args = ap.parse_args()
    results: dict[str, Any] = {"cli": cli_latency(args.runs), "targets_ms": TARGETS_MS, "load_average": os.getloadavg()}
    results["fsync"] = {p: write_cost(p, args.writes) for p in ("always", "everysec")}
    for name, target in TARGETS_MS.items():
        got = results["cli"][name]["wall_p50_ms"]
        print(
            f"{name:<12} wall p50 {got:7.1f} ms  cpu p50 {results['cli'][name]['cpu_p50_ms']:6.1f} ms  "
            f"(target {target} ms{'' if got <= target else ', MISSED'})"
        )
    for p, r in results["fsync"].items():
        print(
            f"fsync {p:<9} write p50 {r['write_p50_ms']} ms, CLI correction p50 {r['cli_correct']['wall_p50_ms']} ms, "
            f"snapshot ingest p50 {r['cli_ingest_snapshot']['wall_p50_ms']} ms"
        )
    out = ROOT / "bench" / "results" / "cli.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

"""Guard latency: graph step and end to end (offline judge), p50/p95, on the demo seed and on a generated
repository of 20,000 PRs; concurrent vs sequential graph queries. Writes bench/results/guard.json.

Run: ``python -m bench.guard [--prs 20000] [--runs 3]``. The generated history is built in memory
(RepoHistory -> build_graph -> write_batch) into a temporary embedded FalkorDB; the end-to-end time is
``run_guard`` from diff text to report (no interpreter start-up).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from rguard_core.config import Settings
from rguard_core.db import Store, open_store
from rguard_core.guard import run_guard
from rguard_core.guard.diffparse import diff_from_patches
from rguard_core.ingest.build import build_graph
from rguard_core.ingest.extract.offline import OfflineExtractor
from rguard_core.ingest.model import FileChange, Issue, Person, PullRequest, RepoHistory
from rguard_core.ingest.writer import write_batch
from rguard_core.schema import ensure_schema
from rguard_core.seed import DEMO_REPO, load_demo

ROOT = Path(__file__).resolve().parent.parent
WORDS = (
    "cache price invoice session token retry webhook export ledger refund account quota limit audit schema "
    "event queue worker report tenant region currency discount"
).split()
TARGETS = {"seed_graph_p50_ms": 30, "large_graph_p50_ms": 100, "seed_total_p50_ms": 150}


def synth_history(n_prs: int, seed: int = 11, n_files: int = 3000, n_people: int = 150) -> RepoHistory:
    """A repository history with hot files (Zipf-like), linked issues, reverts and bots, built in memory."""
    rnd = random.Random(seed)
    hist = RepoHistory(repo="bench/guard20k", url="https://github.com/bench/guard20k")
    people = [f"dev{i}" for i in range(n_people)] + ["renovate[bot]"]
    for p in people:
        hist.people[p] = Person(p, is_bot=p.endswith("[bot]"))
    files = [f"src/{rnd.choice(WORDS)}/{rnd.choice(WORDS)}_{i}.py" for i in range(n_files)]
    weights = [1 / (i + 1) for i in range(n_files)]
    n_issues = n_prs // 4
    for i in range(1, n_issues + 1):
        hist.issues.append(
            Issue(
                i,
                f"{rnd.choice(WORDS).title()} fails under load",
                "It breaks when empty.",
                rnd.choice(people[:-1]),
                rnd.choice(["open", "closed"]),
                created_at="2024-01-01",
            )
        )
    for k in range(n_prs):
        n = n_issues + 1 + k
        a, b, c = rnd.choice(WORDS), rnd.choice(WORDS), rnd.choice(WORDS)
        link = f"Fixes #{rnd.randint(1, n_issues)}" if rnd.random() < 0.5 else f"Refs #{rnd.randint(1, n_issues)}"
        revert = rnd.random() < 0.01 and k > 10
        title = f'Revert "Keep {b} apart from {c}"' if revert else f"Keep {a} apart from {b}"
        body = (
            f"{link}\n\nWe decided to keep the {a} separate from the {b}, because mixing them would leak "
            f"state between tenants. Instead of a global lock we use a per-{a} lock."
        )
        day = f"20{19 + k * 7 // n_prs}-{1 + k % 12:02d}-{1 + k % 28:02d}T12:00:00Z"
        touched = set(rnd.choices(files, weights=weights, k=rnd.randint(1, 3)))
        pr = PullRequest(n, title, body, rnd.choice(people), "closed", True, f"{hist.url}/pull/{n}", day, day, day)
        for path in sorted(touched):
            patch = (
                f"@@ -{k % 200 + 1},4 +{k % 200 + 1},4 @@ def {a}_{b}_{k % 97}(ctx):\n"
                f"     value = ctx.{c}_{k % 13}\n-    return {a}_lock_{k % 50} or None\n"
                f"+    return per_{a}_lock[{b}_id_{k % 31}]\n     # end of {a}\n"
            )
            pr.files.append(FileChange(path, "modified", 1, 1, patch))
        hist.pulls.append(pr)
    return hist


def ingest_synth(store: Store, n_prs: int) -> str:
    hist = synth_history(n_prs)
    graph = store.repo_graph(hist.repo)
    t0 = time.perf_counter()
    batch, cov = build_graph(hist, OfflineExtractor())
    ensure_schema(graph)
    write_batch(graph, batch)
    graph.query(
        "MERGE (r:Repo {id: 'repo'}) SET r.full_name = $r, r.ingested_at = $at",
        {"r": hist.repo, "at": time.strftime("%Y-%m-%dT%H:%M:%S")},
        name="bench.mark",
    )
    print(f"built {n_prs} PRs ({cov.decisions} decisions) in {time.perf_counter() - t0:.1f}s", flush=True)
    return hist.repo


def sample_diffs(store: Store, repo: str, n: int, seed: int = 5) -> list[str]:
    """Stored PRs as diffs, half of them reversed (reverts): what a reviewer would hand the guard."""
    graph = store.repo_graph(repo)
    nums = [r["n"] for r in graph.read("MATCH (p:PR) WHERE p.merged = true RETURN p.number AS n ORDER BY n")]
    rnd = random.Random(seed)
    out = []
    for i, num in enumerate(rnd.sample(nums, min(n, len(nums)))):
        rows = graph.read(
            "MATCH (p:PR {number: $n})-[t:TOUCHES]->(f:File) WHERE t.status <> 'renamed_from' "
            "RETURN f.path AS path, t.status AS status, t.patch AS patch",
            {"n": num},
        )
        if i % 2:
            rows = [{**r, "patch": _reverse(r["patch"] or ""), "status": "modified"} for r in rows]
        if rows:
            out.append(diff_from_patches(rows))
    return out


def _reverse(patch: str) -> str:
    lines = []
    for line in patch.splitlines():
        if line.startswith("@@"):
            m = re.match(r"@@ -(\d+(?:,\d+)?) \+(\d+(?:,\d+)?) @@(.*)", line)
            lines.append(f"@@ -{m.group(2)} +{m.group(1)} @@{m.group(3)}" if m else line)
        elif line[:1] == "+":
            lines.append("-" + line[1:])
        elif line[:1] == "-":
            lines.append("+" + line[1:])
        else:
            lines.append(line)
    return "\n".join(lines)


def measure(store: Store, repo: str, diffs: list[str], runs: int, mode: str) -> dict[str, Any]:
    graph_ms: list[float] = []
    total_ms: list[float] = []
    queries = 0
    for _ in range(runs):
        for d in diffs:
            t0 = time.perf_counter()
            rep = run_guard(store, repo, d, mode=mode)  # type: ignore[arg-type]
            total_ms.append((time.perf_counter() - t0) * 1000)
            graph_ms.append(rep.timings_ms["graph"])
            queries = max(queries, len(rep.cypher))
    return {
        "mode": mode,
        "diffs": len(diffs),
        "runs": runs,
        "graph_p50_ms": _pct(graph_ms, 50),
        "graph_p95_ms": _pct(graph_ms, 95),
        "total_p50_ms": _pct(total_ms, 50),
        "total_p95_ms": _pct(total_ms, 95),
        "max_queries": queries,
    }


def _pct(xs: list[float], p: int) -> float:
    xs = sorted(xs)
    if not xs:
        return 0.0
    if p == 50:
        return round(statistics.median(xs), 2)
    return round(xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))], 2)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--prs", type=int, default=20_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--diffs", type=int, default=40)
    args = ap.parse_args()
    results: dict[str, Any] = {"targets_ms": TARGETS}
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Settings(data_dir=Path(tmp) / "data"))
        load_demo(store)
        seed_diffs = sample_diffs(store, DEMO_REPO, args.diffs)
        for d in seed_diffs[:3]:
            run_guard(store, DEMO_REPO, d)  # warm the query cache
        results["seed"] = {m: measure(store, DEMO_REPO, seed_diffs, args.runs, m) for m in ("concurrent", "sequential")}
        repo = ingest_synth(store, args.prs)
        big_diffs = sample_diffs(store, repo, args.diffs)
        for d in big_diffs[:3]:
            run_guard(store, repo, d)
        results[f"synthetic_{args.prs}"] = {
            m: measure(store, repo, big_diffs, args.runs, m) for m in ("concurrent", "sequential")
        }
        store.close()
    best_seed = min(results["seed"].values(), key=lambda r: r["graph_p50_ms"])
    best_big = min(results[f"synthetic_{args.prs}"].values(), key=lambda r: r["graph_p50_ms"])
    results["met"] = {
        "seed_graph_p50": best_seed["graph_p50_ms"] <= TARGETS["seed_graph_p50_ms"],
        "large_graph_p50": best_big["graph_p50_ms"] <= TARGETS["large_graph_p50_ms"],
        "seed_total_p50": best_seed["total_p50_ms"] <= TARGETS["seed_total_p50_ms"],
    }
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "guard.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

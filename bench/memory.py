"""Memory benchmark: quarantine + recompute and correction time on graphs of 1k, 10k and 100k claims,
each change touching a small region of the same size. The time should follow the region, not the graph.

Run: ``python -m bench.memory [--sizes 1000,10000,100000] [--repeat 5]``. Writes bench/results/memory.json.
The full recompute (the whole graph, what a naive engine does on every change) is timed for contrast.

Each quarantine is split into its reads (the region) and its one compare-and-set write. FalkorDB 4.18 charges
every write that creates a node and updates existing ones a cost linear in the graph's node count (about 25 ns
per node, measured here as ``engine_floor_ms``: one CREATE plus one SET, nothing of RGuard's); a step records
an Incident or Correction node, so that floor is part of its write. Everything else follows the region.
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
from rguard_core.db import Graph, QueryLog, Store, open_store
from rguard_core.memory import apply_correction, load_scenario, preview_correction, quarantine_source, recompute

ROOT = Path(__file__).resolve().parent.parent
PER_CLUSTER = 10  # claims per cluster: 8 observations of one source + 2 derived claims


def scenario(n_claims: int) -> dict[str, Any]:
    """Clusters of 8 observations (one source each) and 2 derived claims; each cluster's second derived claim
    also rests on the NEXT cluster's first observation, so a change crosses into one neighbour and stops."""
    k = max(2, n_claims // PER_CLUSTER)
    sc: dict[str, Any] = {"sources": [], "claims": [], "justifications": [], "decisions": [], "actions": []}
    for i in range(k):
        facts = [f"fact {i}.{j} holds" for j in range(8)]
        sc["sources"].append(
            {
                "id": f"s{i}",
                "kind": "doc",
                "title": f"record {i}",
                "text": "; ".join(facts),
                "derived_from": [f"s{i - 1}"] if i % 3 == 2 else [],
            }
        )
        for j, f in enumerate(facts):
            sc["claims"].append({"id": f"c{i}.{j}", "statement": f, "source": f"s{i}", "quote": f})
        sc["claims"] += [{"id": f"x{i}", "statement": f"summary {i}"}, {"id": f"y{i}", "statement": f"outlook {i}"}]
        nxt = (i + 1) % k
        sc["justifications"] += [
            {"conclusion": f"x{i}", "premises": [f"c{i}.0", f"c{i}.1", f"c{i}.2"]},
            {"conclusion": f"x{i}", "premises": [f"c{i}.3", f"c{i}.4"]},
            {"conclusion": f"y{i}", "premises": [f"x{i}", f"c{i}.5"]},
            {"conclusion": f"y{i}", "premises": [f"c{nxt}.6"]},
            {"conclusion": f"d{i}", "premises": [f"x{i}"]},
            {"conclusion": f"e{i}", "premises": [f"y{i}", f"c{i}.7"]},
        ]
        sc["decisions"] += [{"id": f"d{i}", "summary": f"decision {i}"}, {"id": f"e{i}", "summary": f"plan {i}"}]
        sc["actions"].append({"id": f"a{i}", "summary": f"act {i}", "decision": f"d{i}", "executed": i % 2 == 0})
    return sc


def timed(fn: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t0) * 1000, out


def measure(store: Store, n_claims: int, repeat: int) -> dict[str, Any]:
    sc = scenario(n_claims)
    ws = f"bench-{n_claims}"
    load_ms, _ = timed(lambda: load_scenario(store, sc, workspace=ws))
    graph: Graph = store.workspace_graph(ws)
    k = len(sc["sources"])
    q_ms, q_queries, regions, reads, writes = [], [], [], [], []
    for r in range(repeat):
        log = QueryLog()
        ms, res = timed(lambda r=r, log=log: quarantine_source(graph.with_log(log), f"s{(r * 7919) % k}", by="bench"))
        q_ms.append(ms)
        q_queries.append(len(log.records))
        regions.append(res.report.region["claims"] + res.report.region["decisions"])
        writes.append(sum(x.ms for x in log.records if x.name == "memory.quarantine"))
        reads.append(sum(x.ms for x in log.records if x.name != "memory.quarantine"))
    floor = []
    for r in range(repeat):
        ms, _ = timed(
            lambda r=r: graph.query(
                "CREATE (:BenchProbe {id: $id}) WITH count(*) AS _ MATCH (d:Decision {id: $d}) SET d.probe = $id",
                {"id": f"probe{r}", "d": f"d{r}"},
                name="bench.floor",
            )
        )
        floor.append(ms)
    c_ms = []
    for r in range(repeat):
        cid = f"c{(r * 104729 + 3) % k}.{r % 8}"
        ms, _ = timed(
            lambda cid=cid: apply_correction(
                graph,
                cid,
                f"{cid} was wrong",
                "bench",
                preview=preview_correction(graph, cid, f"{cid} was wrong", "bench"),
            )
        )
        c_ms.append(ms)
    full_ms, _ = timed(lambda: recompute(graph))
    graph.delete()
    return {
        "claims": len(sc["claims"]),
        "load_ms": round(load_ms, 1),
        "quarantine_ms_median": round(statistics.median(q_ms), 2),
        "quarantine_ms_max": round(max(q_ms), 2),
        "queries_per_quarantine": max(q_queries),
        "region_nodes": max(regions),
        "quarantine_reads_ms": round(statistics.median(reads), 2),
        "quarantine_write_ms": round(statistics.median(writes), 2),
        "engine_floor_ms": round(statistics.median(floor), 2),
        "correction_ms_median": round(statistics.median(c_ms), 2),
        "full_recompute_ms": round(full_ms, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Settings(data_dir=Path(tmp) / "data"))
        for n in sizes:
            rows.append(measure(store, n, args.repeat))
            print(f"  measured {n} claims", flush=True)
        store.close()
    head = [
        "claims",
        "region_nodes",
        "queries_per_quarantine",
        "quarantine_ms_median",
        "quarantine_reads_ms",
        "quarantine_write_ms",
        "engine_floor_ms",
        "correction_ms_median",
        "full_recompute_ms",
        "load_ms",
    ]
    short = ["claims", "region", "queries", "quarantine", "q.reads", "q.write", "engine", "correction", "full", "load"]
    print("times in ms (medians); engine = FalkorDB's own CREATE+SET cost at that graph size")
    print(" | ".join(f"{h:>10}" for h in short))
    for r in rows:
        print(" | ".join(f"{r[h]:>10}" for h in head))
    ratio = rows[-1]["quarantine_ms_median"] / max(rows[0]["quarantine_ms_median"], 1e-9)
    reads_ratio = rows[-1]["quarantine_reads_ms"] / max(rows[0]["quarantine_reads_ms"], 1e-9)
    size_ratio = rows[-1]["claims"] / rows[0]["claims"]
    print(
        f"graph {size_ratio:.0f}x larger -> quarantine {ratio:.2f}x the time, its region reads {reads_ratio:.2f}x "
        f"(full recompute: {rows[-1]['full_recompute_ms'] / max(rows[0]['full_recompute_ms'], 1e-9):.0f}x)"
    )
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "memory.json").write_text(
        json.dumps(
            {
                "rows": rows,
                "quarantine_time_ratio": round(ratio, 2),
                "reads_ratio": round(reads_ratio, 2),
                "graph_size_ratio": size_ratio,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()

"""Decision graph benchmark on a generated 20,000-PR repository: the view per filter, node detail, blast radius,
"why", and the whole Decision graph page rendered by AppTest (it must render without an exception).

Run: ``python -m bench.views [--prs 20000] [--data-dir DIR] [--repeat 5]``. With ``--data-dir`` the ingested
graph is kept and reused by later runs (ingesting 20k PRs takes about a minute). Writes bench/results/views.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rguard_core.config import Settings
from rguard_core.db import Store, open_store
from rguard_core.explore.focus import decision_rows, focus_view, overview_view, search
from rguard_core.explore.graph_view import ViewFilter, build_view
from rguard_core.explore.node_detail import blast_radius, node_detail
from rguard_core.explore.why import why
from rguard_core.ingest.pipeline import ingest_snapshot

from .synth import synth_snapshot

ROOT = Path(__file__).resolve().parent.parent
REPO = "bench/synthetic"
LIMIT_S = 1.0  # the bar for a filtered view on the 20k-PR graph

FILTERS = {
    "default (newest, cap 150)": ViewFilter(),
    "file path": ViewFilter(file_path="src/cache"),
    "status": ViewFilter(statuses=("holds",)),
    "source kind": ViewFilter(source_kinds=("issue",)),
    "date range": ViewFilter(date_from="2025-03-01", date_to="2025-03-31"),
    "text": ViewFilter(text="invoice"),
    "all filters": ViewFilter(
        file_path="src/",
        statuses=("holds",),
        source_kinds=("pr", "issue"),
        date_from="2025-01-01",
        date_to="2025-06-30",
        text="cache",
    ),
    "show more (cap 750)": ViewFilter(cap=750),
}


def timed(fn: Callable[[], Any], repeat: int) -> tuple[dict[str, float], Any]:
    """Median and max wall time of ``repeat`` calls (after one warm-up call), and the last result."""
    result = fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return {"median_s": round(statistics.median(times), 4), "max_s": round(max(times), 4)}, result


def ensure_graph(store: Store, prs: int, work: Path) -> dict[str, Any]:
    graph = store.repo_graph(REPO)
    rows = graph.read("MATCH (p:PR) RETURN count(p) AS n", name="bench.prs")
    if rows and rows[0]["n"] >= prs:
        return {"ingested_now": False, "prs": rows[0]["n"]}
    graph.delete()
    t0 = time.perf_counter()
    res = ingest_snapshot(store, synth_snapshot(work / "synth", prs), repo=REPO)
    return {"ingested_now": True, "prs": res.coverage.pulls, "ingest_s": round(time.perf_counter() - t0, 1)}


def measure(store: Store, repeat: int) -> dict[str, Any]:
    out: dict[str, Any] = {"views": {}}
    for name, flt in FILTERS.items():
        t, view = timed(lambda flt=flt: build_view(store, REPO, flt), repeat)
        out["views"][name] = {
            **t,
            "decisions_total": view.decisions_total,
            "decisions_shown": view.decisions_shown,
            "nodes": len(view.nodes),
            "edges": len(view.edges),
            "under_1s": t["max_s"] < LIMIT_S,
        }
    view = build_view(store, REPO)
    decision = next(n.id for n in view.nodes if n.type == "decision")
    source = next(n.id for n in view.nodes if n.type == "source" and n.kind == "issue")
    out["node_detail"], _ = timed(lambda: node_detail(store, REPO, decision), repeat)
    out["blast_radius_of_issue"], b = timed(lambda: blast_radius(store, REPO, source), repeat)
    out["blast_radius_of_issue"]["decisions"] = len(b.decisions)
    out["why"], ans = timed(
        lambda: why(store, REPO, "why do we use a per-tenant lock instead of a global lock?"), repeat
    )
    out["why"].update(mode=ans.mode, decisions=len(ans.decisions))
    out["overview_by_directory"], ov = timed(lambda: overview_view(store, REPO), repeat)
    out["overview_by_directory"].update(nodes=len(ov.nodes), decisions=ov.decisions_total)
    out["search_by_number"], hits = timed(lambda: search(store, REPO, f"#{decision.rsplit(':', 1)[-1]}"), repeat)
    out["focus_2_hops"], fv = timed(lambda: focus_view(store, REPO, decision, 2), repeat)
    out["focus_2_hops"]["nodes"] = len(fv.nodes)
    out["list_500_rows"], _ = timed(lambda: decision_rows(store, REPO, ov.hidden[:500]), repeat)
    return out


def render_page(data_dir: Path) -> dict[str, Any]:
    """The Decision graph page through AppTest on this store: it must render without an exception."""
    from streamlit.testing.v1 import AppTest

    os.environ["RGUARD_DATA_DIR"] = str(data_dir)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["repo"] = REPO
    at.run()
    t0 = time.perf_counter()
    at.switch_page("pages/decision_graph.py").run()
    secs = time.perf_counter() - t0
    return {
        "seconds": round(secs, 3),
        "exception": [e.value for e in at.exception],
        "errors": [e.value for e in at.error],
        "captions": [c.value for c in at.caption][:3],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--prs", type=int, default=20_000)
    ap.add_argument("--data-dir", type=Path, help="keep (and reuse) the ingested graph here")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.data_dir or Path(tmp) / "data"
        store = open_store(Settings(data_dir=data_dir))
        results: dict[str, Any] = {"graph": ensure_graph(store, args.prs, Path(tmp))}
        counts = store.repo_graph(REPO).read(
            "MATCH (d:Decision) WITH count(d) AS d MATCH (c:Claim) RETURN d, count(c) AS c", name="bench.counts"
        )[0]
        results["graph"].update(decisions=counts["d"], claims=counts["c"])
        results.update(measure(store, args.repeat))
        results["page"] = render_page(data_dir)
        results["all_views_under_1s"] = all(v["under_1s"] for v in results["views"].values())
        store.close()
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "views.json").write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

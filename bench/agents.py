"""Agent surfaces on the demo seed: MCP tool-call latency (in-process, SDK client) and pre-commit wall time.

Run: ``python -m bench.agents [--runs 20]``. Uses a temporary embedded FalkorDB holding the demo seed.
- MCP: p50/p95 of each read tool through ``mcp.Client`` connected in-process (the server's own dispatch,
  argument validation and result conversion included; no interpreter start-up);
- pre-commit: wall time of ``python -m rguard_core precommit`` as a subprocess in a git repository with one
  staged edit, while this process keeps the embedded engine running (a warm engine), and the in-process
  guard of the same staged diff (no interpreter start-up). Writes bench/results/agents.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import Client

from rguard_core.config import Settings
from rguard_core.db import open_store
from rguard_core.guard import run_guard
from rguard_core.mcp_server import ServerConfig, build_server
from rguard_core.precommit import staged_change
from rguard_core.seed import DEMO_REPO, load_demo

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / "seeds" / "demo" / "tree"
EDIT = ("tollgate/pricing.py", "    return PRICES.get(meter)\n", "    return PRICES.get(meter, 0)\n")


def edit_diff(path: str, old: str, new: str) -> str:
    import difflib

    before = (TREE / path).read_text(encoding="utf-8")
    after = before.replace(old, new)
    body = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path}", f"b/{path}", n=3
    )
    return f"diff --git a/{path} b/{path}\n" + "".join(body)


TARGETS = {"mcp_guard_diff_p50_ms": 100, "precommit_wall_p50_ms": 1000}


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def summary(xs: list[float]) -> dict[str, float]:
    return {"p50_ms": round(statistics.median(xs), 2), "p95_ms": round(pct(xs, 0.95), 2), "n": len(xs)}


def bench_mcp(settings: Settings, runs: int) -> dict[str, Any]:
    calls: dict[str, dict[str, Any]] = {
        "list_repos": {},
        "guard_diff": {"repo": DEMO_REPO, "diff": edit_diff(*EDIT)},
        "why": {"repo": DEMO_REPO, "question": "why do we keep unknown prices as null?"},
        "who_knows": {"repo": DEMO_REPO, "files": ["tollgate/pricing.py", "tollgate/sessions.py"]},
        "check_premises": {"repo": DEMO_REPO, "decision_ids": ["decision:pr:20", "decision:pr:11"]},
    }
    server = build_server(ServerConfig(settings=settings))

    async def go() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with Client(server) as client:
            for name, args in calls.items():
                first = time.perf_counter()
                res = await client.call_tool(name, args)
                cold = (time.perf_counter() - first) * 1000
                assert not res.is_error, res.content
                times = []
                for _ in range(runs):
                    t0 = time.perf_counter()
                    await client.call_tool(name, args)
                    times.append((time.perf_counter() - t0) * 1000)
                out[name] = {**summary(times), "first_call_ms": round(cold, 2)}
        return out

    return asyncio.run(go())


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def bench_precommit(settings: Settings, runs: int, work: Path) -> dict[str, Any]:
    repo = work / "tollgate"
    shutil.copytree(TREE, repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.email=b@e.c", "-c", "user.name=b", "-c", "commit.gpgsign=false", "add", "-A")
    git(repo, "-c", "user.email=b@e.c", "-c", "user.name=b", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "t")
    path, old, new = EDIT
    (repo / path).write_text((repo / path).read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    git(repo, "add", path)
    env = {**os.environ, "RGUARD_DATA_DIR": str(settings.data_dir), "PYTHONPATH": str(ROOT)}
    env.pop("FALKORDB_URL", None)
    wall = []
    for _ in range(runs):
        t0 = time.perf_counter()
        res = subprocess.run(
            [sys.executable, "-m", "rguard_core", "precommit", "--repo", DEMO_REPO, "--fail-on-warn"],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        wall.append((time.perf_counter() - t0) * 1000)
        assert res.returncode == 3, res.stdout + res.stderr
    inproc = []
    store = open_store(settings)
    for _ in range(runs):
        t0 = time.perf_counter()
        change = staged_change(repo, DEMO_REPO)
        report = run_guard(store, change.repo, change.diff)
        inproc.append((time.perf_counter() - t0) * 1000)
        assert report.verdict == "warn"
    return {"subprocess_wall": summary(wall), "in_process": summary(inproc)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rguard-bench-agents-") as tmp:
        settings = Settings(data_dir=Path(tmp) / "data")
        store = open_store(settings)
        try:
            load_demo(store)
            result = {
                "mcp_in_process": bench_mcp(settings, args.runs),
                "precommit": bench_precommit(settings, max(3, args.runs // 4), Path(tmp)),
            }
        finally:
            store.close()
    result["targets"] = TARGETS
    result["meets"] = {
        "mcp_guard_diff_p50_ms": result["mcp_in_process"]["guard_diff"]["p50_ms"] <= TARGETS["mcp_guard_diff_p50_ms"],
        "precommit_wall_p50_ms": result["precommit"]["subprocess_wall"]["p50_ms"] <= TARGETS["precommit_wall_p50_ms"],
    }
    out = ROOT / "bench" / "results" / "agents.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

"""16 CLI processes on one data dir at once — corrections, quarantines, feedback and two ingests — share one engine:
every write a process acknowledged is in the graph afterwards (also after the engine is SIGKILLed), a lost
compare-and-set is reported as a conflict, and nothing else fails."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.test_engine import ROOT, SCENARIO, SNAPSHOT, cli, data_dir, env_for, kill_engine, ok_json, servers_for

__all__ = ["data_dir"]  # the fixture, shared with test_engine

QUARANTINE_SOURCES = ("portal-page", "bank-statement-march", "ap-ledger", "portal-page")
QUOTED_BY = {
    "portal-page": "inv1001-paid-portal",
    "bank-statement-march": "inv1002-paid-bank",
    "ap-ledger": "inv1001-amount",
}


def test_sixteen_processes_lose_no_acknowledged_write(data_dir: Path, tmp_path: Path) -> None:
    repo = ok_json(data_dir, "ingest", "snapshot", str(SNAPSHOT))["repo"]
    for i in range(len(QUARANTINE_SOURCES)):
        assert cli(data_dir, "memory", "load", str(SCENARIO), "--workspace", f"q{i}").returncode == 0
    claims = sorted(
        c
        for c, v in ok_json(data_dir, "memory", "status", "--repo", repo)["claims"].items()
        if v["holds"] and v.get("sources")
    )
    decisions = sorted(ok_json(data_dir, "memory", "status", "--repo", repo)["decisions"])
    assert len(claims) >= 7 and len(decisions) >= 3
    other = tmp_path / "other"
    (other / "repos" / "acme").mkdir(parents=True)
    for name in ("other", "third"):
        (other / "repos" / "acme" / name).symlink_to(SNAPSHOT / "repos" / "acme" / "ledger", target_is_directory=True)

    jobs: list[tuple[str, list[str]]] = []
    for c in claims[:6]:  # six reviewers correct six different claims
        jobs.append(
            (
                f"correct:{c}",
                ["memory", "correct", c, "--text", f"Not so: {c}.", "--by", "rv", "--repo", repo, "--json"],
            )
        )
    for n in range(2):  # two reviewers correct the same claim from the same previewed revision: one must lose
        jobs.append(
            (
                f"race:{n}",
                [
                    "memory",
                    "correct",
                    claims[6],
                    "--text",
                    f"Race {n}.",
                    "--by",
                    f"r{n}",
                    "--repo",
                    repo,
                    "--revision",
                    "0",
                    "--json",
                ],
            )
        )
    for i, src in enumerate(QUARANTINE_SOURCES):
        jobs.append(
            (
                f"quarantine:q{i}",
                ["memory", "quarantine", src, "--workspace", f"q{i}", "--reason", "forged", "--by", "sec", "--json"],
            )
        )
    for d in decisions[:2]:
        jobs.append(
            (
                f"feedback:{d}",
                ["feedback", "--repo", repo, "--decision", d, "--kind", "ack", "--by", "fb", "--reason", "checked"],
            )
        )
    for name in ("other", "third"):  # two ingests of different repositories at once
        jobs.append((f"ingest:{name}", ["ingest", "snapshot", str(other), "--repo", f"acme/{name}", "--json"]))
    assert len(jobs) == 16

    procs = [
        (
            name,
            subprocess.Popen(
                [sys.executable, "-m", "rguard_core", *args],
                env=env_for(data_dir),
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            ),
        )
        for name, args in jobs
    ]
    results = {name: (p.wait(timeout=240), *p.communicate()) for name, p in procs}
    assert len(servers_for(data_dir)) == 1

    conflicts = {
        n for n, (code, _, err) in results.items() if code == 2 and ("preview again" in err or "changed" in err)
    }
    failures = {n: err for n, (code, _, err) in results.items() if code != 0 and n not in conflicts}
    assert failures == {}, failures
    race = [n for n in ("race:0", "race:1") if n not in conflicts]
    assert len(race) <= 1, "two applies from one previewed revision"

    kill_engine(data_dir)  # acknowledged means on disk: check after a SIGKILL, on a fresh engine
    st = ok_json(data_dir, "memory", "status", "--repo", repo)
    for name, (code, out, _) in results.items():
        if code != 0:
            continue
        if name.startswith("correct:") or name.startswith("race:"):
            claim = json.loads(out)["claim"]
            assert st["claims"][claim]["holds"] is False, f"{name} printed applied but its claim still holds"
        elif name.startswith("quarantine:"):
            i = int(name.split(":q")[1])
            assert json.loads(out)["incident"]
            q = ok_json(data_dir, "memory", "status", "--workspace", f"q{i}")
            assert q["claims"][QUOTED_BY[QUARANTINE_SOURCES[i]]]["holds"] is False, f"{name} acknowledged, then lost"
    export = ok_json(data_dir, "export", "--repo", repo)
    acked = {n["props"]["target_id"] for n in export["nodes"] if n["props"].get("kind") == "ack"}
    assert {d for d in decisions[:2] if results[f"feedback:{d}"][0] == 0} <= acked
    listed = ok_json(data_dir, "repos")["repos"]
    for name in ("other", "third"):
        assert f"acme/{name}" in listed
        nodes = ok_json(data_dir, "export", "--repo", f"acme/{name}")["nodes"]
        assert sum("Decision" in n["labels"] for n in nodes) == sum("Decision" in n["labels"] for n in export["nodes"])

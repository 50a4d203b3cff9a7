"""The guard's yardstick in one command: every labelled set and a replay of every dev history, one table.

Run: ``make guard-gate`` (or ``python -m bench.guard_gate [--shared DIR] [--ordinary 100] [--seed 3] [--json OUT]``).

It does what a user would, through the CLI, in a scratch data dir it deletes at the end:
- labelled sets: ingests the starlette snapshot and the demo seed, then ``eval guard --cases`` for
  ``../shared/realdata/cases/starlette.yaml``, ``eval/tuning_*.yaml``, every ``eval/blind*_starlette.yaml`` and
  ``eval/cases.yaml`` (undos caught citing the right change, benign edits warned);
- replay: ``eval replay --ordinary N --reverts 60 --seed S`` on a fresh clone of each bundle in
  ``../shared/realdata/git/`` (flask, axios, zod), on the starlette snapshot, and on a clone of this repository
  (code reverts caught, ordinary changes warned, guard errors).

Targets (issue #26): ordinary warned <= 10 % on every history, code reverts caught >= 0.9 where there are any,
0 errors; every labelled set together: undos caught >= 0.9, benign warned <= 5 %. Exit 1 when one is missed.
All of these are dev figures (the rules were fitted on them); the blind read of the warnings is kept apart, in
rguard_core/guard/README.md ("Precision rounds").
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ORDINARY_MAX = 0.10
REVERTS_MIN = 0.9
RECALL_MIN = 0.9
BENIGN_MAX = 0.05
STARLETTE = "Kludex/starlette"


def _cli(env: dict[str, str], *args: str) -> Any:
    out = subprocess.run(
        [sys.executable, "-m", "rguard_core", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if out.returncode != 0:
        raise SystemExit(f"guard-gate: `rguard {' '.join(args)}` failed ({out.returncode}): {out.stderr.strip()}")
    return json.loads(out.stdout) if "--json" in args else out.stdout


def labelled(env: dict[str, str], shared: Path) -> list[dict[str, Any]]:
    _cli(env, "ingest", "snapshot", str(shared / "realdata" / "github"), "--repo", STARLETTE, "--json")
    _cli(env, "seed", "--json")
    files = [shared / "realdata" / "cases" / "starlette.yaml", *sorted((ROOT / "eval").glob("tuning_*.yaml"))]
    files += sorted((ROOT / "eval").glob("blind*_starlette.yaml"), key=lambda p: (len(p.name), p.name))
    files.append(ROOT / "eval" / "cases.yaml")
    rows = []
    for f in files:
        d = _cli(env, "eval", "guard", "--cases", str(f), "--no-save", "--json")
        undos = [c for c in d["cases"] if c.get("label") == "contradicts"]
        benign = [c for c in d["cases"] if c.get("label") != "contradicts"]
        rows.append(
            {
                "set": f.name,
                "undos": len(undos),
                "caught": sum(1 for c in undos if c.get("ok")),
                "benign": len(benign),
                "warned": sum(1 for c in benign if c.get("verdict") == "warn"),
            }
        )
        print(
            f"  {f.name:28s} undos {rows[-1]['caught']}/{rows[-1]['undos']}  benign warned "
            f"{rows[-1]['warned']}/{rows[-1]['benign']}",
            flush=True,
        )
    return rows


def replays(env: dict[str, str], shared: Path, work: Path, ordinary: int, seed: int) -> list[dict[str, Any]]:
    sources: list[tuple[str, list[str]]] = []
    for bundle in sorted((shared / "realdata" / "git").glob("*.bundle")):
        clone = work / bundle.stem
        subprocess.run(["git", "clone", "-q", str(bundle), str(clone)], check=True)
        sources.append((bundle.stem, ["--git", str(clone)]))
    sources.append(("starlette", ["--snapshot", str(shared / "realdata" / "github")]))
    own = work / "rguard"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(own)], check=True)
    sources.append(("rguard (this repo)", ["--git", str(own)]))
    rows = []
    for name, src in sources:
        d = _cli(
            env,
            "eval",
            "replay",
            *src,
            "--reverts",
            "60",
            "--ordinary",
            str(ordinary),
            "--seed",
            str(seed),
            "--no-save",
            "--json",
        )
        m = d["metrics"]
        ordinary_cases = [c for c in d["cases"] if c["kind"] == "ordinary"]
        errors = sum(1 for c in d["cases"] if c.get("error"))
        code = [c for c in d["cases"] if c["kind"] == "revert" and c.get("scope") == "code"]
        rows.append(
            {
                "history": name,
                "steps": m["steps"],
                "code_reverts": len(code),
                "caught": sum(1 for c in code if c.get("caught")),
                "ordinary": len([c for c in ordinary_cases if not c.get("error")]),
                "warned": m["ordinary_warned"],
                "errors": errors,
                "rules": m["rules"].get("ordinary_warned", {}),
            }
        )
        r = rows[-1]
        print(
            f"  {name:20s} code reverts {r['caught']}/{r['code_reverts']}  ordinary warned "
            f"{r['warned']}/{r['ordinary']}  errors {errors}",
            flush=True,
        )
    return rows


def verdicts(lab: list[dict[str, Any]], rep: list[dict[str, Any]]) -> list[str]:
    missed = []
    undos, caught = sum(r["undos"] for r in lab), sum(r["caught"] for r in lab)
    benign, warned = sum(r["benign"] for r in lab), sum(r["warned"] for r in lab)
    if undos and caught / undos < RECALL_MIN:
        missed.append(f"labelled undos caught {caught}/{undos} < {RECALL_MIN:.0%}")
    if benign and warned / benign > BENIGN_MAX:
        missed.append(f"labelled benign warned {warned}/{benign} > {BENIGN_MAX:.0%}")
    for r in rep:
        if r["ordinary"] and r["warned"] / r["ordinary"] > ORDINARY_MAX:
            missed.append(f"{r['history']}: ordinary warned {r['warned']}/{r['ordinary']} > {ORDINARY_MAX:.0%}")
        if r["code_reverts"] and r["caught"] / r["code_reverts"] < REVERTS_MIN:
            missed.append(f"{r['history']}: code reverts {r['caught']}/{r['code_reverts']} < {REVERTS_MIN:.0%}")
        if r["errors"]:
            missed.append(f"{r['history']}: {r['errors']} guard error(s)")
    return missed


def table(lab: list[dict[str, Any]], rep: list[dict[str, Any]]) -> str:
    out = [
        "| history | commits/PRs | code reverts caught | ordinary warned | errors | rules behind the warnings |",
        "|---|---|---|---|---|---|",
    ]
    for r in rep:
        rules = ", ".join(f"{k} {v}" for k, v in sorted(r["rules"].items(), key=lambda kv: -kv[1])) or "-"
        caught = f"{r['caught']}/{r['code_reverts']}" if r["code_reverts"] else "- (none)"
        out.append(
            f"| {r['history']} | {r['steps']} | {caught} | {r['warned']}/{r['ordinary']} | {r['errors']} | {rules} |"
        )
    undos, caught = sum(r["undos"] for r in lab), sum(r["caught"] for r in lab)
    benign, warned = sum(r["benign"] for r in lab), sum(r["warned"] for r in lab)
    out.append("")
    out.append(
        f"labelled sets ({len(lab)} files): undos caught {caught}/{undos} = {caught / max(undos, 1):.3f}, "
        f"benign warned {warned}/{benign} = {warned / max(benign, 1):.3f}"
    )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.guard_gate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared", help="the shared folder (realdata/)")
    ap.add_argument("--ordinary", type=int, default=100)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    args = ap.parse_args(argv)
    if not (args.shared / "realdata" / "git").is_dir():
        print(f"guard-gate: no {args.shared / 'realdata' / 'git'}; pass --shared DIR", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="rguard-gate-"))
    env = {**os.environ, "RGUARD_DATA_DIR": str(work / "data")}
    env.pop("FALKORDB_URL", None)
    try:
        print("labelled sets", flush=True)
        lab = labelled(env, args.shared)
        print("replays", flush=True)
        rep = replays(env, args.shared, work, args.ordinary, args.seed)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print()
    print(table(lab, rep))
    missed = verdicts(lab, rep)
    if args.json:
        args.json.write_text(json.dumps({"labelled": lab, "replays": rep, "missed": missed}, indent=1))
    for m in missed:
        print(f"MISSED {m}")
    print("guard-gate: " + ("every target met" if not missed else f"{len(missed)} target(s) missed"))
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())

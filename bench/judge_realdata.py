"""The offline judge on real history: replay a snapshot PR by PR in merge order.

For each PR k, the PRs merged before it are ingested into a fresh graph and PR k's own diff (rebuilt from
its ``files.json`` patches) is guarded, exactly as a CI run on that PR would have seen the repository.
A PR whose title or body says it reverts another is a *revert* case (caught = warn citing the reverted
PR); every other PR is an *ordinary* case (goal: no warn). Also runs a labelled cases file if given.

Run: ``python -m bench.judge_realdata [--snapshot DIR] [--cases FILE ...] [--json OUT]``
(uses ``RGUARD_DATA_DIR`` for its embedded engine; the graph it writes is deleted at the end).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rguard_core.config import Settings
from rguard_core.db import Store, open_store
from rguard_core.guard import run_guard
from rguard_core.guard.diffparse import diff_from_patches
from rguard_core.ingest.collect import collect_history
from rguard_core.ingest.extract.offline import OfflineExtractor
from rguard_core.ingest.pipeline import ingest_history
from rguard_core.ingest.rest import Json, SnapshotSource

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT.parent / "shared" / "realdata" / "github"
REVERTS = re.compile(r"(?i)\brevert(?:s|ed)?\b[^\n#]{0,80}#(\d+)|this reverts (?:commit )?#?(\d+)")


class _Before(SnapshotSource):
    """A snapshot that lists only the given PR numbers (those merged before the PR being guarded)."""

    def __init__(self, root: Path, repo: str | None, keep: set[int]) -> None:
        super().__init__(root, repo)
        self.keep = keep

    def list_pulls(self, max_prs: int) -> Iterator[Json]:
        for pr in super().list_pulls(max_prs):
            if pr["number"] in self.keep:
                yield pr


def reverted_of(pr: Json) -> int | None:
    """The PR number this PR says it reverts, if its title starts with Revert or its body says so."""
    text = f"{pr.get('title') or ''}\n{pr.get('body') or ''}"
    if not re.match(r"(?i)\s*revert", pr.get("title") or "") and "reverts" not in text.lower():
        return None
    m = REVERTS.search(text)
    return int(m.group(1) or m.group(2)) if m else None


def pr_diff(src: SnapshotSource, n: int) -> str:
    rows = [
        {
            "path": f["filename"],
            "status": f.get("status") or "modified",
            "patch": f.get("patch") or "",
            "previous_path": f.get("previous_filename"),
        }
        for f in src.pull_files(n)
    ]
    return diff_from_patches(rows)


def replay(store: Store, root: Path, repo: str | None = None) -> dict[str, Any]:
    src = SnapshotSource(root, repo)
    pulls = [p for p in src.list_pulls(100_000) if p.get("merged_at")]
    pulls.sort(key=lambda p: (p["merged_at"], p["number"]))
    cases: list[dict[str, Any]] = []
    for i, pr in enumerate(pulls):
        if i == 0:
            continue
        keep = {p["number"] for p in pulls[:i]}
        graph = store.repo_graph(src.repo)
        if graph.exists():
            graph.delete()
        hist = collect_history(_Before(root, repo, keep), max_prs=100_000)
        ingest_history(store, hist, OfflineExtractor(), "judge-replay")
        t0 = time.perf_counter()
        rep = run_guard(store, src.repo, pr_diff(src, pr["number"]))
        ms = (time.perf_counter() - t0) * 1000
        target = reverted_of(pr)
        contra = [f for f in rep.findings if f.label == "contradicts"]
        cited = [f.source.get("number") for f in contra]
        cases.append(
            {
                "pr": pr["number"],
                "title": pr.get("title"),
                "kind": "revert" if target in keep else "ordinary",
                "reverts": target,
                "verdict": rep.verdict,
                "cited": cited,
                "caught": target in cited if target else None,
                "rules": [[r["id"] for r in f.rules] for f in contra],
                "reasons": [f.reason for f in contra],
                "ms": round(ms, 1),
            }
        )
    store.repo_graph(src.repo).delete()
    return _summary(cases)


def replay_git(store: Store, path: Path, repo: str = "local/self") -> dict[str, Any]:
    """The same over a git clone: each commit guarded against a graph of the commits before it."""
    import dataclasses

    from rguard_core.ingest.gitlocal import read_git_history

    full = read_git_history(path, repo)
    commits = sorted(full.commits, key=lambda c: c.date or "")
    by_sha = {c.sha: c for c in commits}
    cases: list[dict[str, Any]] = []
    for i, c in enumerate(commits):
        if i == 0 or not c.files:
            continue
        graph = store.repo_graph(repo)
        if graph.exists():
            graph.delete()
        earlier = commits[:i]
        hist = dataclasses.replace(full, commits=earlier, pulls=[], docs=[d for d in full.docs if False])
        ingest_history(store, hist, OfflineExtractor(), "judge-replay")
        rows = [
            {"path": f.path, "status": f.status, "patch": f.patch, "previous_path": f.previous_path} for f in c.files
        ]
        t0 = time.perf_counter()
        rep = run_guard(store, repo, diff_from_patches(rows))
        ms = (time.perf_counter() - t0) * 1000
        m = re.search(r"This reverts commit ([0-9a-f]{7,40})", c.message)
        target = next((s for s in by_sha if m and s.startswith(m.group(1))), None)
        contra = [f for f in rep.findings if f.label == "contradicts"]
        cited = [f.decision_id for f in contra]
        cases.append(
            {
                "pr": c.sha[:10],
                "title": c.message.splitlines()[0] if c.message else "",
                "kind": "revert" if target else "ordinary",
                "reverts": target,
                "verdict": rep.verdict,
                "cited": cited,
                "caught": any(target[:12] in x for x in cited) if target else None,
                "rules": [[r["id"] for r in f.rules] for f in contra],
                "reasons": [f.reason for f in contra],
                "ms": round(ms, 1),
            }
        )
    store.repo_graph(repo).delete()
    return _summary(cases)


def _summary(cases: list[dict[str, Any]]) -> dict[str, Any]:
    ordinary = [c for c in cases if c["kind"] == "ordinary"]
    reverts = [c for c in cases if c["kind"] == "revert"]
    rules: Counter[str] = Counter(r for c in ordinary if c["verdict"] == "warn" for rs in c["rules"] for r in rs)
    return {
        "ordinary": len(ordinary),
        "ordinary_warned": sum(c["verdict"] == "warn" for c in ordinary),
        "reverts": len(reverts),
        "reverts_caught": sum(bool(c["caught"]) for c in reverts),
        "rules_on_ordinary_warns": dict(rules),
        "cases": cases,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--snapshot", type=Path, default=SNAPSHOT)
    ap.add_argument("--repo", default=None)
    ap.add_argument("--git", type=Path, default=None, help="replay a git clone instead of the snapshot")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    store = open_store(Settings.from_env())
    try:
        res = replay_git(store, args.git) if args.git else replay(store, args.snapshot, args.repo)
    finally:
        store.close()
    for c in res["cases"]:
        if c["verdict"] == "warn" or c["kind"] == "revert" or args.verbose:
            print(
                f"#{c['pr']:<5} {c['kind']:<8} {c['verdict']:<5} cited={c['cited']} rules={c['rules']} "
                f"{(c['title'] or '')[:60]}"
            )
            for r in c["reasons"] if c["verdict"] == "warn" else []:
                print(f"        {r[:200]}")
    print(
        f"ordinary warned {res['ordinary_warned']}/{res['ordinary']}; reverts caught "
        f"{res['reverts_caught']}/{res['reverts']}; rules on ordinary warns {res['rules_on_ordinary_warns']}"
    )
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

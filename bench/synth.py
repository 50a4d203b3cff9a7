"""Generate a synthetic repository history in GitHub REST snapshot shapes (for benchmarks only)."""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path

WORDS = (
    "cache price invoice session token retry webhook export ledger refund account quota limit audit "
    "schema event queue worker report tenant region currency discount"
).split()
PEOPLE = [f"dev{i}" for i in range(40)] + ["renovate[bot]"]


START = dt.datetime(2025, 1, 1, 12, tzinfo=dt.UTC)


def synth_snapshot(root: Path, n_prs: int, seed: int = 7, repo: str = "bench/synthetic", n_files: int = 400) -> Path:
    """Write ``n_prs`` merged PRs (files, patches, review comments) and linked issues under ``root``."""
    rnd = random.Random(seed)
    d = root / "repos" / repo
    (d / "pulls").mkdir(parents=True, exist_ok=True)
    (d / "issues").mkdir(parents=True, exist_ok=True)
    _dump(d / "repo.json", {"full_name": repo, "html_url": f"https://github.com/{repo}"})
    files = [f"src/{rnd.choice(WORDS)}/{rnd.choice(WORDS)}_{i}.py" for i in range(n_files)]
    n_issues = max(1, n_prs // 4)
    for i in range(1, n_issues + 1):
        _dump(
            d / "issues" / f"{i}.json",
            {
                "number": i,
                "title": f"{rnd.choice(WORDS).title()} {rnd.choice(WORDS)} fails under load",
                "body": f"When the {rnd.choice(WORDS)} is empty the {rnd.choice(WORDS)} breaks.\nIt should not.",
                "state": rnd.choice(["open", "closed"]),
                "user": {"login": rnd.choice(PEOPLE[:40]), "type": "User"},
                "html_url": f"https://github.com/{repo}/issues/{i}",
                "created_at": "2024-01-01T00:00:00Z",
                "labels": [],
            },
        )
    for k in range(n_prs):
        n = n_issues + 1 + k
        a, b = rnd.choice(WORDS), rnd.choice(WORDS)
        author = rnd.choice(PEOPLE)
        link = f"Fixes #{rnd.randint(1, n_issues)}" if rnd.random() < 0.5 else f"Refs #{rnd.randint(1, n_issues)}"
        body = (
            f"{link}\n\nWe decided to keep the {a} separate from the {b}, because mixing them would leak "
            f"state between tenants. Instead of a global lock we use a per-{a} lock."
        )
        # merged in number order, ten minutes apart, as a busy repository lands them: a merged-at window
        # (``ingest snapshot --since-pr``) then holds exactly the PRs after the one it names
        day = (START + dt.timedelta(minutes=10 * k)).strftime("%Y-%m-%dT%H:%M:%SZ")
        _dump(
            d / "pulls" / f"{n}.json",
            {
                "number": n,
                "title": f"Keep {a} apart from {b}",
                "body": body,
                "state": "closed",
                "merged_at": day,
                "created_at": day,
                "closed_at": day,
                "user": {"login": author, "type": "Bot" if "[bot]" in author else "User"},
                "html_url": f"https://github.com/{repo}/pull/{n}",
                "merge_commit_sha": f"{n:040x}",
                "labels": [],
            },
        )
        touched = rnd.sample(files, rnd.randint(1, 3))
        _dump(
            d / "pulls" / str(n) / "files.json",
            [
                {
                    "filename": f,
                    "status": "modified",
                    "additions": 1,
                    "deletions": 1,
                    "changes": 2,
                    "patch": f"@@ -1,3 +1,3 @@\n def {a}_{b}():\n-    return {a}_lock or None\n+    return per_{a}_lock[{b}_id]\n",
                }
                for f in touched
            ],
        )
        _dump(
            d / "pulls" / str(n) / "comments.json",
            [
                {
                    "user": {"login": rnd.choice(PEOPLE[:40]), "type": "User"},
                    "path": touched[0],
                    "body": f"I'd rather not use a global {a} lock because it serialises every {b}.",
                    "created_at": day,
                    "html_url": f"https://github.com/{repo}/pull/{n}",
                }
            ],
        )
    return root


def _dump(path: Path, obj: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj), encoding="utf-8")

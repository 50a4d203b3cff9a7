"""Replay benchmark: a generated 2,000-commit git history (built with ``git fast-import``), replayed with
20 reverts and 50 ordinary changes. The issue's bar: under 5 minutes on this machine.

The history: 60 Python modules of constants and handlers, edited by 12 people. Most commits change a few
lines (a limit, a call's arguments, a new helper); about half are squash merges (``Title (#N)``). 24 of
them revert an earlier change whose lines nobody touched since, in the three forms real histories use:
git's ``Revert "<title>"`` + ``This reverts commit <sha>``, a subject-only ``Revert "<title> (#N)"``, and
``Reverts #N`` in the body. Shas are known only after import, so the stream is imported in phases (marks
carried over) and a sha-form revert always names a commit of an earlier phase.

Run: ``python -m bench.replay_history [--commits 2000] [--reverts 20] [--ordinary 50] [--keep DIR]``.
Writes bench/results/replay_history.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rguard_core.config import Settings
from rguard_core.db import open_store
from rguard_core.evaluation.replay import run_replay

ROOT = Path(__file__).resolve().parent.parent
PEOPLE = [(f"Dev {c}", f"dev{c}@example.com") for c in "abcdefghijkl"]
WHY = (
    "because bulk imports time out",
    "so that retries do not pile up",
    "because the old value leaked memory",
    "to avoid double billing",
    "since the upstream API changed",
    "because tenants reported slow pages",
)
PHASE = 250


@dataclass
class Line:
    text: str
    owner: int  # commit index that last wrote it


@dataclass
class Change:
    index: int
    title: str
    pr: int | None
    edits: list[tuple[str, int, str]] = field(default_factory=list)  # path, line no, old text


def _module(i: int) -> list[str]:
    out = [f'"""Module {i}."""', ""]
    out += [f"LIMIT_{i}_{j} = {10 * (j + 1)}" for j in range(8)]
    for j in range(8):
        out += [
            "",
            "",
            f"def handler_{i}_{j}(request):",
            f"    limit = LIMIT_{i}_{j}",
            f"    return process_{i}_{j}(request, limit)",
        ]
    return out


class History:
    def __init__(self, n_commits: int, n_reverts: int, seed: int) -> None:
        self.rnd = random.Random(seed)
        self.files = {f"pkg/mod_{i}.py": [Line(t, 0) for t in _module(i)] for i in range(60)}
        self.n, self.n_reverts = n_commits, n_reverts
        self.changes: list[Change] = []
        self.reverted: set[int] = set()

    def commits(self) -> list[dict]:
        """Every commit: author, message parts, and the full text of each file it writes."""
        out = [
            {
                "index": 0,
                "title": "Initial layout",
                "body": "",
                "pr": None,
                "author": PEOPLE[0],
                "files": {p: self._text(p) for p in self.files},
                "revert_of": None,
            }
        ]
        revert_at = set(self.rnd.sample(range(300, self.n), self.n_reverts))
        pr = 100
        for k in range(1, self.n):
            c = self._revert(k) if k in revert_at else None
            if c is None:
                pr += 1
                c = self._ordinary(k, pr if self.rnd.random() < 0.5 else None)
            out.append(c)
        return out

    def _text(self, path: str) -> str:
        return "\n".join(x.text for x in self.files[path]) + "\n"

    def _ordinary(self, k: int, pr: int | None) -> dict:
        path = self.rnd.choice(sorted(self.files))
        lines = self.files[path]
        i = int(path.split("_")[-1][:-3])
        j = self.rnd.randrange(8)
        kind = self.rnd.choice(("limit", "call", "helper"))
        ch = Change(k, "", pr)
        if kind == "limit":
            n = 2 + j
            old = lines[n].text
            lines[n] = Line(f"LIMIT_{i}_{j} = {self.rnd.randint(5, 900)}", k)
            ch.edits.append((path, n, old))
            ch.title = f"Raise LIMIT_{i}_{j} for handler {i}.{j} (change {k})"
        elif kind == "call":
            n = next(x for x, ln in enumerate(lines) if ln.text.startswith(f"    return process_{i}_{j}("))
            old = lines[n].text
            arg = self.rnd.choice(("retries=2", "timeout=30", "strict=True", "batch=64", "cache=False"))
            lines[n] = Line(f"    return process_{i}_{j}(request, limit, {arg}, step={k})", k)
            ch.edits.append((path, n, old))
            ch.title = f"Call process_{i}_{j} with {arg.split('=')[0]} (change {k})"
        else:
            lines.extend(
                [
                    Line("", k),
                    Line("", k),
                    Line(f"def helper_{k}(value):", k),
                    Line(f"    return value * {self.rnd.randint(2, 9)} + LIMIT_{i}_{j}", k),
                ]
            )
            ch.title = f"Add helper_{k} to module {i}"
        self.changes.append(ch)
        body = f"We {'changed' if kind != 'helper' else 'added'} this {self.rnd.choice(WHY)}."
        return {
            "index": k,
            "title": ch.title,
            "body": body,
            "pr": pr,
            "author": self.rnd.choice(PEOPLE),
            "files": {path: self._text(path)},
            "revert_of": None,
        }

    def _revert(self, k: int) -> dict | None:
        """Undo an earlier change whose lines are still exactly as it left them."""
        ok = [
            c
            for c in self.changes
            if c.edits
            and c.index not in self.reverted
            and all(self.files[p][n].owner == c.index for p, n, _ in c.edits)
        ]
        if not ok:
            return None
        t = self.rnd.choice(ok[-300:])
        self.reverted.add(t.index)
        touched = {}
        for p, n, old in t.edits:
            self.files[p][n] = Line(old, k)
            touched[p] = self._text(p)
        return {
            "index": k,
            "title": "",
            "body": "",
            "pr": None,
            "author": self.rnd.choice(PEOPLE),
            "files": touched,
            "revert_of": t,
        }


def _message(c: dict, shas: dict[int, str], form: str) -> str:
    t: Change | None = c["revert_of"]
    if t is None:
        title = f"{c['title']} (#{c['pr']})" if c["pr"] else c["title"]
        return f"{title}\n\n{c['body']}\n"
    full_title = f"{t.title} (#{t.pr})" if t.pr else t.title
    if form == "sha" and t.index in shas:
        return f'Revert "{full_title}"\n\nThis reverts commit {shas[t.index]}.\n'
    if form == "number" and t.pr:
        return f"Undo the {t.title.split()[0].lower()} change\n\nReverts #{t.pr}: it broke production imports.\n"
    return f'Revert "{full_title}"\n\nIt broke production imports.\n'


def build(path: Path, n_commits: int, n_reverts: int, seed: int = 11) -> dict[str, int]:
    """Write the history into a new repository at ``path`` with git fast-import, in phases."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    hist = History(n_commits, n_reverts, seed)
    commits = hist.commits()
    marks = path / ".git" / "rg-marks"
    shas: dict[int, str] = {}
    forms = ("sha", "title", "number")
    n_rev = 0
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for start in range(0, len(commits), PHASE):
        chunks: list[bytes] = []
        for c in commits[start : start + PHASE]:
            form = forms[n_rev % 3] if c["revert_of"] is not None else ""
            n_rev += 1 if c["revert_of"] is not None else 0
            msg = _message(c, shas, form).encode()
            name, email = c["author"]
            when = 1_600_000_000 + 3600 * c["index"]
            head = [
                "commit refs/heads/main",
                f"mark :{c['index'] + 1}",
                f"author {name} <{email}> {when} +0000",
                f"committer {name} <{email}> {when} +0000",
                f"data {len(msg)}",
            ]
            chunks.append("\n".join(head).encode() + b"\n" + msg + b"\n")
            if c["index"] > 0 and c["index"] == start:
                chunks.append(f"from :{c['index']}\n".encode())
            for p, text in c["files"].items():
                data = text.encode()
                chunks.append(f"M 100644 inline {p}\ndata {len(data)}\n".encode() + data + b"\n")
            chunks.append(b"\n")
        args = ["git", "-C", str(path), "fast-import", "--quiet", f"--export-marks={marks}"]
        if start:
            args.append(f"--import-marks={marks}")
        subprocess.run(args, input=b"".join(chunks), check=True, env=env)
        for line in marks.read_text().splitlines():
            mark, sha = line.split()
            shas[int(mark[1:]) - 1] = sha
    subprocess.run(["git", "-C", str(path), "checkout", "-q", "main"], check=True, env=env)
    return {"commits": len(commits), "reverts": n_rev}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--commits", type=int, default=2000)
    ap.add_argument("--reverts", type=int, default=20)
    ap.add_argument("--ordinary", type=int, default=50)
    ap.add_argument("--keep", type=Path, help="build the history here and keep it")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "history"
        t0 = time.perf_counter()
        made = build(path, args.commits, args.reverts + 4)
        t_build = time.perf_counter() - t0
        store = open_store(Settings.from_env())
        t1 = time.perf_counter()
        res = run_replay(store, git=path, reverts=args.reverts, ordinary=args.ordinary, seed=7)
        t_replay = time.perf_counter() - t1
    m = res.metrics
    out = {
        "commits": made["commits"],
        "reverts_written": made["reverts"],
        "build_s": round(t_build, 2),
        "replay_s": round(t_replay, 2),
        "reverts_found": m["reverts_found"],
        "revert_forms": m["revert_forms"],
        "cases": m["counts"],
        "catch_rate": m["catch_rate"],
        "ordinary_warn_rate": m["ordinary_warn_rate"],
        "guard_ms_p50": m["guard_ms_p50"],
        "guard_ms_p95": m["guard_ms_p95"],
        "append_s": m["append_s"],
        "rules": m["rules"],
    }
    print(json.dumps(out, indent=2))
    res_dir = ROOT / "bench" / "results"
    res_dir.mkdir(parents=True, exist_ok=True)
    (res_dir / "replay_history.json").write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

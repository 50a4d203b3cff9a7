"""``rguard eval``: the guard against labelled diffs, the memory benchmark, past runs, and a cases check.

Each run is appended to ``<RGUARD_DATA_DIR>/eval/<guard|memory>.jsonl`` (``--no-save`` to skip), so the
page and ``eval history`` can show it next to the previous run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..config import Settings
from ..db import open_store
from ..errors import InvalidInput
from ..jsontypes import JSONObject
from ..resources import eval_dir
from .output import print_json

DEFAULT_CASES = eval_dir() / "cases.yaml"
DEFAULT_WHY_CASES = DEFAULT_CASES.parent / "why_cases.yaml"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("eval", help="measure the guard on labelled diffs and the memory against baselines")
    esub = p.add_subparsers(dest="eval_command", required=True, metavar="WHAT")

    g = esub.add_parser("guard", help="run a labelled cases file through the guard and score it")
    g.add_argument("--cases", default=str(DEFAULT_CASES), help="cases YAML (default: eval/cases.yaml)")
    g.add_argument("--repo", help="OWNER/NAME to run against (default: the cases file's repo)")
    g.add_argument("--judge", choices=("offline", "llm"), default="offline")
    g.add_argument(
        "--pristine",
        action="store_true",
        help="score a fresh copy of the demo seed in its own graph (for the seed's cases)",
    )
    _common(g)
    g.set_defaults(func=run_guard_cmd)

    m = esub.add_parser("memory", help="memory benchmark: plain, delete-cascade and rguard against the oracle")
    m.add_argument("--seeds", type=int, default=20, help="number of generated evidence graphs (default 20)")
    m.add_argument("--variant", choices=("base", "hidden-mirror"), default="base")
    _common(m)
    m.set_defaults(func=run_memory_cmd)

    r = esub.add_parser(
        "replay",
        help="guard every revert and a sample of ordinary changes of a real history, "
        "each against the graph as it was just before it",
    )
    src = r.add_mutually_exclusive_group(required=True)
    src.add_argument("--git", type=Path, metavar="PATH", help="a local git clone (its mainline, first parent)")
    src.add_argument("--snapshot", type=Path, metavar="DIR", help="a snapshot folder (its merged PRs in merge order)")
    r.add_argument("--repo", help="OWNER/NAME inside the snapshot folder when it holds several")
    r.add_argument("--reverts", type=int, default=20, help="revert cases at most (seeded sample; default 20)")
    r.add_argument("--ordinary", type=int, default=50, help="ordinary changes to sample (default 50)")
    r.add_argument("--seed", type=int, default=7, help="sampling seed (default 7)")
    r.add_argument("--max-commits", type=int, default=100_000, help="newest mainline commits to read (git)")
    r.add_argument("--judge", choices=("offline", "llm"), default="offline")
    _common(r)
    r.set_defaults(func=run_replay_cmd)

    w = esub.add_parser("why", help="labelled why-questions: hit@3 on the tune and the holdout half")
    w.add_argument("--cases", default=str(DEFAULT_WHY_CASES), help="why-cases YAML (default: eval/why_cases.yaml)")
    w.add_argument("--split", choices=("tune", "holdout", "all"), default="all")
    _common(w)
    w.set_defaults(func=run_why_cmd)

    h = esub.add_parser("history", help="past eval runs, newest first")
    h.add_argument("--kind", choices=("guard", "memory", "replay", "why"), default="guard")
    h.add_argument("--limit", type=int, default=20)
    h.add_argument("--json", action="store_true")
    h.set_defaults(func=run_history_cmd)

    c = esub.add_parser("check", help="validate a cases file; with --tree, check every diff applies to those files")
    c.add_argument("--cases", default=str(DEFAULT_CASES))
    c.add_argument("--tree", help="folder with the repository's files the diffs must apply to")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=run_check_cmd)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--no-save", action="store_true", help="do not append this run to the eval history")


def _progress(done: int, total: int, what: str) -> None:
    if sys.stderr.isatty() and what:
        print(f"\r[{done + 1}/{total}] {what:<60}", end="", file=sys.stderr, flush=True)
    elif sys.stderr.isatty():
        print("", file=sys.stderr)


def _pct(v: Any) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def run_guard_cmd(args: argparse.Namespace) -> int:
    from ..evaluation import append_run, load_cases, run_guard_eval

    settings = Settings.from_env()
    from ..evaluation.pristine import graph_state, pristine_copy

    cases = load_cases(args.cases)
    store = open_store(settings)
    target = pristine_copy(store, cases.repo) if args.pristine else args.repo or cases.repo
    state = graph_state(store, target, cases.repo)  # refuses an unknown repository; says whether it is pristine
    res = run_guard_eval(store, cases, judge=args.judge, repo=target, settings=settings, progress=_progress)
    if not args.no_save:
        append_run(settings, "guard", {**res.history_record(), "graph": state.as_dict()})
    if args.json:
        print_json({**res.as_dict(), "graph": state.as_dict()})
        return 0
    m = res.metrics
    print(f"{res.repo}: {m['counts']['cases']} cases ({args.cases}), judge {args.judge}, git {res.run.git_sha or '-'}")
    print(f"  {state.statement}")
    print(
        f"  recall {_pct(m['recall'])}  false positives {_pct(m['false_positive_rate'])}  "
        f"precision {_pct(m['precision'])}  attribution {_pct(m['attribution'])}"
    )
    print(
        f"  graph ms p50 {m['graph_ms_p50']} p95 {m['graph_ms_p95']}   total ms p50 {m['total_ms_p50']} "
        f"p95 {m['total_ms_p95']}"
    )
    for kind, k in m["by_kind"].items():
        print(f"  {kind:<20} {k['ok']}/{k['n']} ok  ({k['label']})")
    for split, sp in (m.get("by_split") or {}).items():
        print(
            f"  {split:<20} recall {sp['caught']}/{sp['contradicts']}  false warnings "
            f"{sp['false_warnings']}/{sp['benign']}"
        )
    for rule, n in (m.get("by_rule") or {}).items():
        print(f"  rule {rule:<15} hits {n['hits']}  fired {n['fired']}  false hits {n['false_hits']}")
    for r in res.results:
        if not r.ok:
            print(
                f"  MISS {r.case.id} ({r.case.kind}, {r.case.label}): verdict {r.verdict}, "
                f"expected {r.case.expect_source if r.case.label == 'contradicts' else 'no warning'}, "
                f"cited {', '.join(r.cited) or '-'}"
            )
    return 0


def run_memory_cmd(args: argparse.Namespace) -> int:
    from ..evaluation import append_run, run_memory_bench

    settings = Settings.from_env()
    res = run_memory_bench(open_store(settings), args.seeds, args.variant, progress=_progress)
    if not args.no_save:
        append_run(settings, "memory", res.history_record())
    if args.json:
        print_json(res.as_dict())
        return 0
    print(f"memory benchmark: {res.seeds} seeds, variant {res.variant}, {res.seconds:.1f} s")
    print(
        f"  {'system':<16}{'poisoned served':>16}{'valid kept':>12}{'withdrawal prec.':>18}"
        f"{'bad dec. missed':>17}{'labels right':>14}"
    )
    for row in [*res.systems, res.mirror_aware]:
        print(
            f"  {row['system']:<16}{_pct(row['poisoned_served']):>16}{_pct(row['valid_preserved']):>12}"
            f"{_pct(row['withdrawal_precision']):>18}{_pct(row['bad_decisions_missed']):>17}"
            f"{_pct(row['decisions_labelled_correctly']):>14}"
        )
    d = res.mirror_aware["detection"]
    print(f"  mirror detection: {d['correct']} of {d['mirrors']} hidden mirrors found, {d['false']} false")
    return 0


def run_replay_cmd(args: argparse.Namespace) -> int:
    from ..evaluation import append_run
    from ..evaluation.replay import run_replay

    settings = Settings.from_env()
    res = run_replay(
        open_store(settings),
        git=args.git,
        snapshot=args.snapshot,
        repo=args.repo,
        reverts=args.reverts,
        ordinary=args.ordinary,
        seed=args.seed,
        judge=args.judge,
        max_commits=args.max_commits,
        progress=_progress,
    )
    if not args.no_save:
        append_run(settings, "replay", res.history_record())
    if args.json:
        print_json(res.as_dict())
        return 0
    m = res.metrics
    print(
        f"replay {res.source}: {m['steps']} changes walked, {m['reverts_found']} reverts found "
        f"({', '.join(f'{k} {v}' for k, v in m['revert_forms'].items()) or 'none'}), seed {res.seed}, "
        f"judge {res.run.judge}, git {res.run.git_sha or '-'}"
    )
    print(
        f"  reverts of product code caught {m['caught_code']}/{m['counts']['revert_code']} ({_pct(m['catch_rate'])}); "
        f"all reverts {m['caught']}/{m['counts']['revert']} ({_pct(m['catch_rate_all'])})   "
        f"ordinary warned {m['ordinary_warned']}/{m['counts']['ordinary']} ({_pct(m['ordinary_warn_rate'])})"
        + (f"   errors {m['counts']['errors']}" if m["counts"]["errors"] else "")
    )
    print(
        f"  guard ms p50 {m['guard_ms_p50']} p95 {m['guard_ms_p95']}   append {m['append_s']} s   "
        f"total {m['seconds']} s ({m['seconds_per_case']} s per case)"
    )
    for kind, counts in m["rules"].items():
        if counts:
            print(f"  rules on {kind.replace('_', ' ')}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for c in res.cases:
        if (c.kind == "revert" and not c.caught) or (c.kind == "ordinary" and c.warned) or c.error:
            what = f"reverts {c.target}, {c.scope}" if c.kind == "revert" else "ordinary"
            print(
                f"  {'MISS' if c.kind == 'revert' else 'WARN'} {c.id} ({what}): {c.verdict}"
                f"{' citing ' + ', '.join(c.cited) if c.cited else ''}{' - ' + c.error if c.error else ''}  {c.title[:60]}"
            )
    return 0


def run_why_cmd(args: argparse.Namespace) -> int:
    from ..evaluation import append_run, run_why_eval

    settings = Settings.from_env()
    splits = ("tune", "holdout") if args.split == "all" else (args.split,)
    res = run_why_eval(open_store(settings), args.cases, splits=splits, progress=_progress)
    if not args.no_save:
        append_run(settings, "why", res.history_record())
    if args.json:
        print_json(res.as_dict())
        return 0
    print(f"why eval: {args.cases}, git {res.run.git_sha or '-'}")
    for split in (*splits, "all"):
        m = res.metrics(None if split == "all" else split)
        if m["n"]:
            print(
                f"  {split:<8} {m['n']:>3} questions  hit@3 {_pct(m['hit_at_3'])}  hit@1 {_pct(m['hit_at_1'])}  "
                f"MRR {m['mrr']:.3f}"
            )
    for r in res.results:
        if not r.hit:
            print(
                f"  MISS {r.case.id} ({r.case.split}): {r.case.question!r} expected {', '.join(r.case.expect)}; "
                f"rank {r.rank or '-'}; got {', '.join(r.got[:3]) or '-'}"
            )
    if res.skipped:
        print(f"  skipped (data not on this machine): {', '.join(res.skipped)}")
    return 0


def run_history_cmd(args: argparse.Namespace) -> int:
    from ..evaluation import list_runs

    if args.limit < 1:
        raise InvalidInput("--limit must be at least 1")
    hist = list_runs(Settings.from_env(), args.kind, limit=args.limit)
    if args.json:
        print_json(hist.as_dict())
        return 0
    for r in hist.runs:
        if args.kind == "replay":
            m = r.get("metrics", {})
            print(
                f"{r.get('at')}  {str(r.get('git_sha') or '-')[:12]:<12}  {r.get('judge')}  {r.get('source')}  "
                f"catch {_pct(m.get('catch_rate'))}  ordinary warn {_pct(m.get('ordinary_warn_rate'))}"
            )
        elif args.kind == "why":
            m = r.get("metrics", {})
            print(
                f"{r.get('at')}  {str(r.get('git_sha') or '-')[:12]:<12}  "
                f"hit@3 tune {_pct(m.get('tune', {}).get('hit_at_3'))}  holdout {_pct(m.get('holdout', {}).get('hit_at_3'))}"
            )
        elif args.kind == "guard":
            m = r.get("metrics", {})
            print(
                f"{r.get('at')}  {str(r.get('git_sha') or '-')[:12]:<12}  {r.get('judge')}  {r.get('repo')}  "
                f"recall {_pct(m.get('recall'))}  fp {_pct(m.get('false_positive_rate'))}"
            )
        else:
            rg: JSONObject = next((s for s in r.get("systems", []) if s.get("system") == "rguard"), {})
            print(
                f"{r.get('at')}  {str(r.get('git_sha') or '-')[:12]:<12}  {r.get('variant')}  seeds {r.get('seeds')}  "
                f"rguard poisoned served {_pct(rg.get('poisoned_served'))}"
            )
    if not hist.runs:
        print(f"no {args.kind} eval runs yet")
    if hist.skipped:
        print(f"({hist.skipped} damaged history lines skipped)", file=sys.stderr)
    return 0


def run_check_cmd(args: argparse.Namespace) -> int:
    from ..evaluation import check_applies, load_cases

    cases = load_cases(args.cases)
    failures = check_applies(cases, args.tree) if args.tree else {}
    data: JSONObject = {
        "repo": cases.repo,
        "cases": len(cases.cases),
        "kinds": cases.kinds(),
        "not_applying": failures,
    }
    if args.json:
        print_json(data)
    else:
        print(
            f"{args.cases}: {len(cases.cases)} cases for {cases.repo}; kinds: "
            + ", ".join(f"{k} {n}" for k, n in data["kinds"].items())
        )
        for cid, why in failures.items():
            print(f"  does not apply: {cid}: {why}")
    return 1 if failures else 0

"""``rguard who-knows`` (files → people) and ``rguard premises`` (decision ids → premise status)."""

from __future__ import annotations

import argparse

from ..db import open_store
from ..guard.lookups import check_premises, who_knows
from .output import print_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    w = sub.add_parser("who-knows", help="whom to ask about files (the guard's expert ranking)")
    w.add_argument("--repo", required=True, help="OWNER/NAME (must be ingested)")
    w.add_argument("files", nargs="+", help="repository-relative paths")
    w.add_argument("--json", action="store_true", help="print JSON")
    w.set_defaults(func=run_who_knows)

    p = sub.add_parser("premises", help="do these decisions still stand? each premise rule's status")
    p.add_argument("--repo", required=True, help="OWNER/NAME (must be ingested)")
    p.add_argument("decisions", nargs="+", help="decision ids, like decision:pr:20")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run_premises)


def run_who_knows(args: argparse.Namespace) -> int:
    res = who_knows(open_store(), args.repo, args.files)
    if args.json:
        print_json(res.as_dict())
        return 0
    people = ", ".join(f"{e['login']} ({e['score']:.2f})" for e in res.experts) or "nobody on record"
    print(f"{res.repo}: ask {people}; bus factor {res.bus_factor}")
    for f in res.per_file:
        who = ", ".join(e["login"] for e in f.experts) or ("nobody on record" if f.known else "file not in the graph")
        print(f"  {f.path}: {who} (bus factor {f.bus_factor})")
    return 0


def run_premises(args: argparse.Namespace) -> int:
    from ..untrusted import one_line

    res = check_premises(open_store(), args.repo, args.decisions)
    if args.json:
        print_json(res.as_dict())
        return 0
    for d in res.decisions:
        print(
            f"{d.decision_id}: {'stands' if d.stands else 'no longer stands'} [{d.status}]  {one_line(d.summary, 120)}"
        )
        for p in d.premises or [{"rule": "-", "status": "holds", "detail": "no premise rule has anything to say"}]:
            print(f"  {p['rule']} {p['status']}: {one_line(p['detail'])}")
    for i in res.unknown:
        print(f"{i}: no such decision in {res.repo}")
    return 0

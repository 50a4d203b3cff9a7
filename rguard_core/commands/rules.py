"""``rguard rules``: every guard rule by the id a finding carries (guard/registry.py), its fixtures, and a check
that runs them."""

from __future__ import annotations

import argparse

from ..errors import InvalidInput
from .output import print_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("rules", help="every guard rule: id, name, family, label, summary, fixtures")
    p.add_argument("--json", action="store_true", help="print JSON (a list of rules)")
    p.add_argument("--check", action="store_true", help="run every fixture; exit 1 on any failure")
    p.add_argument("--rule", metavar="ID", help="one rule, by id (REV1) or name (exact-revert)")
    p.add_argument("--markdown", action="store_true", help="print the rule index the guard README holds")
    p.set_defaults(func=run_rules)


def run_rules(args: argparse.Namespace) -> int:
    from ..guard import fixtures, registry

    rules = list(registry.RULES)
    if args.rule is not None:
        rule = registry.find(args.rule)
        if rule is None:
            raise InvalidInput(
                f"unknown rule {args.rule!r}; give an id (REV1) or a name (exact-revert): "
                "python -m rguard_core rules lists them"
            )
        rules = [rule]
    if args.markdown:
        print(registry.markdown(tuple(rules)), end="")
        return 0
    if args.check:
        failures, ran = fixtures.check(rules)
        if args.json:
            print_json(
                {
                    "rules": len(rules),
                    "cases": ran,
                    "failures": [
                        {"rule": f.rule, "kind": f.kind, "case": f.case, "expected": f.expected, "got": f.got}
                        for f in failures
                    ],
                }
            )
        else:
            for f in failures:
                print(f"FAIL {f}")
            print(f"{len(rules)} rule(s), {ran} case(s): {len(failures)} failure(s)")
        return 1 if failures else 0
    rows = [{**r.as_dict(), **fixtures.counts(r.id)} for r in rules]
    if args.json:
        print_json(rows)
        return 0
    width = {k: max([len(k)] + [len(str(x[k])) for x in rows]) for k in ("id", "name", "family", "label")}
    print(
        f"{'id':<{width['id']}}  {'name':<{width['name']}}  {'family':<{width['family']}}  "
        f"{'label':<{width['label']}}  fires/quiet/misses  summary"
    )
    for x in rows:
        counts = f"{x['fires']}/{x['quiet']}/{x['misses']}"
        print(
            f"{x['id']:<{width['id']}}  {x['name']:<{width['name']}}  {x['family']:<{width['family']}}  "
            f"{x['label']:<{width['label']}}  {counts:<18}  {x['summary']}"
        )
    return 0

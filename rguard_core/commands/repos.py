"""``rguard repos``: list the repositories and workspaces that have graphs."""

from __future__ import annotations

import argparse

from ..db import open_store
from .output import print_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("repos", help="list repositories and memory workspaces that have a graph")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    store = open_store()
    data = {"store": store.target, "repos": store.list_repos(), "workspaces": store.list_workspaces()}
    if args.json:
        print_json(data)
    else:
        print(f"store: {data['store']}")
        for r in data["repos"]:
            print(f"repo       {r}")
        for w in data["workspaces"]:
            print(f"workspace  {w}")
    return 0

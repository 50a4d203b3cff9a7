"""``rguard seed``: load the demo repository and memory scenarios (idempotent)."""

from __future__ import annotations

import argparse

from ..db import open_store
from ..seed import load_demo
from .output import print_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("seed", help="load the demo seed (acme/tollgate + memory scenarios); safe to re-run")
    p.add_argument("--force", action="store_true", help="re-ingest even when the same seed is already loaded")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    res = load_demo(open_store(), force=args.force)
    if args.json:
        print_json(res.__dict__)
    else:
        state = "loaded" if res.loaded else "already loaded"
        print(f"demo seed {res.repo}: {state} ({res.summary}); workspaces: {', '.join(res.workspaces) or 'none'}")
    return 0

"""``rguard export --repo OWNER/NAME --json``: the whole graph, for audits and checks."""

from __future__ import annotations

import argparse

from ..db import open_store
from ..explore.graph_export import export_graph
from .output import print_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("export", help="print a repository's whole graph as JSON")
    p.add_argument("--repo", required=True, help="OWNER/NAME")
    p.add_argument("--json", action="store_true", help="JSON output (the only format; accepted for symmetry)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    print_json(export_graph(open_store(), args.repo))
    return 0

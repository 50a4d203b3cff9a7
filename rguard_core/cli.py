"""Command line: ``python -m rguard_core <command>`` (or ``rguard``). Each command lives in commands/."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from .errors import RGuardError

# One module per command group; each exposes ``register(subparsers)`` and sets ``func`` on its parsers.
COMMAND_MODULES = [
    "rguard_core.commands.repos",
    "rguard_core.commands.ingest",
    "rguard_core.commands.export",
    "rguard_core.commands.seed",
    "rguard_core.commands.guard",
    "rguard_core.commands.memory",
    "rguard_core.commands.why",
    "rguard_core.commands.eval",
    "rguard_core.commands.codemap",
]

EXIT_ERROR = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rguard", description="RGuard: decision memory for a repository, with receipts.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for mod in COMMAND_MODULES:
        importlib.import_module(mod).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except RGuardError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader (e.g. `| head`) stopped early; that is not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def print_json(data: Any) -> None:
    """Write one JSON document to stdout (the contract other tools parse)."""
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")

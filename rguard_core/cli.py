"""Command line: ``python -m rguard_core <command>`` (or ``rguard``). Each command lives in commands/."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from . import cli_errors
from .errors import QueryFailed, RGuardError

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
        cli_errors.check_args(args, sys.argv[1:] if argv is None else argv)
        return int(args.func(args) or 0)
    except QueryFailed as e:
        # FalkorDB's own words and the internal Cypher go to the log, not to the user
        where = cli_errors.log_crash(e, argv or sys.argv[1:], f"query: {e.query}\n")
        print(f"error: {cli_errors.user_message(e)} (details in {where})", file=sys.stderr)
        return EXIT_ERROR
    except RGuardError as e:
        print(f"error: {cli_errors.user_message(e)}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader (e.g. `| head`) stopped early; that is not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # noqa: BLE001 — the last resort: one line for the user, the traceback in the log
        print(f"error: {cli_errors.crash_message(e, cli_errors.log_crash(e, argv or sys.argv[1:]))}", file=sys.stderr)
        return EXIT_ERROR


def print_json(data: Any) -> None:
    """Write one JSON document to stdout (the contract other tools parse)."""
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")

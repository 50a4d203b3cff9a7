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
    "rguard_core.commands.lookup",
    "rguard_core.commands.mcp",
    "rguard_core.commands.precommit",
    "rguard_core.commands.action",
    "rguard_core.commands.engine",
    "rguard_core.commands.codemap",
]

# Top-level command -> the module that registers it, so a command imports only its own module (a warm CLI call
# must answer in well under a second). A command missing here still works: the full parser is built.
COMMAND_OWNERS = {
    "repos": "rguard_core.commands.repos",
    "ingest": "rguard_core.commands.ingest",
    "export": "rguard_core.commands.export",
    "seed": "rguard_core.commands.seed",
    "guard": "rguard_core.commands.guard",
    "feedback": "rguard_core.commands.guard",
    "memory": "rguard_core.commands.memory",
    "why": "rguard_core.commands.why",
    "eval": "rguard_core.commands.eval",
    "engine": "rguard_core.commands.engine",
    "who-knows": "rguard_core.commands.lookup",
    "premises": "rguard_core.commands.lookup",
    "mcp": "rguard_core.commands.mcp",
    "precommit": "rguard_core.commands.precommit",
    "action": "rguard_core.commands.action",
    "codemap": "rguard_core.commands.codemap",
}

EXIT_ERROR = 2


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rguard", description="RGuard: decision memory for a repository, with receipts."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    owner = COMMAND_OWNERS.get(command or "")
    for mod in [owner] if owner else COMMAND_MODULES:
        importlib.import_module(mod).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(args_list[0] if args_list and not args_list[0].startswith("-") else None)
    args = parser.parse_args(args_list)
    try:
        cli_errors.check_args(args, args_list)
        return int(args.func(args) or 0)
    except QueryFailed as e:
        # FalkorDB's own words and the internal Cypher go to the log, not to the user
        where = cli_errors.log_crash(e, args_list, f"query: {e.query}\n")
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
        print(f"error: {cli_errors.crash_message(e, cli_errors.log_crash(e, args_list))}", file=sys.stderr)
        return EXIT_ERROR


def print_json(data: Any) -> None:
    """Write one JSON document to stdout (the contract other tools parse)."""
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")

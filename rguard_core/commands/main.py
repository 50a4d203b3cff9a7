"""Command line: ``python -m rguard_core <command>`` (or ``rguard``). Each command group is a module here.

Each group module exposes ``register(subparsers)`` and sets ``func`` on its parsers. A call imports only the
group it runs (a warm CLI call must answer in well under a second, and the guard's or ingest's imports cost
more than that budget allows for ``repos``): ``_group`` imports it by name, statically, so readers and tools
see every edge; no group module imports this one.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Protocol

from .. import cli_errors
from ..config import legacy_data_dir_note
from ..errors import QueryFailed, RGuardError
from ..version import version

EXIT_ERROR = 2

# The command groups, in the order ``rguard --help`` lists them.
GROUPS = (
    "repos",
    "ingest",
    "export",
    "seed",
    "guard",
    "rules",
    "memory",
    "why",
    "eval",
    "lookup",
    "mcp",
    "precommit",
    "action",
    "engine",
    "codemap",
    "ui",
)
# Top-level commands registered by a group of another name.
OWNERS = {"feedback": "guard", "who-knows": "lookup", "premises": "lookup"}

type Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]


class Group(Protocol):
    def register(self, sub: Subparsers) -> None: ...


def _group(name: str) -> Group:
    """The group module ``name``, imported on first use (only the one a command needs)."""
    match name:
        case "repos":
            from . import repos

            return repos
        case "ingest":
            from . import ingest

            return ingest
        case "export":
            from . import export

            return export
        case "seed":
            from . import seed

            return seed
        case "guard":
            from . import guard

            return guard
        case "rules":
            from . import rules

            return rules
        case "memory":
            from . import memory

            return memory
        case "why":
            from . import why

            return why
        case "eval":
            from . import eval as eval_group

            return eval_group
        case "lookup":
            from . import lookup

            return lookup
        case "mcp":
            from . import mcp

            return mcp
        case "precommit":
            from . import precommit

            return precommit
        case "action":
            from . import action

            return action
        case "engine":
            from . import engine

            return engine
        case "codemap":
            from . import codemap

            return codemap
        case "ui":
            from . import ui

            return ui
    raise KeyError(name)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser for ``command`` alone (its group registered), or for every command (help, unknown names)."""
    parser = argparse.ArgumentParser(
        prog="rguard", description="RGuard: decision memory for a repository, with receipts."
    )
    parser.add_argument("--version", action="version", version=f"rguard {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    owner = OWNERS.get(command or "", command)
    for name in [owner] if owner in GROUPS else GROUPS:
        _group(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(args_list[0] if args_list and not args_list[0].startswith("-") else None)
    args = parser.parse_args(args_list)
    note = legacy_data_dir_note()
    if note and args.command not in ("rules",):
        print(note, file=sys.stderr)
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

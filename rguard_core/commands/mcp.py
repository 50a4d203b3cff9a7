"""``rguard mcp [--http PORT] [--allow-writes]``: the MCP server for coding agents (stdio by default)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("mcp", help="serve RGuard's tools to coding agents over MCP (stdio, or streamable HTTP)")
    p.add_argument(
        "--http", type=int, metavar="PORT", help="serve streamable HTTP on PORT (path /mcp) instead of stdio"
    )
    p.add_argument(
        "--repo",
        metavar="OWNER/NAME",
        help="the repository a tool call means when it names none (an agent working in one repository)",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind with --http (default 127.0.0.1)")
    p.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME[:PORT]",
        help="a Host header to accept besides loopback and the bound address (repeatable): the name clients "
        "use to reach a server bound to 0.0.0.0. Requests naming any other host are refused (DNS rebinding)",
    )
    p.add_argument(
        "--allow-writes",
        action="store_true",
        help="enable record_feedback, apply_correction and quarantine_source (as RGUARD_REVIEWER)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..mcp_server import serve

    serve(
        repo=args.repo,
        http_port=args.http,
        host=args.host,
        allow_writes=args.allow_writes,
        allowed_hosts=tuple(args.allowed_host),
    )
    return 0

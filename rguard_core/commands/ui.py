"""``rguard ui [--host H] [--port P]``: the dashboard (Streamlit), from a checkout or an installed wheel."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys

from ..errors import ConfigError
from ..resources import dashboard_app


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("ui", help="start the dashboard (needs the ui extra: pip install 'rguard[ui]')")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1, this machine only). Any other address serves the "
        "dashboard read-only until reviewers sign in (docs/operations.md)",
    )
    p.add_argument("--port", type=int, default=8501, help="port (default 8501)")
    p.set_defaults(func=run)


def streamlit_command(host: str, port: int) -> list[str]:
    """The command ``rguard ui`` runs: Streamlit on the dashboard's app.py, its options spelled out so that a
    .streamlit/config.toml of whatever folder you are in cannot widen them."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(dashboard_app()),
        "--server.address",
        host,
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",
        "viewer",
    ]


def run(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("streamlit") is None or importlib.util.find_spec("streamlit_agraph") is None:
        raise ConfigError("the dashboard needs the ui extra: pip install 'rguard[ui]'")
    if not dashboard_app().is_file():
        raise ConfigError(f"the dashboard is missing from this install ({dashboard_app()}); reinstall rguard")
    print(f"RGuard dashboard: http://{args.host}:{args.port}", file=sys.stderr, flush=True)
    cmd = streamlit_command(args.host, args.port)
    os.execv(cmd[0], cmd)  # Streamlit owns the process from here (signals, reloads)

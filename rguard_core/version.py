"""RGuard's version: the installed distribution's (``rguard --version``, the MCP server's version)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as dist_version


def version() -> str:
    """The installed distribution's version ("unknown (not installed)" when run from an uninstalled tree)."""
    try:
        return dist_version("rguard")
    except PackageNotFoundError:
        return "unknown (not installed)"

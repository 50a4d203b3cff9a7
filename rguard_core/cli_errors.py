"""What the CLI says when something goes wrong: one line a user can act on, never a traceback.

``commands.main.main`` calls ``check_args`` before a command runs, ``user_message`` for every deliberate RGuardError, and
``log_crash`` as the last resort for anything else: the full traceback goes to a log file in the data dir and
the user gets one line saying where it is.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import traceback
from collections.abc import Sequence
from pathlib import Path

from .config import DEFAULT_DATA_DIR
from .errors import EngineStartFailed, InvalidInput, QueryFailed, QueryTimeout, RGuardError

# FalkorDB appends the offending Cypher to parse errors ("... line: 1, column: 5, offset: 4 errCtx: MATCH ...")
_CYPHER_CONTEXT = re.compile(r"\s(?:errCtx|line|query):|\s*\bline: \d")
LOG_NAME = "errors.log"
MAX_LOG_BYTES = 5_000_000  # the log is rotated once (errors.log.1) beyond this
MAX_LINE = 400

# FalkorDB's own messages, mapped to what the user can do about them (first match wins).
_STORE_MESSAGES: tuple[tuple[str, str], ...] = (
    (
        "operates only on non-negative integers",
        "a limit or offset is negative or not a whole number; pass a positive number (for example --limit 10)",
    ),
    (
        "failed to parse query parameter",
        "a value holds characters the graph store cannot read (such as a NUL); remove them and try again",
    ),
    ("surrogates not allowed", "a value is not valid UTF-8 text; pass it as UTF-8"),
    ("type mismatch", "a value has the wrong type for this request; check the arguments"),
)


def check_args(args: argparse.Namespace, argv: Sequence[str]) -> None:
    """Refuse arguments that are not valid UTF-8 (the shell hands them over with surrogate escapes): they
    could be neither stored nor shown."""
    for name, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        for v in values:
            if isinstance(v, (str, os.PathLike)) and not _is_utf8(os.fspath(v)):
                raise InvalidInput(
                    f"{_which(name, os.fspath(v), argv)} is not valid UTF-8 text; pass it as UTF-8 "
                    "(for example convert it with iconv -t UTF-8)"
                )


def _which(dest: str, value: str | bytes, argv: Sequence[str]) -> str:
    """How the user typed the argument: ``--text`` for an option, the positional's name otherwise."""
    args = list(argv)
    for i, a in enumerate(args):
        if a == value and i > 0 and args[i - 1].startswith("--"):
            return args[i - 1]
        if a.startswith("--") and "=" in a and a.split("=", 1)[1] == value:
            return a.split("=", 1)[0]
    return f"the {dest.replace('_', ' ')} argument"


def _is_utf8(text: str | bytes) -> bool:
    if isinstance(text, bytes):
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def user_message(e: RGuardError) -> str:
    """The one-line message for a deliberate error; a store failure loses its internal Cypher."""
    if isinstance(e, EngineStartFailed):
        # the engine's message ends with its server log, which it names; one line here, the log stays there
        return str(e).split("\n", 1)[0].rstrip(" :")
    if isinstance(e, QueryTimeout):
        return (
            f"a graph query ran past its {e.timeout_ms} ms limit; narrow the request or raise RGUARD_QUERY_TIMEOUT_MS"
        )
    if isinstance(e, QueryFailed):
        cause = _CYPHER_CONTEXT.split(" ".join(str(e.cause).split()), maxsplit=1)[0].rstrip(" ,:;")
        hint = next((h for key, h in _STORE_MESSAGES if key in cause.lower()), None)
        return hint or f"the graph store refused a request on {e.graph}: {_short(cause)}"
    return str(e)


def log_path() -> Path:
    """``<RGUARD_DATA_DIR>/logs/errors.log`` (the data dir from the environment, as every command uses)."""
    return Path(os.environ.get("RGUARD_DATA_DIR") or DEFAULT_DATA_DIR) / "logs" / LOG_NAME


def log_crash(exc: BaseException, argv: Sequence[str] | None, details: str = "") -> Path:
    """Append the traceback (and the command line) to the error log; returns where it went."""
    text = (
        f"--- {dt.datetime.now(dt.UTC).isoformat(timespec='seconds')} rguard {' '.join(argv or [])}\n"
        f"{details}{''.join(traceback.format_exception(exc))}\n"
    )
    # Only inside the data dir: a fixed path in a shared /tmp could be another user's file or link.
    path = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > MAX_LOG_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8", errors="backslashreplace") as fh:
            fh.write(text)
        return path.resolve()
    except OSError:
        return Path("(nowhere: the data dir's log could not be written)")


def crash_message(exc: BaseException, where: Path) -> str:
    return (
        f"internal error ({type(exc).__name__}: {_short(' '.join(str(exc).split()))}); "
        f"the full traceback is in {where}; please report it"
    )


def _short(text: str) -> str:
    return text if len(text) <= MAX_LINE else text[: MAX_LINE - 1] + "…"

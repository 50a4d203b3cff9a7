"""Settings read from the environment at startup."""

import os
from dataclasses import dataclass
from typing import Self


@dataclass(frozen=True)
class Settings:
    database_url: str
    webhook_secret: bytes
    rate_limit_per_minute: int = 600
    currency: str = "EUR"

    @classmethod
    def from_env(cls) -> Self:
        return cls(
            database_url=os.environ.get("TOLLGATE_DATABASE_URL", "postgresql://localhost/tollgate"),
            webhook_secret=os.environ.get("TOLLGATE_WEBHOOK_SECRET", "").encode(),
            rate_limit_per_minute=int(os.environ.get("TOLLGATE_RATE_LIMIT_PER_MINUTE", "600")),
            currency=os.environ.get("TOLLGATE_CURRENCY", "EUR"),
        )

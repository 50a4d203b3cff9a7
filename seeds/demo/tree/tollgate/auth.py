"""Login: a client exchanges an API key for a session token."""

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class ApiKey:
    key_id: str
    account_id: str
    role: str


def hash_key(raw_key):
    """API keys are stored only as SHA-256 hashes."""
    return hashlib.sha256(raw_key.encode()).hexdigest()


def login(keys, sessions, raw_key):
    """A new session for a known API key, or None; ``keys`` maps key hashes to ApiKey."""
    api_key = keys.get(hash_key(raw_key))
    if api_key is None:
        return None
    return sessions.create(api_key.account_id, api_key.key_id, api_key.role)


def bearer_token(headers):
    return headers.get("Authorization", "").removeprefix("Bearer ").strip()

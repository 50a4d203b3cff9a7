"""Sessions: a client exchanges its API key for a bearer token at login."""

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from tollgate.clock import utc_now

# A session ends after 15 minutes without a request (SOC 2 CC6.1); every request restarts the clock.
IDLE_TIMEOUT_SECONDS = 15 * 60


@dataclass
class Session:
    token: str
    account_id: str
    api_key_id: str
    role: str
    last_seen: datetime


class SessionStore:
    def __init__(self, clock=utc_now):
        self._sessions = {}
        self._clock = clock

    def create(self, account_id, api_key_id, role):
        token = secrets.token_urlsafe(32)
        self._sessions[token] = Session(token, account_id, api_key_id, role, self._clock())
        return self._sessions[token]

    def touch(self, token):
        """The live session for ``token`` with its idle clock restarted; None when unknown or idle too long."""
        session = self._sessions.get(token)
        if session is None:
            return None
        now = self._clock()
        if now - session.last_seen > timedelta(seconds=IDLE_TIMEOUT_SECONDS):
            del self._sessions[token]
            return None
        session.last_seen = now
        return session

    def seconds_left(self, token):
        """Seconds until the session ends if no request comes in; 0 when it has ended. Does not restart it."""
        session = self._sessions.get(token)
        if session is None:
            return 0
        idle = (self._clock() - session.last_seen).total_seconds()
        return max(0, int(IDLE_TIMEOUT_SECONDS - idle))

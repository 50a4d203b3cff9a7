"""Fixed-window rate limiting, one bucket per API key."""

import time


class RateLimiter:
    def __init__(self, limit_per_minute=600, clock=time.monotonic):
        self.limit = limit_per_minute
        self._clock = clock
        self._windows = {}

    def allow(self, api_key_id):
        """Count one request for the API key ``api_key_id``; False when its current minute is full."""
        window = int(self._clock() // 60)
        key = (api_key_id, window)
        count = self._windows.get(key, 0)
        if count >= self.limit:
            return False
        self._windows[key] = count + 1
        return True

    def seconds_until_reset(self):
        """Seconds until the current window ends, for the Retry-After header."""
        return 60 - int(self._clock() % 60)

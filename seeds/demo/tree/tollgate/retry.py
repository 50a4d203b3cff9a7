"""Retrying calls to the payment provider and other remote services."""

import time
from dataclasses import dataclass


class TransientError(Exception):
    """A timeout or a 5xx answer from the other side."""


@dataclass
class Call:
    name: str
    payload: dict
    idempotency_key: str | None = None


def call_with_retry(send, call, attempts=3, backoff_seconds=0.5, sleep=time.sleep):
    """Send ``call``; retry transient failures only when it carries an idempotency key."""
    if call.idempotency_key is None:
        # Without a key the other side cannot drop a duplicate, so a retry could charge twice.
        return send(call)
    for attempt in range(1, attempts + 1):
        try:
            return send(call)
        except TransientError:
            if attempt == attempts:
                raise
            sleep(backoff_seconds * 2 ** (attempt - 1))

"""Webhook signatures: we sign deliveries to customers and verify the payment provider's callbacks."""

import hashlib
import hmac

from tollgate.clock import utc_now
from tollgate.retry import Call, call_with_retry


def sign(secret, payload, timestamp):
    """Hex HMAC-SHA256 over ``timestamp`` and ``payload``, so a signature cannot be moved to another time."""
    message = str(timestamp).encode() + b"." + payload
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def verify(secret, payload, signature, timestamp):
    """True when ``signature`` is the HMAC of ``timestamp`` and ``payload`` under ``secret``; constant time."""
    expected = sign(secret, payload, timestamp)
    # == stops at the first differing character and leaks how much of a forged signature is right.
    return hmac.compare_digest(expected, signature)


def deliver(send, url, event_id, payload, secret, clock=utc_now):
    """POST a signed delivery; safe to retry because the event id is its idempotency key."""
    timestamp = int(clock().timestamp())
    call = Call(
        "webhook",
        {"url": url, "body": payload.decode(), "timestamp": timestamp, "signature": sign(secret, payload, timestamp)},
        idempotency_key=f"webhook:{event_id}",
    )
    return call_with_retry(send, call)

"""The one source of timestamps. Everything tollgate stores is an aware UTC datetime."""

from datetime import UTC, datetime


def utc_now():
    """The current time in UTC, timezone-aware."""
    return datetime.now(UTC)


def to_utc(value):
    """Convert an aware datetime to UTC; a naive one is refused because its zone is unknown."""
    if value.tzinfo is None:
        raise ValueError("naive datetime: attach a timezone before storing it")
    return value.astimezone(UTC)

"""Usage events: an append-only log in the Postgres table usage_events (ADR-0003)."""

from dataclasses import dataclass
from datetime import datetime

from tollgate.clock import utc_now

METERS = ("api.request", "export.row", "storage.gb_hour", "webhook.delivery")


@dataclass(frozen=True)
class UsageEvent:
    id: int
    account_id: str
    meter: str
    quantity: int
    at: datetime
    corrects_id: int | None = None


class EventStore:
    """Appends and reads usage events through a DB-API connection (psycopg in production).

    Events are never updated or deleted (ADR-0003); a correction is a new event that offsets the old one.
    """

    def __init__(self, conn):
        self._conn = conn

    def record(self, account_id, meter, quantity, corrects_id=None):
        if meter not in METERS:
            raise ValueError(f"unknown meter {meter!r}")
        at = utc_now()
        with self._conn.cursor() as cur:
            cur.execute(
                "INSERT INTO usage_events (account_id, meter, quantity, at, corrects_id)"
                " VALUES (%s, %s, %s, %s, %s) RETURNING id",
                (account_id, meter, quantity, at, corrects_id),
            )
            (event_id,) = cur.fetchone()
        return UsageEvent(event_id, account_id, meter, quantity, at, corrects_id)

    def correct(self, event, quantity):
        """Record that ``event`` should have had ``quantity``: a new event offsets it and the original stays."""
        return self.record(event.account_id, event.meter, quantity - event.quantity, corrects_id=event.id)

    def events_for(self, account_id):
        with self._conn.cursor() as cur:
            cur.execute(
                "SELECT id, account_id, meter, quantity, at, corrects_id FROM usage_events"
                " WHERE account_id = %s ORDER BY id",
                (account_id,),
            )
            return [UsageEvent(*row) for row in cur.fetchall()]

    def events_page(self, account_id, after_id, limit):
        """Up to ``limit`` events with an id above ``after_id``, oldest first (keyset paging)."""
        with self._conn.cursor() as cur:
            cur.execute(
                "SELECT id, account_id, meter, quantity, at, corrects_id FROM usage_events"
                " WHERE account_id = %s AND id > %s ORDER BY id LIMIT %s",
                (account_id, after_id, limit),
            )
            return [UsageEvent(*row) for row in cur.fetchall()]

    def usage_totals(self, account_id):
        """Total quantity per meter for ``account_id``, corrections included."""
        with self._conn.cursor() as cur:
            cur.execute(
                "SELECT meter, SUM(quantity) FROM usage_events WHERE account_id = %s GROUP BY meter",
                (account_id,),
            )
            return dict(cur.fetchall())

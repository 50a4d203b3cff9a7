from datetime import UTC, datetime

from tollgate.events import EventStore, UsageEvent


class FakeCursor:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def execute(self, sql, params):
        self.log.append((sql, params))

    def fetchone(self):
        return (len(self.log),)


class FakeConn:
    def __init__(self):
        self.log = []

    def cursor(self):
        return FakeCursor(self.log)


def test_correction_is_a_new_offsetting_event():
    conn = FakeConn()
    original = UsageEvent(7, "acct_1", "api.request", 120, datetime(2025, 4, 1, tzinfo=UTC))
    fix = EventStore(conn).correct(original, 100)
    assert (fix.quantity, fix.corrects_id) == (-20, 7)
    assert [sql.split()[0] for sql, _ in conn.log] == ["INSERT"]


def test_events_cannot_be_updated_or_deleted():
    assert not hasattr(EventStore, "update_quantity")
    assert not hasattr(EventStore, "delete")

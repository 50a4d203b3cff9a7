import io
from datetime import UTC, datetime

from tollgate import exporter
from tollgate.events import UsageEvent


class FakeStore:
    def __init__(self, events):
        self.events = events
        self.page_calls = 0

    def events_page(self, account_id, after_id, limit):
        self.page_calls += 1
        rows = [event for event in self.events if event.account_id == account_id and event.id > after_id]
        return rows[:limit]


def test_rows_are_written_page_by_page(monkeypatch):
    monkeypatch.setattr(exporter, "PAGE_SIZE", 2)
    at = datetime(2024, 9, 1, tzinfo=UTC)
    store = FakeStore([UsageEvent(i, "acct_1", "api.request", i, at) for i in range(1, 6)])
    out = io.StringIO()
    assert exporter.export_usage_csv(store, "acct_1", out) == 5
    assert len(out.getvalue().splitlines()) == 6
    assert store.page_calls == 4  # pages of 2, 2 and 1 rows, then an empty page ends the export

"""CSV export of an account's usage events."""

import csv

HEADER = ["event_id", "meter", "quantity", "at"]

# Rows fetched per query. The exporter holds one page in memory, never the whole account.
PAGE_SIZE = 1000


def export_usage_csv(store, account_id, out):
    """Write an account's usage to ``out`` as CSV, one keyset page at a time; returns the row count."""
    writer = csv.writer(out)
    writer.writerow(HEADER)
    after_id = 0
    rows = 0
    while True:
        page = store.events_page(account_id, after_id, PAGE_SIZE)
        if not page:
            return rows
        for event in page:
            writer.writerow([event.id, event.meter, event.quantity, event.at.isoformat()])
        rows += len(page)
        after_id = page[-1].id

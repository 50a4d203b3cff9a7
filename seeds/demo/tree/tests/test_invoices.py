from decimal import Decimal

import pytest

from tollgate.invoices import InvoiceIssuedError, build_invoice, credit_note, issue, update_draft_line


def test_one_line_per_priced_meter():
    invoice = build_invoice("INV-1", "acct_1", {"api.request": 10000, "export.row": 500})
    assert [line.meter for line in invoice.lines] == ["api.request", "export.row"]


def test_total_is_rounded_once_half_even():
    # 4.0000 + 0.00500 = 4.00500, which banker's rounding takes to 4.00 (rounding each line first gave 4.01).
    invoice = build_invoice("INV-2", "acct_1", {"api.request": 10000, "export.row": 500})
    assert invoice.total == Decimal("4.00")


def test_unpriced_meter_is_listed_not_billed_as_free():
    invoice = build_invoice("INV-3", "acct_1", {"api.request": 100, "gpu.second": 30})
    assert invoice.unpriced == ["gpu.second"]
    assert [line.meter for line in invoice.lines] == ["api.request"]


def test_free_meter_is_billed_at_zero():
    invoice = build_invoice("INV-4", "acct_1", {"webhook.delivery": 12})
    assert invoice.lines[0].amount == Decimal("0")


def test_issued_invoice_cannot_be_edited():
    invoice = issue(build_invoice("INV-5", "acct_1", {"api.request": 100}))
    with pytest.raises(InvoiceIssuedError):
        update_draft_line(invoice, "api.request", 50)


def test_credit_note_leaves_the_invoice_unchanged():
    invoice = issue(build_invoice("INV-6", "acct_1", {"api.request": 10000}))
    note = credit_note(invoice, "CN-INV-6-1", Decimal("1.50"), "goodwill")
    assert note.invoice_number == "INV-6"
    assert invoice.total == Decimal("4.00")

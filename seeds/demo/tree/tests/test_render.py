from decimal import Decimal

from tollgate.invoices import build_invoice
from tollgate.render import render_invoice


def test_amounts_show_two_decimals_but_keep_their_value():
    invoice = build_invoice("INV-7", "acct_1", {"storage.gb_hour": 731})
    assert "0.09" in render_invoice(invoice)
    assert invoice.lines[0].amount == Decimal("0.08772")

"""Invoices built from an account's monthly usage, and credit notes that correct issued ones."""

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from tollgate.clock import utc_now
from tollgate.currency import round_money
from tollgate.pricing import line_cost


class InvoiceIssuedError(Exception):
    """An issued invoice was about to be changed. Correct it with a credit note instead."""


@dataclass
class InvoiceLine:
    meter: str
    quantity: int
    amount: Decimal


@dataclass
class Invoice:
    number: str
    account_id: str
    lines: list = field(default_factory=list)
    total: Decimal = Decimal("0")
    unpriced: list = field(default_factory=list)
    issued_at: datetime | None = None
    currency: str = "EUR"


@dataclass(frozen=True)
class CreditNote:
    number: str
    invoice_number: str
    amount: Decimal
    reason: str
    issued_at: datetime


def build_invoice(number, account_id, usage, currency="EUR"):
    """Price ``usage`` (quantity per meter) into a draft invoice."""
    invoice = Invoice(number, account_id, currency=currency)
    subtotal = Decimal("0")
    for meter, quantity in sorted(usage.items()):
        cost = line_cost(meter, quantity)
        if cost is None:
            # Unknown price: list the meter for billing ops instead of billing it as free.
            invoice.unpriced.append(meter)
            continue
        invoice.lines.append(InvoiceLine(meter, quantity, cost))
        subtotal += cost
    # The only place an invoice amount is rounded (ADR-0002).
    invoice.total = round_money(subtotal)
    return invoice


def update_draft_line(invoice, meter, quantity):
    """Change a line of a draft invoice and recompute its total."""
    if invoice.issued_at is not None:
        raise InvoiceIssuedError(f"{invoice.number} is issued; correct it with a credit note")
    for line in invoice.lines:
        if line.meter == meter:
            line.quantity = quantity
            line.amount = line_cost(meter, quantity)
    invoice.total = round_money(sum((line.amount for line in invoice.lines), Decimal("0")))


def issue(invoice):
    """Issue ``invoice``. From here on it is immutable; only a credit note can correct it."""
    if invoice.issued_at is not None:
        raise InvoiceIssuedError(f"{invoice.number} is already issued")
    invoice.issued_at = utc_now()
    return invoice


def credit_note(invoice, number, amount, reason):
    """A credit note against an issued invoice; the invoice itself stays exactly as issued."""
    if invoice.issued_at is None:
        raise ValueError(f"{invoice.number} is a draft; edit it instead of crediting it")
    return CreditNote(number, invoice.number, round_money(amount), reason, utc_now())

"""Plain-text rendering of an invoice: the body of the PDF the customer receives."""

from tollgate.currency import format_money


def render_invoice(invoice):
    lines = [f"Invoice {invoice.number}", f"Account {invoice.account_id}", f"Currency {invoice.currency}"]
    if invoice.issued_at is not None:
        lines.append("Issued " + invoice.issued_at.astimezone().strftime("%d.%m.%Y %H:%M"))
    for line in invoice.lines:
        lines.append(f"{line.meter:<20} {line.quantity:>12} {format_money(line.amount):>12}")
    lines.append(f"{'Total':<33} {format_money(invoice.total):>12}")
    return "\n".join(lines) + "\n"

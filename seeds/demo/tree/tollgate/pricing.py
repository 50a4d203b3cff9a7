"""Unit prices per meter. All money is Decimal (ADR-0002)."""

from decimal import Decimal

PRICES = {
    "api.request": Decimal("0.0004"),
    "export.row": Decimal("0.00001"),
    "storage.gb_hour": Decimal("0.00012"),
    "webhook.delivery": Decimal("0"),
}


def unit_price(meter):
    """The price of one unit, or None when the meter has no configured price (unknown is not free)."""
    return PRICES.get(meter)


def line_cost(meter, quantity):
    """Exact cost of ``quantity`` units, or None when the price is unknown; never coerced to 0."""
    price = unit_price(meter)
    if price is None:
        return None
    return price * quantity

"""Money. Every amount is a Decimal, never a float (ADR-0002)."""

from decimal import ROUND_HALF_EVEN, Decimal

CENT = Decimal("0.01")


def to_money(value):
    """An exact Decimal from a str, int or Decimal; floats are refused because they cannot hold cents exactly."""
    if isinstance(value, float):
        raise TypeError("money must not be a float; pass a str or a Decimal")
    return Decimal(value)


def round_money(amount):
    """Round to cents with banker's rounding. Only invoice totals and credit notes are rounded."""
    return amount.quantize(CENT, rounding=ROUND_HALF_EVEN)


def format_money(amount):
    """An amount as text with two decimals, for people to read; never feed the result back into arithmetic."""
    return str(amount.quantize(CENT, rounding=ROUND_HALF_EVEN))

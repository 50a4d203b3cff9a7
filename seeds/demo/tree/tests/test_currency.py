from decimal import Decimal

import pytest

from tollgate.currency import round_money, to_money


def test_half_even_rounding():
    assert round_money(Decimal("0.125")) == Decimal("0.12")
    assert round_money(Decimal("0.135")) == Decimal("0.14")


def test_float_is_refused():
    with pytest.raises(TypeError):
        to_money(0.1)

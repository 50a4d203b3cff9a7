from decimal import Decimal

from tollgate.pricing import line_cost


def test_api_requests_are_priced():
    assert line_cost("api.request", 10000) == Decimal("4.0000")


def test_unknown_price_is_none_not_zero():
    assert line_cost("gpu.second", 10) is None


def test_free_meter_costs_zero():
    assert line_cost("webhook.delivery", 5) == Decimal("0")

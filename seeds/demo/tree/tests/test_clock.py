from datetime import datetime, timedelta, timezone

import pytest

from tollgate.clock import to_utc, utc_now


def test_now_is_aware_utc():
    assert utc_now().utcoffset() == timedelta(0)


def test_naive_datetime_is_refused():
    with pytest.raises(ValueError):
        to_utc(datetime(2024, 3, 31, 2, 30))


def test_local_time_is_converted():
    berlin_summer = timezone(timedelta(hours=2))
    assert to_utc(datetime(2024, 4, 1, 1, 0, tzinfo=berlin_summer)).day == 31

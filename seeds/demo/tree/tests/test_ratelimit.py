from tollgate.ratelimit import RateLimiter


def test_each_api_key_has_its_own_bucket():
    limiter = RateLimiter(limit_per_minute=2, clock=lambda: 0.0)
    assert limiter.allow("key_a")
    assert limiter.allow("key_a")
    assert not limiter.allow("key_a")
    assert limiter.allow("key_b")


def test_a_new_minute_starts_a_new_window():
    now = [0.0]
    limiter = RateLimiter(limit_per_minute=1, clock=lambda: now[0])
    assert limiter.allow("key_a")
    assert not limiter.allow("key_a")
    now[0] = 60.0
    assert limiter.allow("key_a")


def test_seconds_until_reset():
    limiter = RateLimiter(limit_per_minute=1, clock=lambda: 125.0)
    assert limiter.seconds_until_reset() == 55

from datetime import UTC, datetime, timedelta

from tollgate.sessions import IDLE_TIMEOUT_SECONDS, SessionStore


class FakeClock:
    def __init__(self):
        self.now = datetime(2024, 6, 1, 9, 0, tzinfo=UTC)

    def __call__(self):
        return self.now


def test_session_expires_after_idle_timeout():
    clock = FakeClock()
    store = SessionStore(clock=clock)
    session = store.create("acct_1", "key_1", "member")
    clock.now += timedelta(seconds=IDLE_TIMEOUT_SECONDS + 1)
    assert store.touch(session.token) is None


def test_activity_restarts_the_idle_clock():
    clock = FakeClock()
    store = SessionStore(clock=clock)
    session = store.create("acct_1", "key_1", "member")
    for _ in range(4):
        clock.now += timedelta(minutes=10)
        assert store.touch(session.token) is not None


def test_seconds_left_does_not_restart_the_clock():
    clock = FakeClock()
    store = SessionStore(clock=clock)
    session = store.create("acct_1", "key_1", "member")
    clock.now += timedelta(minutes=5)
    assert store.seconds_left(session.token) == 10 * 60
    clock.now += timedelta(minutes=11)
    assert store.touch(session.token) is None

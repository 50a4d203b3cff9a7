import pytest

from tollgate.retry import Call, TransientError, call_with_retry


def flaky(failures):
    calls = []

    def send(call):
        calls.append(call)
        if len(calls) <= failures:
            raise TransientError("timeout")
        return "ok"

    return send, calls


def test_call_without_key_is_sent_once():
    send, calls = flaky(1)
    with pytest.raises(TransientError):
        call_with_retry(send, Call("charge", {}), sleep=lambda seconds: None)
    assert len(calls) == 1


def test_call_with_key_is_retried():
    send, calls = flaky(2)
    call = Call("charge", {}, idempotency_key="charge:INV-1")
    assert call_with_retry(send, call, sleep=lambda seconds: None) == "ok"
    assert len(calls) == 3

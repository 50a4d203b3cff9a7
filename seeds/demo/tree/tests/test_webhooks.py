from tollgate.retry import TransientError
from tollgate.webhooks import deliver, sign, verify

SECRET = b"whsec_test"


def test_valid_signature_is_accepted():
    assert verify(SECRET, b'{"invoice": "INV-1"}', sign(SECRET, b'{"invoice": "INV-1"}', 1700000000), 1700000000)


def test_forged_signature_is_refused():
    assert not verify(SECRET, b'{"invoice": "INV-1"}', "0" * 64, 1700000000)


def test_signature_is_bound_to_its_timestamp():
    signature = sign(SECRET, b"{}", 1700000000)
    assert not verify(SECRET, b"{}", signature, 1700000300)


def test_delivery_is_retried_with_the_event_id_as_key(monkeypatch):
    monkeypatch.setattr("time.sleep", lambda seconds: None)
    sent = []

    def send(call):
        sent.append(call.idempotency_key)
        if len(sent) == 1:
            raise TransientError("503")
        return "ok"

    assert deliver(send, "https://example.test/hook", 42, b"{}", SECRET) == "ok"
    assert sent == ["webhook:42", "webhook:42"]

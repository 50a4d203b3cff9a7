"""Charging invoices through the payment provider."""

from tollgate.retry import Call, call_with_retry


def charge(send, invoice):
    """Ask the provider to charge ``invoice``'s total to the account's card."""
    # The provider drops a second charge with the same key, so retrying after a timeout cannot charge twice.
    call = Call(
        "charge",
        {
            "invoice": invoice.number,
            "account": invoice.account_id,
            "amount": str(invoice.total),
            "currency": invoice.currency,
        },
        idempotency_key=f"charge:{invoice.number}",
    )
    return call_with_retry(send, call)

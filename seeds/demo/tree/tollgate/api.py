"""Request handlers. The web adapter parses HTTP, calls one of these and writes the Response."""

import logging
from dataclasses import dataclass, field

from tollgate import access, exporter, invoices
from tollgate.auth import bearer_token
from tollgate.currency import to_money

log = logging.getLogger(__name__)


@dataclass
class Request:
    headers: dict = field(default_factory=dict)
    client_ip: str = ""


@dataclass
class Response:
    status: int
    body: object = None
    headers: dict = field(default_factory=dict)


class Api:
    def __init__(self, store, sessions, limiter, invoice_book):
        self.store = store
        self.sessions = sessions
        self.limiter = limiter
        self.invoice_book = invoice_book
        self.credit_notes = []

    def _guard(self, request, action):
        """Authenticate, rate-limit and authorise; returns (session, None) or (None, error response)."""
        # touch() enforces the idle timeout and restarts it; every request passes through here.
        session = self.sessions.touch(bearer_token(request.headers))
        if session is None:
            return None, Response(401)
        # One bucket per API key: many customers share one NAT address, and one key may call from many.
        if not self.limiter.allow(session.api_key_id):
            return None, Response(429, headers={"Retry-After": str(self.limiter.seconds_until_reset())})
        if not access.is_allowed(session.role, action):
            log.warning("refused %s for role %r on account %s", action, session.role, session.account_id)
            return None, Response(403)
        return session, None

    def _invoice_of(self, session, number):
        invoice = self.invoice_book.get(number)
        if invoice is None or invoice.account_id != session.account_id:
            return None
        return invoice

    def get_usage(self, request):
        session, error = self._guard(request, "read_usage")
        if error:
            return error
        return Response(200, self.store.usage_totals(session.account_id))

    def get_invoice(self, request, number):
        session, error = self._guard(request, "read_invoices")
        if error:
            return error
        invoice = self._invoice_of(session, number)
        if invoice is None:
            return Response(404)
        return Response(200, invoice)

    def refund(self, request, number, amount):
        session, error = self._guard(request, "refund")
        if error:
            return error
        invoice = self._invoice_of(session, number)
        if invoice is None:
            return Response(404)
        # An issued invoice is never edited: a refund is a credit note that references it.
        note_number = f"CN-{invoice.number}-{len(self.credit_notes) + 1}"
        note = invoices.credit_note(invoice, note_number, to_money(amount), "refund")
        self.credit_notes.append(note)
        return Response(202, {"credit_note": note.number, "invoice": invoice.number, "amount": str(note.amount)})

    def export_usage(self, request):
        session, error = self._guard(request, "export")
        if error:
            return error

        def write(out):
            exporter.export_usage_csv(self.store, session.account_id, out)

        # The web adapter calls the body with the response stream; the exporter writes one page at a time.
        return Response(200, write, {"Content-Type": "text/csv"})

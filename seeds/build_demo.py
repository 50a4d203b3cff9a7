#!/usr/bin/env python3
"""Write the demo seed: the fictional repository acme/tollgate as a GitHub REST snapshot (stdlib only).

The story is data (PEOPLE, INITIAL_TREE, EVENTS, STORIES below). Every merged PR's edits are applied in merge
order to an in-memory tree and its patch is computed with difflib, so the patches and the final tree agree by
construction. ``python seeds/build_demo.py [--out DIR]`` rewrites DIR (default seeds/demo) deterministically.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

REPO = "acme/tollgate"
WEB = f"https://github.com/{REPO}"
HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "demo"
GENERATED = ("github", "tree", "STORY.md", "story.json")  # everything the script owns inside --out


# --------------------------------------------------------------------------------------------------------------
# The story's building blocks
# --------------------------------------------------------------------------------------------------------------


def t(s: str) -> str:
    """Drop the newline that follows an opening triple quote, so snippets can start on their own line."""
    return s[1:] if s.startswith("\n") else s


@dataclass(frozen=True)
class Sub:
    """Replace the only occurrence of ``old`` in ``path`` with ``new``."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Put:
    """Create ``path`` or overwrite it whole."""

    path: str
    text: str


@dataclass(frozen=True)
class Remove:
    path: str


@dataclass(frozen=True)
class Rename:
    old: str
    new: str


@dataclass(frozen=True)
class RevertOf:
    """Undo every file change of an earlier merged PR (the files must be unchanged since)."""

    key: str


Edit = Sub | Put | Remove | Rename | RevertOf


@dataclass(frozen=True)
class Person:
    login: str
    name: str
    role: str
    is_bot: bool = False


@dataclass(frozen=True)
class Review:
    """A review comment on the line of ``path`` (new side of the PR's patch) that contains ``anchor``."""

    author: str
    at: str
    path: str
    anchor: str
    body: str


@dataclass(frozen=True)
class Note:
    """A conversation comment on a PR or an issue."""

    author: str
    at: str
    body: str


@dataclass
class PR:
    key: str
    title: str
    author: str
    created: str
    body: str
    edits: list[Edit]
    merged: str | None = None
    closed: str | None = None  # closed without merging
    review: list[Review] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)


@dataclass
class Issue:
    key: str
    title: str
    author: str
    created: str
    body: str
    closed: str | None = None
    state_reason: str | None = None  # completed | not_planned | reopened
    notes: list[Note] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)


@dataclass
class Story:
    """One decision line of the story, for STORY.md and story.json (checked against the output)."""

    id: str
    title: str
    decision_pr: str
    decision: str  # verbatim sentence(s) of the decision PR's body
    prs: list[str]
    issues: list[str]
    lines: dict[str, list[str]]  # path -> decisive lines, each a whole line of the HEAD file
    alternatives: list[str] = field(default_factory=list)  # verbatim rejected alternatives (review comments)
    premise: str = ""  # what the guard's premise rules should notice
    undo_ideas: list[str] = field(default_factory=list)  # how a contradicting diff would look
    benign_ideas: list[str] = field(default_factory=list)  # nearby changes that keep the decision


# --------------------------------------------------------------------------------------------------------------
# People
# --------------------------------------------------------------------------------------------------------------

PEOPLE = [
    Person("mlindqvist", "Mara Lindqvist", "maintainer and tech lead; writes the ADRs, cuts releases"),
    Person("tkowalski", "Tomasz Kowalski", "billing engineer: pricing, invoices, money"),
    Person("pnair", "Priya Nair", "security engineer: access control, sessions policy, webhook signatures"),
    Person("jdelacroix", "Julien Delacroix", "SRE / platform: rate limits, retries, operations"),
    Person("hyamamoto", "Hana Yamamoto", "API and sessions engineer; left the team, last active 2025-03"),
    Person("rokafor", "Rachel Okafor", "data engineer: usage export; left the team, last active 2024-10"),
    Person("dependabot[bot]", "Dependabot", "dependency bumps", is_bot=True),
]


# --------------------------------------------------------------------------------------------------------------
# The repository as first imported (2024-01-05, before PR #1)
# --------------------------------------------------------------------------------------------------------------

INITIAL_TREE: dict[str, str] = {
    "README.md": t(r'''
# tollgate

Usage metering and billing for the Acme API platform. tollgate recieves usage events from the API
gateway, prices them per meter, builds monthly invoices and charges them through the payment provider.

## Quickstart

    pip install -e .[dev]
    pytest

## Layout

- `tollgate/events.py`: usage events
- `tollgate/pricing.py`: unit prices per meter
- `tollgate/invoices.py`: monthly invoices
- `tollgate/api.py`: request handlers
- `OPERATIONS.md`: running tollgate in production
'''),
    "CHANGELOG.md": t(r'''
# Changelog

## Unreleased

## 0.1.0 (2024-01-05)

- First import of the metering and billing prototype.
'''),
    "OPERATIONS.md": t(r'''
# Operations

## Deploying

tollgate runs as two processes: the API (`tollgate.api`) behind the load balancer, and the nightly
invoice job. Both read their settings from the environment (see `tollgate/config.py`).

## Rate limits

Each client IP gets 600 requests per minute by default (`TOLLGATE_RATE_LIMIT_PER_MINUTE`). A client
that goes over the limit recieves HTTP 429 until the next minute starts.
'''),
    "docs/billing.md": t(r'''
# Billing model

Usage events are counted per account and meter. At the end of each month the invoice job prices each
meter's total quantity with `pricing.line_cost()` and writes one invoice per account.

| meter | unit |
|---|---|
| api.request | one API call |
| export.row | one exported row |
| webhook.delivery | one webhook sent |
'''),
    "pyproject.toml": t(r'''
[project]
name = "tollgate"
version = "0.1.0"
description = "Usage metering and billing for the Acme API platform"
requires-python = ">=3.11"
dependencies = ["requests>=2.31"]

[project.optional-dependencies]
dev = ["pytest>=7.4"]

[tool.pytest.ini_options]
testpaths = ["tests"]
'''),
    "requirements.txt": "requests==2.31.0\n",
    "requirements-dev.txt": "-r requirements.txt\npytest==7.4.4\n",
    "tollgate/__init__.py": t(r'''
"""tollgate: usage metering and billing."""

__version__ = "0.1.0"
'''),
    "tollgate/config.py": t(r'''
"""Settings read from the environment at startup."""

import os
from dataclasses import dataclass
from typing import Self


@dataclass(frozen=True)
class Settings:
    webhook_secret: bytes
    rate_limit_per_minute: int = 600
    currency: str = "EUR"

    @classmethod
    def from_env(cls) -> Self:
        return cls(
            webhook_secret=os.environ.get("TOLLGATE_WEBHOOK_SECRET", "").encode(),
            rate_limit_per_minute=int(os.environ.get("TOLLGATE_RATE_LIMIT_PER_MINUTE", "600")),
            currency=os.environ.get("TOLLGATE_CURRENCY", "EUR"),
        )
'''),
    "tollgate/events.py": t(r'''
"""Usage events: one record per metered unit of work."""

from dataclasses import dataclass
from datetime import datetime

METERS = ("api.request", "export.row", "webhook.delivery")


@dataclass
class UsageEvent:
    id: int
    account_id: str
    meter: str
    quantity: int
    at: datetime


class EventStore:
    """Keeps usage events in memory. Prototype only: a restart loses everything."""

    def __init__(self):
        self._events = []

    def record(self, account_id, meter, quantity):
        if meter not in METERS:
            raise ValueError(f"unknown meter {meter!r}")
        event = UsageEvent(len(self._events) + 1, account_id, meter, quantity, datetime.now())
        self._events.append(event)
        return event

    def events_for(self, account_id):
        return [event for event in self._events if event.account_id == account_id]

    def usage_totals(self, account_id):
        """Total quantity per meter for ``account_id``."""
        totals = {}
        for event in self.events_for(account_id):
            totals[event.meter] = totals.get(event.meter, 0) + event.quantity
        return totals
'''),
    "tollgate/pricing.py": t(r'''
"""Unit prices per meter."""

PRICES = {
    "api.request": 0.0004,
    "export.row": 0.00001,
    "webhook.delivery": 0.0,
}


def unit_price(meter):
    return PRICES.get(meter, 0)


def line_cost(meter, quantity):
    price = unit_price(meter)
    if not price:
        return 0
    return round(price * quantity, 2)
'''),
    "tollgate/invoices.py": t(r'''
"""Invoices built from an account's monthly usage."""

from dataclasses import dataclass, field
from datetime import datetime

from tollgate.pricing import line_cost


@dataclass
class InvoiceLine:
    meter: str
    quantity: int
    amount: float


@dataclass
class Invoice:
    number: str
    account_id: str
    lines: list = field(default_factory=list)
    total: float = 0.0
    issued_at: datetime | None = None


def build_invoice(number, account_id, usage):
    """Price ``usage`` (quantity per meter) into a draft invoice."""
    invoice = Invoice(number, account_id)
    for meter, quantity in sorted(usage.items()):
        cost = line_cost(meter, quantity)
        if not cost:
            continue
        invoice.lines.append(InvoiceLine(meter, quantity, cost))
        invoice.total += cost
    return invoice


def update_line(invoice, meter, quantity):
    """Change a line's quantity and recompute the total."""
    for line in invoice.lines:
        if line.meter == meter:
            line.quantity = quantity
            line.amount = line_cost(meter, quantity)
    invoice.total = sum(line.amount for line in invoice.lines)


def issue(invoice):
    """Mark ``invoice`` as issued; the invoice job then renders and sends it."""
    invoice.issued_at = datetime.now()
    return invoice
'''),
    "tollgate/render.py": t(r'''
"""Plain-text rendering of an invoice: the body of the PDF the customer receives."""


def render_invoice(invoice):
    lines = [f"Invoice {invoice.number}", f"Account {invoice.account_id}"]
    if invoice.issued_at is not None:
        lines.append("Issued " + invoice.issued_at.astimezone().strftime("%d.%m.%Y %H:%M"))
    for line in invoice.lines:
        lines.append(f"{line.meter:<20} {line.quantity:>12} {line.amount:>12}")
    lines.append(f"{'Total':<33} {invoice.total:>12}")
    return "\n".join(lines) + "\n"
'''),
    "tollgate/payments.py": t(r'''
"""Charging invoices through the payment provider."""

from tollgate.retry import Call, call_with_retry


def charge(send, invoice):
    """Ask the provider to charge ``invoice``'s total to the account's card."""
    call = Call("charge", {"invoice": invoice.number, "account": invoice.account_id, "amount": invoice.total})
    return call_with_retry(send, call)
'''),
    "tollgate/retry.py": t(r'''
"""Retrying calls to the payment provider and other remote services."""

import time
from dataclasses import dataclass


class TransientError(Exception):
    """A timeout or a 5xx answer from the other side."""


@dataclass
class Call:
    name: str
    payload: dict
    idempotency_key: str | None = None


def call_with_retry(send, call, attempts=3, backoff_seconds=0.5, sleep=time.sleep):
    """Send ``call``, retrying transient failures with exponential backoff."""
    for attempt in range(1, attempts + 1):
        try:
            return send(call)
        except TransientError:
            if attempt == attempts:
                raise
            sleep(backoff_seconds * 2 ** (attempt - 1))
'''),
    "tollgate/sessions.py": t(r'''
"""Sessions: a client exchanges its API key for a bearer token at login."""

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

SESSION_TTL_SECONDS = 24 * 60 * 60


@dataclass
class Session:
    token: str
    account_id: str
    api_key_id: str
    role: str
    expires_at: datetime


class SessionStore:
    def __init__(self):
        self._sessions = {}

    def create(self, account_id, api_key_id, role):
        token = secrets.token_urlsafe(32)
        expires_at = datetime.now() + timedelta(seconds=SESSION_TTL_SECONDS)
        self._sessions[token] = Session(token, account_id, api_key_id, role, expires_at)
        return self._sessions[token]

    def get(self, token):
        """The session for ``token``, or None when it is unknown or past its lifetime."""
        session = self._sessions.get(token)
        if session is None or session.expires_at < datetime.now():
            return None
        return session
'''),
    "tollgate/auth.py": t(r'''
"""Login: a client exchanges an API key for a session token."""

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class ApiKey:
    key_id: str
    account_id: str
    role: str


def hash_key(raw_key):
    """API keys are stored only as SHA-256 hashes."""
    return hashlib.sha256(raw_key.encode()).hexdigest()


def login(keys, sessions, raw_key):
    """A new session for a known API key, or None; ``keys`` maps key hashes to ApiKey."""
    api_key = keys.get(hash_key(raw_key))
    if api_key is None:
        return None
    return sessions.create(api_key.account_id, api_key.key_id, api_key.role)


def bearer_token(headers):
    return headers.get("Authorization", "").removeprefix("Bearer ").strip()
'''),
    "tollgate/access.py": t(r'''
"""Which role may do what."""

# Actions a role may not perform. Everything else is allowed.
DENIED = {
    "viewer": {"refund", "export"},
}


def is_allowed(role, action):
    return action not in DENIED.get(role, set())
'''),
    "tollgate/ratelimit.py": t(r'''
"""Fixed-window rate limiting."""

import time


class RateLimiter:
    def __init__(self, limit_per_minute=600, clock=time.monotonic):
        self.limit = limit_per_minute
        self._clock = clock
        self._windows = {}

    def allow(self, client_ip):
        """Count one request from ``client_ip``; False when its current minute is full."""
        window = int(self._clock() // 60)
        key = (client_ip, window)
        count = self._windows.get(key, 0)
        if count >= self.limit:
            return False
        self._windows[key] = count + 1
        return True
'''),
    "tollgate/webhooks.py": t(r'''
"""Webhook signatures: we sign deliveries to customers and verify the payment provider's callbacks."""

import hashlib
import hmac


def sign(secret, payload):
    """Hex HMAC-SHA256 of ``payload``."""
    return hmac.new(secret, payload, hashlib.sha256).hexdigest()


def verify(secret, payload, signature):
    """True when ``signature`` is the HMAC of ``payload`` under ``secret``."""
    return sign(secret, payload) == signature
'''),
    "tollgate/exporter.py": t(r'''
"""CSV export of an account's usage events."""

import csv
import io

HEADER = ["event_id", "meter", "quantity", "at"]


def export_usage_csv(store, account_id):
    """All of an account's usage as one CSV document."""
    events = store.events_for(account_id)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(HEADER)
    for event in events:
        writer.writerow([event.id, event.meter, event.quantity, event.at.isoformat()])
    return buffer.getvalue()
'''),
    "tollgate/api.py": t(r'''
"""Request handlers. The web adapter parses HTTP, calls one of these and writes the Response."""

from dataclasses import dataclass, field

from tollgate import access, exporter
from tollgate.auth import bearer_token


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
        self.refunds = []

    def _guard(self, request, action):
        """Rate-limit, authenticate and authorise; returns (session, None) or (None, error response)."""
        if not self.limiter.allow(request.client_ip):
            return None, Response(429)
        session = self.sessions.get(bearer_token(request.headers))
        if session is None:
            return None, Response(401)
        if not access.is_allowed(session.role, action):
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
        self.refunds.append((invoice.number, amount))
        return Response(202, {"invoice": invoice.number, "amount": amount})

    def export_usage(self, request):
        session, error = self._guard(request, "export")
        if error:
            return error
        body = exporter.export_usage_csv(self.store, session.account_id)
        return Response(200, body, {"Content-Type": "text/csv"})
'''),
    "tests/test_pricing.py": t(r'''
from tollgate.pricing import line_cost


def test_api_requests_are_priced():
    assert line_cost("api.request", 10000) == 4.0
'''),
    "tests/test_invoices.py": t(r'''
from tollgate.invoices import build_invoice


def test_one_line_per_priced_meter():
    invoice = build_invoice("INV-1", "acct_1", {"api.request": 10000, "export.row": 500})
    assert [line.meter for line in invoice.lines] == ["api.request", "export.row"]
'''),
    "tests/test_access.py": t(r'''
from tollgate.access import is_allowed


def test_viewer_cannot_refund():
    assert not is_allowed("viewer", "refund")
'''),
}


# --------------------------------------------------------------------------------------------------------------
# Texts that several events share
# --------------------------------------------------------------------------------------------------------------

ADR_0001 = t(r'''
# ADR-0001: Store usage events in Postgres

Status: accepted
Date: 2024-01-24
Deciders: mlindqvist, tkowalski

## Context

The prototype keeps usage events in a Python list, so every restart loses them. The first paying customer
goes live on 2024-03-01 and we expect about 2 million events per day. Accounts and API keys already live in
Postgres, and invoices are computed with SQL aggregates over a billing period.

## Decision

We store usage events in one Postgres table, usage_events, read and written only by EventStore in
tollgate/events.py. A mis-metered event is corrected by updating its row.

## Consequences

- One database to run and back up; invoice queries are plain SQL.
- A correction changes the row in place, so the table only shows the latest value of an event.
- At 2 million events per day the table needs monthly partitions within a year.

## Alternatives considered

- A Kafka topic with a consumer that writes aggregates: rejected because nobody on the team runs Kafka and we
  would still need a queryable store for invoices.
- Files on object storage: rejected because invoice queries would need a separate query engine.
''')

ADR_0002 = t(r'''
# ADR-0002: All money is Decimal

Status: accepted
Date: 2024-02-20
Deciders: tkowalski, mlindqvist

## Context

Prices were floats and every invoice line was rounded with round(x, 2) before the lines were summed. Invoice
INV-2024-0007 showed a total one cent higher than the sum of its lines. Binary floating point cannot represent
most cent amounts exactly, and rounding every line drifts the total by up to half a cent per line.

## Decision

All money in tollgate is a decimal.Decimal, never a float: prices, line amounts, totals, refunds and credit
notes. Amounts are rounded to cents with ROUND_HALF_EVEN once, when an invoice total is computed, and nowhere
else.

## Consequences

- currency.to_money() refuses floats with a TypeError, so a float cannot slip in from a caller.
- currency.round_money() is the only rounding function; line amounts keep their full precision.
- Decimal arithmetic is slower than float, so the monthly invoice run takes longer.

## Alternatives considered

- Integer cents: rejected because unit prices such as 0.0004 per API request are fractions of a cent.
- Floats rounded at every step: rejected because that is what produced the off-by-a-cent totals.
- ROUND_HALF_UP: rejected because it biases totals upwards over millions of lines; the accounting ledger uses
  banker's rounding.
''')

ADR_0003 = t(r'''
# ADR-0003: Usage events are an append-only log

Status: accepted
Date: 2025-05-06
Deciders: mlindqvist, tkowalski, jdelacroix
Supersedes: ADR-0001

## Context

ADR-0001 stored usage events as rows that a correction updates in place. In April 2025 finance could not
reproduce invoice INV-2025-0311, because two of the events it was computed from had been corrected after it
was issued. German bookkeeping rules (GoBD) require that an invoice can be reproduced from its records for
ten years.

## Decision

Usage events are an append-only log: an event is never updated or deleted once written. A correction is a
new event whose quantity offsets the original and whose corrects_id points at it. The application's database
role has no UPDATE or DELETE right on usage_events.

## Consequences

- Any invoice can be recomputed from the events with an id up to its last event id.
- Corrections are visible as rows of their own, with their time.
- The table only grows; monthly partitions are needed sooner than ADR-0001 expected.

## Alternatives considered

- Keep updating rows and add an audit table: rejected because reproducing an old invoice would mean replaying
  the audit table backwards.
- Move events to Kafka: rejected for the reasons in ADR-0001; an append-only Postgres table gives the same
  guarantee with the tools we run.
''')

EVENTS_PG = t(r'''
"""Usage events, stored in the Postgres table usage_events (ADR-0001)."""

from dataclasses import dataclass
from datetime import datetime

METERS = ("api.request", "export.row", "webhook.delivery")


@dataclass
class UsageEvent:
    id: int
    account_id: str
    meter: str
    quantity: int
    at: datetime


class EventStore:
    """Reads and writes usage events through a DB-API connection (psycopg in production)."""

    def __init__(self, conn):
        self._conn = conn

    def record(self, account_id, meter, quantity):
        if meter not in METERS:
            raise ValueError(f"unknown meter {meter!r}")
        at = datetime.now()
        with self._conn.cursor() as cur:
            cur.execute(
                "INSERT INTO usage_events (account_id, meter, quantity, at) VALUES (%s, %s, %s, %s) RETURNING id",
                (account_id, meter, quantity, at),
            )
            (event_id,) = cur.fetchone()
        return UsageEvent(event_id, account_id, meter, quantity, at)

    def events_for(self, account_id):
        with self._conn.cursor() as cur:
            cur.execute(
                "SELECT id, account_id, meter, quantity, at FROM usage_events WHERE account_id = %s ORDER BY id",
                (account_id,),
            )
            return [UsageEvent(*row) for row in cur.fetchall()]

    def usage_totals(self, account_id):
        """Total quantity per meter for ``account_id``."""
        with self._conn.cursor() as cur:
            cur.execute(
                "SELECT meter, SUM(quantity) FROM usage_events WHERE account_id = %s GROUP BY meter",
                (account_id,),
            )
            return dict(cur.fetchall())

    def update_quantity(self, event_id, quantity):
        """Correct a mis-metered event in place."""
        with self._conn.cursor() as cur:
            cur.execute("UPDATE usage_events SET quantity = %s WHERE id = %s", (quantity, event_id))

    def delete(self, event_id):
        """Remove an event that was recorded by mistake."""
        with self._conn.cursor() as cur:
            cur.execute("DELETE FROM usage_events WHERE id = %s", (event_id,))
''')


def dependabot_body(package: str, old: str, new: str, url: str) -> str:
    return (
        f"Bumps [{package}]({url}) from {old} to {new}.\n\n"
        "Dependabot will resolve any conflicts with this PR as long as you don't alter it yourself. "
        "You can also trigger a rebase manually by commenting `@dependabot rebase`."
    )


def release_edits(old: str, new: str, date: str, notes: str) -> list[Edit]:
    """A version bump: pyproject, __version__ and the changelog's Unreleased section."""
    return [
        Sub("pyproject.toml", f'version = "{old}"', f'version = "{new}"'),
        Sub("tollgate/__init__.py", f'__version__ = "{old}"', f'__version__ = "{new}"'),
        Sub("CHANGELOG.md", "## Unreleased\n", f"## Unreleased\n\n## {new} ({date})\n\n{notes}"),
    ]


def release_pr(key: str, old: str, new: str, created: str, merged: str, notes: str) -> PR:
    return PR(
        key,
        f"Release {new}",
        "mlindqvist",
        created,
        f"Bumps the version to {new} and moves the Unreleased notes under it.",
        release_edits(old, new, merged[:10], notes),
        merged=merged,
        labels=["release"],
    )


# --------------------------------------------------------------------------------------------------------------
# The history. PRs and issues share one number sequence, assigned in this order (created dates must ascend).
# In any text, <<key>> becomes "#N", <<n:key>> becomes "N" and <<sha:key>> the merge commit of that PR.
# --------------------------------------------------------------------------------------------------------------

EVENTS: list[PR | Issue] = [
    PR(
        "pr_ci",
        "Add CI workflow running pytest",
        "mlindqvist",
        "2024-01-08 09:12",
        "Runs the test suite on every push to main and on every pull request.",
        [
            Put(".github/workflows/ci.yml", t(r'''
name: ci

on:
  push:
    branches: [main]
  pull_request:

jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v3
      - uses: actions/setup-python@v4
        with:
          python-version: "3.11"
      - run: pip install -r requirements-dev.txt -e .
      - run: pytest -q
''')),
        ],
        merged="2024-01-09 08:30",
        labels=["ci"],
    ),
    Issue(
        "is_event_store",
        "Usage events are lost on every restart",
        "mlindqvist",
        "2024-01-10 14:02",
        t('''
EventStore keeps usage events in a Python list, so every deploy or crash of the API process loses all usage
recorded since the last invoice run. The first paying customer goes live on 2024-03-01, and we expect about
2 million events per day once the partner accounts move over.

We need a durable store before then. Accounts and API keys already live in Postgres.
'''),
        closed="2024-01-24 16:40",
        state_reason="completed",
        labels=["architecture"],
    ),
    PR(
        "pr_adr1",
        "ADR-0001: store usage events in Postgres",
        "mlindqvist",
        "2024-01-17 10:25",
        t('''
Closes <<is_event_store>>.

Usage events are stored in one Postgres table, usage_events, because we already run Postgres for accounts and
it gives us transactions and SQL aggregates for the invoice queries. The reasoning is in
docs/adr/0001-store-usage-events-in-postgres.md.

EventStore now takes a DB-API connection; migrations/001_usage_events.sql creates the table.
'''),
        [
            Put("docs/adr/0001-store-usage-events-in-postgres.md", ADR_0001),
            Put("migrations/001_usage_events.sql", t(r'''
-- ADR-0001: usage events live in Postgres.
CREATE TABLE usage_events (
    id BIGSERIAL PRIMARY KEY,
    account_id TEXT NOT NULL,
    meter TEXT NOT NULL,
    quantity BIGINT NOT NULL,
    at TIMESTAMP NOT NULL
);

CREATE INDEX usage_events_account_at ON usage_events (account_id, at);
''')),
            Put("tollgate/events.py", EVENTS_PG),
            Sub("tollgate/config.py", "class Settings:\n    webhook_secret: bytes\n",
                "class Settings:\n    database_url: str\n    webhook_secret: bytes\n"),
            Sub("tollgate/config.py", "        return cls(\n",
                '        return cls(\n'
                '            database_url=os.environ.get("TOLLGATE_DATABASE_URL", "postgresql://localhost/tollgate"),\n'),
        ],
        merged="2024-01-24 16:40",
        review=[
            Review("tkowalski", "2024-01-18 11:03", "migrations/001_usage_events.sql", "at TIMESTAMP NOT NULL",
                   "Should this be TIMESTAMPTZ? Plain TIMESTAMP stores whatever wall-clock time the app hands it."),
            Review("mlindqvist", "2024-01-18 12:40", "migrations/001_usage_events.sql", "at TIMESTAMP NOT NULL",
                   "Keeping TIMESTAMP for now: the app and the database both run in Frankfurt."),
        ],
        labels=["architecture"],
    ),
    PR(
        "pr_readme_typo",
        "Fix typo in README",
        "hyamamoto",
        "2024-01-29 15:48",
        "recieves -> receives",
        [Sub("README.md", "tollgate recieves usage", "tollgate receives usage")],
        merged="2024-01-29 16:05",
        labels=["docs"],
    ),
    Issue(
        "is_cent",
        "Invoice totals are off by a cent",
        "tkowalski",
        "2024-02-05 09:31",
        t('''
Invoice INV-2024-0007 for acct_1042 shows a total of 18.27 while its line amounts add up to 18.26.

Prices in pricing.py are floats, and line_cost() rounds every line with round(x, 2) before build_invoice()
adds the lines up. Binary floating point cannot hold most cent amounts exactly (0.1 + 0.2 is
0.30000000000000004 in Python), and rounding each line before summing drifts the total by up to half a cent
per line. The customer's accountant noticed the mismatch.
'''),
        closed="2024-02-20 13:15",
        state_reason="completed",
        labels=["bug", "billing"],
    ),
    PR(
        "pr_decimal",
        "Use Decimal for all money and round once per invoice",
        "tkowalski",
        "2024-02-12 10:02",
        t('''
Fixes <<is_cent>>.

All money is a Decimal, never a float, and amounts are rounded to cents with ROUND_HALF_EVEN only once, when the invoice total is computed, because floats cannot hold cents exactly and rounding every line drifts the total.

- ADR-0002 records the rule (docs/adr/0002-money-is-decimal.md).
- New module tollgate/currency.py: to_money() parses amounts and refuses floats, round_money() is the only
  rounding function.
- Prices are Decimal literals; line_cost() no longer rounds; build_invoice() rounds the total once.
'''),
        [
            Put("docs/adr/0002-money-is-decimal.md", ADR_0002),
            Put("tollgate/currency.py", t(r'''
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
''')),
            Put("tollgate/pricing.py", t(r'''
"""Unit prices per meter. All money is Decimal (ADR-0002)."""

from decimal import Decimal

PRICES = {
    "api.request": Decimal("0.0004"),
    "export.row": Decimal("0.00001"),
    "webhook.delivery": Decimal("0"),
}


def unit_price(meter):
    return PRICES.get(meter, 0)


def line_cost(meter, quantity):
    """Exact cost of ``quantity`` units. Not rounded: only the invoice total is rounded."""
    price = unit_price(meter)
    if not price:
        return 0
    return price * quantity
''')),
            Sub("tollgate/invoices.py", "from datetime import datetime\n\nfrom tollgate.pricing import line_cost\n",
                "from datetime import datetime\nfrom decimal import Decimal\n\n"
                "from tollgate.currency import round_money\nfrom tollgate.pricing import line_cost\n"),
            Sub("tollgate/invoices.py", "    amount: float\n", "    amount: Decimal\n"),
            Sub("tollgate/invoices.py", "    total: float = 0.0\n", '    total: Decimal = Decimal("0")\n'),
            Sub("tollgate/invoices.py", t(r'''
    invoice = Invoice(number, account_id)
    for meter, quantity in sorted(usage.items()):
        cost = line_cost(meter, quantity)
        if not cost:
            continue
        invoice.lines.append(InvoiceLine(meter, quantity, cost))
        invoice.total += cost
    return invoice
'''), t(r'''
    invoice = Invoice(number, account_id)
    subtotal = Decimal("0")
    for meter, quantity in sorted(usage.items()):
        cost = line_cost(meter, quantity)
        if not cost:
            continue
        invoice.lines.append(InvoiceLine(meter, quantity, cost))
        subtotal += cost
    # The only place an invoice amount is rounded (ADR-0002).
    invoice.total = round_money(subtotal)
    return invoice
''')),
            Sub("tollgate/invoices.py", "    invoice.total = sum(line.amount for line in invoice.lines)\n",
                '    invoice.total = round_money(sum((line.amount for line in invoice.lines), Decimal("0")))\n'),
            Sub("tollgate/payments.py", '"amount": invoice.total}', '"amount": str(invoice.total)}'),
            Sub("tollgate/api.py", "from tollgate.auth import bearer_token\n",
                "from tollgate.auth import bearer_token\nfrom tollgate.currency import to_money\n"),
            Sub("tollgate/api.py", t(r'''
        self.refunds.append((invoice.number, amount))
        return Response(202, {"invoice": invoice.number, "amount": amount})
'''), t(r'''
        self.refunds.append((invoice.number, to_money(amount)))
        return Response(202, {"invoice": invoice.number, "amount": str(to_money(amount))})
''')),
            Sub("docs/billing.md", "| webhook.delivery | one webhook sent |\n", t(r'''
| webhook.delivery | one webhook sent |

## Money

Every amount is a `Decimal` (ADR-0002). Line amounts keep full precision; the invoice total is rounded to
cents once, with banker's rounding (`ROUND_HALF_EVEN`).
''')),
            Put("tests/test_pricing.py", t(r'''
from decimal import Decimal

from tollgate.pricing import line_cost


def test_api_requests_are_priced():
    assert line_cost("api.request", 10000) == Decimal("4.0000")
''')),
            Put("tests/test_invoices.py", t(r'''
from decimal import Decimal

from tollgate.invoices import build_invoice


def test_one_line_per_priced_meter():
    invoice = build_invoice("INV-1", "acct_1", {"api.request": 10000, "export.row": 500})
    assert [line.meter for line in invoice.lines] == ["api.request", "export.row"]


def test_total_is_rounded_once_half_even():
    # 4.0000 + 0.00500 = 4.00500, which banker's rounding takes to 4.00 (rounding each line first gave 4.01).
    invoice = build_invoice("INV-2", "acct_1", {"api.request": 10000, "export.row": 500})
    assert invoice.total == Decimal("4.00")
''')),
            Put("tests/test_currency.py", t(r'''
from decimal import Decimal

import pytest

from tollgate.currency import round_money, to_money


def test_half_even_rounding():
    assert round_money(Decimal("0.125")) == Decimal("0.12")
    assert round_money(Decimal("0.135")) == Decimal("0.14")


def test_float_is_refused():
    with pytest.raises(TypeError):
        to_money(0.1)
''')),
        ],
        merged="2024-02-20 13:15",
        review=[
            Review("jdelacroix", "2024-02-13 09:20", "tollgate/currency.py", "    if isinstance(value, float):",
                   "Could to_money() accept floats and convert them with Decimal(str(value))? The CSV importer "
                   "hands us floats."),
            Review("tkowalski", "2024-02-13 10:05", "tollgate/currency.py", "    if isinstance(value, float):",
                   "I'd rather not accept float here; Decimal keeps cents exact, and Decimal(str(value)) would "
                   "hide a value that was already wrong before it reached us. The importer should parse the CSV "
                   "field as a string."),
            Review("mlindqvist", "2024-02-14 15:30", "tollgate/currency.py", "rounding=ROUND_HALF_EVEN",
                   "We considered ROUND_HALF_UP because the old invoices used it, but rejected it because it "
                   "biases totals upwards over millions of lines; the accounting ledger uses banker's rounding."),
        ],
        notes=[Note("mlindqvist", "2024-02-20 13:10", "Thanks, this also settles the money question for ADR-0002.")],
        labels=["billing"],
    ),
    PR(
        "pr_bump_pytest8",
        "Bump pytest from 7.4.4 to 8.0.1",
        "dependabot[bot]",
        "2024-02-19 05:02",
        dependabot_body("pytest", "7.4.4", "8.0.1", "https://github.com/pytest-dev/pytest"),
        [Sub("requirements-dev.txt", "pytest==7.4.4", "pytest==8.0.1")],
        merged="2024-02-21 08:44",
        labels=["dependencies"],
    ),
    Issue(
        "is_timing",
        "Webhook signature check leaks timing",
        "pnair",
        "2024-02-26 11:17",
        t('''
webhooks.verify() compares the expected HMAC with the received signature header using ==. String comparison
stops at the first differing character, so the response time tells an attacker how many leading characters of
a forged signature are correct. With enough requests a valid signature for any payload can be recovered one
character at a time, and the payment provider's callbacks mark invoices as paid.
'''),
        closed="2024-03-05 10:20",
        state_reason="completed",
        labels=["security"],
    ),
    PR(
        "pr_hmac",
        "Compare webhook signatures in constant time",
        "pnair",
        "2024-02-28 09:40",
        t('''
Fixes <<is_timing>>.

Webhook signatures are always checked with hmac.compare_digest, never with ==, because == returns early on the first differing character and leaks through timing how much of a forged signature is correct.
'''),
        [
            Sub("tollgate/webhooks.py", t(r'''
    """True when ``signature`` is the HMAC of ``payload`` under ``secret``."""
    return sign(secret, payload) == signature
'''), t(r'''
    """True when ``signature`` is the HMAC of ``payload`` under ``secret``; compared in constant time."""
    expected = sign(secret, payload)
    # == stops at the first differing character and leaks how much of a forged signature is right.
    return hmac.compare_digest(expected, signature)
''')),
            Put("tests/test_webhooks.py", t(r'''
from tollgate.webhooks import sign, verify

SECRET = b"whsec_test"


def test_valid_signature_is_accepted():
    assert verify(SECRET, b'{"invoice": "INV-1"}', sign(SECRET, b'{"invoice": "INV-1"}'))


def test_forged_signature_is_refused():
    assert not verify(SECRET, b'{"invoice": "INV-1"}', "0" * 64)
''')),
        ],
        merged="2024-03-05 10:20",
        review=[
            Review("jdelacroix", "2024-02-29 14:12", "tollgate/webhooks.py", "return hmac.compare_digest(",
                   "Would random jitter on the response not be enough? The endpoint sits behind the load balancer "
                   "anyway."),
            Review("pnair", "2024-02-29 15:01", "tollgate/webhooks.py", "return hmac.compare_digest(",
                   "We considered adding random jitter to the response time, but rejected it because jitter "
                   "averages out over enough requests; compare_digest removes the signal instead of hiding it."),
        ],
        labels=["security"],
    ),
    Issue(
        "is_midnight",
        "Usage near midnight lands on the wrong invoice day",
        "tkowalski",
        "2024-04-02 08:55",
        t('''
Events are stamped with datetime.now(), which is the server's local time (Europe/Berlin), while invoice
periods are cut at midnight UTC. Usage that acct_2210 recorded between 00:00 and 02:00 local time on
1 April was billed to March. On 31 March the clocks jumped from 02:00 to 03:00, so that night's events are
off by a different amount than the nights before.

Naive local datetimes also cannot be compared with the aware UTC timestamps the payment provider sends.
'''),
        state_reason="reopened",
        notes=[
            Note("jdelacroix", "2024-04-16 11:02",
                 "Events written before <<pr_utc>> are converted by migrations/002_timestamps_utc.sql."),
            Note("tkowalski", "2024-05-06 09:40",
                 "Reopening: <<pr_utc>> fixed how timestamps are stored, but render.py still converts issued_at "
                 "to the server's local time with astimezone(), so acct_2210's April invoice shows the issue date "
                 "two hours off again."),
        ],
        labels=["bug", "billing"],
    ),
    PR(
        "pr_utc",
        "Store all timestamps in UTC",
        "jdelacroix",
        "2024-04-08 13:20",
        t('''
Fixes <<is_midnight>>.

From now on every timestamp we store is a timezone-aware UTC datetime from clock.utc_now(), never local time, because invoice periods are cut at midnight UTC and local time jumps with daylight saving.

- New module tollgate/clock.py with utc_now() and to_utc(); to_utc() refuses naive datetimes.
- events, sessions and invoices take their timestamps from utc_now().
- migrations/002_timestamps_utc.sql turns usage_events.at into TIMESTAMPTZ, reading existing rows as
  Europe/Berlin time.
'''),
        [
            Put("tollgate/clock.py", t(r'''
"""The one source of timestamps. Everything tollgate stores is an aware UTC datetime."""

from datetime import UTC, datetime


def utc_now():
    """The current time in UTC, timezone-aware."""
    return datetime.now(UTC)


def to_utc(value):
    """Convert an aware datetime to UTC; a naive one is refused because its zone is unknown."""
    if value.tzinfo is None:
        raise ValueError("naive datetime: attach a timezone before storing it")
    return value.astimezone(UTC)
''')),
            Put("migrations/002_timestamps_utc.sql", t(r'''
-- Timestamps are stored in UTC. Rows written before this migration hold Europe/Berlin wall-clock time.
ALTER TABLE usage_events
    ALTER COLUMN at TYPE TIMESTAMPTZ USING at AT TIME ZONE 'Europe/Berlin';
''')),
            Sub("tollgate/events.py", "from datetime import datetime\n\nMETERS",
                "from datetime import datetime\n\nfrom tollgate.clock import utc_now\n\nMETERS"),
            Sub("tollgate/events.py", "        at = datetime.now()\n", "        at = utc_now()\n"),
            Sub("tollgate/sessions.py", "from datetime import datetime, timedelta\n\nSESSION",
                "from datetime import datetime, timedelta\n\nfrom tollgate.clock import utc_now\n\nSESSION"),
            Sub("tollgate/sessions.py", "expires_at = datetime.now() + timedelta", "expires_at = utc_now() + timedelta"),
            Sub("tollgate/sessions.py", "session.expires_at < datetime.now():", "session.expires_at < utc_now():"),
            Sub("tollgate/invoices.py", "from tollgate.currency import round_money\n",
                "from tollgate.clock import utc_now\nfrom tollgate.currency import round_money\n"),
            Sub("tollgate/invoices.py", "    invoice.issued_at = datetime.now()\n", "    invoice.issued_at = utc_now()\n"),
            Sub("docs/billing.md", "## Money\n", t(r'''
## Time

Every stored timestamp is an aware UTC datetime from `clock.utc_now()`. A billing period runs from midnight
UTC on its first day to midnight UTC after its last day.

## Money
''')),
            Put("tests/test_clock.py", t(r'''
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
''')),
        ],
        merged="2024-04-16 10:48",
        review=[
            Review("mlindqvist", "2024-04-09 16:22", "tollgate/clock.py", "def utc_now():",
                   "We considered storing local time together with the zone name, but rejected it because every "
                   "billing-period query would have to convert row by row."),
            Review("tkowalski", "2024-04-10 09:05", "migrations/002_timestamps_utc.sql", "USING at AT TIME ZONE",
                   "Right: everything written so far is Berlin wall-clock time, including the two March nights "
                   "around the clock change."),
        ],
        labels=["billing"],
    ),
    release_pr("pr_rel_020", "0.1.0", "0.2.0", "2024-04-22 09:00", "2024-04-22 09:30", t('''
- Usage events are stored in Postgres (<<pr_adr1>>).
- All money is Decimal, rounded once per invoice (<<pr_decimal>>).
- Webhook signatures are compared in constant time (<<pr_hmac>>).
- Timestamps are stored in UTC (<<pr_utc>>).
''')),
    Issue(
        "is_roles",
        "Unknown roles can call refund and export",
        "pnair",
        "2024-04-29 10:44",
        t('''
access.is_allowed() only lists what a role may not do: DENIED = {"viewer": {"refund", "export"}}. The CRM sync
created API keys with the role "support", which is in no list, so sessions of those keys could POST refunds
and download full usage exports. Between 2024-04-18 and 2024-04-26 support keys issued 37 refunds.

Any role we add later inherits every action, including refunds and exports.
'''),
        closed="2024-05-08 14:30",
        state_reason="completed",
        labels=["security", "bug"],
    ),
    PR(
        "pr_deny",
        "Deny by default; refunds and exports for admins only",
        "pnair",
        "2024-05-02 09:15",
        t('''
Fixes <<is_roles>>.

Access is denied by default: a role may only do what is listed for it, and only the "admin" role may call the refund and export endpoints, because a deny-list lets every new role refund money until someone remembers to list it.

ROLE_PERMISSIONS replaces DENIED, and ADMIN_ONLY is checked before the role's list so that a mistake in the
list cannot hand refunds or exports to a non-admin role.
'''),
        [
            Put("tollgate/access.py", t(r'''
"""Which role may do what. Deny by default: an action is allowed only when it is listed for the role."""

# Only admins may move money out (refunds) or take data out (exports).
ADMIN_ONLY = frozenset({"refund", "export"})

ROLE_PERMISSIONS = {
    "admin": frozenset({"read_usage", "read_invoices", "refund", "export"}),
    "member": frozenset({"read_usage", "read_invoices"}),
    "viewer": frozenset({"read_usage"}),
}


def is_allowed(role, action):
    """True only when ``action`` is listed for ``role``; unknown roles and unknown actions are refused."""
    if action in ADMIN_ONLY and role != "admin":
        return False
    return action in ROLE_PERMISSIONS.get(role, frozenset())
''')),
            Put("tests/test_access.py", t(r'''
from tollgate.access import is_allowed


def test_viewer_cannot_refund():
    assert not is_allowed("viewer", "refund")


def test_unknown_role_is_denied():
    assert not is_allowed("support", "refund")
    assert not is_allowed("support", "read_usage")


def test_only_admin_may_refund_or_export():
    assert is_allowed("admin", "refund")
    assert is_allowed("admin", "export")
    assert not is_allowed("member", "refund")
    assert not is_allowed("member", "export")
''')),
        ],
        merged="2024-05-08 14:30",
        review=[
            Review("mlindqvist", "2024-05-03 11:20", "tollgate/access.py", 'ADMIN_ONLY = frozenset({"refund", "export"})',
                   'We considered adding "support" to the DENIED list instead, but rejected it because the next '
                   "role someone adds would have the same hole."),
        ],
        notes=[
            Note("hyamamoto", "2024-05-03 13:02",
                 "api.py needs no change: every handler already passes its action to _guard(), and refund() and "
                 "export_usage() ask for \"refund\" and \"export\"."),
        ],
        labels=["security"],
    ),
    PR(
        "pr_storage_meter",
        "Meter stored data in GB-hours",
        "hyamamoto",
        "2024-05-14 10:30",
        "Adds the storage.gb_hour meter. The gateway reports the stored volume of every account once an hour.",
        [
            Sub("tollgate/events.py", 'METERS = ("api.request", "export.row", "webhook.delivery")',
                'METERS = ("api.request", "export.row", "storage.gb_hour", "webhook.delivery")'),
            Sub("docs/billing.md", "| export.row | one exported row |\n",
                "| export.row | one exported row |\n| storage.gb_hour | one GB stored for one hour |\n"),
        ],
        merged="2024-05-20 08:15",
        labels=["metering"],
    ),
    Issue(
        "is_sessions",
        "Sessions stay valid for 24 hours on shared terminals",
        "pnair",
        "2024-05-27 16:05",
        t('''
A session gets a fixed lifetime of 24 hours at login (SESSION_TTL_SECONDS = 24 * 60 * 60) and nothing looks at
activity. Support staff use shared terminals in the call centre: a session left open at 09:00 is still usable
by whoever sits down at 17:00. Our SOC 2 control CC6.1 requires that an idle session ends after at most
15 minutes.
'''),
        closed="2024-06-06 09:50",
        state_reason="completed",
        labels=["security"],
    ),
    PR(
        "pr_idle",
        "Expire sessions after 15 minutes idle",
        "hyamamoto",
        "2024-05-30 11:40",
        t('''
Fixes <<is_sessions>>.

From now on a session expires after 15 minutes without a request and the idle check runs on every request, because a session left open on a shared terminal must not outlive its user and SOC 2 control CC6.1 caps idle time at 15 minutes.

SessionStore.touch() replaces get(): it refuses a session idle for more than IDLE_TIMEOUT_SECONDS and
otherwise restarts its clock. Api._guard() calls it for every handler.
'''),
        [
            Put("tollgate/sessions.py", t(r'''
"""Sessions: a client exchanges its API key for a bearer token at login."""

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from tollgate.clock import utc_now

# A session ends after 15 minutes without a request (SOC 2 CC6.1); every request restarts the clock.
IDLE_TIMEOUT_SECONDS = 15 * 60


@dataclass
class Session:
    token: str
    account_id: str
    api_key_id: str
    role: str
    last_seen: datetime


class SessionStore:
    def __init__(self, clock=utc_now):
        self._sessions = {}
        self._clock = clock

    def create(self, account_id, api_key_id, role):
        token = secrets.token_urlsafe(32)
        self._sessions[token] = Session(token, account_id, api_key_id, role, self._clock())
        return self._sessions[token]

    def touch(self, token):
        """The live session for ``token`` with its idle clock restarted; None when unknown or idle too long."""
        session = self._sessions.get(token)
        if session is None:
            return None
        now = self._clock()
        if now - session.last_seen > timedelta(seconds=IDLE_TIMEOUT_SECONDS):
            del self._sessions[token]
            return None
        session.last_seen = now
        return session
''')),
            Sub("tollgate/api.py", "        session = self.sessions.get(bearer_token(request.headers))\n",
                "        # touch() enforces the idle timeout and restarts it; every request passes through here.\n"
                "        session = self.sessions.touch(bearer_token(request.headers))\n"),
            Put("tests/test_sessions.py", t(r'''
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
''')),
        ],
        merged="2024-06-06 09:50",
        review=[
            Review("pnair", "2024-05-31 10:12", "tollgate/sessions.py", "    def touch(self, token):",
                   "We considered a background sweeper that deletes idle sessions once a minute, but rejected it "
                   "because a request arriving between two sweeps would still be served on an expired session."),
            Review("mlindqvist", "2024-05-31 14:48", "tollgate/sessions.py", "IDLE_TIMEOUT_SECONDS = 15 * 60",
                   "I'd rather not make the timeout configurable per tenant; the SOC 2 control applies to the "
                   "product, not to each customer."),
        ],
        labels=["security"],
    ),
    PR(
        "pr_bump_requests_1",
        "Bump requests from 2.31.0 to 2.32.2",
        "dependabot[bot]",
        "2024-06-03 05:10",
        dependabot_body("requests", "2.31.0", "2.32.2", "https://github.com/psf/requests"),
        [Sub("requirements.txt", "requests==2.31.0", "requests==2.32.2")],
        merged="2024-06-04 07:58",
        labels=["dependencies"],
    ),
    Issue(
        "is_unpriced",
        "Usage with no price is billed as free",
        "tkowalski",
        "2024-06-10 09:05",
        t('''
pricing.unit_price() returns PRICES.get(meter, 0), and build_invoice() drops a line when `not cost`. The
storage.gb_hour meter went live on 2024-05-20 (<<pr_storage_meter>>) before its price was added to PRICES, so
three weeks of storage usage of 212 accounts was priced at 0 and left off every invoice. Nothing warned us:
a missing price and a free meter look the same.
'''),
        closed="2024-06-19 15:22",
        state_reason="completed",
        labels=["bug", "billing"],
    ),
    PR(
        "pr_unknown_cost",
        "Keep unknown cost as None, distinct from zero",
        "tkowalski",
        "2024-06-12 10:10",
        t('''
Fixes <<is_unpriced>>.

Unknown cost stays None and is never coerced to 0, because 0 means free and would under-bill. A meter without a configured price is listed on the invoice as unpriced, not dropped.

- unit_price() returns None when a meter has no price; line_cost() checks `if price is None` instead of
  `if not price`.
- build_invoice() collects such meters in Invoice.unpriced so billing ops see them before the invoice is
  issued.
- A configured price of Decimal("0") (webhook.delivery) is a real price and is still billed as free.
- Adds the storage.gb_hour price.
'''),
        [
            Put("tollgate/pricing.py", t(r'''
"""Unit prices per meter. All money is Decimal (ADR-0002)."""

from decimal import Decimal

PRICES = {
    "api.request": Decimal("0.0004"),
    "export.row": Decimal("0.00001"),
    "storage.gb_hour": Decimal("0.00012"),
    "webhook.delivery": Decimal("0"),
}


def unit_price(meter):
    """The price of one unit, or None when the meter has no configured price (unknown is not free)."""
    return PRICES.get(meter)


def line_cost(meter, quantity):
    """Exact cost of ``quantity`` units, or None when the price is unknown; never coerced to 0."""
    price = unit_price(meter)
    if price is None:
        return None
    return price * quantity
''')),
            Sub("tollgate/invoices.py", '    total: Decimal = Decimal("0")\n',
                '    total: Decimal = Decimal("0")\n    unpriced: list = field(default_factory=list)\n'),
            Sub("tollgate/invoices.py", t(r'''
        cost = line_cost(meter, quantity)
        if not cost:
            continue
'''), t(r'''
        cost = line_cost(meter, quantity)
        if cost is None:
            # Unknown price: list the meter for billing ops instead of billing it as free.
            invoice.unpriced.append(meter)
            continue
''')),
            Sub("docs/billing.md", "## Time\n", t(r'''
## Unknown prices

A meter without a configured price has an unknown cost (`None`), which is not the same as a free meter
(`Decimal("0")`). `build_invoice()` lists such meters in `Invoice.unpriced`; billing ops add the price and
rebuild the draft before it is issued.

## Time
''')),
            Sub("tests/test_pricing.py", '    assert line_cost("api.request", 10000) == Decimal("4.0000")\n', t(r'''
    assert line_cost("api.request", 10000) == Decimal("4.0000")


def test_unknown_price_is_none_not_zero():
    assert line_cost("gpu.second", 10) is None


def test_free_meter_costs_zero():
    assert line_cost("webhook.delivery", 5) == Decimal("0")
''')),
            Sub("tests/test_invoices.py", '    assert invoice.total == Decimal("4.00")\n', t(r'''
    assert invoice.total == Decimal("4.00")


def test_unpriced_meter_is_listed_not_billed_as_free():
    invoice = build_invoice("INV-3", "acct_1", {"api.request": 100, "gpu.second": 30})
    assert invoice.unpriced == ["gpu.second"]
    assert [line.meter for line in invoice.lines] == ["api.request"]


def test_free_meter_is_billed_at_zero():
    invoice = build_invoice("INV-4", "acct_1", {"webhook.delivery": 12})
    assert invoice.lines[0].amount == Decimal("0")
''')),
        ],
        merged="2024-06-19 15:22",
        review=[
            Review("mlindqvist", "2024-06-13 09:41", "tollgate/pricing.py", "    if price is None:",
                   "Instead of returning 0 we keep None, so build_invoice() can tell a meter with no configured "
                   "price from one that is really free, like webhook.delivery."),
            Review("jdelacroix", "2024-06-13 17:26", "tollgate/invoices.py", "invoice.unpriced.append(meter)",
                   "We considered raising an error for an unpriced meter, but rejected it because one missing "
                   "price would stop the monthly invoice run for every account."),
        ],
        labels=["billing"],
    ),
    Issue(
        "is_endpoint_limits",
        "Per-endpoint rate limits",
        "hyamamoto",
        "2024-06-24 14:30",
        t('''
An export costs far more than GET /usage, yet both draw from the same 600 requests per minute. A client
that polls exports in a loop can take a whole database connection per request. We should be able to give
export_usage() a much lower limit than the read endpoints.
'''),
        notes=[
            Note("jdelacroix", "2024-11-15 10:05",
                 "Still wanted. <<pr_per_key>> only changed what a bucket is keyed on, not how many buckets a "
                 "request draws from."),
        ],
        labels=["enhancement"],
    ),
    Issue(
        "is_export_oom",
        "Export of a large account OOM-kills the worker",
        "jdelacroix",
        "2024-07-08 07:50",
        t('''
GET /export for acct_7781 (31 million usage events) was killed by the OOM killer at the worker's 2 GiB limit.
exporter.export_usage_csv() loads every event with store.events_for() and builds the whole CSV document in a
StringIO before the first byte is sent, so memory grows with the account's entire history. Three partner
accounts are above 10 million events and grow by about a million a month.
'''),
        closed="2024-10-01 12:10",
        state_reason="completed",
        notes=[
            Note("rokafor", "2024-07-31 09:12",
                 "Reopening: <<pr_cursor>> was reverted in <<pr_revert_cursor>> because every export held a pool "
                 "connection for its whole run."),
        ],
        labels=["bug", "performance"],
    ),
    PR(
        "pr_cursor",
        "Stream usage export from a server-side cursor",
        "rokafor",
        "2024-07-10 10:05",
        t('''
Fixes <<is_export_oom>>.

The exporter streams rows from a server-side cursor and writes them straight to the response, so memory no longer grows with the account's history.

EventStore.stream_events() reads through a named (server-side) cursor 5000 rows at a time, and
export_usage_csv() writes to the output stream that the web adapter hands it.
'''),
        [
            Sub("tollgate/events.py", t(r'''
            return [UsageEvent(*row) for row in cur.fetchall()]

    def usage_totals(self, account_id):
'''), t(r'''
            return [UsageEvent(*row) for row in cur.fetchall()]

    def stream_events(self, account_id):
        """Yield an account's events from a server-side cursor, without loading them all."""
        with self._conn.cursor(name="usage_export") as cur:
            cur.itersize = 5000
            cur.execute(
                "SELECT id, account_id, meter, quantity, at FROM usage_events WHERE account_id = %s ORDER BY id",
                (account_id,),
            )
            for row in cur:
                yield UsageEvent(*row)

    def usage_totals(self, account_id):
''')),
            Put("tollgate/exporter.py", t(r'''
"""CSV export of an account's usage events."""

import csv

HEADER = ["event_id", "meter", "quantity", "at"]


def export_usage_csv(store, account_id, out):
    """Stream an account's usage to ``out`` as CSV, row by row from a server-side cursor."""
    writer = csv.writer(out)
    writer.writerow(HEADER)
    for event in store.stream_events(account_id):
        writer.writerow([event.id, event.meter, event.quantity, event.at.isoformat()])
''')),
            Sub("tollgate/api.py", t(r'''
        body = exporter.export_usage_csv(self.store, session.account_id)
        return Response(200, body, {"Content-Type": "text/csv"})
'''), t(r'''

        def write(out):
            exporter.export_usage_csv(self.store, session.account_id, out)

        # The web adapter calls the body with the response stream.
        return Response(200, write, {"Content-Type": "text/csv"})
''')),
            Put("tests/test_exporter.py", t(r'''
import io
from datetime import UTC, datetime

from tollgate.events import UsageEvent
from tollgate.exporter import export_usage_csv


class FakeStore:
    def __init__(self, events):
        self.events = events

    def stream_events(self, account_id):
        yield from (event for event in self.events if event.account_id == account_id)


def test_rows_are_streamed_in_order():
    at = datetime(2024, 7, 1, tzinfo=UTC)
    store = FakeStore([UsageEvent(1, "acct_1", "api.request", 3, at), UsageEvent(2, "acct_2", "export.row", 9, at)])
    out = io.StringIO()
    export_usage_csv(store, "acct_1", out)
    assert out.getvalue().splitlines() == ["event_id,meter,quantity,at", "1,api.request,3,2024-07-01T00:00:00+00:00"]
''')),
        ],
        merged="2024-07-17 11:30",
        review=[
            Review("jdelacroix", "2024-07-11 15:40", "tollgate/events.py", 'with self._conn.cursor(name="usage_export")',
                   "This keeps a pool connection checked out until the last row is written. Fine for small "
                   "accounts, but the nightly partner exports run for up to 50 minutes."),
            Review("rokafor", "2024-07-12 09:02", "tollgate/events.py", 'with self._conn.cursor(name="usage_export")',
                   "The pool has 20 connections and at most 14 partner exports run at night, so it should fit."),
        ],
        labels=["performance"],
    ),
    Issue(
        "is_pool",
        "API requests time out while nightly exports run",
        "jdelacroix",
        "2024-07-29 06:40",
        t('''
Since <<pr_cursor>> was deployed, every export holds one pool connection from its first row to its last. Last night the
14 partner exports (up to 50 minutes each) held 14 of the 20 pool connections from 01:00 to 01:50, and API
requests waited for a connection until they timed out: 4,212 requests answered 504 in that window.
'''),
        closed="2024-07-30 10:15",
        state_reason="completed",
        labels=["bug", "incident"],
    ),
    PR(
        "pr_revert_cursor",
        'Revert "Stream usage export from a server-side cursor"',
        "jdelacroix",
        "2024-07-30 08:55",
        t('''
Reverts <<pr_cursor>>. This reverts commit <<sha:pr_cursor>>.

Fixes <<is_pool>>. Exports go back to building the CSV in memory until we have a way to stream that does not hold a connection for the whole run.
'''),
        [RevertOf("pr_cursor")],
        merged="2024-07-30 10:15",
        notes=[
            Note("mlindqvist", "2024-07-30 09:30",
                 "Approving the revert. Let's find a way to stream that does not pin a connection."),
        ],
        labels=["incident"],
    ),
    PR(
        "pr_bump_checkout",
        "Bump actions/checkout from 3 to 4",
        "dependabot[bot]",
        "2024-08-12 05:20",
        dependabot_body("actions/checkout", "3", "4", "https://github.com/actions/checkout"),
        [Sub(".github/workflows/ci.yml", "actions/checkout@v3", "actions/checkout@v4")],
        merged="2024-08-13 08:02",
        labels=["dependencies"],
    ),
    PR(
        "pr_move_ops",
        "Move the operations guide into docs/",
        "jdelacroix",
        "2024-08-19 14:10",
        "Keeps all documentation under docs/. No content changes apart from the title.",
        [
            Rename("OPERATIONS.md", "docs/operations.md"),
            Sub("docs/operations.md", "# Operations\n", "# Operations guide\n"),
            Sub("README.md", "- `OPERATIONS.md`: running tollgate in production",
                "- `docs/operations.md`: running tollgate in production"),
        ],
        merged="2024-08-20 09:00",
        labels=["docs"],
    ),
    PR(
        "pr_keyset",
        "Stream CSV export in keyset pages of 1000 rows",
        "rokafor",
        "2024-09-09 10:20",
        t('''
Fixes <<is_export_oom>>.

The exporter writes CSV page by page and never loads every row into memory: it fetches 1000 rows at a time by keyset (id greater than the last id written), because a 31 million event account must export in flat memory without holding a database connection for the whole run.

This is the second attempt after <<pr_cursor>> was reverted. Each page is one short query, so the connection
goes back to the pool between pages; the exporter holds at most one page.
'''),
        [
            Sub("tollgate/events.py", t(r'''
            return [UsageEvent(*row) for row in cur.fetchall()]

    def usage_totals(self, account_id):
'''), t(r'''
            return [UsageEvent(*row) for row in cur.fetchall()]

    def events_page(self, account_id, after_id, limit):
        """Up to ``limit`` events with an id above ``after_id``, oldest first (keyset paging)."""
        with self._conn.cursor() as cur:
            cur.execute(
                "SELECT id, account_id, meter, quantity, at FROM usage_events"
                " WHERE account_id = %s AND id > %s ORDER BY id LIMIT %s",
                (account_id, after_id, limit),
            )
            return [UsageEvent(*row) for row in cur.fetchall()]

    def usage_totals(self, account_id):
''')),
            Put("tollgate/exporter.py", t(r'''
"""CSV export of an account's usage events."""

import csv

HEADER = ["event_id", "meter", "quantity", "at"]

# Rows fetched per query. The exporter holds one page in memory, never the whole account.
PAGE_SIZE = 1000


def export_usage_csv(store, account_id, out):
    """Write an account's usage to ``out`` as CSV, one keyset page at a time; returns the row count."""
    writer = csv.writer(out)
    writer.writerow(HEADER)
    after_id = 0
    rows = 0
    while True:
        page = store.events_page(account_id, after_id, PAGE_SIZE)
        if not page:
            return rows
        for event in page:
            writer.writerow([event.id, event.meter, event.quantity, event.at.isoformat()])
        rows += len(page)
        after_id = page[-1].id
''')),
            Sub("tollgate/api.py", t(r'''
        body = exporter.export_usage_csv(self.store, session.account_id)
        return Response(200, body, {"Content-Type": "text/csv"})
'''), t(r'''

        def write(out):
            exporter.export_usage_csv(self.store, session.account_id, out)

        # The web adapter calls the body with the response stream; the exporter writes one page at a time.
        return Response(200, write, {"Content-Type": "text/csv"})
''')),
            Put("tests/test_exporter.py", t(r'''
import io
from datetime import UTC, datetime

from tollgate import exporter
from tollgate.events import UsageEvent


class FakeStore:
    def __init__(self, events):
        self.events = events
        self.page_calls = 0

    def events_page(self, account_id, after_id, limit):
        self.page_calls += 1
        rows = [event for event in self.events if event.account_id == account_id and event.id > after_id]
        return rows[:limit]


def test_rows_are_written_page_by_page(monkeypatch):
    monkeypatch.setattr(exporter, "PAGE_SIZE", 2)
    at = datetime(2024, 9, 1, tzinfo=UTC)
    store = FakeStore([UsageEvent(i, "acct_1", "api.request", i, at) for i in range(1, 6)])
    out = io.StringIO()
    assert exporter.export_usage_csv(store, "acct_1", out) == 5
    assert len(out.getvalue().splitlines()) == 6
    assert store.page_calls == 4  # pages of 2, 2 and 1 rows, then an empty page ends the export
''')),
            Sub("docs/operations.md", "## Rate limits\n", t(r'''
## Exports

`GET /export` writes CSV one page at a time: 1000 events per query, selected by id after the last id written
(`exporter.PAGE_SIZE`). Memory stays flat however large the account, and the database connection returns to
the pool between pages.

## Rate limits
''')),
        ],
        merged="2024-10-01 12:10",
        review=[
            Review("jdelacroix", "2024-09-10 11:31", "tollgate/events.py", '" WHERE account_id = %s AND id > %s ORDER BY id LIMIT %s",',
                   "We considered OFFSET/LIMIT paging, but rejected it because OFFSET rescans all earlier rows and "
                   "page 30,000 of a large account would take minutes."),
            Review("mlindqvist", "2024-09-11 16:05", "tollgate/exporter.py", "PAGE_SIZE = 1000",
                   "We considered bringing back the server-side cursor with its own connection pool, but rejected it "
                   "because it still pins a connection for up to 50 minutes per export."),
        ],
        labels=["performance"],
    ),
    release_pr("pr_rel_030", "0.2.0", "0.3.0", "2024-10-07 09:00", "2024-10-07 09:20", t('''
- Access is denied by default; refunds and exports are for admins only (<<pr_deny>>).
- Sessions expire after 15 minutes idle (<<pr_idle>>).
- Unknown prices stay unknown instead of billing as free (<<pr_unknown_cost>>).
- Usage exports are written in pages of 1000 rows (<<pr_keyset>>).
''')),
    PR(
        "pr_export_docs",
        "Document the export format in the README",
        "rokafor",
        "2024-10-21 15:00",
        "Partners keep asking which columns the export has.",
        [
            Sub("README.md", "## Layout\n", t(r'''
## Export format

`GET /export` returns `text/csv` with the columns `event_id`, `meter`, `quantity` and `at` (ISO 8601, UTC),
in event id order.

## Layout
''')),
        ],
        merged="2024-10-22 10:40",
        labels=["docs"],
    ),
    Issue(
        "is_nat",
        "Customers behind a shared NAT throttle each other",
        "jdelacroix",
        "2024-11-04 09:25",
        t('''
Northwind Freight runs 40 workers behind one egress IP. The rate limiter keys its buckets on
request.client_ip, so all 40 share one bucket of 600 requests per minute and get HTTP 429 at 5% of their
contracted volume. At the same time one API key used from a pool of cloud functions gets a fresh bucket for
every new address, so the limit does not hold for it at all.
'''),
        closed="2024-11-14 14:45",
        state_reason="completed",
        labels=["bug"],
    ),
    PR(
        "pr_per_key",
        "Rate limit per API key, not per client IP",
        "jdelacroix",
        "2024-11-06 10:00",
        t('''
Fixes <<is_nat>>. Refs <<is_endpoint_limits>>: per-endpoint limits are still open; this PR only changes what a bucket is keyed on.

Rate limits are always counted per API key, never per client IP, because many customers send from one NAT address and one key can arrive from many addresses.

Api._guard() now authenticates first and then counts the request against session.api_key_id.
'''),
        [
            Sub("tollgate/ratelimit.py", '"""Fixed-window rate limiting."""', '"""Fixed-window rate limiting, one bucket per API key."""'),
            Sub("tollgate/ratelimit.py", t(r'''
    def allow(self, client_ip):
        """Count one request from ``client_ip``; False when its current minute is full."""
        window = int(self._clock() // 60)
        key = (client_ip, window)
'''), t(r'''
    def allow(self, api_key_id):
        """Count one request for the API key ``api_key_id``; False when its current minute is full."""
        window = int(self._clock() // 60)
        key = (api_key_id, window)
''')),
            Sub("tollgate/api.py", t(r'''
        """Rate-limit, authenticate and authorise; returns (session, None) or (None, error response)."""
        if not self.limiter.allow(request.client_ip):
            return None, Response(429)
        # touch() enforces the idle timeout and restarts it; every request passes through here.
        session = self.sessions.touch(bearer_token(request.headers))
        if session is None:
            return None, Response(401)
'''), t(r'''
        """Authenticate, rate-limit and authorise; returns (session, None) or (None, error response)."""
        # touch() enforces the idle timeout and restarts it; every request passes through here.
        session = self.sessions.touch(bearer_token(request.headers))
        if session is None:
            return None, Response(401)
        # One bucket per API key: many customers share one NAT address, and one key may call from many.
        if not self.limiter.allow(session.api_key_id):
            return None, Response(429)
''')),
            Sub("docs/operations.md", "Each client IP gets 600 requests per minute by default (`TOLLGATE_RATE_LIMIT_PER_MINUTE`). A client\n",
                "Each API key gets 600 requests per minute by default (`TOLLGATE_RATE_LIMIT_PER_MINUTE`), wherever its\n"
                "requests come from. A key\n"),
            Put("tests/test_ratelimit.py", t(r'''
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
''')),
        ],
        merged="2024-11-14 14:45",
        review=[
            Review("pnair", "2024-11-07 10:48", "tollgate/api.py", "if not self.limiter.allow(session.api_key_id):",
                   "We considered keying buckets on the pair (API key, client IP), but rejected it because a key "
                   "spread over rotating cloud IPs would still get a fresh bucket per address."),
            Review("mlindqvist", "2024-11-08 13:15", "tollgate/ratelimit.py", "key = (api_key_id, window)",
                   "We considered caching the buckets in Redis so every API replica shares one count, but rejected "
                   "it for now because the load balancer already routes each API key to one replica and a Redis "
                   "round trip would add a network hop to every request."),
        ],
        labels=["api"],
    ),
    Issue(
        "is_double_charge",
        "Customer charged twice after a provider timeout",
        "tkowalski",
        "2024-11-18 08:30",
        t('''
On 2024-11-16 the payment provider took 31 seconds to answer the charge for INV-2024-1183. Our client timed
out after 30 seconds and retry.call_with_retry() sent the same charge again. Both charges went through and
acct_3307 paid 412.50 EUR twice. call_with_retry() retries every transient failure up to 3 times, whatever the
call is, and charge() sends no idempotency key.
'''),
        closed="2024-11-28 10:00",
        state_reason="completed",
        labels=["bug", "billing", "incident"],
    ),
    PR(
        "pr_idempotency",
        "Retry payment calls only with an idempotency key",
        "jdelacroix",
        "2024-11-20 09:45",
        t('''
Fixes <<is_double_charge>>.

A call is retried only when it carries an idempotency key, and a call without one is never retried, because a timed-out charge may have succeeded and a blind retry bills the customer twice.

charge() now sends the key `charge:<invoice number>`, which the provider uses to drop duplicates for 24 hours.
'''),
        [
            Sub("tollgate/retry.py", t(r'''
    """Send ``call``, retrying transient failures with exponential backoff."""
    for attempt in range(1, attempts + 1):
'''), t(r'''
    """Send ``call``; retry transient failures only when it carries an idempotency key."""
    if call.idempotency_key is None:
        # Without a key the other side cannot drop a duplicate, so a retry could charge twice.
        return send(call)
    for attempt in range(1, attempts + 1):
''')),
            Sub("tollgate/payments.py", t(r'''
    call = Call("charge", {"invoice": invoice.number, "account": invoice.account_id, "amount": str(invoice.total)})
'''), t(r'''
    # The provider drops a second charge with the same key, so retrying after a timeout cannot charge twice.
    call = Call(
        "charge",
        {"invoice": invoice.number, "account": invoice.account_id, "amount": str(invoice.total)},
        idempotency_key=f"charge:{invoice.number}",
    )
''')),
            Sub("docs/operations.md", "## Rate limits\n", t(r'''
## Retries

A call to the payment provider is retried (3 attempts, exponential backoff) only when it carries an
idempotency key. A call without a key is sent once.

## Rate limits
''')),
            Put("tests/test_retry.py", t(r'''
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
''')),
        ],
        merged="2024-11-28 10:00",
        review=[
            Review("tkowalski", "2024-11-21 14:02", "tollgate/retry.py", "    if call.idempotency_key is None:",
                   "We considered retrying only on connection errors raised before the request was sent, but "
                   "rejected it because a read timeout does not tell us whether the provider charged the card."),
        ],
        labels=["billing"],
    ),
    Issue(
        "is_invoice_edit",
        "Editing an issued invoice changed a document the customer already paid",
        "tkowalski",
        "2024-12-09 11:15",
        t('''
Support corrected a quantity on INV-2024-1201 with invoices.update_line() three days after it was issued. The
customer's accounting system holds the original PDF with a total of 980.00; our copy now says 944.00 and the
two no longer match. Nothing stops update_line() from changing an issued invoice, and German bookkeeping rules
(GoBD) require issued invoices to stay unchanged.
'''),
        closed="2025-01-08 15:30",
        state_reason="completed",
        labels=["bug", "billing"],
    ),
    PR(
        "pr_immutable",
        "Issued invoices are immutable; corrections go through credit notes",
        "tkowalski",
        "2024-12-16 10:30",
        t('''
Fixes <<is_invoice_edit>>.

An invoice is immutable once issued and must never be edited; every correction is a separate credit note that references it, because the customer and the tax office already hold the issued copy.

- update_line() becomes update_draft_line() and raises InvoiceIssuedError on an issued invoice.
- issue() refuses to issue twice.
- credit_note() creates a CreditNote for an issued invoice; refunds in the API are credit notes now.
'''),
        [
            Sub("tollgate/invoices.py", '"""Invoices built from an account\'s monthly usage."""',
                '"""Invoices built from an account\'s monthly usage, and credit notes that correct issued ones."""'),
            Sub("tollgate/invoices.py", "from tollgate.pricing import line_cost\n\n\n@dataclass\n", t(r'''
from tollgate.pricing import line_cost


class InvoiceIssuedError(Exception):
    """An issued invoice was about to be changed. Correct it with a credit note instead."""


@dataclass
''')),
            Sub("tollgate/invoices.py", "    issued_at: datetime | None = None\n\n\ndef build_invoice", t(r'''
    issued_at: datetime | None = None


@dataclass(frozen=True)
class CreditNote:
    number: str
    invoice_number: str
    amount: Decimal
    reason: str
    issued_at: datetime


def build_invoice''')),
            Sub("tollgate/invoices.py", t(r'''
def update_line(invoice, meter, quantity):
    """Change a line's quantity and recompute the total."""
    for line in invoice.lines:
'''), t(r'''
def update_draft_line(invoice, meter, quantity):
    """Change a line of a draft invoice and recompute its total."""
    if invoice.issued_at is not None:
        raise InvoiceIssuedError(f"{invoice.number} is issued; correct it with a credit note")
    for line in invoice.lines:
''')),
            Sub("tollgate/invoices.py", t(r'''
    """Mark ``invoice`` as issued; the invoice job then renders and sends it."""
    invoice.issued_at = utc_now()
    return invoice
'''), t(r'''
    """Issue ``invoice``. From here on it is immutable; only a credit note can correct it."""
    if invoice.issued_at is not None:
        raise InvoiceIssuedError(f"{invoice.number} is already issued")
    invoice.issued_at = utc_now()
    return invoice


def credit_note(invoice, number, amount, reason):
    """A credit note against an issued invoice; the invoice itself stays exactly as issued."""
    if invoice.issued_at is None:
        raise ValueError(f"{invoice.number} is a draft; edit it instead of crediting it")
    return CreditNote(number, invoice.number, round_money(amount), reason, utc_now())
''')),
            Sub("tollgate/api.py", "from tollgate import access, exporter\n", "from tollgate import access, exporter, invoices\n"),
            Sub("tollgate/api.py", "        self.refunds = []\n", "        self.credit_notes = []\n"),
            Sub("tollgate/api.py", t(r'''
        self.refunds.append((invoice.number, to_money(amount)))
        return Response(202, {"invoice": invoice.number, "amount": str(to_money(amount))})
'''), t(r'''
        # An issued invoice is never edited: a refund is a credit note that references it.
        note_number = f"CN-{invoice.number}-{len(self.credit_notes) + 1}"
        note = invoices.credit_note(invoice, note_number, to_money(amount), "refund")
        self.credit_notes.append(note)
        return Response(202, {"credit_note": note.number, "invoice": invoice.number, "amount": str(note.amount)})
''')),
            Sub("docs/billing.md", "cents once, with banker's rounding (`ROUND_HALF_EVEN`).\n", t(r'''
cents once, with banker's rounding (`ROUND_HALF_EVEN`).

## Corrections

An issued invoice is never changed. A correction or a refund is a credit note (`invoices.credit_note()`)
that references the invoice number; only draft invoices can be edited.
''')),
            Sub("tests/test_invoices.py", "from decimal import Decimal\n\nfrom tollgate.invoices import build_invoice\n", t(r'''
from decimal import Decimal

import pytest

from tollgate.invoices import InvoiceIssuedError, build_invoice, credit_note, issue, update_draft_line
''')),
            Sub("tests/test_invoices.py", "    assert invoice.lines[0].amount == Decimal(\"0\")\n", t(r'''
    assert invoice.lines[0].amount == Decimal("0")


def test_issued_invoice_cannot_be_edited():
    invoice = issue(build_invoice("INV-5", "acct_1", {"api.request": 100}))
    with pytest.raises(InvoiceIssuedError):
        update_draft_line(invoice, "api.request", 50)


def test_credit_note_leaves_the_invoice_unchanged():
    invoice = issue(build_invoice("INV-6", "acct_1", {"api.request": 10000}))
    note = credit_note(invoice, "CN-INV-6-1", Decimal("1.50"), "goodwill")
    assert note.invoice_number == "INV-6"
    assert invoice.total == Decimal("4.00")
''')),
        ],
        merged="2025-01-08 15:30",
        review=[
            Review("mlindqvist", "2024-12-17 09:55", "tollgate/invoices.py", "    if invoice.issued_at is not None:",
                   "I'd rather not allow edits in a grace period after issuing; even a same-day edit changes a "
                   "document the customer may already have forwarded to their accountant."),
            Review("jdelacroix", "2024-12-18 10:20", "tollgate/invoices.py", "def credit_note(invoice, number, amount, reason):",
                   "Why not void the invoice and issue a corrected one?"),
            Review("tkowalski", "2024-12-18 11:42", "tollgate/invoices.py", "def credit_note(invoice, number, amount, reason):",
                   "We considered voiding the invoice and issuing a replacement, but rejected it because the customer "
                   "would then hold two invoices for the same period; a credit note is the documented way to "
                   "correct an issued invoice."),
        ],
        labels=["billing"],
    ),
    PR(
        "pr_bump_requests_2",
        "Bump requests from 2.32.2 to 2.32.3",
        "dependabot[bot]",
        "2025-01-06 05:14",
        dependabot_body("requests", "2.32.2", "2.32.3", "https://github.com/psf/requests"),
        [Sub("requirements.txt", "requests==2.32.2", "requests==2.32.3")],
        merged="2025-01-07 08:20",
        labels=["dependencies"],
    ),
    Issue(
        "is_float_speed",
        "Use float for prices to speed up the invoice run",
        "jdelacroix",
        "2025-01-20 10:40",
        t('''
The January invoice run took 3 h 40 min. Profiling shows 38% of the time in Decimal arithmetic inside
line_cost(). Our prices have at most 5 decimal places and a float carries 15 to 17 significant digits, so
floats would be precise enough and several times faster.
'''),
        closed="2025-01-22 09:12",
        state_reason="not_planned",
        notes=[
            Note("tkowalski", "2025-01-22 09:10",
                 "Closing as not planned. ADR-0002 keeps all money in Decimal; float totals are exactly what gave "
                 "us the off-by-a-cent invoices in <<is_cent>>. The run is slow because it prices events one by "
                 "one; pricing the per-meter totals from usage_totals() is the fix."),
        ],
        labels=["performance"],
    ),
    release_pr("pr_rel_040", "0.3.0", "0.4.0", "2025-02-03 09:00", "2025-02-03 09:25", t('''
- Rate limits are counted per API key (<<pr_per_key>>).
- Payment calls are retried only with an idempotency key (<<pr_idempotency>>).
- Issued invoices are immutable; corrections are credit notes (<<pr_immutable>>).
''')),
    Issue(
        "is_remember_me",
        "Remember-me option for the dashboard",
        "hyamamoto",
        "2025-02-17 13:20",
        t('''
Account owners who look at their usage once a day find the 15 minute idle timeout annoying: they have to log
in again almost every time. The login form could offer "remember me for 30 days". Eleven customers asked for
this in the Q1 survey.
'''),
        notes=[
            Note("pnair", "2025-02-18 09:30",
                 "A 30-day remember-me session would break SOC 2 control CC6.1 for the call-centre terminals that "
                 "<<is_sessions>> is about. If we do it, it must be off for admin sessions and opt-in per account."),
        ],
        labels=["enhancement"],
    ),
    PR(
        "pr_time_left",
        "Tell the dashboard how long a session has left",
        "hyamamoto",
        "2025-03-10 10:05",
        t('''
See <<is_remember_me>> for the remember-me discussion; this keeps the 15 minute rule and only lets the dashboard warn before it applies.

SessionStore.seconds_left() reports the time until the idle timeout without restarting it: asking how much
time is left is not activity.
'''),
        [
            Sub("tollgate/sessions.py", "        session.last_seen = now\n        return session\n", t(r'''
        session.last_seen = now
        return session

    def seconds_left(self, token):
        """Seconds until the session ends if no request comes in; 0 when it has ended. Does not restart it."""
        session = self._sessions.get(token)
        if session is None:
            return 0
        idle = (self._clock() - session.last_seen).total_seconds()
        return max(0, int(IDLE_TIMEOUT_SECONDS - idle))
''')),
            Sub("tests/test_sessions.py", "        assert store.touch(session.token) is not None\n", t(r'''
        assert store.touch(session.token) is not None


def test_seconds_left_does_not_restart_the_clock():
    clock = FakeClock()
    store = SessionStore(clock=clock)
    session = store.create("acct_1", "key_1", "member")
    clock.now += timedelta(minutes=5)
    assert store.seconds_left(session.token) == 10 * 60
    clock.now += timedelta(minutes=11)
    assert store.touch(session.token) is None
''')),
        ],
        merged="2025-03-18 16:20",
        labels=["api"],
    ),
    Issue(
        "is_event_history",
        "Corrections to usage events overwrite history",
        "mlindqvist",
        "2025-04-07 09:00",
        t('''
EventStore.update_quantity() rewrites an event in place when support corrects mis-metered usage, and
delete() removes it. After a correction we can no longer explain an invoice that was built before it: the
events it was computed from are gone. On 2025-04-02 finance asked why INV-2025-0311 cannot be reproduced; two
of its events had been corrected in March.
'''),
        closed="2025-05-06 11:40",
        state_reason="completed",
        labels=["architecture", "billing"],
    ),
    PR(
        "pr_adr3",
        "ADR-0003: usage events are an append-only log",
        "mlindqvist",
        "2025-04-22 14:30",
        t('''
Fixes <<is_event_history>>. Supersedes ADR-0001.

Usage events are an append-only log: events are never updated or deleted, and a correction is a new event with an offsetting quantity that points at the event it corrects, because an invoice must stay reproducible from the events it was built from.

- docs/adr/0003-append-only-event-log.md; ADR-0001 is marked superseded.
- EventStore loses update_quantity() and delete(); correct() records the offsetting event.
- migrations/003_append_only_events.sql adds corrects_id and revokes UPDATE and DELETE from the app role.
'''),
        [
            Put("docs/adr/0003-append-only-event-log.md", ADR_0003),
            Sub("docs/adr/0001-store-usage-events-in-postgres.md", "Status: accepted\n",
                "Status: superseded\nSuperseded by: ADR-0003\n"),
            Put("migrations/003_append_only_events.sql", t(r'''
-- ADR-0003: usage_events is an append-only log. A correction is a new row that points at the row it corrects.
ALTER TABLE usage_events ADD COLUMN corrects_id BIGINT REFERENCES usage_events (id);

REVOKE UPDATE, DELETE ON usage_events FROM tollgate_app;
''')),
            Put("tollgate/events.py", t(r'''
"""Usage events: an append-only log in the Postgres table usage_events (ADR-0003)."""

from dataclasses import dataclass
from datetime import datetime

from tollgate.clock import utc_now

METERS = ("api.request", "export.row", "storage.gb_hour", "webhook.delivery")


@dataclass(frozen=True)
class UsageEvent:
    id: int
    account_id: str
    meter: str
    quantity: int
    at: datetime
    corrects_id: int | None = None


class EventStore:
    """Appends and reads usage events through a DB-API connection (psycopg in production).

    Events are never updated or deleted (ADR-0003); a correction is a new event that offsets the old one.
    """

    def __init__(self, conn):
        self._conn = conn

    def record(self, account_id, meter, quantity, corrects_id=None):
        if meter not in METERS:
            raise ValueError(f"unknown meter {meter!r}")
        at = utc_now()
        with self._conn.cursor() as cur:
            cur.execute(
                "INSERT INTO usage_events (account_id, meter, quantity, at, corrects_id)"
                " VALUES (%s, %s, %s, %s, %s) RETURNING id",
                (account_id, meter, quantity, at, corrects_id),
            )
            (event_id,) = cur.fetchone()
        return UsageEvent(event_id, account_id, meter, quantity, at, corrects_id)

    def correct(self, event, quantity):
        """Record that ``event`` should have had ``quantity``: a new event offsets it and the original stays."""
        return self.record(event.account_id, event.meter, quantity - event.quantity, corrects_id=event.id)

    def events_for(self, account_id):
        with self._conn.cursor() as cur:
            cur.execute(
                "SELECT id, account_id, meter, quantity, at, corrects_id FROM usage_events"
                " WHERE account_id = %s ORDER BY id",
                (account_id,),
            )
            return [UsageEvent(*row) for row in cur.fetchall()]

    def events_page(self, account_id, after_id, limit):
        """Up to ``limit`` events with an id above ``after_id``, oldest first (keyset paging)."""
        with self._conn.cursor() as cur:
            cur.execute(
                "SELECT id, account_id, meter, quantity, at, corrects_id FROM usage_events"
                " WHERE account_id = %s AND id > %s ORDER BY id LIMIT %s",
                (account_id, after_id, limit),
            )
            return [UsageEvent(*row) for row in cur.fetchall()]

    def usage_totals(self, account_id):
        """Total quantity per meter for ``account_id``, corrections included."""
        with self._conn.cursor() as cur:
            cur.execute(
                "SELECT meter, SUM(quantity) FROM usage_events WHERE account_id = %s GROUP BY meter",
                (account_id,),
            )
            return dict(cur.fetchall())
''')),
            Put("tests/test_events.py", t(r'''
from datetime import UTC, datetime

from tollgate.events import EventStore, UsageEvent


class FakeCursor:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def execute(self, sql, params):
        self.log.append((sql, params))

    def fetchone(self):
        return (len(self.log),)


class FakeConn:
    def __init__(self):
        self.log = []

    def cursor(self):
        return FakeCursor(self.log)


def test_correction_is_a_new_offsetting_event():
    conn = FakeConn()
    original = UsageEvent(7, "acct_1", "api.request", 120, datetime(2025, 4, 1, tzinfo=UTC))
    fix = EventStore(conn).correct(original, 100)
    assert (fix.quantity, fix.corrects_id) == (-20, 7)
    assert [sql.split()[0] for sql, _ in conn.log] == ["INSERT"]


def test_events_cannot_be_updated_or_deleted():
    assert not hasattr(EventStore, "update_quantity")
    assert not hasattr(EventStore, "delete")
''')),
        ],
        merged="2025-05-06 11:40",
        review=[
            Review("tkowalski", "2025-04-23 10:15", "tollgate/events.py", "    def correct(self, event, quantity):",
                   "We considered keeping the updates and adding an audit table, but rejected it because "
                   "reproducing an old invoice would mean replaying the audit table backwards."),
            Review("jdelacroix", "2025-04-24 09:40", "migrations/003_append_only_events.sql", "REVOKE UPDATE, DELETE",
                   "Good, the REVOKE makes it hold for ad-hoc SQL too, not only for code that goes through "
                   "EventStore."),
        ],
        labels=["architecture"],
    ),
    PR(
        "pr_support_refund",
        "Allow the support role to issue refunds",
        "tkowalski",
        "2025-06-02 10:00",
        t('''
Support handles the refund requests that come in by email and has to ask an admin for every one, which delays a refund by a day on average. This lets the support role issue refunds; exports stay admin-only.
'''),
        [
            Sub("tollgate/access.py", "# Only admins may move money out (refunds) or take data out (exports).\n"
                'ADMIN_ONLY = frozenset({"refund", "export"})\n',
                "# Only admins may take data out (exports).\n"
                'ADMIN_ONLY = frozenset({"export"})\n'),
            Sub("tollgate/access.py", '    "member": frozenset({"read_usage", "read_invoices"}),\n',
                '    "member": frozenset({"read_usage", "read_invoices"}),\n'
                '    "support": frozenset({"read_usage", "read_invoices", "refund"}),\n'),
        ],
        closed="2025-06-05 16:00",
        review=[
            Review("pnair", "2025-06-03 09:20", "tollgate/access.py", 'ADMIN_ONLY = frozenset({"export"})',
                   "This reopens <<is_roles>>: refunds became admin-only in <<pr_deny>> after support keys issued "
                   "37 refunds. Support can file a refund request that an admin approves."),
        ],
        notes=[
            Note("mlindqvist", "2025-06-05 15:58",
                 "Closing: refunds stay admin-only. A refund request queue for support is the way to speed this "
                 "up."),
        ],
        labels=["billing"],
    ),
    PR(
        "pr_round_lines",
        "Round each invoice line to cents",
        "tkowalski",
        "2025-07-07 09:30",
        t('''
Line amounts on the invoice show up to five decimal places (731 GB-hours at 0.00012 is 0.08772), which confuses customers. This rounds each line to cents so every amount on the PDF has two decimals.
'''),
        [
            Sub("tollgate/pricing.py", "from decimal import Decimal\n\nPRICES",
                "from decimal import Decimal\n\nfrom tollgate.currency import round_money\n\nPRICES"),
            Sub("tollgate/pricing.py", "    return price * quantity\n", "    return round_money(price * quantity)\n"),
        ],
        closed="2025-07-10 11:05",
        review=[
            Review("mlindqvist", "2025-07-08 14:22", "tollgate/pricing.py", "    return round_money(price * quantity)",
                   "Rounding each line drifts the total by up to half a cent per line; ADR-0002 rounds once, when "
                   "the invoice total is computed. If the PDF shows too many decimals, format the amount for "
                   "display instead."),
        ],
        notes=[Note("tkowalski", "2025-07-10 11:04", "Fair. Closing in favour of formatting on the PDF only.")],
        labels=["billing"],
    ),
    PR(
        "pr_format_money",
        "Show amounts with two decimals on rendered invoices",
        "tkowalski",
        "2025-07-14 10:15",
        t('''
Follow-up to <<pr_round_lines>>: the rendered invoice shows every amount with two decimals, while line amounts and totals keep their exact values. format_money() is for display only and never feeds arithmetic. Amounts stay Decimal; floats were turned down in <<is_float_speed>>.
'''),
        [
            Sub("tollgate/currency.py", "    return amount.quantize(CENT, rounding=ROUND_HALF_EVEN)\n", t(r'''
    return amount.quantize(CENT, rounding=ROUND_HALF_EVEN)


def format_money(amount):
    """An amount as text with two decimals, for people to read; never feed the result back into arithmetic."""
    return str(amount.quantize(CENT, rounding=ROUND_HALF_EVEN))
''')),
            Sub("tollgate/render.py", 'the PDF the customer receives."""\n\n\n',
                'the PDF the customer receives."""\n\nfrom tollgate.currency import format_money\n\n\n'),
            Sub("tollgate/render.py", "{line.amount:>12}", "{format_money(line.amount):>12}"),
            Sub("tollgate/render.py", "{invoice.total:>12}", "{format_money(invoice.total):>12}"),
            Put("tests/test_render.py", t(r'''
from decimal import Decimal

from tollgate.invoices import build_invoice
from tollgate.render import render_invoice


def test_amounts_show_two_decimals_but_keep_their_value():
    invoice = build_invoice("INV-7", "acct_1", {"storage.gb_hour": 731})
    assert "0.09" in render_invoice(invoice)
    assert invoice.lines[0].amount == Decimal("0.08772")
''')),
        ],
        merged="2025-07-21 09:40",
        review=[
            Review("mlindqvist", "2025-07-15 10:02", "tollgate/currency.py", "def format_money(amount):",
                   "Good: display only, and the total still comes from a single round_money() call."),
        ],
        labels=["billing"],
    ),
    PR(
        "pr_bump_pytest_833",
        "Bump pytest from 8.0.1 to 8.3.3",
        "dependabot[bot]",
        "2025-08-04 05:06",
        dependabot_body("pytest", "8.0.1", "8.3.3", "https://github.com/pytest-dev/pytest"),
        [Sub("requirements-dev.txt", "pytest==8.0.1", "pytest==8.3.3")],
        closed="2025-08-18 05:09",
        notes=[Note("dependabot[bot]", "2025-08-18 05:09", "Superseded by <<pr_bump_pytest_834>>.")],
        labels=["dependencies"],
    ),
    PR(
        "pr_bump_pytest_834",
        "Bump pytest from 8.0.1 to 8.3.4",
        "dependabot[bot]",
        "2025-08-18 05:08",
        dependabot_body("pytest", "8.0.1", "8.3.4", "https://github.com/pytest-dev/pytest"),
        [Sub("requirements-dev.txt", "pytest==8.0.1", "pytest==8.3.4")],
        merged="2025-08-19 08:31",
        labels=["dependencies"],
    ),
    release_pr("pr_rel_100", "0.4.0", "1.0.0", "2025-09-01 09:00", "2025-09-01 09:45", t('''
- Usage events are an append-only log (<<pr_adr3>>, ADR-0003).
- Rendered invoices show amounts with two decimals (<<pr_format_money>>).
- The dashboard can show how long a session has left (<<pr_time_left>>).
''')),
    PR(
        "pr_ops_typo",
        "Fix typo in the operations guide",
        "jdelacroix",
        "2025-10-06 16:30",
        "recieves -> receives",
        [Sub("docs/operations.md", "recieves HTTP 429", "receives HTTP 429")],
        merged="2025-10-06 17:02",
        labels=["docs"],
    ),
    Issue(
        "is_webhook_retry",
        "Webhook deliveries are not retried",
        "jdelacroix",
        "2026-01-12 10:10",
        t('''
Outgoing webhook deliveries are sent once. When a customer's endpoint is down for a minute the event is
lost and they have to reconcile by hand: 2.3% of deliveries in December 2025 failed with a timeout or a 5xx.
'''),
        closed="2026-01-22 14:00",
        state_reason="completed",
        labels=["enhancement"],
    ),
    PR(
        "pr_webhook_retry",
        "Retry webhook deliveries with an idempotency key",
        "jdelacroix",
        "2026-01-14 09:30",
        t('''
Fixes <<is_webhook_retry>>.

Webhook deliveries are retried with the event id as idempotency key, so an endpoint that did receive the first attempt can drop the repeat. This keeps the rule from <<pr_idempotency>>: nothing is retried without an idempotency key.
'''),
        [
            Sub("tollgate/webhooks.py", "import hashlib\nimport hmac\n",
                "import hashlib\nimport hmac\n\nfrom tollgate.retry import Call, call_with_retry\n"),
            Sub("tollgate/webhooks.py", "    return hmac.compare_digest(expected, signature)\n", t(r'''
    return hmac.compare_digest(expected, signature)


def deliver(send, url, event_id, payload, secret):
    """POST a signed delivery; safe to retry because the event id is its idempotency key."""
    call = Call(
        "webhook",
        {"url": url, "body": payload.decode(), "signature": sign(secret, payload)},
        idempotency_key=f"webhook:{event_id}",
    )
    return call_with_retry(send, call)
''')),
            Sub("tests/test_webhooks.py", "from tollgate.webhooks import sign, verify\n",
                "from tollgate.retry import TransientError\nfrom tollgate.webhooks import deliver, sign, verify\n"),
            Sub("tests/test_webhooks.py", '    assert not verify(SECRET, b\'{"invoice": "INV-1"}\', "0" * 64)\n', t(r'''
    assert not verify(SECRET, b'{"invoice": "INV-1"}', "0" * 64)


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
''')),
        ],
        merged="2026-01-22 14:00",
        review=[
            Review("pnair", "2026-01-15 11:05", "tollgate/webhooks.py", 'idempotency_key=f"webhook:{event_id}",',
                   "Using the event id, not a random value, is what makes the key useful to the customer: every "
                   "attempt of one event carries the same key."),
        ],
        labels=["webhooks"],
    ),
    PR(
        "pr_bump_setup_python",
        "Bump actions/setup-python from 4 to 5",
        "dependabot[bot]",
        "2026-02-02 05:12",
        dependabot_body("actions/setup-python", "4", "5", "https://github.com/actions/setup-python"),
        [Sub(".github/workflows/ci.yml", "actions/setup-python@v4", "actions/setup-python@v5")],
        merged="2026-02-03 08:15",
        labels=["dependencies"],
    ),
    Issue(
        "is_currencies",
        "Price lists per currency",
        "tkowalski",
        "2026-03-02 09:45",
        t('''
Every price is in EUR and every invoice is in EUR. Two US partners signed for 2026-Q3 and need USD invoices
with USD list prices, not EUR prices converted at the day's rate.
'''),
        notes=[
            Note("mlindqvist", "2026-03-03 10:20",
                 "Agreed. Prices per currency must stay Decimal literals (ADR-0002); no conversion at invoice time."),
        ],
        labels=["enhancement", "billing"],
    ),
    PR(
        "pr_multi_currency",
        "Multi-currency price lists",
        "tkowalski",
        "2026-04-06 10:30",
        t('''
Refs <<is_currencies>>. Work in progress.

Prices become one list per currency. unit_price() takes the invoice currency; a meter without a price in that currency is unknown (None), as before.
'''),
        [
            Sub("tollgate/pricing.py", t(r'''
PRICES = {
    "api.request": Decimal("0.0004"),
    "export.row": Decimal("0.00001"),
    "storage.gb_hour": Decimal("0.00012"),
    "webhook.delivery": Decimal("0"),
}


def unit_price(meter):
    """The price of one unit, or None when the meter has no configured price (unknown is not free)."""
    return PRICES.get(meter)


def line_cost(meter, quantity):
    """Exact cost of ``quantity`` units, or None when the price is unknown; never coerced to 0."""
    price = unit_price(meter)
'''), t(r'''
PRICE_LISTS = {
    "EUR": {
        "api.request": Decimal("0.0004"),
        "export.row": Decimal("0.00001"),
        "storage.gb_hour": Decimal("0.00012"),
        "webhook.delivery": Decimal("0"),
    },
    "USD": {
        "api.request": Decimal("0.00045"),
        "export.row": Decimal("0.000011"),
        "webhook.delivery": Decimal("0"),
    },
}


def unit_price(meter, currency="EUR"):
    """The price of one unit in ``currency``, or None when it has no configured price (unknown is not free)."""
    return PRICE_LISTS.get(currency, {}).get(meter)


def line_cost(meter, quantity, currency="EUR"):
    """Exact cost of ``quantity`` units, or None when the price is unknown; never coerced to 0."""
    price = unit_price(meter, currency)
''')),
        ],
        labels=["billing"],
    ),
    PR(
        "pr_currency_code",
        "Carry the currency code on invoices",
        "tkowalski",
        "2026-05-11 11:00",
        t('''
Depends on <<pr_multi_currency>> for the per-currency price lists; until that lands every invoice carries the account currency, which is EUR for every account today.

Invoice.currency is rendered on the invoice and sent with the charge.
'''),
        [
            Sub("tollgate/invoices.py", "    issued_at: datetime | None = None\n\n\n@dataclass(frozen=True)",
                '    issued_at: datetime | None = None\n    currency: str = "EUR"\n\n\n@dataclass(frozen=True)'),
            Sub("tollgate/invoices.py", "def build_invoice(number, account_id, usage):\n",
                'def build_invoice(number, account_id, usage, currency="EUR"):\n'),
            Sub("tollgate/invoices.py", "    invoice = Invoice(number, account_id)\n",
                "    invoice = Invoice(number, account_id, currency=currency)\n"),
            Sub("tollgate/render.py", 'f"Account {invoice.account_id}"]',
                'f"Account {invoice.account_id}", f"Currency {invoice.currency}"]'),
            Sub("tollgate/payments.py",
                '        {"invoice": invoice.number, "account": invoice.account_id, "amount": str(invoice.total)},\n',
                t(r'''
        {
            "invoice": invoice.number,
            "account": invoice.account_id,
            "amount": str(invoice.total),
            "currency": invoice.currency,
        },
''')),
        ],
        merged="2026-05-19 10:30",
        notes=[
            Note("mlindqvist", "2026-05-19 10:25",
                 "Merging ahead of <<pr_multi_currency>>: the field defaults to EUR, so nothing changes until the "
                 "price lists land."),
        ],
        labels=["billing"],
    ),
    release_pr("pr_rel_110", "1.0.0", "1.1.0", "2026-06-01 09:00", "2026-06-01 09:30", t('''
- Webhook deliveries are retried with the event id as idempotency key (<<pr_webhook_retry>>).
- Invoices carry a currency code (<<pr_currency_code>>).
''')),
    Issue(
        "is_replay",
        "Captured webhook callbacks can be replayed",
        "pnair",
        "2026-07-06 08:50",
        t('''
verify() checks that a callback was signed with our secret, but not when. A captured "invoice paid" callback
can be sent again at any later time and still verifies. The signature should cover a timestamp, and the
receiver should refuse callbacks older than five minutes.
'''),
        labels=["security"],
    ),
    PR(
        "pr_sign_timestamp",
        "Sign the delivery timestamp together with the payload",
        "pnair",
        "2026-07-13 10:40",
        t('''
Refs <<is_replay>>.

Signatures now cover the delivery timestamp as well as the payload, and verification still compares with hmac.compare_digest. Refusing stale timestamps on the receiving side comes next, so the issue stays open.
'''),
        [
            Sub("tollgate/webhooks.py", t(r'''
def sign(secret, payload):
    """Hex HMAC-SHA256 of ``payload``."""
    return hmac.new(secret, payload, hashlib.sha256).hexdigest()


def verify(secret, payload, signature):
    """True when ``signature`` is the HMAC of ``payload`` under ``secret``; compared in constant time."""
    expected = sign(secret, payload)
'''), t(r'''
def sign(secret, payload, timestamp):
    """Hex HMAC-SHA256 over ``timestamp`` and ``payload``, so a signature cannot be moved to another time."""
    message = str(timestamp).encode() + b"." + payload
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def verify(secret, payload, signature, timestamp):
    """True when ``signature`` is the HMAC of ``timestamp`` and ``payload`` under ``secret``; constant time."""
    expected = sign(secret, payload, timestamp)
''')),
            Sub("tollgate/webhooks.py", "from tollgate.retry import Call, call_with_retry\n",
                "from tollgate.clock import utc_now\nfrom tollgate.retry import Call, call_with_retry\n"),
            Sub("tollgate/webhooks.py", t(r'''
def deliver(send, url, event_id, payload, secret):
    """POST a signed delivery; safe to retry because the event id is its idempotency key."""
    call = Call(
        "webhook",
        {"url": url, "body": payload.decode(), "signature": sign(secret, payload)},
'''), t(r'''
def deliver(send, url, event_id, payload, secret, clock=utc_now):
    """POST a signed delivery; safe to retry because the event id is its idempotency key."""
    timestamp = int(clock().timestamp())
    call = Call(
        "webhook",
        {"url": url, "body": payload.decode(), "timestamp": timestamp, "signature": sign(secret, payload, timestamp)},
''')),
            Sub("tests/test_webhooks.py", t(r'''
def test_valid_signature_is_accepted():
    assert verify(SECRET, b'{"invoice": "INV-1"}', sign(SECRET, b'{"invoice": "INV-1"}'))


def test_forged_signature_is_refused():
    assert not verify(SECRET, b'{"invoice": "INV-1"}', "0" * 64)
'''), t(r'''
def test_valid_signature_is_accepted():
    assert verify(SECRET, b'{"invoice": "INV-1"}', sign(SECRET, b'{"invoice": "INV-1"}', 1700000000), 1700000000)


def test_forged_signature_is_refused():
    assert not verify(SECRET, b'{"invoice": "INV-1"}', "0" * 64, 1700000000)


def test_signature_is_bound_to_its_timestamp():
    signature = sign(SECRET, b"{}", 1700000000)
    assert not verify(SECRET, b"{}", signature, 1700000300)
''')),
        ],
        merged="2026-07-22 15:10",
        review=[
            Review("jdelacroix", "2026-07-14 09:30", "tollgate/webhooks.py", 'message = str(timestamp).encode() + b"." + payload',
                   "Customers that verify our deliveries need the new scheme documented before this ships."),
        ],
        labels=["security"],
    ),
    PR(
        "pr_log_denied",
        "Log refused access checks",
        "pnair",
        "2026-08-10 09:20",
        t('''
Follow-up to <<pr_deny>>: every refused access check is logged with the action, the role and the account, so we can see who keeps hitting the admin-only endpoints.
'''),
        [
            Sub("tollgate/api.py", "from dataclasses import dataclass, field\n",
                "import logging\nfrom dataclasses import dataclass, field\n"),
            Sub("tollgate/api.py", "from tollgate.currency import to_money\n\n\n",
                "from tollgate.currency import to_money\n\nlog = logging.getLogger(__name__)\n\n\n"),
            Sub("tollgate/api.py", "        if not access.is_allowed(session.role, action):\n            return None, Response(403)\n",
                "        if not access.is_allowed(session.role, action):\n"
                '            log.warning("refused %s for role %r on account %s", action, session.role, session.account_id)\n'
                "            return None, Response(403)\n"),
        ],
        merged="2026-08-17 10:05",
        labels=["security"],
    ),
    PR(
        "pr_retry_after",
        "Send Retry-After with 429 responses",
        "jdelacroix",
        "2026-09-07 13:15",
        "Clients that get HTTP 429 now learn when their API key's window resets. Northwind Freight asked for it "
        "after <<is_nat>>.",
        [
            Sub("tollgate/ratelimit.py", "        self._windows[key] = count + 1\n        return True\n", t(r'''
        self._windows[key] = count + 1
        return True

    def seconds_until_reset(self):
        """Seconds until the current window ends, for the Retry-After header."""
        return 60 - int(self._clock() % 60)
''')),
            Sub("tollgate/api.py", "            return None, Response(429)\n",
                '            return None, Response(429, headers={"Retry-After": str(self.limiter.seconds_until_reset())})\n'),
            Sub("tests/test_ratelimit.py", "    now[0] = 60.0\n    assert limiter.allow(\"key_a\")\n", t(r'''
    now[0] = 60.0
    assert limiter.allow("key_a")


def test_seconds_until_reset():
    limiter = RateLimiter(limit_per_minute=1, clock=lambda: 125.0)
    assert limiter.seconds_until_reset() == 55
''')),
        ],
        merged="2026-09-10 11:20",
        labels=["api"],
    ),
    PR(
        "pr_bump_requests_3",
        "Bump requests from 2.32.3 to 2.32.5",
        "dependabot[bot]",
        "2026-10-05 05:11",
        dependabot_body("requests", "2.32.3", "2.32.5", "https://github.com/psf/requests"),
        [Sub("requirements.txt", "requests==2.32.3", "requests==2.32.5")],
        labels=["dependencies"],
    ),
    PR(
        "pr_otel",
        "Add OpenTelemetry spans to the export handler",
        "jdelacroix",
        "2026-10-12 14:00",
        "Draft. Starts tracing with the export handler, the slowest one. Needs a collector in staging before it "
        "can merge.",
        [
            Sub("requirements.txt", "requests==2.32.3\n", "opentelemetry-api==1.27.0\nrequests==2.32.3\n"),
            Sub("tollgate/api.py", "from tollgate import access, exporter, invoices\n",
                "from opentelemetry import trace\nfrom tollgate import access, exporter, invoices\n"),
            Sub("tollgate/api.py", t(r'''
        session, error = self._guard(request, "export")
        if error:
            return error
'''), t(r'''
        session, error = self._guard(request, "export")
        if error:
            return error
        trace.get_current_span().set_attribute("tollgate.account_id", session.account_id)
''')),
        ],
        labels=["observability"],
    ),
]


# --------------------------------------------------------------------------------------------------------------
# The decision lines of the story (STORY.md / story.json). Every quote and line here is checked against the output.
# --------------------------------------------------------------------------------------------------------------

STORIES = [
    Story(
        "unknown-cost",
        "Unknown cost is None, never 0",
        "pr_unknown_cost",
        "Unknown cost stays None and is never coerced to 0, because 0 means free and would under-bill.",
        ["pr_unknown_cost"],
        ["is_unpriced"],
        {
            "tollgate/pricing.py": ["    return PRICES.get(meter)", "    if price is None:", "        return None"],
            "tollgate/invoices.py": ["        if cost is None:", "            invoice.unpriced.append(meter)"],
        },
        alternatives=[
            "Instead of returning 0 we keep None, so build_invoice() can tell a meter with no configured price from "
            "one that is really free, like webhook.delivery.",
            "We considered raising an error for an unpriced meter, but rejected it because one missing price would "
            "stop the monthly invoice run for every account.",
        ],
        premise="All premises hold: the fixed issue is closed, the author is active.",
        undo_ideas=[
            "unit_price(): `return PRICES.get(meter, 0)`",
            "line_cost(): `if not price:` / `return 0` instead of `if price is None:` / `return None`",
            "build_invoice(): `if not cost: continue` (drops unpriced meters silently), or `cost or Decimal(0)`",
        ],
        benign_ideas=[
            "a new meter with a `Decimal` price in PRICES",
            "logging the meters in `invoice.unpriced`",
        ],
    ),
    Story(
        "idle-timeout",
        "Sessions expire after 15 minutes idle, checked on every request",
        "pr_idle",
        "From now on a session expires after 15 minutes without a request and the idle check runs on every request, because a session left open on a shared terminal must not outlive its user and SOC 2 control CC6.1 caps idle time at 15 minutes.",
        ["pr_idle", "pr_time_left"],
        ["is_sessions", "is_remember_me"],
        {
            "tollgate/sessions.py": [
                "IDLE_TIMEOUT_SECONDS = 15 * 60",
                "        if now - session.last_seen > timedelta(seconds=IDLE_TIMEOUT_SECONDS):",
                "        session.last_seen = now",
            ],
            "tollgate/api.py": ["        session = self.sessions.touch(bearer_token(request.headers))"],
        },
        alternatives=[
            "We considered a background sweeper that deletes idle sessions once a minute, but rejected it because a "
            "request arriving between two sweeps would still be served on an expired session.",
            "I'd rather not make the timeout configurable per tenant; the SOC 2 control applies to the product, not "
            "to each customer.",
        ],
        premise="Author hyamamoto is inactive since 2025-03 (ask pnair or mlindqvist). The open issue "
        "<<is_remember_me>> (referenced with See from <<pr_time_left>>) asks for 30-day sessions.",
        undo_ideas=[
            "`IDLE_TIMEOUT_SECONDS = 8 * 60 * 60` or any value above 15 minutes",
            "back to a fixed lifetime: `expires_at = utc_now() + timedelta(hours=24)` checked in get()",
            "Api._guard() looking the session up without touch(), or touch() not refreshing last_seen",
        ],
        benign_ideas=[
            "a `revoke(token)` method that deletes a session",
            "showing `seconds_left()` in minutes",
        ],
    ),
    Story(
        "deny-by-default",
        "Access is denied by default; only admin may refund or export",
        "pr_deny",
        'Access is denied by default: a role may only do what is listed for it, and only the "admin" role may call '
        "the refund and export endpoints, because a deny-list lets every new role refund money until someone "
        "remembers to list it.",
        ["pr_deny", "pr_log_denied"],
        ["is_roles"],
        {
            "tollgate/access.py": [
                'ADMIN_ONLY = frozenset({"refund", "export"})',
                '    if action in ADMIN_ONLY and role != "admin":',
                "    return action in ROLE_PERMISSIONS.get(role, frozenset())",
            ],
            "tollgate/api.py": [
                '        session, error = self._guard(request, "refund")',
                '        session, error = self._guard(request, "export")',
            ],
        },
        alternatives=[
            'We considered adding "support" to the DENIED list instead, but rejected it because the next role '
            "someone adds would have the same hole.",
        ],
        premise="All premises hold. <<pr_support_refund>> (closed, not merged) tried to give refunds to the support "
        "role and was rejected.",
        undo_ideas=[
            '`ADMIN_ONLY = frozenset({"export"})` or a "support"/"member" role with "refund"',
            "`return action not in DENIED.get(role, set())` (allow by default), or `.get(role, ALL_ACTIONS)`",
            'refund() guarded with "read_invoices" instead of "refund"',
        ],
        benign_ideas=[
            "a new role \"auditor\" with `frozenset({\"read_usage\"})`",
            "a new read action listed for \"admin\" and \"member\"",
        ],
    ),
    Story(
        "money-decimal",
        "Money is Decimal, rounded ROUND_HALF_EVEN once at invoice time (ADR-0002)",
        "pr_decimal",
        "All money is a Decimal, never a float, and amounts are rounded to cents with ROUND_HALF_EVEN only once, when the invoice total is computed, because floats cannot hold cents exactly and rounding every line drifts the total.",
        ["pr_decimal", "pr_format_money"],
        ["is_cent", "is_float_speed"],
        {
            "tollgate/currency.py": [
                "    if isinstance(value, float):",
                '        raise TypeError("money must not be a float; pass a str or a Decimal")',
                "    return amount.quantize(CENT, rounding=ROUND_HALF_EVEN)",
            ],
            "tollgate/pricing.py": ['    "api.request": Decimal("0.0004"),', "    return price * quantity"],
            "tollgate/invoices.py": ["    invoice.total = round_money(subtotal)"],
            "docs/adr/0002-money-is-decimal.md": ["Status: accepted"],
        },
        alternatives=[
            "I'd rather not accept float here; Decimal keeps cents exact, and Decimal(str(value)) would hide a value "
            "that was already wrong before it reached us.",
            "We considered ROUND_HALF_UP because the old invoices used it, but rejected it because it biases totals "
            "upwards over millions of lines; the accounting ledger uses banker's rounding.",
            "Rounding each line drifts the total by up to half a cent per line; ADR-0002 rounds once, when the "
            "invoice total is computed.",
        ],
        premise="ADR-0002 is accepted. <<is_float_speed>> (closed as not planned) asked for floats; "
        "<<pr_round_lines>> (closed, not merged) tried per-line rounding.",
        undo_ideas=[
            "prices as floats (`0.0004`) or `float(...)` anywhere in money code",
            "`ROUND_HALF_UP` instead of `ROUND_HALF_EVEN`",
            "rounding in line_cost(): `return round_money(price * quantity)` or `round(price * quantity, 2)`",
            "to_money() accepting floats: `Decimal(str(value))`",
        ],
        benign_ideas=[
            "a new price as a `Decimal(\"...\")` literal",
            "format_money() used in another display-only report",
        ],
    ),
    Story(
        "utc-timestamps",
        "Timestamps are stored in UTC",
        "pr_utc",
        "From now on every timestamp we store is a timezone-aware UTC datetime from clock.utc_now(), never local time, because invoice periods are cut at midnight UTC and local time jumps with daylight saving.",
        ["pr_utc"],
        ["is_midnight"],
        {
            "tollgate/clock.py": ["    return datetime.now(UTC)", "    if value.tzinfo is None:"],
            "tollgate/events.py": ["        at = utc_now()"],
            "tollgate/invoices.py": ["    invoice.issued_at = utc_now()"],
            "migrations/002_timestamps_utc.sql": [
                "    ALTER COLUMN at TYPE TIMESTAMPTZ USING at AT TIME ZONE 'Europe/Berlin';"
            ],
        },
        alternatives=[
            "We considered storing local time together with the zone name, but rejected it because every "
            "billing-period query would have to convert row by row.",
        ],
        premise="Stale premise: <<pr_utc>> says Fixes <<is_midnight>>, but that issue was reopened and is still open "
        "(render.py still prints local time).",
        undo_ideas=[
            "`at = datetime.now()` (naive local time) or `datetime.utcnow()` (naive)",
            "to_utc() accepting naive datetimes",
        ],
        benign_ideas=[
            "render.py printing issued_at in UTC with its zone (the fix <<is_midnight>> still waits for)",
            "a new `utc_now()` call site",
        ],
    ),
    Story(
        "webhook-constant-time",
        "Webhook signatures are compared with hmac.compare_digest",
        "pr_hmac",
        "Webhook signatures are always checked with hmac.compare_digest, never with ==, because == returns early on the first differing character and leaks through timing how much of a forged signature is correct.",
        ["pr_hmac", "pr_sign_timestamp"],
        ["is_timing", "is_replay"],
        {"tollgate/webhooks.py": ["    return hmac.compare_digest(expected, signature)"]},
        alternatives=[
            "We considered adding random jitter to the response time, but rejected it because jitter averages out "
            "over enough requests; compare_digest removes the signal instead of hiding it.",
        ],
        premise="<<pr_sign_timestamp>> Refs <<is_replay>>, which is still open (replay protection unfinished).",
        undo_ideas=["`return expected == signature` or `return sign(secret, payload, timestamp) == signature`"],
        benign_ideas=[
            "refusing timestamps older than five minutes before the compare_digest check (the rest of <<is_replay>>)",
        ],
    ),
    Story(
        "retry-idempotency",
        "Retries only with an idempotency key",
        "pr_idempotency",
        "A call is retried only when it carries an idempotency key, and a call without one is never retried, because a timed-out charge may have succeeded and a blind retry bills the customer twice.",
        ["pr_idempotency", "pr_webhook_retry"],
        ["is_double_charge", "is_webhook_retry"],
        {
            "tollgate/retry.py": ["    if call.idempotency_key is None:", "        return send(call)"],
            "tollgate/payments.py": ['        idempotency_key=f"charge:{invoice.number}",'],
            "tollgate/webhooks.py": ['        idempotency_key=f"webhook:{event_id}",'],
        },
        alternatives=[
            "We considered retrying only on connection errors raised before the request was sent, but rejected it "
            "because a read timeout does not tell us whether the provider charged the card.",
        ],
        premise="All premises hold.",
        undo_ideas=[
            "removing the `if call.idempotency_key is None: return send(call)` guard from call_with_retry()",
            "charge() without `idempotency_key=`, or a random key per attempt (`uuid4()`)",
        ],
        benign_ideas=[
            "jitter added to the backoff of call_with_retry()",
            "a refund call sent with `idempotency_key=f\"refund:{note.number}\"`",
        ],
    ),
    Story(
        "ratelimit-per-key",
        "Rate limits per API key, not per IP",
        "pr_per_key",
        "Rate limits are always counted per API key, never per client IP, because many customers send from one NAT address and one key can arrive from many addresses.",
        ["pr_per_key", "pr_retry_after"],
        ["is_nat", "is_endpoint_limits"],
        {
            "tollgate/api.py": ["        if not self.limiter.allow(session.api_key_id):"],
            "tollgate/ratelimit.py": ["    def allow(self, api_key_id):", "        key = (api_key_id, window)"],
        },
        alternatives=[
            "We considered keying buckets on the pair (API key, client IP), but rejected it because a key spread over "
            "rotating cloud IPs would still get a fresh bucket per address.",
            "We considered caching the buckets in Redis so every API replica shares one count, but rejected it for "
            "now because the load balancer already routes each API key to one replica and a Redis round trip would "
            "add a network hop to every request.",
        ],
        premise="<<pr_per_key>> Refs <<is_endpoint_limits>>, which is still open.",
        undo_ideas=[
            "`self.limiter.allow(request.client_ip)` (before or after authentication)",
            "`key = (client_ip, window)` or `key = (api_key_id, client_ip, window)`",
        ],
        benign_ideas=[
            "a different default limit in config.py",
            "per-endpoint limits that are still counted per API key (<<is_endpoint_limits>>)",
        ],
    ),
    Story(
        "invoice-immutable",
        "Issued invoices are immutable; corrections are credit notes",
        "pr_immutable",
        "An invoice is immutable once issued and must never be edited; every correction is a separate credit note that references it, because the customer and the tax office already hold the issued copy.",
        ["pr_immutable"],
        ["is_invoice_edit"],
        {
            "tollgate/invoices.py": [
                '        raise InvoiceIssuedError(f"{invoice.number} is issued; correct it with a credit note")',
                "def credit_note(invoice, number, amount, reason):",
                "    return CreditNote(number, invoice.number, round_money(amount), reason, utc_now())",
            ],
            "tollgate/api.py": [
                '        note = invoices.credit_note(invoice, note_number, to_money(amount), "refund")',
            ],
        },
        alternatives=[
            "I'd rather not allow edits in a grace period after issuing; even a same-day edit changes a document the "
            "customer may already have forwarded to their accountant.",
            "We considered voiding the invoice and issuing a replacement, but rejected it because the customer would "
            "then hold two invoices for the same period; a credit note is the documented way to correct an issued "
            "invoice.",
        ],
        premise="All premises hold.",
        undo_ideas=[
            "dropping the `if invoice.issued_at is not None: raise InvoiceIssuedError` guard in update_draft_line()",
            "refund() changing line amounts or invoice.total instead of creating a credit note",
            "a grace period: `if invoice.issued_at is not None and utc_now() - invoice.issued_at > timedelta(days=1)`",
        ],
        benign_ideas=[
            "a `void_draft()` for invoices that were never issued",
            "validating the reason of a credit note",
        ],
    ),
    Story(
        "export-streaming",
        "Exporter streams CSV in keyset pages (redo after a revert)",
        "pr_keyset",
        "The exporter writes CSV page by page and never loads every row into memory: it fetches 1000 rows at a time by keyset (id greater than the last id written), because a 31 million event account must export in flat memory without holding a database connection for the whole run.",
        ["pr_cursor", "pr_revert_cursor", "pr_keyset", "pr_export_docs"],
        ["is_export_oom", "is_pool"],
        {
            "tollgate/exporter.py": [
                "PAGE_SIZE = 1000",
                "        page = store.events_page(account_id, after_id, PAGE_SIZE)",
                "        after_id = page[-1].id",
            ],
            "tollgate/events.py": ['                " WHERE account_id = %s AND id > %s ORDER BY id LIMIT %s",'],
        },
        alternatives=[
            "We considered OFFSET/LIMIT paging, but rejected it because OFFSET rescans all earlier rows and page "
            "30,000 of a large account would take minutes.",
            "We considered bringing back the server-side cursor with its own connection pool, but rejected it because "
            "it still pins a connection for up to 50 minutes per export.",
        ],
        premise="Author rokafor is inactive since 2024-10. The first attempt <<pr_cursor>> (server-side cursor) was "
        "reverted by <<pr_revert_cursor>>.",
        undo_ideas=[
            "export_usage_csv() loading `store.events_for(account_id)` into a StringIO again",
            "re-adding the reverted server-side cursor (`self._conn.cursor(name=\"usage_export\")`, stream_events())",
            "OFFSET paging: `OFFSET %s LIMIT %s`",
        ],
        benign_ideas=[
            "a `corrects_id` column in the CSV",
            "a docstring or README change about the export format",
        ],
    ),
    Story(
        "append-only-events",
        "Usage events are an append-only log (ADR-0003 supersedes ADR-0001)",
        "pr_adr3",
        "Usage events are an append-only log: events are never updated or deleted, and a correction is a new event "
        "with an offsetting quantity that points at the event it corrects, because an invoice must stay "
        "reproducible from the events it was built from.",
        ["pr_adr1", "pr_adr3"],
        ["is_event_store", "is_event_history"],
        {
            "tollgate/events.py": [
                "    def correct(self, event, quantity):",
                "        return self.record(event.account_id, event.meter, quantity - event.quantity, corrects_id=event.id)",
            ],
            "migrations/003_append_only_events.sql": ["REVOKE UPDATE, DELETE ON usage_events FROM tollgate_app;"],
            "docs/adr/0003-append-only-event-log.md": ["Supersedes: ADR-0001"],
            "docs/adr/0001-store-usage-events-in-postgres.md": ["Status: superseded"],
        },
        alternatives=[
            "We considered keeping the updates and adding an audit table, but rejected it because reproducing an old "
            "invoice would mean replaying the audit table backwards.",
        ],
        premise="ADR-0001 (in-place updates) is superseded by ADR-0003; a change that follows ADR-0001 relies on a "
        "superseded decision.",
        undo_ideas=[
            "re-adding `update_quantity()` / `delete()` with `UPDATE usage_events SET quantity` or `DELETE FROM`",
            "`GRANT UPDATE, DELETE ON usage_events TO tollgate_app`",
        ],
        benign_ideas=[
            "a new index migration on usage_events",
            "a read-only `events_since(after_id)` method",
        ],
    ),
]

NOISE_LABELS = {"dependencies", "release", "docs", "ci"}


# --------------------------------------------------------------------------------------------------------------
# The engine: numbers, placeholders, the tree replay, patches
# --------------------------------------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"<<(?:(n|sha):)?([a-z0-9_]+)>>")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_CLOSING = re.compile(r"\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\b:?\s+#(\d+)\b", re.I)


class StoryError(ValueError):
    """The story data is inconsistent (a bad edit, an unknown key, a quote that is not in its source)."""


def unwrap(text: str) -> str:
    """Join hard-wrapped lines (as people type them in GitHub's box); blank lines, list items and headings stay."""
    out: list[str] = []
    for line in text.split("\n"):
        starts_block = not line.strip() or line.lstrip().startswith(("- ", "* ", "#", "|", "```"))
        if out and out[-1].strip() and not starts_block:
            out[-1] = out[-1].rstrip() + " " + line.strip()
        else:
            out.append(line)
    return "\n".join(out)


def iso(stamp: str | None) -> str | None:
    """'2024-01-08 09:12' -> '2024-01-08T09:12:00Z'."""
    return None if stamp is None else stamp.replace(" ", "T") + ":00Z"


def merge_sha(number: int, title: str, merged: str) -> str:
    return hashlib.sha1(f"{REPO}#{number}\n{title}\n{merged}".encode()).hexdigest()


def unified(before: str, after: str) -> str:
    """GitHub's ``patch`` field: unified hunks (3 lines of context) from the first @@, no file headers."""
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), n=3, lineterm=""))
    return "\n".join(lines[2:])


def count_changes(patch: str) -> tuple[int, int]:
    body = [line for line in patch.split("\n") if not line.startswith("@@")]
    return sum(line.startswith("+") for line in body), sum(line.startswith("-") for line in body)


def locate(patch: str, anchor: str) -> tuple[int, str]:
    """The new-side line number of the first added/context line containing ``anchor``, and its diff_hunk."""
    hunk: list[str] = []
    new_line = 0
    for line in patch.split("\n"):
        m = _HUNK.match(line)
        if m:
            hunk, new_line = [line], int(m.group(3))
            continue
        hunk.append(line)
        if line.startswith("-"):
            continue
        if anchor in line[1:]:
            return new_line, "\n".join(hunk)
        new_line += 1
    raise StoryError(f"review anchor {anchor!r} is on no added or context line of the patch")


class Builder:
    """Replays the history once and keeps what the writers need."""

    def __init__(self, events: list[PR | Issue]) -> None:
        self.events = events
        self.numbers: dict[str, int] = {}
        for i, event in enumerate(events, start=1):
            if event.key in self.numbers:
                raise StoryError(f"duplicate key {event.key}")
            self.numbers[event.key] = i
            if i > 1 and event.created <= events[i - 2].created:
                raise StoryError(f"{event.key}: created {event.created} is not after the previous event")
        self.by_key = {event.key: event for event in events}
        self.shas = {
            pr.key: merge_sha(self.numbers[pr.key], pr.title, pr.merged)
            for pr in events
            if isinstance(pr, PR) and pr.merged
        }
        self.files: dict[str, list[dict]] = {}  # PR key -> files.json rows
        self.applied: dict[str, dict[str, tuple[str | None, str | None]]] = {}  # merged PR -> path -> (before, after)
        self.head: dict[str, str] = {}
        self.merge_order: list[str] = []

    def resolve(self, text: str) -> str:
        def one(m: re.Match[str]) -> str:
            kind, key = m.group(1), m.group(2)
            if key not in self.numbers:
                raise StoryError(f"unknown key in placeholder {m.group(0)}")
            if kind == "sha":
                if key not in self.shas:
                    raise StoryError(f"{key} has no merge commit")
                return self.shas[key]
            return str(self.numbers[key]) if kind == "n" else f"#{self.numbers[key]}"

        return _PLACEHOLDER.sub(one, text)

    def body(self, text: str) -> str:
        """A PR or issue body as GitHub stores it: placeholders resolved, hard-wrapped lines joined."""
        return unwrap(self.resolve(text)).rstrip("\n")

    def prs(self) -> list[PR]:
        return [e for e in self.events if isinstance(e, PR)]

    def issues(self) -> list[Issue]:
        return [e for e in self.events if isinstance(e, Issue)]

    def run(self) -> None:
        """Apply merged PRs in merge order; compute every PR's patch against the tree of its moment."""
        tree = {path: text for path, text in INITIAL_TREE.items()}

        def moment(pr: PR) -> tuple[str, int]:
            return (pr.merged or pr.closed or pr.created, self.numbers[pr.key])

        for pr in sorted(self.prs(), key=moment):
            after, renames = self.apply(pr, tree)
            self.files[pr.key] = self.file_rows(pr.key, tree, after, renames)
            if pr.merged:
                changed = {row["filename"] for row in self.files[pr.key]}
                changed |= set(renames.values())
                self.applied[pr.key] = {p: (tree.get(p), after.get(p)) for p in changed}
                self.merge_order.append(pr.key)
                tree = after
        self.head = tree

    def apply(self, pr: PR, tree: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
        out = dict(tree)
        renames: dict[str, str] = {}  # new path -> old path
        for edit in pr.edits:
            try:
                self.apply_one(edit, out, renames)
            except StoryError as e:
                raise StoryError(f"{pr.key}: {e}") from None
        for path, text in out.items():
            if text and not text.endswith("\n"):
                raise StoryError(f"{pr.key}: {path} must end with a newline")
        return out, renames

    def apply_one(self, edit: Edit, out: dict[str, str], renames: dict[str, str]) -> None:
        if isinstance(edit, Sub):
            old, new = self.resolve(edit.old), self.resolve(edit.new)
            text = out.get(edit.path)
            if text is None or text.count(old) != 1:
                found = 0 if text is None else text.count(old)
                raise StoryError(f"Sub on {edit.path}: expected the old text once, found it {found} times: {old!r}")
            out[edit.path] = text.replace(old, new)
        elif isinstance(edit, Put):
            out[edit.path] = self.resolve(edit.text)
        elif isinstance(edit, Remove):
            del out[edit.path]
        elif isinstance(edit, Rename):
            out[edit.new] = out.pop(edit.old)
            renames[edit.new] = edit.old
        else:
            for path, (before, after) in self.applied[edit.key].items():
                if out.get(path) != after:
                    raise StoryError(f"revert of {edit.key}: {path} changed since")
                if before is None:
                    del out[path]
                else:
                    out[path] = before

    def file_rows(self, key: str, before: dict[str, str], after: dict[str, str], renames: dict[str, str]) -> list[dict]:
        rows = []
        gone = set(renames.values())
        for path in sorted(set(before) | set(after)):
            if path in gone or (before.get(path) == after.get(path) and path not in renames):
                continue
            old_path = renames.get(path, path)
            old_text, new_text = before.get(old_path), after.get(path)
            status = "renamed" if path in renames else "added" if old_text is None else "removed" if new_text is None else "modified"
            patch = unified(old_text or "", new_text or "")
            adds, dels = count_changes(patch)
            row: dict = {"filename": path, "status": status, "additions": adds, "deletions": dels,
                         "changes": adds + dels, "patch": patch}
            if status == "renamed":
                row["previous_filename"] = old_path
            rows.append(row)
        if not rows:
            raise StoryError(f"{key} changes no file")
        return rows


# --------------------------------------------------------------------------------------------------------------
# GitHub REST shapes
# --------------------------------------------------------------------------------------------------------------


def user(login: str) -> dict:
    return {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"}


class Writer:
    """Turns the replayed history into the snapshot's JSON documents, with stable comment ids."""

    def __init__(self, b: Builder) -> None:
        self.b = b
        self.review_id = 1_600_000_000
        self.note_id = 2_100_000_000

    def pull(self, pr: PR) -> dict:
        n = self.b.numbers[pr.key]
        ended = pr.merged or pr.closed
        comments: list[Review | Note] = [*pr.review, *pr.notes]
        times = [pr.created, ended or pr.created] + [c.at for c in comments]
        return {
            "number": n,
            "title": self.b.resolve(pr.title),
            "body": self.b.body(pr.body),
            "state": "closed" if ended else "open",
            "merged_at": iso(pr.merged),
            "created_at": iso(pr.created),
            "closed_at": iso(ended),
            "updated_at": iso(max(times)),
            "user": user(pr.author),
            "html_url": f"{WEB}/pull/{n}",
            "merge_commit_sha": self.b.shas.get(pr.key),
            "base": {"ref": "main"},
            "labels": [{"name": name} for name in pr.labels],
        }

    def issue(self, issue: Issue) -> dict:
        n = self.b.numbers[issue.key]
        times = [issue.created, issue.closed or issue.created] + [c.at for c in issue.notes]
        return {
            "number": n,
            "title": issue.title,
            "body": self.b.body(issue.body),
            "state": "closed" if issue.closed else "open",
            "state_reason": issue.state_reason,
            "created_at": iso(issue.created),
            "closed_at": iso(issue.closed),
            "updated_at": iso(max(times)),
            "user": user(issue.author),
            "html_url": f"{WEB}/issues/{n}",
            "labels": [{"name": name} for name in issue.labels],
        }

    def review_comments(self, pr: PR) -> list[dict]:
        n = self.b.numbers[pr.key]
        patches = {row["filename"]: row["patch"] for row in self.b.files[pr.key]}
        out = []
        for r in pr.review:
            if r.path not in patches:
                raise StoryError(f"{pr.key}: review comment on {r.path}, which the PR does not change")
            line, hunk = locate(patches[r.path], self.b.resolve(r.anchor))
            self.review_id += 1
            out.append({
                "id": self.review_id,
                "user": user(r.author),
                "body": self.b.resolve(r.body),
                "path": r.path,
                "line": line,
                "diff_hunk": hunk,
                "created_at": iso(r.at),
                "html_url": f"{WEB}/pull/{n}#discussion_r{self.review_id}",
            })
        return out

    def notes(self, event: PR | Issue) -> list[dict]:
        n = self.b.numbers[event.key]
        page = "pull" if isinstance(event, PR) else "issues"
        out = []
        for note in event.notes:
            self.note_id += 1
            out.append({
                "id": self.note_id,
                "user": user(note.author),
                "body": self.b.resolve(note.body),
                "created_at": iso(note.at),
                "html_url": f"{WEB}/{page}/{n}#issuecomment-{self.note_id}",
            })
        return out


def dump(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def write_snapshot(b: Builder, out: Path) -> None:
    base = out / "github" / "repos" / REPO
    dump(base / "repo.json", {
        "full_name": REPO,
        "name": REPO.split("/")[1],
        "owner": {"login": REPO.split("/")[0], "type": "Organization"},
        "description": "Usage metering and billing for the Acme API platform (fictional demo repository)",
        "default_branch": "main",
        "html_url": WEB,
        "private": False,
        "created_at": "2024-01-05T10:00:00Z",
    })
    w = Writer(b)
    for event in b.events:
        n = b.numbers[event.key]
        if isinstance(event, PR):
            dump(base / "pulls" / f"{n}.json", w.pull(event))
            dump(base / "pulls" / str(n) / "files.json", b.files[event.key])
            dump(base / "pulls" / str(n) / "comments.json", w.review_comments(event))
        else:
            dump(base / "issues" / f"{n}.json", w.issue(event))
        dump(base / "issues" / str(n) / "comments.json", w.notes(event))
    for path, text in b.head.items():
        if path.startswith("docs/adr/"):
            (base / "contents" / path).parent.mkdir(parents=True, exist_ok=True)
            (base / "contents" / path).write_text(text, encoding="utf-8")
    for path, text in b.head.items():
        (out / "tree" / path).parent.mkdir(parents=True, exist_ok=True)
        (out / "tree" / path).write_text(text, encoding="utf-8")


# --------------------------------------------------------------------------------------------------------------
# Consistency checks on the story itself
# --------------------------------------------------------------------------------------------------------------


def check_people_and_times(b: Builder) -> None:
    logins = {p.login for p in PEOPLE}
    for event in b.events:
        comments = [*getattr(event, "review", []), *event.notes]
        for who in [event.author, *(c.author for c in comments)]:
            if who not in logins:
                raise StoryError(f"{event.key}: unknown person {who}")
        ended = event.merged or event.closed if isinstance(event, PR) else None
        for c in comments:
            if c.at < event.created or (ended and c.at > ended):
                raise StoryError(f"{event.key}: comment at {c.at} outside {event.created} .. {ended}")


def check_links(b: Builder) -> None:
    """Every completed issue is closed by the merge of a PR that fixes it; a fixed issue left open was reopened."""
    fixed_at: dict[int, list[str]] = {}
    for pr in b.prs():
        if pr.merged:
            for n in _CLOSING.findall(b.body(pr.body)):
                fixed_at.setdefault(int(n), []).append(pr.merged)
    for issue in b.issues():
        n = b.numbers[issue.key]
        if issue.state_reason == "completed" and issue.closed not in fixed_at.get(n, []):
            raise StoryError(f"{issue.key} (#{n}) is completed but no merged PR that fixes it merged at {issue.closed}")
        if issue.closed is None and n in fixed_at and issue.state_reason != "reopened":
            raise StoryError(f"{issue.key} (#{n}) is fixed by a merged PR but open without being reopened")
    for n in fixed_at:
        if not isinstance(b.events[n - 1], Issue):
            raise StoryError(f"a PR fixes #{n}, which is not an issue")


def comment_bodies(b: Builder, keys: list[str]) -> list[str]:
    out = []
    for key in keys:
        event = b.by_key[key]
        out += [b.resolve(c.body) for c in [*getattr(event, "review", []), *event.notes]]
    return out


def added_by(b: Builder, path: str, line: str) -> str | None:
    """The last merged PR whose patch adds ``line`` to ``path`` (None: it came with the initial import)."""
    found = None
    for key in b.merge_order:
        for row in b.files[key]:
            if row["filename"] == path and ("+" + line) in row["patch"].split("\n"):
                found = key
    return found


def check_stories(b: Builder) -> None:
    for s in STORIES:
        pr = b.by_key[s.decision_pr]
        if not (isinstance(pr, PR) and pr.merged):
            raise StoryError(f"story {s.id}: {s.decision_pr} is not a merged PR")
        if s.decision not in b.body(pr.body):
            raise StoryError(f"story {s.id}: the decision sentence is not verbatim in {s.decision_pr}'s body")
        bodies = comment_bodies(b, s.prs + [e.key for e in b.events])
        for alt in s.alternatives:
            if not any(alt in body for body in bodies):
                raise StoryError(f"story {s.id}: alternative not verbatim in any comment: {alt[:60]}")
        own = 0
        for path, lines in s.lines.items():
            head = b.head.get(path, "").split("\n")
            for line in lines:
                if line not in head:
                    raise StoryError(f"story {s.id}: {path} has no line {line!r} at HEAD")
                own += added_by(b, path, line) in s.prs
        if not own:
            raise StoryError(f"story {s.id}: none of its decisive lines was added by one of its PRs")


# --------------------------------------------------------------------------------------------------------------
# STORY.md and story.json: the map later work writes labelled diffs from
# --------------------------------------------------------------------------------------------------------------


def last_activity(b: Builder) -> dict[str, str]:
    """Each login's latest authored item (PR, issue or comment), as its created time."""
    seen: dict[str, str] = {}
    for event in b.events:
        stamps = [(event.author, event.created)]
        stamps += [(c.author, c.at) for c in [*getattr(event, "review", []), *event.notes]]
        for login, at in stamps:
            seen[login] = max(seen.get(login, ""), at)
    return seen


def pr_state(pr: PR) -> str:
    return "merged" if pr.merged else "closed (not merged)" if pr.closed else "open"


def issue_state(issue: Issue) -> str:
    return f"closed ({issue.state_reason})" if issue.closed else "open" + (" (reopened)" if issue.state_reason else "")


def story_json(b: Builder) -> dict:
    num = b.numbers
    stories = []
    for s in STORIES:
        lines = []
        for path, wanted in s.lines.items():
            head = b.head[path].split("\n")
            for line in wanted:
                by = added_by(b, path, line)
                lines.append({"path": path, "line": line, "lineno": head.index(line) + 1,
                              "added_by_pr": num[by] if by else None})
        stories.append({
            "id": s.id,
            "title": s.title,
            "decision_pr": num[s.decision_pr],
            "decision": s.decision,
            "prs": [num[k] for k in s.prs],
            "issues": [num[k] for k in s.issues],
            "files": list(s.lines),
            "decisive_lines": lines,
            "rejected_alternatives": s.alternatives,
            "premise": b.resolve(s.premise),
            "contradicting_changes": s.undo_ideas,
            "benign_changes": [b.resolve(x) for x in s.benign_ideas],
        })
    seen = last_activity(b)
    return {
        "repo": REPO,
        "generated_by": "seeds/build_demo.py",
        "people": [{"login": p.login, "name": p.name, "role": p.role, "is_bot": p.is_bot,
                    "last_active": seen.get(p.login, "")[:10]} for p in PEOPLE],
        "pulls": [{"number": num[pr.key], "key": pr.key, "title": b.resolve(pr.title), "author": pr.author,
                   "state": pr_state(pr), "noise": bool(set(pr.labels) & NOISE_LABELS),
                   "files": [row["filename"] for row in b.files[pr.key]]} for pr in b.prs()],
        "issues": [{"number": num[i.key], "key": i.key, "title": i.title, "author": i.author,
                    "state": "closed" if i.closed else "open", "state_reason": i.state_reason} for i in b.issues()],
        "special": {
            "revert": {"reverted": num["pr_cursor"], "revert": num["pr_revert_cursor"], "redo": num["pr_keyset"]},
            "stale_fix": {"pr": num["pr_utc"], "issue_still_open": num["is_midnight"]},
            "depends_on_unmerged": {"pr": num["pr_currency_code"], "depends_on": num["pr_multi_currency"]},
            "refs_open_issue": [[num["pr_per_key"], num["is_endpoint_limits"]],
                                [num["pr_sign_timestamp"], num["is_replay"]],
                                [num["pr_time_left"], num["is_remember_me"]]],
            "superseded_adr": {"old": "docs/adr/0001-store-usage-events-in-postgres.md",
                               "new": "docs/adr/0003-append-only-event-log.md", "changed_by_pr": num["pr_adr3"]},
            "inactive_authors": ["hyamamoto", "rokafor"],
            "closed_unmerged": [num[k] for k in ("pr_support_refund", "pr_round_lines", "pr_bump_pytest_833")],
        },
        "stories": stories,
    }


def md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def story_md(b: Builder, data: dict) -> str:
    num = b.numbers
    prs, issues = b.prs(), b.issues()
    out = [
        f"# Demo seed: {REPO}",
        "",
        "Generated by `seeds/build_demo.py`; edit the script and re-run it, never these files. A fictional Python",
        "usage-metering and billing service. `github/` is the GitHub REST snapshot (`rguard ingest snapshot`),",
        "`tree/` is every file at HEAD (the code labelled diffs apply to), `story.json` is this page as data.",
        "",
        f"{len(prs)} PRs ({sum(1 for p in prs if p.merged)} merged, {sum(1 for p in prs if not p.merged and p.closed)} "
        f"closed without merge, {sum(1 for p in prs if not p.merged and not p.closed)} open), {len(issues)} issues "
        f"({sum(1 for i in issues if not i.closed)} open), 3 ADRs (ADR-0001 superseded by ADR-0003).",
        "",
        "## People",
        "",
        "| login | name | role | last active |",
        "|---|---|---|---|",
    ]
    out += [f"| {p['login']} | {p['name']} | {md_cell(p['role'])} | {p['last_active']} |" for p in data["people"]]
    out += ["", "## Story lines", "", "| story | decision PR | other PRs | issues | files | decision (verbatim) |",
            "|---|---|---|---|---|---|"]
    for s in data["stories"]:
        others = ", ".join(f"#{n}" for n in s["prs"] if n != s["decision_pr"]) or "-"
        out.append(f"| {s['id']} | #{s['decision_pr']} | {others} | {', '.join(f'#{n}' for n in s['issues'])} | "
                   f"{', '.join(s['files'])} | {md_cell(s['decision'])} |")
    for i, s in enumerate(data["stories"], start=1):
        out += ["", f"### {i}. {s['title']} (`{s['id']}`)", "", f"Decision, from #{s['decision_pr']}:", "",
                f"> {s['decision']}", ""]
        if s["rejected_alternatives"]:
            out += ["Rejected alternatives and reasons (verbatim review comments):", ""]
            out += [f"- {alt}" for alt in s["rejected_alternatives"]] + [""]
        out += [f"Premises: {s['premise']}", "", "Decisive lines at HEAD:", ""]
        for path in s["files"]:
            rows = [d for d in s["decisive_lines"] if d["path"] == path]
            where = ", ".join(f"{d['lineno']} (#{d['added_by_pr']})" if d["added_by_pr"] else f"{d['lineno']} (initial)"
                              for d in rows)
            out += [f"- `{path}`, lines {where}:", "", "```"] + [d["line"] for d in rows] + ["```", ""]
        out += ["A contradicting change would, for example:", ""] + [f"- {u}" for u in s["contradicting_changes"]]
        out += ["", "A benign change nearby would, for example:", ""] + [f"- {u}" for u in s["benign_changes"]]
    sp = data["special"]
    out += [
        "", "## Cases for the premise rules", "",
        f"- Revert pair: #{sp['revert']['revert']} reverts #{sp['revert']['reverted']}; the decision is re-done "
        f"differently in #{sp['revert']['redo']}.",
        f"- Stale premise: #{sp['stale_fix']['pr']} (merged) says Fixes #{sp['stale_fix']['issue_still_open']}, "
        "which is open again (reopened).",
        f"- Depends on an unmerged PR: #{sp['depends_on_unmerged']['pr']} (merged) depends on "
        f"#{sp['depends_on_unmerged']['depends_on']} (open).",
        "- Refs/See to issues that stay open: " + ", ".join(f"#{a} -> #{c}" for a, c in sp["refs_open_issue"]) + ".",
        f"- Superseded ADR: `{sp['superseded_adr']['old']}` (Status: superseded) by `{sp['superseded_adr']['new']}`, "
        f"both in #{sp['superseded_adr']['changed_by_pr']}.",
        "- Inactive authors (last activity before 2025-06): " + ", ".join(sp["inactive_authors"]) + ".",
        "- Closed without merge: " + ", ".join(f"#{n}" for n in sp["closed_unmerged"]) + ".",
        "", "## All pull requests", "", "| # | title | author | state | created | merged/closed | labels |",
        "|---|---|---|---|---|---|---|",
    ]
    for pr in prs:
        out.append(f"| {num[pr.key]} | {md_cell(b.resolve(pr.title))} | {pr.author} | {pr_state(pr)} | "
                   f"{pr.created[:10]} | {(pr.merged or pr.closed or '')[:10]} | {', '.join(pr.labels)} |")
    out += ["", "## All issues", "", "| # | title | author | state | created | closed |", "|---|---|---|---|---|---|"]
    for issue in issues:
        out.append(f"| {num[issue.key]} | {md_cell(issue.title)} | {issue.author} | {issue_state(issue)} | "
                   f"{issue.created[:10]} | {(issue.closed or '')[:10]} |")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------------------------


def build(out: Path) -> Builder:
    """Replay the story, check it, and (re)write everything the script owns under ``out``."""
    b = Builder(EVENTS)
    b.run()
    check_people_and_times(b)
    check_links(b)
    check_stories(b)
    out.mkdir(parents=True, exist_ok=True)
    for name in GENERATED:
        target = out / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    write_snapshot(b, out)
    data = story_json(b)
    dump(out / "story.json", data)
    (out / "STORY.md").write_text(story_md(b, data), encoding="utf-8")
    return b


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: seeds/demo)")
    args = parser.parse_args(argv)
    b = build(args.out)
    print(f"wrote {args.out}: {len(b.prs())} PRs, {len(b.issues())} issues, {len(b.head)} files at HEAD")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

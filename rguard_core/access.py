"""Who may write from the dashboard: the reviewer of a session, from where the dashboard listens and how a
request is signed in, never from a text field others can type into.

Three ways to know a reviewer, tried in this order:
  header  ``RGUARD_TRUSTED_HEADER`` names the header a reverse proxy (oauth2-proxy and the like) sets to the
          signed-in user; the value must be on ``RGUARD_REVIEWERS``.
  oidc    Streamlit's own login (``st.login``, an ``[auth]`` section in ``.streamlit/secrets.toml``); the user's
          e-mail (or name) must be on ``RGUARD_REVIEWERS``.
  local   the dashboard listens on loopback only, so whoever uses it is on this machine: they type their name.
Anything else — the dashboard reachable from the network with neither sign-in — is read-only, and says so.

The decision is a pure function of what the surface read (``Request``); ``ui/identity.py`` reads Streamlit.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Literal

type Mode = Literal["local", "header", "oidc", "read_only"]

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def is_loopback(address: str | None) -> bool:
    """True when a bind address reaches only this machine. Empty or ``0.0.0.0`` means every interface."""
    host = (address or "").strip().strip("[]").lower()
    if not host:
        return False
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve to any interface


@dataclass(frozen=True)
class Request:
    """What a surface knows about who is asking, read for one page run."""

    bind_address: str | None  # the dashboard's server.address ("" = every interface)
    trusted_header: str | None  # RGUARD_TRUSTED_HEADER (its name), when configured
    header_value: str | None  # that header's value on this request
    oidc_configured: bool  # an [auth] section exists, so st.login works
    oidc_user: str | None  # the signed-in user's e-mail or name, when signed in
    reviewers: tuple[str, ...]  # RGUARD_REVIEWERS, lower-cased


@dataclass(frozen=True)
class Access:
    """The outcome: the mode, the reviewer writes are recorded as (None when the session may not write, or must
    type a name in local mode), and a sentence each surface can show."""

    mode: Mode
    reviewer: str | None
    why: str

    @property
    def can_write(self) -> bool:
        return self.mode == "local" or self.reviewer is not None

    @property
    def typed_name(self) -> bool:
        """Local mode: the person says who they are in a text field."""
        return self.mode == "local"


def _listed(who: str, reviewers: tuple[str, ...]) -> bool:
    return who.strip().lower() in reviewers


def decide(req: Request) -> Access:
    """The access a request has. A signed-in identity always wins over a typed name, even on loopback (a proxy
    on this machine makes a loopback bind reachable by everyone it serves)."""
    if req.trusted_header:
        who = (req.header_value or "").strip()
        if not who:
            return Access(
                "read_only",
                None,
                f"read-only: this request carries no {req.trusted_header} header (open the dashboard through "
                "the sign-in proxy to write)",
            )
        if not _listed(who, req.reviewers):
            return Access("read_only", None, f"read-only: {who} is not on RGUARD_REVIEWERS")
        return Access("header", who, f"signed in as {who} (by the proxy's {req.trusted_header} header)")
    if req.oidc_configured:
        if not req.oidc_user:
            return Access("read_only", None, "read-only until you sign in")
        if not _listed(req.oidc_user, req.reviewers):
            return Access("read_only", None, f"read-only: {req.oidc_user} is not on RGUARD_REVIEWERS")
        return Access("oidc", req.oidc_user, f"signed in as {req.oidc_user}")
    if is_loopback(req.bind_address):
        return Access("local", None, "local dashboard (loopback only): say who you are with each change")
    where = req.bind_address or "every interface"
    return Access(
        "read_only",
        None,
        f"read-only: this dashboard listens on {where} with no sign-in, so nobody here can be known as a "
        "reviewer. Sign-in: a proxy header (RGUARD_TRUSTED_HEADER) or Streamlit's login, with RGUARD_REVIEWERS",
    )

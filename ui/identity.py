"""The session's reviewer on every page that writes: read from Streamlit (bind address, proxy header, login),
decided by ``rguard_core.access`` (which explains the three modes)."""

from __future__ import annotations

import streamlit as st

from rguard_core.access import Access, Request, decide
from rguard_core.config import Settings
from rguard_core.errors import ConfigError


def _oidc_configured() -> bool:
    try:
        return "auth" in st.secrets
    except FileNotFoundError:  # no secrets file at all: Streamlit raises rather than answering "no"
        return False


def _oidc_user() -> str | None:
    info = st.user.to_dict()
    if not info.get("is_logged_in"):
        return None
    who = str(info.get("email") or info.get("preferred_username") or info.get("name") or "").strip()
    return who or None


def current() -> Access:
    """This run's access. Settings come from the environment each run (cheap), so a changed allowlist needs
    only a restart of the dashboard, never of the engine."""
    try:
        settings = Settings.from_env()
    except ConfigError as e:  # a mistyped RGUARD_TRUSTED_HEADER must not open writes, nor crash every page
        return Access("read_only", None, f"read-only: {e}")
    header = settings.trusted_header
    value = st.context.headers.get(header) if header else None
    return decide(
        Request(
            bind_address=st.get_option("server.address"),
            trusted_header=header,
            header_value=value,
            oidc_configured=_oidc_configured(),
            oidc_user=_oidc_user(),
            reviewers=settings.reviewers,
        )
    )


def banner() -> None:
    """The sidebar line every page shows: who writes are recorded as, or why this session is read-only, and the
    sign-in button when Streamlit's login is configured."""
    a = current()
    with st.sidebar:
        if a.mode == "read_only":
            st.warning(a.why, icon=":material/lock:")
        elif a.mode in ("header", "oidc"):
            st.caption(f":material/verified_user: {a.why}")
        if _oidc_configured():
            if _oidc_user():
                st.button("Sign out", on_click=st.logout, key="auth_logout", type="tertiary")
            else:
                st.button("Sign in", on_click=st.login, key="auth_login")


def reviewer(label: str, key: str) -> str:
    """The name a write is recorded under: the signed-in reviewer (shown, not editable), or in local mode a text
    field. Empty in read-only mode, where pages do not draw their write forms (``can_write``)."""
    a = current()
    if a.reviewer is not None:
        st.caption(f"Recorded as **{a.reviewer}**")
        return a.reviewer
    if a.typed_name:
        return st.text_input(label, key=key)
    return ""


def can_write(what: str) -> bool:
    """False, with the reason shown in place of the form, when this session may not write."""
    a = current()
    if a.can_write:
        return True
    st.info(f"{what} is turned off here — {a.why}.", icon=":material/lock:")
    return False

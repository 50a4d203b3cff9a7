"""Shared page helpers: the cached store, the selected repository, and friendly error display."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

from rguard_core.db import Store, open_store
from rguard_core.errors import RGuardError

T = TypeVar("T")


@st.cache_resource(show_spinner=False)
def get_store() -> Store:
    return open_store()


def selected_repo() -> str | None:
    return st.session_state.get("repo")


def require_repo() -> str | None:
    """The sidebar's repository, or a friendly empty state when there is none yet."""
    repo = selected_repo()
    if not repo:
        st.info("No repository yet. Open **Ingest** to read one from GitHub, a snapshot folder or a local clone, "
                "or run `python -m rguard_core seed` to load the demo repository.")
    return repo


def url_param(name: str) -> str | None:
    """A query parameter of the page's URL (so a reload or a shared link opens the same thing)."""
    value = st.query_params.get(name)
    return str(value) if value else None


def set_url_param(name: str, value: str | None) -> None:
    """Put ``value`` in the URL (or take ``name`` out of it); only writes when it changes."""
    if value:
        if st.query_params.get(name) != value:
            st.query_params[name] = value
    elif name in st.query_params:
        del st.query_params[name]


def guarded[T](fn: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
    """Run a core call; show an RGuard error as a clear message instead of a traceback."""
    try:
        return fn(*args, **kwargs)
    except RGuardError as e:
        st.error(str(e))
        return None

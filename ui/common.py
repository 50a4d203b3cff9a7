"""Shared page helpers: the cached store, the selected repository, and friendly error display."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

from rguard_core.db import Store, open_store
from rguard_core.errors import RGuardError
from rguard_core.graph_state import require_complete

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
        st.info(
            "No repository yet. Open **Ingest** to read one from GitHub, a snapshot folder or a local clone, "
            "or run `python -m rguard_core seed` to load the demo repository."
        )
        return repo
    return repo if whole_or_flagged(repo) else None


def whole_or_flagged(repo: str) -> bool:
    """False, with the reason shown, when the graph's last ingest did not finish: pages refuse it as the CLI does
    (graph_state.py)."""
    try:
        require_complete(get_store().repo_graph(repo))
    except RGuardError as e:
        st.error(page_message(e))
        return False
    return True


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


# Core messages name CLI flags where the CLI is the likely caller; on a page the same advice names the field.
PAGE_WORDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"; pass --repo\b"), "; fill in the repository name (OWNER/NAME)"),
    (re.compile(r"needs --repo OWNER/NAME"), "needs a repository name (OWNER/NAME, the field beside it)"),
    (re.compile(r"--max-prs and --max-commits must"), "the number of newest PRs to read must"),
    (re.compile(r" on --diff FILE or stdin"), " in the diff box"),
    (re.compile(r" \(--diff FILE or -\)| \(--pr N\)"), ""),
    (re.compile(r"--seeds must"), "seeds per variant must"),
    (re.compile(r"give --workspace or "), "choose a workspace or give "),
    (
        re.compile(r", not \S+; guard it against \S+'s graph \(ingest it first\)"),
        "; pick that repository in the sidebar (or ingest it) first",
    ),
)


def page_message(e: BaseException) -> str:
    """An error in the page's words: CLI flag names replaced by what the page calls the field."""
    text = str(e)
    for pattern, words in PAGE_WORDS:
        text = pattern.sub(words, text)
    return text


def guarded[T](fn: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
    """Run a core call; show an RGuard error as a clear message, in the page's words, instead of a traceback."""
    try:
        return fn(*args, **kwargs)
    except RGuardError as e:
        st.error(page_message(e))
        return None

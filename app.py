"""RGuard dashboard entry: navigation, repository picker, connection status."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from rguard_core.errors import RGuardError
from rguard_core.seed import DEMO_REPO
from ui.common import get_store, set_url_param, url_param
from ui.identity import banner
from ui.theme import connection_dot

# a local icon: a :material/...: page icon makes the browser fetch the favicon from a remote font host
ICON = Path(__file__).resolve().parent / "ui" / "static" / "rguard.png"
st.set_page_config(page_title="RGuard", page_icon=str(ICON), layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Overview", icon=":material/home:", default=True),
    st.Page("pages/ingest.py", title="Ingest", icon=":material/download:"),
    st.Page("pages/decision_graph.py", title="Decision graph", icon=":material/hub:"),
    st.Page("pages/code_map.py", title="Code map", icon=":material/account_tree:"),
    st.Page("pages/guard.py", title="Guard", icon=":material/shield:"),
    st.Page("pages/corrections.py", title="Corrections", icon=":material/edit_note:"),
    st.Page("pages/eval.py", title="Eval", icon=":material/analytics:"),
]


def sidebar() -> None:
    with st.sidebar:
        st.markdown("### RGuard")
        try:
            store = get_store()
            repos = store.list_repos()
            ok = store.ping()
        except RGuardError as e:
            st.error(f"FalkorDB unavailable: {e}")
            return
        kind = "embedded" if store.embedded else "server"
        st.caption(f"{connection_dot(ok)} FalkorDB {kind}: `{store.target}`")
        if not repos:
            st.caption("No repositories ingested yet.")
            st.session_state.pop("repo", None)
            return
        pick_repository(repos)


# Session keys that belong to one repository: searches, picks, previews, verdicts, filters. A new repository
# starts from a clean page rather than from the last one's state.
PER_REPO = ("corr_", "q_", "lift_", "undo_", "fb_", "guard_run", "guard_flash", "dg_", "eval_guard")


def pick_repository(repos: list[str]) -> None:
    """The sidebar picker: follows a fresh ingest, opens the repository named in the URL (?repo=), and keeps the
    choice in the URL so a reload or a shared link shows the same repository.

    The choice lives in our own session key ("repo"), not in the widget's state: a page switch drops the query
    parameters and, in the browser, the widget's keyed state with them, which sent the picker back to the first
    repository in the list. The widget is drawn at the index of the current choice every run."""
    current = st.session_state.get("repo")
    pending = st.session_state.pop("repo_next", None)  # set by the Ingest page after a successful ingest
    linked = url_param("repo")
    if pending in repos:
        target = pending
    elif current in repos:
        target = current
    elif linked in repos:
        target = linked
    else:
        target = DEMO_REPO if DEMO_REPO in repos else repos[0]
    chosen = st.selectbox("Repository", repos, index=repos.index(target))
    if current is not None and chosen != current:
        for key in [k for k in st.session_state if str(k).startswith(PER_REPO)]:
            del st.session_state[key]
        # a node, focus, question or PR of the other repository means nothing here (and the Decision graph,
        # whose dg_ keys were just dropped, reads its URL as a first view's)
        for param in ("node", "focus", "q", "pr"):
            set_url_param(param, None)
    st.session_state["repo"] = chosen
    set_url_param("repo", chosen)


sidebar()
banner()
st.navigation(PAGES).run()

"""RGuard dashboard entry: navigation, repository picker, connection status."""

from __future__ import annotations

import streamlit as st

from rguard_core.errors import RGuardError
from rguard_core.seed import DEMO_REPO
from ui.common import get_store

st.set_page_config(page_title="RGuard", page_icon=":material/shield:", layout="wide")

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
        st.caption(f"{':green[●]' if ok else ':red[●]'} FalkorDB {kind}: `{store.target}`")
        if not repos:
            st.caption("No repositories ingested yet.")
            st.session_state.pop("repo", None)
            return
        current = st.session_state.get("repo")
        if current not in repos:
            current = DEMO_REPO if DEMO_REPO in repos else repos[0]
        st.session_state["repo"] = st.selectbox("Repository", repos, index=repos.index(current), key="repo_picker")


sidebar()
st.navigation(PAGES).run()

"""Code map: the repository's proven import graph — a decision's files and who imports them, blast radius."""

from __future__ import annotations

import streamlit as st

from rguard_core.codemap import walks
from ui.codemap_view import blast_section, chain_section, decision_section, status_section
from ui.common import get_store, guarded, require_repo


def main() -> None:
    st.title("Code map")
    st.caption(
        "Imports a parser could prove, in the same graph as the decisions: code that imports a decision's "
        "files is at risk when they change."
    )
    repo = require_repo()
    if not repo:
        return
    store = get_store()
    if status_section(store, repo) is None:
        return
    graph = store.repo_graph(repo)
    st.subheader("A decision's files and their importers")
    choices = guarded(walks.decision_choices, graph) or []
    if choices:
        labels = {c.id: f"{c.summary[:90]} · {c.files} file(s), {c.importers} importer(s)" for c in choices}
        pick = st.selectbox("Decision", list(labels), format_func=lambda i: labels[i], key="cm_decision")
        if pick:
            decision_section(store, repo, pick)
    else:
        st.caption("No active decision touched a file of the mapped tree.")
    st.subheader("Blast radius of a file")
    files = guarded(walks.file_choices, graph) or []
    if not files:
        st.caption("The code map holds no source files.")
        return
    fan = dict(files)
    path = st.selectbox("File", list(fan), format_func=lambda p: f"{p} · imported by {fan[p]}", key="cm_file")
    if path:
        blast_section(store, repo, path)
    with st.expander("Shortest import chain between two files"):
        c1, c2 = st.columns(2)
        a = c1.selectbox("From", list(fan), key="cm_chain_a")
        b = c2.selectbox("To", list(fan), index=min(1, len(fan) - 1), key="cm_chain_b")
        if a and b and a != b:
            chain_section(store, repo, a, b)


main()

"""Code map sections for pages: a decision's files with their importers, a file's blast radius, the map's
status. Paths come from the repository, so they are shown in tables and code blocks, never as Markdown."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rguard_core.codemap import walks
from rguard_core.db import Store
from ui.common import guarded


def status_section(store: Store, repo: str) -> walks.Status | None:
    """The commit mapped and the coverage report; None (with how to build one) when there is no map."""
    st_ = guarded(walks.status, store.repo_graph(repo))
    if st_ is None:
        st.info("No code map for this repository yet. Build one from a local clone or a GitHub ref:")
        st.code(
            f"python -m rguard_core codemap build --repo {repo} --git PATH\n"
            f"python -m rguard_core codemap build --repo {repo} --ref main",
            language="bash",
        )
        return None
    if st_.status != "complete":
        st.warning("The last code map build stopped midway; run `codemap build` again.")
        return None
    cols = st.columns(4)
    cols[0].metric("Files", st_.files)
    cols[1].metric("Import edges", st_.edges)
    cols[2].metric("Internal imports resolved", f"{st_.resolved_ratio:.1%}")
    cols[3].metric("Commit", (st_.commit or "—")[:12])
    st.caption(
        f"Mapped from {st_.source} {st_.ref or ''} at {st_.built_at}. Only imports that resolve to a file "
        "of the tree are edges; the rest are counted below."
    )
    cov = st_.coverage
    with st.expander("Coverage report: imports that are not edges, by reason"):
        rows = [{"reason": k, "imports": v} for k, v in sorted((cov.get("unresolved") or {}).items())]
        st.dataframe(pd.DataFrame(rows or [{"reason": "none", "imports": 0}]), hide_index=True)
        examples = [{"reason": k, "example": x} for k, xs in sorted((cov.get("examples") or {}).items()) for x in xs]
        if examples:
            st.dataframe(pd.DataFrame(examples), hide_index=True)
    return st_


def decision_section(store: Store, repo: str, decision_id: str) -> None:
    """The files a decision's change touched and, for each, the files that import it."""
    files = guarded(walks.decision_files, store.repo_graph(repo), decision_id)
    if files is None:
        return
    if not files:
        st.caption("This decision's change touched no files.")
        return
    rows: list[dict[str, object]] = []
    for f in files:
        if not f.importers:
            rows.append(
                {
                    "decision's file": f.path,
                    "imported by": "—" if f.in_tree else "(not in the mapped tree)",
                    "line": None,
                    "how": "",
                }
            )
        for s in f.importers:
            rows.append(
                {"decision's file": f.path, "imported by": s.source, "line": s.line, "how": f"{s.kind} {s.specifier}"}
            )
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def blast_section(store: Store, repo: str, path: str) -> None:
    """Every file that imports ``path``, directly or transitively, with its depth."""
    res = guarded(walks.blast_radius, store.repo_graph(repo), repo, path)
    if res is None:
        return
    if not res.files:
        st.caption("Nothing in the tree imports this file.")
        return
    st.caption(
        f"{len(res.files)} file(s) import it, {res.reached_depth} level(s) deep"
        + ("" if res.complete else " (cut at the walk's limit)")
        + "; depth 1 imports it directly."
    )
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "depth": r.depth,
                    "file": r.path,
                    "through": r.via.target,
                    "line": r.via.line,
                    "how": f"{r.via.kind} {r.via.specifier}",
                }
                for r in res.files
            ]
        ),
        hide_index=True,
        width="stretch",
    )


def chain_section(store: Store, repo: str, a: str, b: str) -> None:
    res = guarded(walks.chain, store.repo_graph(repo), repo, a, b)
    if res is None:
        return
    if not res.steps:
        st.caption("No import chain joins these two files.")
        return
    st.code(" →\n".join(res.as_dict()["files"]), language=None)


def decision_code_expander(store: Store, repo: str, node_type: str, node_id: str) -> None:
    """For the decision graph's detail pane: a decision's files and their importers, when a code map exists."""
    if node_type != "decision":
        return
    mapped = guarded(walks.status, store.repo_graph(repo))
    if mapped is None or mapped.status != "complete":
        return
    with st.expander("Code: this decision's files and the files that import them"):
        decision_section(store, repo, node_id)
        st.caption("Blast radius of any file, and import chains: the Code map page.")

"""Ingest: read a GitHub repository or PR, a snapshot folder or a local git clone into the graph."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rguard_core.errors import RGuardError
from rguard_core.ingest.request import IngestRequest, run_ingest
from ui.common import get_store, page_message
from ui.evidence import visible
from ui.identity import can_write

st.title("Ingest")
st.caption("Decisions and claims are kept only as exact quotes of their source, with offsets.")

SOURCES = {
    "GitHub repository or PR URL": "github",
    "Snapshot folder (GitHub REST shapes)": "snapshot",
    "Local git clone": "git",
}

submitted = False
if can_write("Ingesting"):
    # outside the form: choosing the source redraws the form with that source's own limit (PRs or commits)
    label = st.radio("Source", list(SOURCES), horizontal=True, key="ingest_source")
    kind = SOURCES[label]
    with st.form("ingest"):
        target = st.text_input(
            "Repository (OWNER/NAME), PR URL, or folder path",
            key="ingest_target",
            placeholder="acme/tollgate · https://github.com/o/r/pull/12 · /path/to/folder",
        )
        c1, c2, c3 = st.columns(3)
        repo = c1.text_input("Repository name for git clones (OWNER/NAME)", key="ingest_repo")
        llm_ready = bool(get_store().settings.openai_base_url)
        extractor = c2.selectbox(
            "Extractor",
            ["offline", "llm"] if llm_ready else ["offline"],
            key="ingest_extractor",
            help="llm asks the configured OpenAI-compatible endpoint"
            if llm_ready
            else "The LLM extractor is unavailable: no OpenAI-compatible endpoint is configured "
            "(set OPENAI_BASE_URL, and OPENAI_API_KEY if it needs one, then restart).",
        )
        if kind == "git":  # a clone is read commit by commit: its own limit (the PR limit meant nothing to it)
            max_commits = c3.number_input("Newest commits to read", min_value=1, max_value=100_000, value=5000)
            max_prs = 200
        else:
            max_prs = c3.number_input("Newest PRs to read", min_value=1, max_value=100_000, value=200)
            max_commits = 5000
        api_url = st.text_input("GitHub API URL (blank: GITHUB_API_URL or api.github.com)", key="ingest_api")
        submitted = st.form_submit_button("Ingest", type="primary")

if submitted:
    req = IngestRequest(
        kind,
        target,
        repo=repo or None,
        extractor=extractor,
        max_prs=int(max_prs),
        max_commits=int(max_commits),
        api_url=api_url or None,
    )
    status = st.status("Ingesting…", expanded=True)
    bar = status.progress(0.0, text="starting")

    def progress(stage: str, done: int, total: int) -> None:
        frac = min(1.0, done / total) if total else 0.0
        bar.progress(frac, text=f"{stage}: {done}/{total}" if total else stage)

    try:
        res = run_ingest(get_store(), req, progress)
    except RGuardError as e:
        status.update(label="Ingest failed — nothing was written", state="error")
        st.session_state.pop("last_ingest", None)  # the previous run's report is not this run's
        st.error(page_message(e))
    else:
        status.update(label=f"Ingested {res.repo}", state="complete", expanded=False)
        st.session_state["last_ingest"] = res.as_dict()
        if st.session_state.get("repo") != res.repo:
            st.session_state["repo_next"] = res.repo  # the sidebar picker follows the fresh ingest
            st.rerun()

last = st.session_state.get("last_ingest")
if last:
    cov = last["coverage"]
    st.subheader(f"Coverage report — {last['repo']}")
    cols = st.columns(6)
    for col, (k, name) in zip(
        cols,
        [
            ("pulls", "PRs"),
            ("issues", "Issues"),
            ("docs", "Docs"),
            ("people", "People"),
            ("decisions", "Decisions"),
            ("claims", "Claims"),
        ],
        strict=True,
    ):
        col.metric(name, cov[k])
    st.write(
        f"Alternatives: **{cov['alternatives']}** · quotes kept: **{cov['quotes_kept']}** · "
        f"rejected: **{sum(cov['quotes_rejected'].values())}** · unresolved links: "
        f"**{len(cov['unresolved_links'])}** · took "
        + " · ".join(f"{stage} {secs:.1f} s" for stage, secs in last["timings_s"].items())
    )
    if cov["rejected_examples"]:
        st.markdown("**Quotes rejected (not verbatim or empty)**")
        st.dataframe(pd.DataFrame(cov["rejected_examples"]), hide_index=True)
    # every record file is accounted for: read, or skipped with the reason (rguard_core/ingest/skipped.py)
    counted = [p for p in cov["problems"] if p.startswith("read ") and " files in the snapshot" in p]
    skipped = [p.removeprefix("skipped ") for p in cov["problems"] if p.startswith("skipped ")]
    problems = [p for p in cov["problems"] if p not in counted and not p.startswith("skipped ")]
    for line in counted:
        st.caption(
            visible(line[:1].upper() + line[1:]) + (f"; {len(skipped)} skipped, listed below." if skipped else ".")
        )
    if skipped:
        with st.expander(f"Skipped files ({len(skipped)}) and why"):
            for line in skipped:
                st.text(visible(line))
    if cov["unresolved_links"] or problems:
        with st.expander("Links that did not resolve and other problems"):
            for line in cov["unresolved_links"] + problems:
                st.text(visible(line))

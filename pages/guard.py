"""Guard: hand RGuard a diff or a PR and see which earlier decisions it touches, with receipts."""

from __future__ import annotations

import streamlit as st

from rguard_core.activity import record_guard_run
from rguard_core.errors import RGuardError
from rguard_core.guard import GuardReport, run_guard
from rguard_core.ingest.github import parse_pr_url
from ui.common import get_store, require_repo
from ui.guard_review import show_review

MAX_UPLOAD = 10 * 1024 * 1024

st.title("Guard")
st.caption("Paste a diff, upload a patch or name a PR: RGuard finds the earlier decisions it touches, checks their "
           "premises, and shows the quote, the link, who to ask and the Cypher it ran.")

repo = require_repo()
if not repo:
    st.stop()
store = get_store()


def pr_number(text: str) -> int:
    text = text.strip().lstrip("#")
    if text.isdigit():
        return int(text)
    url_repo, number = parse_pr_url(text)
    if url_repo.lower() != repo.lower():
        raise RGuardError(f"that PR belongs to {url_repo}; pick that repository in the sidebar (or ingest it) first")
    return number


with st.form("guard_form"):
    tab_paste, tab_upload, tab_pr = st.tabs(["Paste a diff", "Upload .diff / .patch", "A PR"])
    pasted = tab_paste.text_area("Unified diff (git diff output)", height=220, key="guard_diff")
    uploaded = tab_upload.file_uploader("Patch file", type=["diff", "patch", "txt"], key="guard_upload")
    pr_text = tab_pr.text_input("PR number or URL (guarded as stored in the graph)", key="guard_pr")
    judge = st.radio("Judge", ["offline", "llm"], horizontal=True, key="guard_judge",
                     help="offline is deterministic; llm uses OPENAI_BASE_URL and fails loudly if it cannot answer")
    run = st.form_submit_button("Guard", type="primary")

if run:
    try:
        pr = pr_number(pr_text) if pr_text.strip() else None
        diff = pasted
        if uploaded is not None:
            if uploaded.size > MAX_UPLOAD:
                raise RGuardError(f"the patch is {uploaded.size / 2**20:.1f} MB; the limit is 10 MB")
            diff = uploaded.getvalue().decode("utf-8", errors="replace")
        if pr is None and not diff.strip():
            raise RGuardError("nothing to guard: paste a diff, upload a patch or give a PR number")
        with st.spinner("Walking the graph…"):
            st.session_state["guard_report"] = run_guard(store, repo, diff if diff.strip() else None, judge=judge, pr=pr)
            st.session_state["guard_diff_used"] = diff
            record_guard_run(store.settings, st.session_state["guard_report"], "dashboard")
    except RGuardError as e:
        st.session_state.pop("guard_report", None)
        st.error(str(e))

report: GuardReport | None = st.session_state.get("guard_report")
if report is not None and report.repo == repo:
    n = len(report.findings)
    if report.verdict == "warn":
        st.error(f"Warn: this change contradicts {sum(f.label == 'contradicts' for f in report.findings)} earlier "
                 f"decision(s). Read the receipts below before merging.")
    elif report.verdict == "note":
        st.warning(f"Note: {n} related decision(s) — nothing contradicted, but worth a look.")
    else:
        st.success("Pass: no earlier decision is touched by this change.")
    t = report.timings_ms
    st.caption(f"parse {t['parse']:.1f} ms · graph {t['graph']:.1f} ms · judge {t['judge']:.1f} ms · "
               f"total {t['total']:.1f} ms · {len(report.cypher)} Cypher statements")
    for note in report.notes:
        st.info(note)

    show_review(store, repo, report, st.session_state.get("guard_diff_used"))  # ui/guard_review.py

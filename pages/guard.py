"""Guard: hand RGuard a diff or a PR and see which earlier decisions it touches, with receipts."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rguard_core.errors import RGuardError
from rguard_core.guard import Finding, GuardReport, record_feedback, run_guard
from rguard_core.ingest.github import parse_pr_url
from rguard_core.node_detail import node_detail
from ui.common import get_store, require_repo
from ui.evidence import link, md, show_evidence
from ui.graph_widget import draw_path

MAX_UPLOAD = 10 * 1024 * 1024
STATUS_BADGE = {"holds": "green", "stale": "orange", "broken": "red"}

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

    def card(i: int, f: Finding) -> None:
        with st.container(border=True):
            icon = ":red[**CONTRADICTS**]" if f.label == "contradicts" else ":orange[**RELATED**]"
            src = f.source
            where = f"#{src['number']}" if src.get("number") is not None else (src.get("path") or src.get("kind"))
            st.markdown(f"{icon} · score {f.score:.2f} · {md(f.summary)}")
            st.markdown(f"> {md(f.quote)}")
            label = f"{'PR' if src.get('kind') == 'pr' else src.get('kind')} {where}"
            st.markdown(f"Source: {link(label, f.source_url)}"
                        f" · decision `{f.decision_id}`" + (f" · {md(f.reason)}" if f.reason else ""))
            if f.premises:
                st.markdown(" ".join(f":{STATUS_BADGE.get(p['status'], 'gray')}-badge[{p['rule']} {p['status']}]"
                                     for p in f.premises))
                for p in f.premises:
                    st.caption(f"{p['rule']}: {p['detail']}")
            else:
                st.caption("Premises: no rule (R1–R7, support engine) flagged anything; the decision still stands.")
            if f.alternatives:
                st.markdown("**Rejected alternatives**")
                for a in f.alternatives:
                    quote = "" if a["text"].strip() == a["quote"].strip() else f"  \n  > {md(a['quote'])}"
                    st.markdown(f"- {md(a['text'])}{quote}")
            if f.experts:
                who = ", ".join(f"@{md(e['login'])} ({e['score']:.2f})" for e in f.experts)
                st.markdown(f"**Who to ask:** {who} · bus factor **{f.bus_factor}**")
            for line in f.learned:
                st.caption(f"Learned: {line}")
            with st.expander("Quote in its source"):
                detail = None
                try:
                    detail = node_detail(store, repo, f.decision_id)
                except RGuardError as e:
                    st.caption(str(e))
                if detail is not None and detail.evidence is not None:
                    show_evidence(detail.evidence)
            if f.path:
                draw_path(f.path, f.hops)
            with st.expander("Feedback on this finding"):
                with st.form(f"fb_{i}"):
                    kind = st.radio("Feedback", ["ack", "wrong", "override"], horizontal=True, key=f"fb_kind_{i}",
                                    help="ack: keep and learn · wrong: score × 0.25 · override: your text becomes "
                                         "a new decision that supersedes this one")
                    by = st.text_input("Your login", key=f"fb_by_{i}")
                    reason = st.text_area("Why (for override: the new decision, in your words)", key=f"fb_reason_{i}")
                    if st.form_submit_button("Send feedback"):
                        try:
                            out = record_feedback(store, repo, f.decision_id, kind, by, reason)
                        except RGuardError as e:
                            st.error(str(e))
                        else:
                            st.success(f"Recorded {out['kind']} by {out['by']}; run the guard again to see it applied.")

    for i, f in enumerate(report.findings):
        card(i, f)

    with st.expander(f"The Cypher it ran ({len(report.cypher)} statements)"):
        st.dataframe(pd.DataFrame([{k: c[k] for k in ("name", "ms", "rows")} for c in report.cypher]),
                     hide_index=True, use_container_width=True)
        for c in report.cypher:
            st.caption(f"{c['name']} · {c['ms']:.2f} ms · {c['rows']} rows")
            st.code(c["query"].strip(), language="cypher")

"""Guard: hand RGuard a diff or a PR and see which earlier decisions it touches, with receipts."""

from __future__ import annotations

import streamlit as st

from rguard_core.activity import record_guard_run
from rguard_core.errors import RGuardError
from rguard_core.guard import Finding, run_guard
from rguard_core.guard.feedback import FeedbackEntry, entries, give_feedback
from rguard_core.memory import undo
from ui.common import get_store, page_message, require_repo, set_url_param, url_param
from ui.evidence import md
from ui.guard_input import INPUTS, GuardInput, GuardRun, read_input
from ui.guard_review import show_review
from ui.identity import can_write, reviewer

FEEDBACK = {
    "ack": "ack — keep it, and note that it is known",
    "wrong": "wrong — dismiss it for these lines",
    "override": "override — my words become the decision that replaces it",
}

st.title("Guard")
st.caption(
    "Paste a diff, upload a patch or name a stored PR: RGuard finds the earlier decisions it touches, checks "
    "their premises, and shows the quote, the link, who to ask and the Cypher it ran."
)

chosen = require_repo()
if not chosen:
    st.stop()
repo: str = chosen  # a module global: the functions below would not see the narrowing of `chosen`
store = get_store()
llm_ready = bool(store.settings.openai_base_url)


def guard(inp: GuardInput, judge: str) -> None:
    try:
        with st.spinner("Walking the graph…"):
            report = run_guard(store, repo, inp.diff, judge=judge, pr=inp.pr)
    except RGuardError as e:
        st.session_state.pop("guard_run", None)
        st.error(page_message(e))
        return
    st.session_state["guard_run"] = GuardRun(inp, report)
    record_guard_run(store.settings, report, "dashboard", inp.pr)
    set_url_param("pr", str(inp.pr) if inp.pr is not None else None)


choice = st.radio(
    "Input",
    list(INPUTS),
    format_func=lambda k: INPUTS[k],
    horizontal=True,
    key="guard_input",
    help="One input at a time: the verdict names the one it judged.",
)
with st.form("guard_form"):
    pasted, uploaded, pr_text = "", None, ""
    if choice == "paste":
        pasted = st.text_area("Unified diff (git diff output)", height=220, key="guard_diff")
    elif choice == "upload":
        uploaded = st.file_uploader("Patch file", type=["diff", "patch", "txt"], key="guard_upload")
    else:
        pr_text = st.text_input("PR number or URL (guarded as stored in the graph)", key="guard_pr")
    judges = ["offline", "llm"] if llm_ready else ["offline"]
    judge = st.radio(
        "Judge",
        judges,
        horizontal=True,
        key="guard_judge",
        help="offline is deterministic; llm asks the configured endpoint and fails loudly if it cannot",
    )
    if not llm_ready:
        st.caption(
            "The LLM judge is unavailable: no OpenAI-compatible endpoint is configured "
            "(set OPENAI_BASE_URL, and OPENAI_API_KEY if it needs one, then restart)."
        )
    run = st.form_submit_button("Guard", type="primary")

if run:
    try:
        inp = read_input(
            choice,
            repo,
            pasted=pasted,
            pr_text=pr_text,
            upload_name=uploaded.name if uploaded is not None else None,
            upload_bytes=uploaded.getvalue() if uploaded is not None else None,
        )
    except RGuardError as e:
        st.session_state.pop("guard_run", None)
        st.error(page_message(e))
    else:
        guard(inp, judge)
elif "guard_run" not in st.session_state and url_param("pr"):
    try:  # a reload or a shared link (?pr=N) shows that PR's verdict again
        guard(read_input("pr", repo, pr_text=url_param("pr") or ""), "offline")
    except RGuardError as e:
        st.error(page_message(e))

current: GuardRun | None = st.session_state.get("guard_run")
login = ""


def rerun_guard(message: str) -> None:
    """After feedback, judge the same input again so the page shows what the feedback changed."""
    assert current is not None
    st.session_state["guard_flash"] = message
    guard(current.input, st.session_state.get("guard_judge", "offline") if llm_ready else "offline")
    st.rerun()


def undo_entry(e: FeedbackEntry) -> None:
    if st.button(f"Undo {e.kind} by {md(e.by)}", key=f"fb_undo_{e.correction}", type="tertiary"):
        try:
            undo(store.repo_graph(repo), e.correction, login, "undone on the Guard page", revision=e.revision)
        except RGuardError as err:
            st.error(page_message(err))
        else:
            rerun_guard(f"Undid the {e.kind} by {e.by} ({e.correction}).")


def reviewer_extras(f: Finding, given: list[FeedbackEntry], writable: bool) -> None:
    """Under each finding of the review: what reviewers said about it (each with undo) and the feedback form."""
    for e in given:
        st.caption(md(f"Learned: {e.note}"))
        if writable:
            undo_entry(e)
    if writable:
        feedback_form(f)


def feedback_form(f: Finding) -> None:
    key = f.decision_id
    with st.expander("Feedback on this finding"), st.form(f"fb_{key}"):
        st.markdown(f"On decision **{md(f.decision_id)}** — {md(f.summary)}")
        kind = st.radio("Feedback", list(FEEDBACK), format_func=lambda k: FEEDBACK[k], key=f"fb_kind_{key}")
        reason = st.text_area("Why (for override: the new decision, in your words)", key=f"fb_reason_{key}")
        if not st.form_submit_button(f"Send feedback on {f.decision_id}"):
            return
        try:
            res = give_feedback(store, repo, f.decision_id, kind, login, reason, lines_key=f.lines_key)
        except RGuardError as e:
            st.error(page_message(e))
            return
    if res.status == "already":
        st.info(f"You already gave this {res.kind} ({res.correction}); undo it first to change it.")
        return
    rerun_guard(f"Recorded {res.kind} by {res.by} on {res.decision} ({res.correction}).")


if current is not None and current.report.repo == repo:
    report = current.report
    writable = can_write("Feedback and undo")
    login = reviewer("Your login (for feedback and undo)", key="guard_login") if writable else ""
    n = len(report.findings)
    judged = current.input.label
    if report.verdict == "warn":
        st.error(
            f"Warn on {judged}: it contradicts {sum(f.label == 'contradicts' for f in report.findings)} earlier "
            f"decision(s). Read the receipts below before merging."
        )
    elif report.verdict == "note":
        st.warning(f"Note on {judged}: {n} related decision(s) — nothing contradicted, but worth a look.")
    elif report.dismissed:
        # not "nothing is touched": decisions are, and reviewers said the findings were wrong for these lines
        who = sorted({f.dismissed.by for f in report.dismissed if f.dismissed is not None})
        st.success(
            f"Pass on {judged}: {len(report.dismissed)} finding(s) on these lines were dismissed by reviewers "
            f"({md(', '.join(who))}) and are not counted; they are listed below."
        )
    else:
        st.success(f"Pass on {judged}: no earlier decision is touched by this change.")
    flash = st.session_state.pop("guard_flash", None)
    if flash:
        st.success(flash)
    t = report.timings_ms
    st.caption(
        f"parse {t['parse']:.1f} ms · graph {t['graph']:.1f} ms · judge {t['judge']:.1f} ms · "
        f"total {t['total']:.1f} ms · {len(report.cypher)} Cypher statements"
    )
    for note in report.notes:
        st.info(md(note))
    given = entries(store.repo_graph(repo), [f.decision_id for f in report.findings + report.dismissed])
    # the review (ui/guard_review.py) draws every finding; this page adds what reviewers said and the feedback form
    show_review(
        store,
        repo,
        report,
        current.input.diff,
        extras=lambda f: reviewer_extras(f, [e for e in given.get(f.decision_id, []) if e.kind != "wrong"], writable),
    )
    if report.dismissed:
        st.subheader(f"Dismissed by reviewers ({len(report.dismissed)}) — not counted in the verdict")
        for f in report.dismissed:
            d = f.dismissed
            assert d is not None
            with st.container(border=True):
                st.markdown(f"~~{f.label}~~ · {md(f.summary)} · decision {md(f.decision_id)}")
                st.caption(md(f"Dismissed by {d.by} on {d.at[:10]} for these lines: {d.reason}"))
                entry = next((x for x in given.get(f.decision_id, []) if x.correction == d.correction), None)
                if entry is not None and writable:
                    undo_entry(entry)

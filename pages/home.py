"""Overview: the selected repository's health — what needs a person, what changed lately, how fresh the graph is,
where the decisions sit, and how the evals trend. Every line leads into a filtered or focused Decision graph."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rguard_core.activity import recent_guard_runs, run_subject
from rguard_core.evaluation import list_runs
from rguard_core.explore.repo_overview import HealthItem, RepoHealth, repo_health, repo_overview
from ui.common import get_store, guarded, require_repo
from ui.evidence import md

GRAPH_PAGE = "pages/decision_graph.py"

st.title("RGuard")
st.caption(
    "Decision memory for a code repository, with receipts: every decision and the claims it rests on, "
    "quoted verbatim from the PRs, issues, reviews and ADRs they came from."
)


def go_graph(focus: str | None = None, status: str | None = None) -> None:
    """Open the Decision graph focused on a node, or filtered to one decision status."""
    st.session_state["dg_repo"] = st.session_state.get("repo")  # the hand-over is for this repository
    st.session_state["dg_focus"] = focus
    st.session_state["dg_selected"] = focus if focus and not focus.startswith(("file:", "dir:")) else None
    st.session_state["dg_status"] = [status] if status else []
    st.session_state.pop("dg_find", None)
    st.switch_page(GRAPH_PAGE)


def items(title: str, rows: list[HealthItem], key: str, empty: str) -> None:
    st.markdown(f"**{title}**")
    if not rows:
        st.caption(empty)
        return
    for i, it in enumerate(rows[:8]):
        when = f" · {it.when[:10]}" if it.when else ""
        if it.focus:
            # labels are repository text: escaped; switch_page cannot run inside a callback, so no on_click
            if st.button(md(f"{it.label}{when}"), key=f"home_{key}_{i}", type="tertiary"):
                go_graph(it.focus, None)
        else:
            st.text(f"{it.label}{when}")
    if len(rows) > 8:
        st.caption(f"… and {len(rows) - 8} more")


def metrics(h: RepoHealth) -> None:
    cols = st.columns(5)
    figures = (
        ("Need review", h.counts.get("needs_review", 0), "needs review"),
        ("Fallen decisions", h.counts.get("fallen_decisions", 0), "fallen"),
        ("Fallen claims", h.counts.get("fallen_claims", 0), None),
        ("Quarantined sources", h.counts.get("quarantined", 0), None),
        ("Superseded / reverted", h.counts.get("replaced", 0), "superseded"),
    )
    for col, (name, value, status) in zip(cols, figures, strict=True):
        col.metric(name, value)
        if status and value and col.button("show", key=f"home_metric_{name}", type="tertiary"):
            go_graph(None, status)


def freshness(h: RepoHealth) -> None:
    if h.ingest_state and h.ingest_state != "complete":
        st.warning("The last ingest of this repository did not finish; run it again (ingest is idempotent).")
    if h.age_days is None:
        st.caption("Ingest freshness: unknown (no ingest time recorded).")
    elif h.age_days > 30:
        st.warning(
            f"Last ingest {h.age_days:.0f} days ago ({md(str(h.ingested_at)[:10])}): newer decisions are not "
            "in the graph yet. Ingest again from the Ingest page."
        )
    else:
        st.caption(f"Last ingest {md(str(h.ingested_at)[:16])} ({h.age_days:.1f} days ago).")


def eval_trend() -> None:
    store = get_store()
    rows = []
    for r in reversed(list_runs(store.settings, "guard", limit=30).runs):
        m = r.get("metrics", {})
        rows.append(
            {"at": r.get("at"), "guard recall": m.get("recall"), "guard false warnings": m.get("false_positive_rate")}
        )
    for r in reversed(list_runs(store.settings, "why", limit=30).runs):
        m = r.get("metrics", {})
        rows.append(
            {
                "at": r.get("at"),
                "why hit@3 (holdout)": (m.get("holdout") or {}).get("hit_at_3"),
                "why hit@3 (tune)": (m.get("tune") or {}).get("hit_at_3"),
            }
        )
    st.markdown("**Eval trend**")
    if not rows:
        st.caption("No eval runs yet: run them on the Eval page or with `python -m rguard_core eval …`.")
        return
    df = pd.DataFrame(rows).sort_values("at").set_index("at")
    st.line_chart(df)


def dashboard(repo: str) -> None:
    store = get_store()
    h = guarded(repo_health, store, repo)
    ov = guarded(repo_overview, store, repo)
    if h is None or ov is None:
        return
    st.subheader(repo)
    freshness(h)
    metrics(h)
    left, right = st.columns(2, gap="large")
    with left:
        items("Decisions needing review", h.needs_review, "review", "None: every decision is supported as stored.")
        items("Superseded or reverted decisions", h.replaced, "replaced", "None.")
        items("Quarantined sources", h.quarantined, "quar", "None.")
        items("Files carrying the most decisions", h.top_files, "files", "No files recorded.")
    with right:
        items("Recent corrections", h.corrections, "corr", "No corrections yet.")
        items("Recent quarantines", h.quarantines, "inc", "No quarantines yet.")
        # each run says which change it judged and opens the first decision it cited in the decision graph
        runs = [
            HealthItem(
                f"{r.get('verdict')} on {run_subject(r)} ({r.get('where')})"
                + (f" · {'; '.join(f['summary'] for f in r.get('findings', [])[:2])}" if r.get("findings") else ""),
                str(r.get("at") or "")[:16].replace("T", " "),
                next((f["decision_id"] for f in r.get("findings", []) if f.get("decision_id")), None),
            )
            for r in recent_guard_runs(store.settings, repo)
        ]
        items(
            "Recent guard runs",
            runs,
            "runs",
            "No guard runs recorded yet (the Guard page and `rguard guard` record them).",
        )
        eval_trend()
    with st.expander("Everything the graph holds"):
        st.dataframe(pd.DataFrame(sorted(ov.counts.items()), columns=["node", "count"]), hide_index=True)
        st.caption(f"Ingested from {ov.ingest_source or '-'}")


repo = require_repo()
if repo:
    dashboard(repo)

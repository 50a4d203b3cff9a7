"""The guard's result drawn as a review (pages/guard.py calls ``show_review``): a summary table grouped by file,
then per file each finding with the diff lines that triggered it, its premises, rejected alternatives (flagged
when the diff implements one), who to ask, the reasoning path and what the page adds (feedback); the candidates considered and
cleared; "copy as PR comment"; and the Cypher with its parameter values. Source text is shown as text only."""

from __future__ import annotations

import html
import json
from collections.abc import Callable

import pandas as pd
import streamlit as st

from rguard_core.db import Store
from rguard_core.errors import RGuardError
from rguard_core.explore.node_detail import node_detail
from rguard_core.guard import Finding, GuardReport
from rguard_core.review import Review, ReviewItem, build_review, inline_cypher, pr_comment, score_words, source_name
from ui.evidence import link, md, show_evidence
from ui.graph_widget import draw_path
from ui.theme import (
    DIFF_ADDED,
    DIFF_HIT_BORDER,
    DIFF_REMOVED,
    FRAME,
    IMPLEMENTS_ALTERNATIVE,
    premise_badge,
    verdict,
)


def show_review(
    store: Store, repo: str, report: GuardReport, diff_text: str | None, extras: Callable[[Finding], None] | None = None
) -> None:
    """``extras`` draws what the page adds under each finding (the Guard page: reviewers' entries and feedback)."""
    review = build_review(report, diff_text)
    if review.by_file:
        st.markdown("**Summary** (grouped by file)")
        st.dataframe(
            pd.DataFrame(review.rows()),
            hide_index=True,
            width="stretch",
            column_config={
                "link": st.column_config.LinkColumn("link", display_text="open"),
                "decision": st.column_config.TextColumn("decision", width="large"),
            },
        )
    n = 0
    for path, items in review.by_file.items():
        st.markdown(f"#### {md(path)}")
        for item in items:
            card(store, repo, n, item, extras)
            n += 1
    cleared(review)
    with st.expander("Copy as PR comment (Markdown)"):
        st.caption("Repository text in it is escaped, and @mentions are defused so nobody is pinged by accident.")
        st.code(pr_comment(report, review), language="markdown")
    cypher(report)


def card(store: Store, repo: str, i: int, item: ReviewItem, extras: Callable[[Finding], None] | None) -> None:
    f = item.finding
    with st.container(border=True):
        st.markdown(f"{verdict(f.label)} · {md(f.summary)}")
        st.caption(f"score {f.score:.2f} — {score_words(f.score)}")
        st.markdown(f"> {md(f.quote)}")
        st.markdown(f"Source: {link(source_name(f.source), f.source_url)}" + (f" · {md(f.reason)}" if f.reason else ""))
        if item.lines:
            diff_lines(item)
        if f.premises:
            st.markdown(" ".join(premise_badge(p["rule"], p["status"]) for p in f.premises))
            for p in f.premises:
                st.caption(f"{p['rule']}: {md(p['detail'])}")
        else:
            st.caption("Premises: no rule (R1–R7, support engine) flagged anything; the decision still stands.")
        if f.alternatives:
            st.markdown("**Rejected alternatives**")
            for a in f.alternatives:
                quote = a.get("quote") or a.get("text") or ""
                flag = f" — :{IMPLEMENTS_ALTERNATIVE}[**this diff implements it**]" if quote in item.implemented else ""
                st.markdown(f"- ✗ {md(quote)}{flag}")
        if f.experts:
            who = ", ".join(f"@{md(e['login'])} ({e['score']:.2f})" for e in f.experts)
            st.markdown(f"**Who to ask:** {who} · bus factor **{f.bus_factor}**")
        with st.expander("Quote in its source"):
            try:
                detail = node_detail(store, repo, f.decision_id)
            except RGuardError as e:
                st.caption(str(e))
            else:
                if detail.evidence is not None:
                    show_evidence(detail.evidence)
            st.code(f.decision_id, language=None)
        if f.path:
            draw_path(f.path, f.hops)
        if extras is not None:
            extras(f)


def diff_lines(item: ReviewItem) -> None:
    """The file's changed lines that use the decision's words, highlighted (escaped: the diff is untrusted)."""
    rows = []
    for x in item.lines:
        colour = DIFF_ADDED if x.kind == "+" else DIFF_REMOVED
        style = f"background:{colour};" + (f"font-weight:600;border-left:3px solid {DIFF_HIT_BORDER};" if x.hit else "")
        rows.append(f'<div style="{style}padding:0 6px;white-space:pre-wrap">{html.escape(x.kind + x.text)}</div>')
    st.caption("Lines of this diff that triggered it (bold: they use the decision's identifiers or words)")
    st.html(
        f'<div style="font-family:monospace;font-size:0.8rem;border:1px solid {FRAME};border-radius:6px;'
        f'max-height:220px;overflow:auto">{"".join(rows)}</div>'
    )


def cleared(review: Review) -> None:
    if not review.cleared:
        return
    with st.expander(f"{len(review.cleared)} candidate decision(s) considered and cleared"):
        for c in review.cleared:
            st.markdown(f"- {md(c.get('summary') or '')} — {md(c.get('why') or '')}")


def cypher(report: GuardReport) -> None:
    with st.expander(f"The Cypher it ran ({len(report.cypher)} statements, with parameter values)"):
        st.caption("Each statement as FalkorDB Browser runs it: parameters first as CYPHER name=value.")
        st.dataframe(
            pd.DataFrame([{k: c[k] for k in ("name", "ms", "rows")} for c in report.cypher]),
            hide_index=True,
            width="stretch",
        )
        for k, c in enumerate(report.cypher):
            params = report.cypher_params[k] if k < len(report.cypher_params) else {}
            st.caption(f"{c['name']} · {c['ms']:.2f} ms · {c['rows']} rows")
            st.code(inline_cypher(c["query"], params), language="cypher")
            if params:
                st.code(json.dumps(params, ensure_ascii=False, indent=1, default=str)[:4000], language="json")

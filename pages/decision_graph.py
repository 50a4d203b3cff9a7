"""Decision graph: explore Sources → Claims → Decisions → Actions, inspect any node, and ask "why" with receipts."""

from __future__ import annotations

import datetime as dt
import html

import streamlit as st

from rguard_core.db import Store
from rguard_core.llm import LLMClient
from rguard_core.node_detail import BlastRadius, Link, NodeDetail, blast_radius, node_detail
from rguard_core.views import (
    CAP_STEP,
    DECISION_STATUSES,
    DEFAULT_CAP,
    KIND_COLOURS,
    MAX_CAP,
    SOURCE_KINDS,
    STATUS_COLOURS,
    STATUS_MEANING,
    STATUSES,
    GraphView,
    ViewFilter,
    build_view,
)
from rguard_core.why import WhyAnswer, WhyDecision, why
from ui.codemap_view import decision_code_expander
from ui.common import get_store, guarded, require_repo, set_url_param, url_param
from ui.evidence import link, md, show_evidence
from ui.graph_widget import draw

SEL, PICK, CAP, BLAST, ANSWER = "dg_selected", "dg_pick", "dg_cap", "dg_blast", "dg_answer"
BADGE = {"holds": "green", "fallen": "red", "superseded": "gray", "needs review": "orange", "held": "violet",
         "quarantined": "red"}
ICON = {"source": "▭", "claim": "●", "decision": "◆", "action": "▲", "correction": "★", "incident": "⚠"}
KIND_NAMES = {"pr": "pull request", "issue": "issue", "comment": "comment / review", "doc": "ADR / design doc",
              "human_correction": "human correction"}
CORRECTIONS_PAGE = "pages/corrections.py"
SHOWN_ANSWERS = 3  # the rest of an answer's decisions sit in an expander, so the graph stays near the top


def badge(status: str) -> str:
    return f":{BADGE.get(status, 'gray')}-badge[{status}]"


def select(node_id: str) -> None:
    st.session_state[SEL] = node_id


# --- ask why -----------------------------------------------------------------------------------------------------
def ask_why(store: Store, repo: str) -> None:
    st.subheader("Ask why")
    llm_ready = bool(store.settings.openai_base_url or store.settings.openai_api_key)
    with st.form("dg_why_form", border=False):
        c1, c2 = st.columns([5, 1], vertical_alignment="bottom")
        question = c1.text_input("Question", key="dg_question", placeholder="why do we keep unknown prices as null?")
        asked = c2.form_submit_button("Ask", type="primary", use_container_width=True)
        synth = st.checkbox("Add a short LLM synthesis (it may cite only the receipts below)", key="dg_synth",
                            disabled=not llm_ready, help=None if llm_ready else "set OPENAI_BASE_URL / OPENAI_API_KEY")
    if asked:
        llm = LLMClient(store.settings) if synth and llm_ready else None
        st.session_state[ANSWER] = guarded(why, store, repo, question, llm=llm)
    ans: WhyAnswer | None = st.session_state.get(ANSWER)
    if ans is not None and ans.repo == repo:
        show_answer(ans)


def show_answer(ans: WhyAnswer) -> None:
    if ans.kind == "refusal":
        st.info(ans.message)
        return
    if ans.kind == "none":
        st.warning(f"No source-backed answer yet for “{md(ans.question)}”. Try other words, or check the filters below.")
        return
    if ans.synthesis:
        st.success(f"{md(ans.synthesis)}  \n*cites: {', '.join(md(c) for c in ans.cited)}*")
    elif ans.rejected_citations or "synthesis" in ans.message:
        st.warning("Synthesis: no source-backed answer yet (the model cited nothing it retrieved).")
    found = "the whole question" if ans.mode == "sentence" else f"the words {md(ans.query.replace('|', ', '))}"
    st.caption(f"{len(ans.decisions)} decision(s) found by {found}.")
    first, rest = ans.decisions[:SHOWN_ANSWERS], ans.decisions[SHOWN_ANSWERS:]
    for i, d in enumerate(first):
        show_receipt(d, i)
    if rest:
        with st.expander(f"{len(rest)} more decision(s)"):
            for i, d in enumerate(rest, start=len(first)):
                show_receipt(d, i)
    if ans.withheld:
        st.caption(f"{ans.withheld} match(es) withheld: the claim no longer holds, its source is quarantined, or its "
                   "quote is no longer verbatim.")


def show_receipt(d: WhyDecision, i: int) -> None:
    r = d.receipt
    with st.container(border=True):
        st.markdown(f"**{md(r.text)}** {badge(r.status)}")
        st.markdown(f"> {md(r.quote)}\n\n— {link(r.source, r.url)}")
        for c in d.because:
            st.markdown(f"because: *“{md(c.quote)}”* — {link(c.source, c.url)}")
        st.button("Show in graph", key=f"dg_why_show_{i}", on_click=select, args=(r.id,), type="tertiary")


# --- the graph -----------------------------------------------------------------------------------------------------
def filters() -> ViewFilter:
    with st.container(border=True):
        c1, c2, c3, c4, c5 = st.columns([3, 2, 2, 3, 3])
        path = c1.text_input("File path contains", key="dg_path", placeholder="src/billing/prices.py")
        statuses = c2.multiselect("Decision status", DECISION_STATUSES, key="dg_status")
        kinds = c3.multiselect("Source kind", SOURCE_KINDS, key="dg_kinds", format_func=lambda k: KIND_NAMES[k])
        dates = c4.date_input("Date range", value=(), key="dg_dates", min_value=dt.date(2000, 1, 1),
                              max_value=dt.date.today() + dt.timedelta(days=366), format="YYYY-MM-DD")
        text = c5.text_input("Text in decision", key="dg_text", placeholder="session, refund, pr:12 …")
    span = list(dates) if isinstance(dates, (tuple, list)) else [dates]
    flt = ViewFilter(path.strip(), tuple(statuses), tuple(kinds), span[0].isoformat() if span else None,
                     span[-1].isoformat() if span else None, text.strip())
    if st.session_state.get("dg_filter_seen") != flt:
        st.session_state["dg_filter_seen"] = flt
        st.session_state[CAP] = DEFAULT_CAP  # a new question starts from the default cap
    return ViewFilter(**{**flt.__dict__, "cap": st.session_state.get(CAP, DEFAULT_CAP)})


def show_more() -> None:
    st.session_state[CAP] = min(MAX_CAP, st.session_state.get(CAP, DEFAULT_CAP) + CAP_STEP)


def legend() -> None:
    chips = " ".join(
        f'<span title="{html.escape(STATUS_MEANING[s])}" style="white-space:nowrap;margin-right:10px">'
        f'<span style="display:inline-block;width:11px;height:11px;border-radius:3px;background:{STATUS_COLOURS[s]};'
        f'margin-right:4px;vertical-align:middle"></span>{s}</span>' for s in STATUSES)
    kinds = " ".join(
        f'<span style="white-space:nowrap;margin-right:10px"><span style="display:inline-block;width:11px;height:11px;'
        f'border:2px solid {KIND_COLOURS[k]};margin-right:4px;vertical-align:middle"></span>{KIND_NAMES[k]}</span>'
        for k in SOURCE_KINDS)
    shapes = "▭ source · ● claim · ◆ decision · ▲ action · ★ correction · glow: blast radius — edges: SUPPORTS, JUSTIFIES, IMPLEMENTS, " \
             "CORRECTS, SUPERSEDES (dashed), REJECTED (dashed: a rejected alternative)"
    st.html(f'<div style="font-size:0.82rem;line-height:1.7"><b>Status</b> {chips}<br><b>Sources</b> {kinds}<br>'
            f'{html.escape(shapes)}</div>')


def explore(store: Store, repo: str) -> None:
    st.subheader("Graph")
    flt = filters()
    view = guarded(build_view, store, repo, flt)
    if view is None:
        return
    if not view.exists or not view.nodes:
        st.info(view.message)
        return
    st.caption(f"{view.decisions_shown} of {view.decisions_total} decision(s) · {len(view.nodes)} nodes · "
               f"{len(view.edges)} edges. Click a node (or pick it on the right) to see its receipts.")
    if view.capped:
        c1, c2 = st.columns([4, 1], vertical_alignment="center")
        c1.warning(view.message)
        c2.button("Show more", on_click=show_more, disabled=view.cap >= MAX_CAP, key="dg_more")
    legend()
    blast: BlastRadius | None = st.session_state.get(BLAST)
    if blast is not None and blast.node_id != st.session_state.get(SEL):
        blast = None
    left, right = st.columns([3, 2], gap="medium")
    with left:
        draw(view, SEL, highlight=(blast.ids() | {blast.node_id}) if blast else ())
    with right:
        detail_pane(store, repo, view, blast)


def detail_pane(store: Store, repo: str, view: GraphView, blast: BlastRadius | None) -> None:
    ids = [n.id for n in view.nodes]
    selected = st.session_state.get(SEL)
    if selected and selected not in ids:
        ids.insert(0, selected)  # chosen from an answer or a link outside the current view
    if selected:
        st.session_state[PICK] = selected
    labels = {n.id: f"{ICON[n.type]} {n.label} · {n.status}" for n in view.nodes}
    unset = {} if PICK in st.session_state else {"index": None}  # never both a default and a state value
    st.selectbox("Inspect node", ids, key=PICK, placeholder="click a node or choose one", **unset,
                 format_func=lambda i: labels.get(i, i), on_change=lambda: select(st.session_state[PICK]))
    if not selected:
        st.caption("Nothing selected yet.")
        return
    d = guarded(node_detail, store, repo, selected)
    if d is not None:
        show_detail(store, repo, d, blast)


def show_detail(store: Store, repo: str, d: NodeDetail, blast: BlastRadius | None) -> None:
    st.markdown(f"#### {ICON.get(d.type, '')} {md(d.label)}")
    rev = f" · revision {d.revision}" if d.revision is not None else ""
    kind = f" · {md(d.kind)}" if d.kind != d.type else ""
    st.markdown(f"{badge(d.status)} {d.type}{kind}{rev} · `{d.id}`" + (f" · {link('open', d.url)}" if d.url else ""))
    if d.text and d.text != d.label and d.evidence is None:
        st.markdown(f"> {md(d.text)}")
    if d.evidence is not None:
        show_evidence(d.evidence)
    links_section("Rests on", d.rests_on, "on")
    links_section("Rested on by", d.rested_on_by, "by")
    links_section("Supersedes · corrections · incidents", d.related, "rel")
    if d.alternatives:
        st.markdown("**Rejected alternatives**")
        for a in d.alternatives:
            mark = "" if a.verified else " *(quote no longer at its offsets)*"
            st.markdown(f"- ✗ {md(a.text)} — {link(a.source_id, a.url)}{mark}")
    if d.who_to_ask:
        st.markdown("**Who to ask**")
        for e in d.who_to_ask:
            seen = f" · last active {md(e.last_active[:10])}" if e.last_active else ""
            st.markdown(f"- **{md(e.login)}** — {md(e.reason)}{seen}")
    if d.files or d.commits or d.facts:
        with st.expander("Files, commits and stored properties"):
            for f in d.files:
                st.markdown(f"- `{f}`")
            for c in d.commits:
                st.markdown(f"- commit `{c}`")
            st.json({k: v for k, v in d.facts.items() if v is not None}, expanded=False)
    decision_code_expander(store, repo, d.type, d.id)
    actions(store, repo, d, blast)


def links_section(title: str, links: list[Link], key: str) -> None:
    if not links:
        return
    st.markdown(f"**{title}**")
    for i, x in enumerate(links[:40]):
        note = f" ({md(x.note)})" if x.note else ""
        # button labels render markdown: the source's title is escaped like any other source text
        label = f"{ICON.get(x.type, '')} {x.status} · {x.relation.lower()}{note}: {md(x.label[:90])}"
        st.button(label, key=f"dg_link_{key}_{i}", on_click=select, args=(x.id,), type="tertiary")
    if len(links) > 40:
        st.caption(f"… and {len(links) - 40} more")


def actions(store: Store, repo: str, d: NodeDetail, blast: BlastRadius | None) -> None:
    c1, c2 = st.columns(2)
    if d.can_blast and c1.button("Blast radius", key="dg_blast_btn", help="everything downstream of this node"):
        st.session_state[BLAST] = guarded(blast_radius, store, repo, d.id)
        st.rerun()
    if d.type in ("claim", "source") and c2.button("Preview a correction…", key="dg_correct"):
        st.session_state["correction_target"] = {"repo": repo, "id": d.id, "type": d.type}
        # the Corrections page finds a target by exact id in its search box, in the repository's scope
        st.session_state["corr_scope"] = f"repository · {repo}"
        st.session_state["corr_query"] = d.id
        st.switch_page(CORRECTIONS_PAGE)
    if blast is not None and blast.node_id == d.id:
        show_blast(blast)


def show_blast(b: BlastRadius) -> None:
    with st.container(border=True):
        st.markdown(f"**Blast radius** — {len(b.claims)} claim(s), {len(b.decisions)} decision(s), "
                    f"{len(b.actions)} action(s) downstream (highlighted in the graph; the same walk the correction "
                    "preview uses).")
        for title, ids in (("Decisions", b.decisions), ("Actions", b.actions), ("Claims", b.claims)):
            if ids:
                st.markdown(f"*{title}:* " + ", ".join(f"`{i}`" for i in ids[:30]) + (" …" if len(ids) > 30 else ""))


def main() -> None:
    st.title("Decision graph")
    st.caption("Sources → Claims → Decisions → Actions, with corrections. Every quote is shown at its stored offsets.")
    repo = require_repo()
    if not repo:
        return
    store = get_store()
    if st.session_state.get("dg_repo") != repo:  # a selection never leaks from one repository to another
        for k in (SEL, PICK, BLAST, ANSWER):
            st.session_state.pop(k, None)
        st.session_state["dg_repo"] = repo
        # a reload or a shared link (?node=ID, ?q=question) opens the same node and question
        if url_param("node"):
            st.session_state[SEL] = url_param("node")
        if url_param("q") and not st.session_state.get("dg_question"):
            st.session_state["dg_question"] = url_param("q")
    ask_why(store, repo)
    explore(store, repo)
    set_url_param("node", st.session_state.get(SEL))
    set_url_param("q", (st.session_state.get("dg_question") or "").strip() or None)


main()

"""Decision graph: explore Sources → Claims → Decisions → Actions, inspect any node, and ask "why" with receipts."""

from __future__ import annotations

import html
from typing import Any

import pandas as pd
import streamlit as st

from rguard_core.db import Store
from rguard_core.explore.focus import (
    DEFAULT_HOPS,
    MAX_HOPS,
    SearchHit,
    decision_rows,
    expand,
    focus_view,
    graph_signature,
    overview_view,
    search,
)
from rguard_core.explore.graph_view import (
    DECISION_STATUSES,
    SOURCE_KINDS,
    STATUS_MEANING,
    STATUSES,
    GraphView,
)
from rguard_core.explore.labels import labels as node_labels
from rguard_core.explore.node_detail import BlastRadius, Link, NodeDetail, blast_radius, node_detail
from rguard_core.explore.why import WhyAnswer, WhyDecision, why
from rguard_core.llm import LLMClient
from rguard_core.untrusted import safe_url
from ui.codemap_view import decision_code_expander
from ui.common import get_store, guarded, require_repo, set_url_param, url_param
from ui.evidence import link, md, show_evidence
from ui.graph_widget import draw
from ui.theme import ICON, KIND_COLOURS, STATUS_COLOURS, badge

SEL, PICK, BLAST, ANSWER, FOCUS = "dg_selected", "dg_pick", "dg_blast", "dg_answer", "dg_focus"
EXPANDED = "dg_expanded"  # nodes clicked open around the focus
LINKED_QUESTION = "dg_linked_question"  # a question that came in the URL: answered once, as if asked
KIND_NAMES = {
    "pr": "pull request",
    "issue": "issue",
    "comment": "comment / review",
    "doc": "ADR / design doc",
    "human_correction": "human correction",
}
CORRECTIONS_PAGE = "pages/corrections.py"
CHANNEL_WORDS = {
    "decision": "the decision's words",
    "claim": "a claim's words",
    "source": "its source's words",
    "linked": "a linked issue or comment",
    "symbol": "an identifier it changed",
    "file": "a file it touched",
}
CANVAS_HEIGHT = 700
SHOWN_ANSWERS = 3  # the rest of an answer's decisions sit in an expander, so the graph stays near the top


def select(node_id: str) -> None:
    st.session_state[SEL] = node_id


def focus_on(node_id: str | None) -> None:
    """Centre the graph on a node (None: back to the overview); the node is selected too."""
    st.session_state[FOCUS] = node_id
    st.session_state[EXPANDED] = []
    if node_id and not node_id.startswith(("dir:", "file:", "person:")):
        st.session_state[SEL] = node_id
    st.session_state["dg_answer_open"] = False  # the graph sits right under a collapsed answer


# --- ask why -----------------------------------------------------------------------------------------------------
def ask_why(store: Store, repo: str) -> None:
    st.subheader("Ask why")
    llm_ready = bool(store.settings.openai_base_url or store.settings.openai_api_key)
    with st.form("dg_why_form", border=False):
        c1, c2 = st.columns([5, 1], vertical_alignment="bottom")
        question = c1.text_input("Question", key="dg_question", placeholder="why do we keep unknown prices as null?")
        asked = c2.form_submit_button("Ask", type="primary", width="stretch")
        synth = st.checkbox(
            "Add a short LLM synthesis (it may cite only the receipts below)",
            key="dg_synth",
            disabled=not llm_ready,
            help=None if llm_ready else "set OPENAI_BASE_URL / OPENAI_API_KEY",
        )
    linked = st.session_state.pop(LINKED_QUESTION, False) and bool(question.strip())  # a shared link's question
    if asked or linked:
        llm = LLMClient(store.settings) if synth and llm_ready and asked else None
        st.session_state[ANSWER] = guarded(why, store, repo, question, llm=llm)
        st.session_state["dg_answer_open"] = True
    ans: WhyAnswer | None = st.session_state.get(ANSWER)
    if ans is not None and ans.repo == repo:
        with st.expander(f"Answer to “{ans.question[:80]}”", expanded=st.session_state.get("dg_answer_open", True)):
            show_answer(ans)


def show_answer(ans: WhyAnswer) -> None:
    if ans.kind == "refusal":
        st.info(ans.message)
        return
    if ans.kind == "none":
        st.warning(
            f"No source-backed answer yet for “{md(ans.question)}”. Try other words, or check the filters below."
        )
        return
    if ans.synthesis:
        st.success(f"{md(ans.synthesis)}  \n*cites: {', '.join(md(c) for c in ans.cited)}*")
    elif ans.rejected_citations or "synthesis" in ans.message:
        st.warning("Synthesis: no source-backed answer yet (the model cited nothing it retrieved).")
    st.caption(
        f"{len(ans.decisions)} decision(s) found by the words {md(ans.query.replace('|', ', '))} in decisions, "
        "claims and their sources, and by the files and identifiers the question names."
    )
    first, rest = ans.decisions[:SHOWN_ANSWERS], ans.decisions[SHOWN_ANSWERS:]
    for i, d in enumerate(first):
        show_receipt(d, i)
    if rest:
        with st.expander(f"{len(rest)} more decision(s)"):
            for i, d in enumerate(rest, start=len(first)):
                show_receipt(d, i)
    if ans.withheld:
        st.caption(
            f"{ans.withheld} match(es) withheld: the claim no longer holds, its source is quarantined, or its "
            "quote is no longer verbatim."
        )


def show_receipt(d: WhyDecision, i: int) -> None:
    r = d.receipt
    with st.container(border=True):
        st.markdown(f"**{md(r.text)}** {badge(r.status)}")
        st.markdown(f"> {md(r.quote)}\n\n— {link(r.source, r.url)}")
        for c in d.because:
            st.markdown(f"because: *“{md(c.quote)}”* — {link(c.source, c.url)}")
        if d.context is not None:
            st.markdown(f"context: “{md(d.context.quote)}” — {link(d.context.source, d.context.url)}")
        if d.note:
            st.caption(md(d.note))
        found = ", ".join(CHANNEL_WORDS.get(c, c) for c in d.channels)
        st.caption(f"found through {found}" if found else "")
        st.button("Show in graph", key=f"dg_why_show_{i}", on_click=focus_on, args=(r.id,), type="tertiary")


# --- the graph -----------------------------------------------------------------------------------------------------
def legend() -> None:
    chips = " ".join(
        f'<span title="{html.escape(STATUS_MEANING[s])}" style="white-space:nowrap;margin-right:10px">'
        f'<span style="display:inline-block;width:12px;height:12px;border-radius:3px;background:{STATUS_COLOURS[s]};'
        f'margin-right:4px;vertical-align:middle"></span>{s}</span>'
        for s in STATUSES
    )
    kinds = " ".join(
        f'<span style="white-space:nowrap;margin-right:10px"><span style="display:inline-block;width:12px;height:12px;'
        f'border:2px solid {KIND_COLOURS[k]};margin-right:4px;vertical-align:middle"></span>{KIND_NAMES[k]}</span>'
        for k in SOURCE_KINDS
    )
    shapes = (
        "▭ source · ● claim · ◆ decision · ▲ action · ★ correction · ▦ directory / file / person — arrows read "
        "sources → claims → decisions → actions; dashed: supersedes, reverts (purple), rejected, corrects; "
        "glow: blast radius; big: the focus. Scroll or pinch to zoom; around a focus, buttons on the canvas zoom and fit."
    )
    st.html(
        f'<div style="font-size:0.85rem;line-height:1.7"><b>Status</b> {chips}<br><b>Sources</b> {kinds}<br>'
        f"{html.escape(shapes)}</div>"
    )


def find_box(store: Store, repo: str) -> tuple[int, tuple[str, ...]]:
    """The search box, hops and status filter; a search focuses its best hit."""
    c1, c2, c3, c4 = st.columns([5, 2, 3, 1.4], vertical_alignment="bottom")
    text = c1.text_input("Find", key="dg_find", placeholder="decision words, a file path, @login, pr:12 or #12")
    # a value from the URL is already in the session (from_url): a default beside it makes Streamlit warn
    if "dg_hops" not in st.session_state:
        st.session_state["dg_hops"] = DEFAULT_HOPS
    hops = int(c2.slider("Hops around the focus", 1, MAX_HOPS, key="dg_hops"))
    statuses = tuple(
        c3.multiselect(
            "Decision status",
            DECISION_STATUSES,
            key="dg_status",
            help="with nothing focused: only decisions with these statuses",
        )
    )
    c4.button(
        "Overview",
        key="dg_clear",
        on_click=focus_on,
        args=(None,),
        help="back to all decisions by directory",
        width="stretch",
    )
    if text.strip() and st.session_state.get("dg_find_seen") != text:
        st.session_state["dg_find_seen"] = text
        found = guarded(search, store, repo, text) or []
        st.session_state["dg_hits"] = found
        if found:
            focus_on(found[0].id)
        else:
            st.warning(f"Nothing matches “{md(text)}”: try other words, a file name, or a PR number like #12.")
    hits: list[SearchHit] = st.session_state.get("dg_hits") or []
    if text.strip() and len(hits) > 1:
        ids = [h.id for h in hits]
        current = st.session_state.get(FOCUS)
        index = ids.index(current) if current in ids else 0
        st.selectbox(
            f"{len(hits)} matches — focus on",
            ids,
            index=index,
            key=f"dg_hit_pick_{text}",
            format_func=lambda i: next(f"{ICON.get(h.type, '')} {h.label} · {h.status}" for h in hits if h.id == i),
            on_change=lambda k=f"dg_hit_pick_{text}": focus_on(st.session_state[k]),
        )
    return hops, statuses


@st.cache_data(ttl=600, max_entries=16, show_spinner=False)
def cached_overview(repo: str, statuses: tuple[str, ...], signature: str) -> GraphView:
    """The overview reads every decision (0.6 s at 5,000): cached until an ingest, correction or quarantine."""
    return overview_view(get_store(), repo, statuses)


def overview(store: Store, repo: str, statuses: tuple[str, ...]) -> GraphView:
    return cached_overview(repo, statuses, graph_signature(store, repo))


def explore(store: Store, repo: str) -> None:
    st.subheader("Graph")
    hops, statuses = find_box(store, repo)
    focus = st.session_state.get(FOCUS)
    view = guarded(focus_view, store, repo, focus, hops) if focus else guarded(overview, store, repo, statuses)
    if view is None:
        return
    full = [x for x in st.session_state.get(EXPANDED, []) if view.exists and not guarded(expand, store, repo, view, x)]
    if not view.exists or not view.nodes:
        st.info(view.message or "Nothing to draw.")
        return
    where = f"around {focus_name(store, repo, focus)}" if focus else "by directory"
    hint = (
        "Click a node to see its receipts beside the graph and open its neighbours; click a directory or file "
        "to focus on it."
        if focus
        else "Click a directory or a decision to focus on it."
    )
    st.caption(
        f"{view.decisions_shown} of {view.decisions_total} decision(s) drawn {where} · {len(view.nodes)} nodes. {hint}"
    )
    if view.message:
        st.caption(view.message)
    legend()
    blast: BlastRadius | None = st.session_state.get(BLAST)
    if blast is not None and blast.node_id != st.session_state.get(SEL):
        blast = None
    # the overview grid takes the full width (its labels stay readable); a focus shares the row with its details
    left, right = (st.container(), st.container()) if not focus else st.columns([2, 1], gap="medium")
    with left:
        if draw(view, SEL, highlight=(blast.ids() | {blast.node_id}) if blast else (), height=CANVAS_HEIGHT):
            clicked = st.session_state.get(SEL) or ""
            # a click in the overview, or on a directory, file or person, expands it: the canvas re-centres there
            # and its details sit beside it (not a screen further down)
            if not focus or clicked.startswith(("dir:", "file:", "person:")):
                focus_on(clicked)
                st.rerun()
            elif clicked != focus and clicked not in st.session_state.get(EXPANDED, []):
                st.session_state[EXPANDED] = [*st.session_state.get(EXPANDED, []), clicked]  # click to expand
                st.rerun()
        if full:
            st.caption(f"{len(full)} clicked node(s) not expanded: the canvas is full. Focus on one instead.")
    with right:
        details, listing = st.tabs(["Details", f"List ({len(list_ids(view))})"])
        with listing:
            list_view(store, repo, view)
        with details:
            detail_pane(store, repo, view, blast)


def focus_name(store: Store, repo: str, node_id: str) -> str:
    if node_id.startswith(("dir:", "file:", "person:")):
        kind, value = node_id.split(":", 1)
        return f"{'@' if kind == 'person' else ''}{md(value)}"
    lab = node_labels(store.repo_graph(repo), [node_id]).get(node_id)
    return md(lab.text(60)) if lab else md(node_id)


def list_ids(view: GraphView) -> list[str]:
    drawn = [n.id for n in view.nodes if n.type == "decision"]
    return drawn + [d for d in view.hidden if d not in drawn]


def list_view(store: Store, repo: str, view: GraphView) -> None:
    """Every decision of this view — drawn or not — as a table; picking a row focuses it."""
    rows = guarded(decision_rows, store, repo, list_ids(view)) or []
    if not rows:
        st.caption("No decisions here.")
        return
    df = pd.DataFrame(
        [
            {
                "decision": r.summary,
                "status": r.status,
                "source": r.source,
                "when": r.when or "",
                "files": ", ".join(r.files),
                "link": safe_url(r.url) or "",  # a snapshot's javascript: URL is not a link
            }
            for r in rows
        ]
    )
    picked = st.dataframe(
        df,
        hide_index=True,
        width="stretch",
        height=min(560, 38 + 35 * len(rows)),
        on_select="rerun",
        selection_mode="single-row",
        key=f"dg_list_{view.focus or 'all'}",
        column_config={
            "link": st.column_config.LinkColumn("link", display_text="open"),
            "decision": st.column_config.TextColumn("decision", width="large"),
        },
    )
    sel = getattr(getattr(picked, "selection", None), "rows", None) or []
    if sel and rows[sel[0]].id != st.session_state.get(FOCUS):
        focus_on(rows[sel[0]].id)
        st.rerun()


def detail_pane(store: Store, repo: str, view: GraphView, blast: BlastRadius | None) -> None:
    ids = [n.id for n in view.nodes if n.type != "group"]
    selected = st.session_state.get(SEL)
    if selected and selected.startswith(("dir:", "file:", "person:")):
        selected = None
    if selected and selected not in ids:
        ids.insert(0, selected)  # chosen from an answer or a link outside the current view
    if selected:
        st.session_state[PICK] = selected
    labels = {n.id: f"{ICON[n.type]} {n.label} · {n.status}" for n in view.nodes}
    if selected and selected not in labels:
        lab = node_labels(store.repo_graph(repo), [selected]).get(selected)
        labels[selected] = lab.text(70) if lab else selected
    unset: dict[str, Any] = {} if PICK in st.session_state and st.session_state[PICK] in ids else {"index": None}
    if unset:
        st.session_state.pop(PICK, None)  # never both a default and a state value, nor a value not offered
    st.selectbox(
        "Inspect node",
        ids,
        key=PICK,
        placeholder="click a node or choose one",
        **unset,
        format_func=lambda i: labels.get(i, i),
        on_change=lambda: select(st.session_state[PICK]),
    )
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
    st.markdown(f"{badge(d.status)} {d.type}{kind}{rev}" + (f" · {link('open', d.url)}" if d.url else ""))
    if st.session_state.get(FOCUS) != d.id:
        st.button(
            "Focus the graph here",
            key="dg_focus_here",
            on_click=focus_on,
            args=(d.id,),
            type="tertiary",
            help="centre the canvas on this node and draw its neighbourhood",
        )
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
    with st.expander("Files, commits, stored properties and the id"):
        st.code(d.id, language=None)
        for f in d.files:
            st.button(f"▦ {md(f)}", key=f"dg_file_{f}", on_click=focus_on, args=(f"file:{f}",), type="tertiary")
        for c in d.commits:
            st.text(f"commit {c.removeprefix('commit:')[:12]}")
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
        st.markdown(
            f"**Blast radius** — {len(b.claims)} claim(s), {len(b.decisions)} decision(s), "
            f"{len(b.actions)} action(s) downstream (highlighted in the graph; the same walk the correction "
            "preview uses)."
        )
        names = node_labels(
            get_store().repo_graph(st.session_state.get("repo") or ""), b.decisions + b.actions + b.claims
        )
        for title, ids in (("Decisions", b.decisions), ("Actions", b.actions), ("Claims", b.claims)):
            if not ids:
                continue
            st.markdown(f"*{title}*")
            for nid in ids[:30]:
                lab = names.get(nid)
                text = lab.text(80) if lab else nid
                if lab and lab.url:
                    st.markdown(f"- {link(text, lab.url)}")
                else:
                    st.markdown(f"- {md(text)}")
            if len(ids) > 30:
                st.caption(f"… and {len(ids) - 30} more")


def main() -> None:
    st.title("Decision graph")
    st.caption("Sources → Claims → Decisions → Actions, with corrections. Every quote is shown at its stored offsets.")
    repo = require_repo()
    if not repo:
        return
    store = get_store()
    seen = st.session_state.get("dg_repo")
    if seen != repo:
        if seen is not None:  # a selection never leaks from one repository to another
            for k in (SEL, PICK, BLAST, ANSWER, FOCUS, EXPANDED, "dg_hits", "dg_find_seen", "dg_find"):
                st.session_state.pop(k, None)
        st.session_state["dg_repo"] = repo
        if seen is None:  # the session's first view: a reload or a shared link; a repository switch starts clean
            from_url()
    ask_why(store, repo)
    explore(store, repo)
    to_url()


def from_url() -> None:
    """A reload or a shared link opens the same view: the focused node, file or person (?focus=), the selected
    node (?node=), the hops and the status filter (?hops=, ?status=a,b), and the question, answered (?q=)."""
    if url_param("node"):
        st.session_state[SEL] = url_param("node")
    if url_param("focus"):
        st.session_state[FOCUS] = url_param("focus")
        st.session_state[EXPANDED] = []
    hops = url_param("hops") or ""
    if hops.isdigit() and 1 <= int(hops) <= MAX_HOPS:
        st.session_state["dg_hops"] = int(hops)
    status = [x for x in (url_param("status") or "").split(",") if x in DECISION_STATUSES]
    if status:
        st.session_state["dg_status"] = status
    if url_param("q") and not st.session_state.get("dg_question"):
        st.session_state["dg_question"] = url_param("q")
        st.session_state[LINKED_QUESTION] = True


def to_url() -> None:
    set_url_param("node", st.session_state.get(SEL))
    set_url_param("focus", st.session_state.get(FOCUS))
    hops = st.session_state.get("dg_hops")
    set_url_param("hops", str(hops) if hops and hops != DEFAULT_HOPS else None)
    set_url_param("status", ",".join(st.session_state.get("dg_status") or []) or None)
    set_url_param("q", (st.session_state.get("dg_question") or "").strip() or None)


main()

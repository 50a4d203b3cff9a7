"""Corrections: find a claim, decision or source; preview what depends on it; confirm with a revision check; undo.

Every selection is keyed by the node's id (never a list position), every form names the id and title it acts
on, and every write re-checks that id's revision in the graph: what is shown is what is acted on.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from rguard_core.db import Graph
from rguard_core.errors import RGuardError, StaleCorrectionPreview
from rguard_core.explore.corrections_lookup import HistoryEntry, Target, history, search_targets, titles
from rguard_core.explore.labels import labels as node_labels
from rguard_core.memory import (
    StepReport,
    apply_correction,
    lift_quarantine,
    preview_correction,
    preview_lift,
    preview_quarantine,
    preview_undo,
    quarantine_source,
    quarantined_by,
    undo,
)
from ui.common import get_store, guarded, page_message, selected_repo, set_url_param, url_param, whole_or_flagged
from ui.evidence import md, visible
from ui.identity import can_write, reviewer

st.title("Corrections")
st.caption(
    "Say a claim is wrong or a source is bad: preview exactly what rests on it, then confirm. Decisions that "
    "keep other support are not flagged; what fell is kept, marked, and never served. Every step can be "
    "undone, as a new entry in the history."
)

store = get_store()
repo = selected_repo()
if repo and not whole_or_flagged(repo):  # a half-written graph is not offered for corrections
    repo = None
workspaces = store.list_workspaces()
scopes = ([f"repository · {repo}"] if repo else []) + [f"workspace · {w}" for w in workspaces]
if not scopes:
    st.info("Nothing to correct yet: ingest a repository on the Ingest page, or load the demo repository.")
    st.stop()
scope = st.selectbox("Memory", scopes, key="corr_scope")
if st.session_state.get("corr_scope_seen") not in (None, scope):
    for k in ("corr_query", "corr_pick", "corr_preview", "q_preview", "lift_preview", "undo_preview"):
        st.session_state.pop(k, None)  # a different memory: the old search and previews do not apply
st.session_state["corr_scope_seen"] = scope
kind, _, name = scope.partition(" · ")
graph: Graph = store.repo_graph(name) if kind == "repository" else store.workspace_graph(name)

linked = url_param("node")  # a node linked in the URL (?node=ID) opens as the target
if linked and not st.session_state.get("corr_query"):
    st.session_state["corr_query"] = linked
query = st.text_input(
    "Find a claim, decision or source (words or an exact id)",
    key="corr_query",
    placeholder="unknown cost · invoice paid · pr:20",
)
targets: list[Target] = (guarded(search_targets, graph, query) or []) if query.strip() else []
if query.strip() and not targets:
    st.warning("Nothing matches. Try other words, or an exact id such as claim:… or pr:12.")


def label_of(t: Target) -> str:
    return visible(f"{t.kind} · {t.status} · {' '.join(t.text.split())[:90]}  ({t.id})")


target: Target | None = None
if targets:
    by_id = {t.id: t for t in targets}
    pick = st.selectbox("Target", list(by_id), format_func=lambda i: label_of(by_id[i]), key="corr_pick")
    target = by_id.get(pick or "")
    set_url_param("node", target.id if target else None)


def names(ids: list[str]) -> dict[str, str]:
    return guarded(titles, graph, ids) or {}


def show_report(rep: StepReport, title: str) -> None:
    """A step's effects, one row per node, with its title: a typed report, so nothing can be silently missed."""
    st.markdown(f"**{md(title)}**")
    rows = (
        [("claim falls", c) for c in rep.fell_claims]
        + [("decision loses its last support", d) for d in rep.fell_decisions]
        + [("decision keeps other support (not flagged)", d) for d in rep.kept_decisions]
        + [("claim restored", c) for c in rep.restored_claims]
        + [("decision restored", d) for d in rep.restored_decisions]
        + [(f"decision labelled {lbl}", d) for d, lbl in rep.labelled.items()]
        + [("action held", a) for a in rep.held]
        + [("action needs compensation", a) for a in rep.compensate]
        + [("action active again", a) for a, s in rep.actions.items() if s == "active"]
    )
    if not rows:
        st.success("Nothing else depends on it: no claim falls or returns, no decision is flagged, no action changes.")
        return
    text = names([i for _, i in rows])
    st.dataframe(
        pd.DataFrame([{"effect": e, "id": i, "what": visible(text.get(i, ""))} for e, i in rows]),
        hide_index=True,
        width="stretch",
    )


def header(t: Target, verb: str) -> None:
    st.subheader(verb)
    st.markdown(f"{md(t.kind)} **{md(t.id)}** · status {md(t.status)} · revision {t.revision or 0}")
    st.markdown(f"> {md(t.text) or '(no text)'}")


def conflict(e: RGuardError, key: str) -> None:
    st.error(f"Conflict: {e}. Nothing was written." if isinstance(e, StaleCorrectionPreview) else page_message(e))
    st.session_state.pop(key, None)
    st.button("Preview again", key=f"{key}_again")


def previewed[P](key: str, label: str, make: Callable[[], P], same: Callable[[P], bool]) -> P | None:
    """The preview step every form shares: the button ``{key}_btn`` computes a preview into session state; it is
    returned only while it is about the target shown (a selection change never confirms another item's preview)."""
    if st.button(label, key=f"{key}_btn"):
        try:
            st.session_state[key] = make()
        except RGuardError as e:
            st.session_state.pop(key, None)
            st.error(page_message(e))
    preview = st.session_state.get(key)
    return preview if preview is not None and same(preview) else None


def confirmed[R](key: str, apply: Callable[[], R]) -> R | None:
    """The confirm step: the write (which re-checks the previewed revision), or None with the conflict shown."""
    try:
        res = apply()
    except RGuardError as e:
        conflict(e, key)
        return None
    st.session_state.pop(key, None)
    return res


def correct_form(t: Target) -> None:
    header(t, "Correct this claim")
    if not can_write("Correcting a claim"):
        return
    if t.status != "holds":
        st.info(f"This claim is {t.status}; correct its replacement instead, if any.")
    new_text = st.text_area(
        "What is actually true (your own words; they become the new claim's evidence)", key="corr_text"
    )
    by = reviewer("Your name or login", key="corr_by")
    preview = previewed(
        "corr_preview",
        f"Preview correction of {t.id}",
        lambda: preview_correction(graph, t.id, new_text, by),
        lambda p: p.claim == t.id,
    )
    if preview is None:
        return
    show_report(preview.report, f"If applied to {t.id} (previewed at claim revision {preview.revision})")
    if st.button(f"Apply correction to {t.id} (revision {preview.revision})", type="primary", key="corr_apply_btn"):
        res = confirmed(
            "corr_preview", lambda: apply_correction(graph, t.id, preview.new_statement, preview.by, preview=preview)
        )
        if res is None:
            return
        verb = "Applied" if res.status == "applied" else "Already applied"
        st.success(
            f"{verb}: {res.claim} is superseded by {res.replacement}, citing the reviewer's own words "
            f"({res.source}). Undo it from the history below."
        )
        show_report(res.report, "What changed")


def quarantine_form(t: Target) -> None:
    header(t, "Quarantine this source")
    if not can_write("Quarantining a source"):
        return
    reason = st.text_input("Reason (spam, forged, retracted …)", key="q_reason")
    by = reviewer("Your name or login", key="q_by")
    preview = previewed(
        "q_preview",
        f"Preview quarantine of {t.id}",
        lambda: preview_quarantine(graph, t.id),
        lambda p: p.source == t.id,
    )
    if preview is None:
        return
    with st.container(border=True):
        show_report(preview.report, f"Blast radius of quarantining {t.id} (source revision {preview.revision})")
        c1, c2 = st.columns([3, 1])
        confirm = c1.button(f"Confirm: quarantine {t.id}", type="primary", key="q_btn")
        if c2.button("Cancel", key="q_cancel"):
            st.session_state.pop("q_preview", None)
            st.rerun()
    if not confirm:
        return
    if not by.strip():
        st.error("Say who you are (your name or login) before confirming.")
        return
    res = confirmed("q_preview", lambda: quarantine_source(graph, t.id, reason, by.strip(), preview=preview))
    if res is None:
        return
    if res.already_quarantined:
        # another tab or reviewer got there first in this very run: a conflict, not a quiet "already"
        st.error(
            f"Conflict: {t.id} was quarantined meanwhile by {res.by or 'another reviewer'} (incident "
            f"{res.incident}). Nothing was written."
        )
        return
    st.success(f"Quarantined {t.id} (incident {res.incident}). Lift it here or undo it from the history.")
    show_report(res.report, "What changed")


def lift_form(t: Target) -> None:
    header(t, "Lift this source's quarantine")
    if not can_write("Lifting a quarantine"):
        return
    reason = st.text_input("Why it can be trusted again", key="lift_reason")
    by = reviewer("Your name or login", key="lift_by")
    preview = previewed(
        "lift_preview", f"Preview lifting {t.id}", lambda: preview_lift(graph, t.id), lambda p: p.target.about == t.id
    )
    if preview is None:
        return
    show_report(preview.report, f"If lifted (incident {preview.target.id}, revision {preview.revision})")
    if st.button(f"Confirm: lift quarantine of {t.id}", type="primary", key="lift_btn"):
        res = confirmed("lift_preview", lambda: lift_quarantine(graph, t.id, by, reason, preview=preview))
        if res is None:
            return
        st.success(f"Lifted the quarantine of {t.id} (audit entry {res.undo}); incident {res.target} is kept.")
        show_report(res.report, "What changed")


if target is not None and target.kind == "claim":
    correct_form(target)
if target is not None and target.kind == "source":
    pending = st.session_state.get("q_preview")
    if target.status == "quarantined" and pending is not None and pending.source == target.id:
        # this tab previewed a quarantine that another tab or reviewer has since made: say so, not nothing
        st.session_state.pop("q_preview", None)
        who = quarantined_by(graph, target.id) or "another reviewer"
        st.error(
            f"Conflict: {target.id} was quarantined meanwhile by {who}. Nothing was written; it is shown as it is now."
        )
    (lift_form if target.status == "quarantined" else quarantine_form)(target)
if target is not None and target.kind == "decision":
    header(target, "Decision")
    st.caption(
        "To correct a decision, correct a claim it rests on (search for it above) or quarantine its "
        "source; to dispute a guard finding, use the feedback on the Guard page."
    )


def undo_section(entries: list[HistoryEntry]) -> None:
    open_entries = {e.id: e for e in entries if e.undoable}
    if not open_entries:
        return
    if not can_write("Undoing a step"):
        return
    st.markdown("**Undo a step** — the undo is a new entry; the step stays in the history, marked reverted.")
    pick = st.selectbox(
        "Step to undo",
        list(open_entries),
        key="undo_pick",
        format_func=lambda i: visible(
            f"{open_entries[i].kind} on {open_entries[i].target} by "
            f"{open_entries[i].by or '?'} · {open_entries[i].at} ({i})"
        ),
    )
    entry = open_entries.get(pick or "")
    if entry is None:
        return
    reason = st.text_input("Why undo it", key="undo_reason")
    by = reviewer("Your name or login", key="undo_by")
    preview = previewed(
        "undo_preview",
        f"Preview undoing {entry.id}",
        lambda: preview_undo(graph, entry.id),
        lambda p: p.target.id == entry.id,
    )
    if preview is None:
        return
    show_report(preview.report, f"If {entry.kind} {entry.id} on {entry.target} is undone (revision {preview.revision})")
    if st.button(f"Confirm: undo {entry.id}", type="primary", key="undo_btn"):
        res = confirmed("undo_preview", lambda: undo(graph, entry.id, by, reason, preview=preview))
        if res is None:
            return
        st.success(f"Undone: {res.kind} {res.target} on {res.about} (audit entry {res.undo}).")
        show_report(res.report, "What changed")


st.subheader("History")
history_entries = guarded(history, graph) or []
if history_entries:
    target_names = node_labels(graph, [e.target for e in history_entries if e.target])  # titles, not ids
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "when": e.at,
                    "kind": e.kind,
                    "target": visible(target_names[e.target].text(80) if e.target in target_names else e.target or ""),
                    "by": visible(e.by or ""),
                    "reason": visible(e.reason or ""),
                    "state": e.state,
                    "id": e.id,
                }
                for e in history_entries
            ]
        ),
        hide_index=True,
        width="stretch",
    )
    undo_section(history_entries)
    with st.expander("Full results"):
        for e in history_entries:
            st.markdown(f"**{md(e.kind)}** {md(e.id)} on {md(e.target or '')} · {md(e.state)}")
            st.json(e.result or {}, expanded=False)
else:
    st.caption("No corrections, quarantines or guard feedback yet.")

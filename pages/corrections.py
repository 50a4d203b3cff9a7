"""Corrections: find a claim, decision or source; preview what depends on it; apply with a revision check."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rguard_core.db import Graph
from rguard_core.errors import ConflictError, RGuardError, StaleCorrectionPreview
from rguard_core.labels import labels as node_labels
from rguard_core.memory import apply_correction, preview_correction, quarantine_source
from rguard_core.memory.browse import Target, history, search_targets
from ui.common import get_store, guarded, selected_repo

st.title("Corrections")
st.caption("Say a claim is wrong or a source is bad: see exactly what rests on it first, then apply. "
           "Decisions that keep other support are not flagged; what fell is kept, marked, and never served.")

store = get_store()
repo = selected_repo()
workspaces = store.list_workspaces()
scopes = ([f"repository · {repo}"] if repo else []) + [f"workspace · {w}" for w in workspaces]
if not scopes:
    st.info("Nothing to correct yet: ingest a repository or run `python -m rguard_core seed`.")
    st.stop()
scope = st.selectbox("Memory", scopes, key="corr_scope")
kind, _, name = scope.partition(" · ")
graph: Graph = store.repo_graph(name) if kind == "repository" else store.workspace_graph(name)

query = st.text_input("Find a claim, decision or source (words or an exact id)", key="corr_query",
                      placeholder="unknown cost · invoice paid · pr:20")
targets: list[Target] = (guarded(search_targets, graph, query) or []) if query.strip() else []
if query.strip() and not targets:
    st.warning("Nothing matches. Try other words, or an exact id such as `claim:…` or `pr:12`.")

target: Target | None = None
if targets:
    labels = [f"{t.kind} · {t.status} · {t.text[:90]}  ({t.id})" for t in targets]
    pick = st.selectbox("Target", range(len(targets)), format_func=lambda i: labels[i], key="corr_pick")
    target = targets[pick]


def show_report(rep: dict, title: str) -> None:  # type: ignore[type-arg]
    st.markdown(f"**{title}**")
    rows = ([("claim falls", c) for c in rep.get("claims_fall", rep.get("fell_claims", []))]
            + [("decision loses its last support", d) for d in rep.get("decisions_lose_support", rep.get("fell_decisions", []))]
            + [("decision keeps other support (not flagged)", d) for d in rep.get("decisions_keep_support", rep.get("kept_decisions", []))]
            + [(f"decision labelled {lbl}", d) for d, lbl in (rep.get("labels") or rep.get("labelled") or {}).items()]
            + [("action held", a) for a in rep.get("actions_held", rep.get("held", []))]
            + [("action needs compensation", a) for a in rep.get("actions_compensate", rep.get("compensate", []))])
    if rows:
        names = node_labels(graph, [r[1] for r in rows])  # titles, not ids (rguard_core/labels.py)
        table = [(effect, names[i].text(100) if i in names else i, names[i].url if i in names else None, i)
                 for effect, i in rows]
        st.dataframe(pd.DataFrame(table, columns=["effect", "what", "link", "id"]), hide_index=True,
                     use_container_width=True, column_order=["effect", "what", "link"],
                     column_config={"link": st.column_config.LinkColumn("link", display_text="open")})
    else:
        st.success("Nothing else depends on it: no claim falls, no decision is flagged, no action is held.")


if target is not None and target.kind == "claim":
    st.subheader("Correct this claim")
    st.write(f"> {target.text}")
    if target.status != "holds":
        st.info(f"This claim is {target.status}; correct its replacement instead, if any.")
    new_text = st.text_area("What is actually true (your own words; they become the new claim's evidence)",
                            key="corr_text")
    by = st.text_input("Your name or login", key="corr_by")
    if st.button("Preview correction", key="corr_preview_btn"):
        try:
            st.session_state["corr_preview"] = preview_correction(graph, target.id, new_text, by)
        except RGuardError as e:
            st.session_state.pop("corr_preview", None)
            st.error(str(e))
    preview = st.session_state.get("corr_preview")
    if preview is not None and preview.claim == target.id:
        show_report(preview.as_dict(), f"If applied (previewed at claim revision {preview.revision})")
        if st.button(f"Apply correction (revision {preview.revision})", type="primary", key="corr_apply_btn"):
            try:
                res = apply_correction(graph, target.id, preview.new_statement, preview.by, preview=preview)
            except StaleCorrectionPreview as e:
                st.error(f"Conflict: {e}")
                st.button("Preview again", key="corr_again")  # a rerun recomputes the preview form
                st.session_state.pop("corr_preview", None)
            except (ConflictError, RGuardError) as e:
                st.error(str(e))
            else:
                st.session_state.pop("corr_preview", None)
                verb = "Applied" if res.status == "applied" else "Already applied"
                st.success(f"{verb}: {res.claim} is superseded by {res.replacement}, citing the reviewer's "
                           f"own words ({res.source}).")
                show_report(res.as_dict(), "What changed")



def quarantine_form(target: Target) -> None:
    st.subheader("Quarantine this source")
    st.write(f"`{target.id}` — {target.text}")
    if target.status == "quarantined":
        st.info("Already quarantined; see its incident in the history below.")
        return
    reason = st.text_input("Reason (spam, forged, retracted …)", key="q_reason")
    q_by = st.text_input("Your name or login", key="q_by")
    if st.button("Quarantine", type="primary", key="q_btn"):
        res = guarded(quarantine_source, graph, target.id, reason, q_by)
        if res is None:
            return
        if res.already_quarantined:
            st.info(f"{target.id} was already quarantined (incident {res.incident}).")
        else:
            st.success(f"Quarantined {target.id} (incident {res.incident}).")
            show_report(res.as_dict(), "What fell")


if target is not None and target.kind == "source":
    quarantine_form(target)

if target is not None and target.kind == "decision":
    st.subheader("Decision")
    st.write(f"`{target.id}` — {target.text} · status **{target.status}**")
    st.caption("To correct a decision, correct a claim it rests on (search for it above) or quarantine its "
               "source; to dispute a guard finding, use the feedback buttons on the Guard page.")

st.subheader("History")
entries = guarded(history, graph) or []
if entries:
    names = node_labels(graph, [e.target for e in entries if e.target])
    st.dataframe(pd.DataFrame([{"when": e.at, "kind": e.kind,
                                "target": names[e.target].text(80) if e.target in names else e.target,
                                "by": e.by or "", "reason": e.reason or "", "id": e.id} for e in entries]),
                 hide_index=True, use_container_width=True, column_order=["when", "kind", "target", "by", "reason"])
    with st.expander("Full results"):
        for e in entries:
            st.markdown(f"**{e.kind}** `{e.id}` on `{e.target}`")
            st.json(e.result or {}, expanded=False)
else:
    st.caption("No corrections, quarantines or guard feedback yet.")

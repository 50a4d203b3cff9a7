"""Eval: the guard against labelled diffs, the memory against baselines, past runs, and honest limits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from rguard_core.evaluation import append_run, list_runs, load_cases, run_guard_eval, run_memory_bench
from rguard_core.evaluation import tables as T
from rguard_core.evaluation.guard_eval import __doc__ as GUARD_DEFINITIONS
from rguard_core.evaluation.memory_bench import __doc__ as MEMORY_DEFINITIONS
from ui.common import get_store, guarded
from ui.replay_section import replay_section

DEFAULT_CASES = Path(__file__).resolve().parent.parent / "eval" / "cases.yaml"

LIMITS = """
**What the guard cases cover.** Each case is one diff written by us against one repository's files, labelled
`contradicts` (with the PR, issue or ADR it undoes) or `benign`. Kinds: cue-word (the diff uses the decision's own
words), paraphrase (it undoes the decision without them), multi-file, revert, benign changes to a file that
carries a decision, and benign changes elsewhere.

**What they do not cover.** The cases are few (dozens, not thousands) and written by the same team that built
the guard, against a fictional demo repository whose PR texts state their decisions plainly; the real-data
starlette set is 36 cases on one library. Nothing here measures: large monorepo diffs, decisions recorded only
in chat or meetings, decisions whose code moved through renames the history does not show, subtle semantic
contradictions the offline judge's line and token rules cannot see (that is what the LLM judge is for, and
its figures depend on the model), or how a reviewer weighs a warning. Recall and false-positive rate on so few
cases have wide error bars: one case is 2–5 points.

**What the memory benchmark covers.** Generated layered evidence graphs (about 70 claims, 20 decisions,
12 sources, 3 compromised) with AND/OR justifications, shared premises, cycles and executed actions, scored
against an oracle of plain set logic that shares no code with the engine. RGuard's row is the real engine on
the real FalkorDB. The hidden-mirror variant hides undeclared near-copies of the compromised sources behind
half of the rescuing alternative proofs; RGuard without mirror detection leaks there, as reported.

**What it does not cover.** The graphs are synthetic and small; the mirrors are made by light edits (synonyms,
case, punctuation, a dropped word, a header), so near-duplicate detection finds them all — a mirror that
paraphrases its original, translates it, or copies only one sentence would not be caught, and a source that
honestly quotes most of a bad one would be flagged. The baselines are simple by design.
"""


def _percent_columns(df: pd.DataFrame, cols: tuple[str, ...] | list[str]) -> dict[str, Any]:
    return {c: st.column_config.NumberColumn(c, format="percent") for c in cols if c in df.columns}


def _progress_callback(bar: Any, label: str) -> Any:
    def update(done: int, total: int, what: str) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"{label}: {done}/{total} {what}")

    return update


def finding_card(f: dict[str, Any]) -> None:
    with st.container(border=True):
        icon = {"contradicts": "🛑", "related": "🔎"}.get(f.get("label", ""), "•")
        st.markdown(f"{icon} **{f.get('label')}** · `{f.get('decision_id')}` · score {f.get('score')}")
        st.markdown(f"**{f.get('summary')}**")
        st.markdown(f"> {f.get('quote')}")
        if f.get("source_url"):
            st.markdown(f"[source]({f['source_url']}) · via {' + '.join(f.get('hops') or [])}")
        for p in f.get("premises") or []:
            st.caption(f"{p.get('rule')} {p.get('status')}: {p.get('detail')}")


def guard_section() -> None:
    st.subheader("Guard: labelled diffs")
    c1, c2, c3 = st.columns([3, 2, 1])
    path = c1.text_input("Cases file", value=str(DEFAULT_CASES), key="eval_cases_path")
    if not Path(path).is_file():
        st.info(f"No cases file at `{path}`. Point this at a cases YAML (e.g. `../shared/realdata/cases/starlette.yaml`).")
        return
    cases = guarded(load_cases, path)
    if cases is None:
        return
    repo = c2.text_input("Repository", value=cases.repo, key="eval_repo", help="defaults to the repo the file names")
    judge = c3.radio("Judge", ["offline", "llm"], key="eval_judge", horizontal=True)
    st.caption(f"{len(cases.cases)} cases: " + ", ".join(f"{k} {n}" for k, n in cases.kinds().items()))
    store = get_store()
    if st.button("Run guard eval", type="primary", key="eval_run_guard"):
        bar = st.progress(0.0, text="starting")
        res = guarded(run_guard_eval, store, cases, judge=judge, repo=repo or None, settings=store.settings,
                      progress=_progress_callback(bar, "cases"))
        if res is not None:
            append_run(store.settings, "guard", res.history_record())
            st.session_state["eval_guard"] = res.as_dict()
            st.session_state["eval_guard_record"] = res.history_record()
    current = st.session_state.get("eval_guard")
    past = list_runs(store.settings, "guard", limit=20, where={"repo": repo or cases.repo, "cases_file": cases.path}).runs
    if current:
        guard_results(current)
    if past:
        st.markdown("**This run next to earlier ones** (newest first; changes are against the run below)")
        df = pd.DataFrame(T.guard_runs_table(past))
        st.dataframe(df, hide_index=True, column_config=_percent_columns(df, ["recall", "false_positive_rate",
                                                                              "precision", "attribution"]))
    elif not current:
        st.caption("No guard eval runs yet for this cases file and repository.")
    with st.expander("Metric definitions"):
        st.markdown(GUARD_DEFINITIONS or "")


def guard_results(res: dict[str, Any]) -> None:
    m = res["metrics"]
    cols = st.columns(4)
    for col, (name, key) in zip(cols, [("Recall", "recall"), ("False warnings", "false_positive_rate"),
                                       ("Precision", "precision"), ("Attribution", "attribution")], strict=True):
        col.metric(name, "-" if m.get(key) is None else f"{100 * m[key]:.1f}%")
    st.caption(f"{res['repo']} · judge {res['run']['judge']} · git {res['run']['git_sha'] or '-'} · "
               f"graph p50 {m['graph_ms_p50']} ms / p95 {m['graph_ms_p95']} ms · "
               f"total p50 {m['total_ms_p50']} ms / p95 {m['total_ms_p95']} ms")
    kinds = pd.DataFrame(T.by_kind_rows(m))
    if not kinds.empty:
        st.markdown("**Right answers per case kind**")
        st.bar_chart(kinds.set_index("kind")["ok_rate"])
        st.dataframe(kinds, hide_index=True, column_config=_percent_columns(kinds, ["ok_rate", "attribution"]))
    st.markdown("**Cases** (expected vs got)")
    st.dataframe(pd.DataFrame(T.case_rows(res["cases"])), hide_index=True)
    ids = [c["id"] for c in res["cases"]]
    pick = st.selectbox("Inspect a case", ids, key="eval_case_pick",
                        format_func=lambda i: ("✅ " if _case(res, i)["ok"] else "❌ ") + i)
    if pick:
        case_detail(_case(res, pick))


def _case(res: dict[str, Any], cid: str) -> dict[str, Any]:
    return next(c for c in res["cases"] if c["id"] == cid)


def case_detail(c: dict[str, Any]) -> None:
    row = T.case_rows([c])[0]
    st.markdown(f"**{c['id']}** · {c['kind']} · expected: *{row['expected']}* · got: **{c['verdict']}**"
                f" citing {row['cited']}")
    if c.get("why"):
        st.caption(c["why"])
    st.code(c.get("diff") or "", language="diff")
    if not c["findings"]:
        st.caption("The guard returned no findings.")
    for f in c["findings"]:
        finding_card(f)


def memory_section() -> None:
    st.subheader("Memory: RGuard against baselines")
    seeds = int(st.number_input("Seeds per variant", min_value=1, max_value=100, value=20, key="eval_seeds"))
    store = get_store()
    if st.button("Run memory benchmark (both variants)", key="eval_run_memory"):
        results = []
        bar = st.progress(0.0, text="starting")
        for variant in ("base", "hidden-mirror"):
            res = guarded(run_memory_bench, store, seeds, variant, progress=_progress_callback(bar, variant))
            if res is None:
                return
            append_run(store.settings, "memory", res.history_record())
            results.append(res.as_dict())
        st.session_state["eval_memory"] = results
    results = st.session_state.get("eval_memory")
    if results:
        df = pd.DataFrame(T.memory_rows(results))
        st.dataframe(df, hide_index=True, column_config=_percent_columns(df, list(T.MEMORY_COLUMNS)))
        for res in results:
            d = res["mirror_aware"]["detection"]
            st.caption(f"{res['variant']}: mirror detection found {d['correct']} of {d['mirrors']} hidden mirrors, "
                       f"{d['false']} false; {res['seeds']} seeds in {res['seconds']} s")
    past = list_runs(store.settings, "memory", limit=20).runs
    if past:
        st.markdown("**Past memory runs** (newest first)")
        dfp = pd.DataFrame(T.memory_runs_table(past))
        st.dataframe(dfp, hide_index=True, column_config=_percent_columns(dfp, [c for c in dfp.columns if " " in c]))
    with st.expander("Metric definitions"):
        st.markdown(MEMORY_DEFINITIONS or "")


st.title("Eval")
guard_tab, replay_tab, memory_tab, limits_tab = st.tabs(["Guard cases", "Replay history", "Memory benchmark",
                                                         "Honest limits"])
with guard_tab:
    guard_section()
with replay_tab:
    replay_section()
with memory_tab:
    memory_section()
with limits_tab:
    st.markdown(LIMITS)

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
from rguard_core.evaluation.pristine import can_copy, graph_state, pristine_copy
from rguard_core.evaluation.why_eval import DEFAULT_WHY_CASES, run_why_eval
from rguard_core.evaluation.why_eval import __doc__ as WHY_DEFINITIONS
from ui.common import get_store, guarded
from ui.evidence import link, md
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
        st.markdown(
            f"{icon} **{md(f.get('label') or '')}** · {md(f.get('decision_id') or '')} · score {f.get('score')}"
        )
        st.markdown(f"**{md(f.get('summary') or '')}**")  # PR and issue text: escaped, never rendered
        st.markdown(f"> {md(f.get('quote') or '')}")
        if f.get("source_url"):
            st.markdown(f"{link('source', f['source_url'])} · via {md(' + '.join(f.get('hops') or []))}")
        for p in f.get("premises") or []:
            st.caption(md(f"{p.get('rule')} {p.get('status')}: {p.get('detail')}"))


def guard_section() -> None:
    st.subheader("Guard: labelled diffs")
    c1, c2, c3 = st.columns([3, 2, 1])
    path = c1.text_input("Cases file", value=str(DEFAULT_CASES), key="eval_cases_path")
    if not Path(path).is_file():
        st.info(
            f"No cases file at `{path}`. Point this at a cases YAML (e.g. `../shared/realdata/cases/starlette.yaml`)."
        )
        return
    cases = guarded(load_cases, path)
    if cases is None:
        return
    store = get_store()
    # the repository is the one the cases file names: a run never scores one repository's cases on another
    c2.markdown(f"Repository: **{md(cases.repo)}**  \n(named by the cases file)")
    llm_ready = bool(store.settings.openai_base_url)
    judge = c3.radio(
        "Judge",
        ["offline", "llm"] if llm_ready else ["offline"],
        key="eval_judge",
        horizontal=True,
        help=None
        if llm_ready
        else "The LLM judge is unavailable: no OpenAI-compatible endpoint is "
        "configured (set OPENAI_BASE_URL, then restart).",
    )
    st.caption(f"{len(cases.cases)} cases: " + ", ".join(f"{k} {n}" for k, n in cases.kinds().items()))
    if cases.repo not in store.list_repos():
        st.warning(
            f"The cases were written against {cases.repo}, which is not ingested here. Ingest it first "
            "(Ingest page); they are not scored on another repository."
        )
        return
    pristine = can_copy(cases.repo) and st.checkbox(
        "Score a pristine copy of the seed (a fresh graph, untouched by reviewers)", value=True, key="eval_pristine"
    )
    if st.button("Run guard eval", type="primary", key="eval_run_guard"):
        st.session_state.pop("eval_guard", None)
        bar = st.progress(0.0, text="starting")
        target = guarded(pristine_copy, store, cases.repo) if pristine else cases.repo
        state = guarded(graph_state, store, target, cases.repo) if target else None
        res = (
            guarded(
                run_guard_eval,
                store,
                cases,
                judge=judge,
                repo=target,
                settings=store.settings,
                progress=_progress_callback(bar, "cases"),
            )
            if state
            else None
        )
        if res is not None and state is not None:
            record = {**res.history_record(), "graph": state.as_dict()}
            append_run(store.settings, "guard", record)
            st.session_state["eval_guard"] = {**res.as_dict(), "graph": state.as_dict()}
    current = st.session_state.get("eval_guard")
    if current and current.get("cases_file") != cases.path:
        current = None  # a run of another cases file is not this file's result
    past = list_runs(store.settings, "guard", limit=20, where={"cases_file": cases.path}).runs
    if current:
        graph = current.get("graph") or {}
        said = str(graph.get("statement", ""))
        (st.success if graph.get("pristine") else st.warning)(md(said[:1].upper() + said[1:]))
        guard_results(current)
    if past:
        st.markdown("**This run next to earlier ones** (newest first; changes are against the run below)")
        df = pd.DataFrame(T.guard_runs_table(past))
        st.dataframe(
            df,
            hide_index=True,
            column_config=_percent_columns(df, ["recall", "false_positive_rate", "precision", "attribution"]),
        )
    elif not current:
        st.caption("No guard eval runs yet for this cases file and repository.")
    with st.expander("Metric definitions"):
        st.markdown(GUARD_DEFINITIONS or "")


def guard_results(res: dict[str, Any]) -> None:
    m = res["metrics"]
    cols = st.columns(4)
    for col, (name, key) in zip(
        cols,
        [
            ("Recall", "recall"),
            ("False warnings", "false_positive_rate"),
            ("Precision", "precision"),
            ("Attribution", "attribution"),
        ],
        strict=True,
    ):
        col.metric(name, "-" if m.get(key) is None else f"{100 * m[key]:.1f}%")
    st.caption(
        f"{res['repo']} · judge {res['run']['judge']} · git {res['run']['git_sha'] or '-'} · "
        f"graph p50 {m['graph_ms_p50']} ms / p95 {m['graph_ms_p95']} ms · "
        f"total p50 {m['total_ms_p50']} ms / p95 {m['total_ms_p95']} ms"
    )
    kinds = pd.DataFrame(T.by_kind_rows(m))
    if not kinds.empty:
        st.markdown("**Right answers per case kind**")
        st.bar_chart(kinds.set_index("kind")["ok_rate"])
        st.dataframe(kinds, hide_index=True, column_config=_percent_columns(kinds, ["ok_rate", "attribution"]))
    st.markdown("**Cases** (expected vs got)")
    st.dataframe(pd.DataFrame(T.case_rows(res["cases"])), hide_index=True)
    ids = [c["id"] for c in res["cases"]]
    pick = st.selectbox(
        "Inspect a case", ids, key="eval_case_pick", format_func=lambda i: ("✅ " if _case(res, i)["ok"] else "❌ ") + i
    )
    if pick:
        case_detail(_case(res, pick))


def _case(res: dict[str, Any], cid: str) -> dict[str, Any]:
    return next(c for c in res["cases"] if c["id"] == cid)


def case_detail(c: dict[str, Any]) -> None:
    row = T.case_rows([c])[0]
    st.markdown(
        f"**{c['id']}** · {c['kind']} · expected: *{row['expected']}* · got: **{c['verdict']}** citing {row['cited']}"
    )
    if c.get("why"):
        st.caption(md(c["why"]))
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
        runs = []
        bar = st.progress(0.0, text="starting")
        for variant in ("base", "hidden-mirror"):
            res = guarded(run_memory_bench, store, seeds, variant, progress=_progress_callback(bar, variant))
            if res is None:
                return
            append_run(store.settings, "memory", res.history_record())
            runs.append(res.as_dict())
        st.session_state["eval_memory"] = runs
    results = st.session_state.get("eval_memory")
    if results:
        df = pd.DataFrame(T.memory_rows(results))
        st.dataframe(df, hide_index=True, column_config=_percent_columns(df, list(T.MEMORY_COLUMNS)))
        for run in results:
            d = run["mirror_aware"]["detection"]
            st.caption(
                f"{run['variant']}: mirror detection found {d['correct']} of {d['mirrors']} hidden mirrors, "
                f"{d['false']} false; {run['seeds']} seeds in {run['seconds']} s"
            )
    past = list_runs(store.settings, "memory", limit=20).runs
    if past:
        st.markdown("**Past memory runs** (newest first)")
        dfp = pd.DataFrame(T.memory_runs_table(past))
        st.dataframe(dfp, hide_index=True, column_config=_percent_columns(dfp, [c for c in dfp.columns if " " in c]))
    with st.expander("Metric definitions"):
        st.markdown(MEMORY_DEFINITIONS or "")


def why_section() -> None:
    st.subheader("Why: labelled questions, hit@3")
    st.caption(
        f"Cases: `{DEFAULT_WHY_CASES.name}` — questions in a newcomer's words over the starlette snapshot and "
        "the demo seed; the holdout half was not looked at while tuning."
    )
    store = get_store()
    if st.button("Run why eval", type="primary", key="eval_run_why"):
        bar = st.progress(0.0, text="starting")
        res = guarded(run_why_eval, store, DEFAULT_WHY_CASES, progress=_progress_callback(bar, "questions"))
        if res is not None:
            append_run(store.settings, "why", res.history_record())
            st.session_state["eval_why"] = res.as_dict()
    current = st.session_state.get("eval_why")
    if current:
        for graph in current.get("graphs", []):
            said = str(graph.get("statement", ""))
            (st.success if graph.get("pristine") else st.warning)(md(said[:1].upper() + said[1:]))
        cols = st.columns(3)
        for col, split in zip(cols, ("tune", "holdout", "all"), strict=True):
            m = current["metrics"][split]
            col.metric(
                f"hit@3 · {split} ({m['n']})",
                "-" if m["hit_at_3"] is None else f"{100 * m['hit_at_3']:.1f}%",
                help=f"hit@1 {m['hit_at_1']}, MRR {m['mrr']}",
            )
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "id": c["id"],
                        "split": c["split"],
                        "question": c["question"],
                        "expected": ", ".join(c["expect"]),
                        "rank": c["rank"],
                        "hit": c["hit"],
                    }
                    for c in current["cases"]
                ]
            ),
            hide_index=True,
        )
        if current["skipped"]:
            st.caption(f"Skipped (data not on this machine): {', '.join(current['skipped'])}")
    past = list_runs(store.settings, "why", limit=20).runs
    if past:
        st.markdown("**Past why runs** (newest first)")
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "at": r.get("at"),
                        "git": str(r.get("git_sha") or "-")[:12],
                        "hit@3 tune": (r.get("metrics", {}).get("tune") or {}).get("hit_at_3"),
                        "hit@3 holdout": (r.get("metrics", {}).get("holdout") or {}).get("hit_at_3"),
                    }
                    for r in past
                ]
            ),
            hide_index=True,
        )
    with st.expander("Metric definitions"):
        st.markdown(WHY_DEFINITIONS or "")


st.title("Eval")
guard_tab, replay_tab, memory_tab, why_tab, limits_tab = st.tabs(
    ["Guard cases", "Replay history", "Memory benchmark", "Why questions", "Honest limits"]
)
with guard_tab:
    guard_section()
with replay_tab:
    replay_section()
with memory_tab:
    memory_section()
with why_tab:
    why_section()
with limits_tab:
    st.markdown(LIMITS)

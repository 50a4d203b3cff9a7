"""Eval page, "Replay history": run ``eval replay`` on a git clone or a snapshot folder, with progress, a
per-case table and a drill-down; each run is saved to eval history. Layout only: the work is
rguard_core.evaluation.replay. Titles, reasons and quotes come from the repository: shown as text, never
Markdown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from rguard_core.evaluation import append_run, list_runs
from rguard_core.evaluation.replay import __doc__ as REPLAY_DEFINITIONS
from rguard_core.evaluation.replay import run_replay
from ui.common import get_store, guarded

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SNAPSHOT = ROOT.parent / "shared" / "realdata" / "github"


def _pct(v: Any) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def replay_section() -> None:
    st.subheader("Replay history")
    st.caption(
        "Guards every revert and a seeded sample of ordinary changes of a real history, each against the "
        "graph as it was just before that change landed."
    )
    c1, c2 = st.columns([1, 3])
    kind = c1.radio("History", ["git clone", "snapshot folder"], key="replay_kind")
    default = str(ROOT) if kind == "git clone" else str(DEFAULT_SNAPSHOT)
    path = c2.text_input("Folder", value=default, key=f"replay_path_{kind}")
    c3, c4, c5 = st.columns(3)
    reverts = int(c3.number_input("Reverts (at most)", min_value=0, max_value=1000, value=20, key="replay_reverts"))
    ordinary = int(c4.number_input("Ordinary changes", min_value=0, max_value=1000, value=50, key="replay_ordinary"))
    seed = int(c5.number_input("Seed", min_value=0, max_value=1_000_000, value=7, key="replay_seed"))
    store = get_store()
    if st.button("Replay", type="primary", key="replay_run"):
        if not Path(path).is_dir():
            st.error(f"No folder at {path}. Give a local git clone or a snapshot folder.")
        else:
            bar = st.progress(0.0, text="reading the history")

            def progress(done: int, total: int, what: str) -> None:
                bar.progress(min(done / max(total, 1), 1.0), text=f"change {done}/{total} {what}"[:120])

            src = {"git": path} if kind == "git clone" else {"snapshot": path}
            res = guarded(run_replay, store, reverts=reverts, ordinary=ordinary, seed=seed, progress=progress, **src)
            if res is not None:
                append_run(store.settings, "replay", res.history_record())
                st.session_state["replay_result"] = res.as_dict()
    current = st.session_state.get("replay_result")
    if current:
        replay_results(current)
    past = list_runs(store.settings, "replay", limit=20).runs
    if past:
        st.markdown("**Earlier replays** (newest first)")
        st.dataframe(pd.DataFrame(runs_table(past)), hide_index=True)
    elif not current:
        st.caption("No replay runs yet.")
    with st.expander("Metric definitions"):
        st.text(REPLAY_DEFINITIONS or "")


def runs_table(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for r in runs:
        m = r.get("metrics") or {}
        counts = m.get("counts") or {}
        out.append(
            {
                "at": r.get("at"),
                "git": str(r.get("git_sha") or "-")[:12],
                "source": r.get("source"),
                "seed": r.get("seed"),
                "reverts (code) caught": _pct(m.get("catch_rate")),
                "all reverts caught": _pct(m.get("catch_rate_all")),
                "ordinary warned": _pct(m.get("ordinary_warn_rate")),
                "cases": counts.get("revert", 0) + counts.get("ordinary", 0),
                "seconds": m.get("seconds"),
            }
        )
    return out


def case_rows(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "change": c["id"],
            "kind": c["kind"],
            "title": c["title"],
            "reverts": c.get("target") or "",
            "scope": c.get("scope") or "",
            "verdict": c["verdict"],
            "ok": (bool(c["caught"]) if c["kind"] == "revert" else c["verdict"] != "warn"),
            "rules": ", ".join(c.get("rules") or []),
            "cited": ", ".join(c.get("cited") or []),
            "guard ms": c.get("guard_ms"),
        }
        for c in cases
    ]


def replay_results(res: dict[str, Any]) -> None:
    m = res["metrics"]
    cols = st.columns(4)
    cols[0].metric(
        "Reverts of product code caught",
        _pct(m["catch_rate"]),
        help=f"{m['caught_code']} of {m['counts']['revert_code']}",
    )
    cols[1].metric("All reverts caught", _pct(m["catch_rate_all"]), help=f"{m['caught']} of {m['counts']['revert']}")
    cols[2].metric(
        "Ordinary changes warned",
        _pct(m["ordinary_warn_rate"]),
        help=f"{m['ordinary_warned']} of {m['counts']['ordinary']}",
    )
    cols[3].metric("Guard per case (p50)", f"{m['guard_ms_p50']} ms" if m["guard_ms_p50"] is not None else "-")
    st.text(
        f"{res['source']} · {m['steps']} changes walked · {m['reverts_found']} reverts found · seed {res['seed']} · "
        f"judge {res['run']['judge']} · git {res['run']['git_sha'] or '-'} · {m['seconds']} s"
    )
    rules = [
        {"where": k.replace("_", " "), "rule": r, "findings": n} for k, v in m["rules"].items() for r, n in v.items()
    ]
    if rules:
        st.markdown("**Rules on the contradicting findings**")
        st.dataframe(pd.DataFrame(rules), hide_index=True)
    st.markdown("**Cases**")
    st.dataframe(pd.DataFrame(case_rows(res["cases"])), hide_index=True)
    ids = [c["id"] for c in res["cases"]]
    if not ids:
        return
    by_id = {c["id"]: c for c in res["cases"]}
    pick = st.selectbox(
        "Inspect a case",
        ids,
        key="replay_case_pick",
        format_func=lambda i: (
            f"{'ok' if case_rows([by_id[i]])[0]['ok'] else 'MISS'} · {by_id[i]['kind']} · "
            f"{i} · {by_id[i]['title'][:60]}"
        ),
    )
    if pick:
        case_detail(by_id[pick])


def case_detail(c: dict[str, Any]) -> None:
    st.text(f"{c['id']} ({c['kind']}) landed {c['at']}: {c['title']}")
    if c.get("target"):
        st.text(f"reverts {c['target']} ({c.get('form')} form, scope {c.get('scope')}): {c.get('target_title') or ''}")
    st.text(f"verdict {c['verdict']}" + (f", caught: {c['caught']}" if c["kind"] == "revert" else ""))
    if c.get("error"):
        st.error(c["error"])
    if not c.get("findings"):
        st.caption("The guard returned no findings.")
    for f in c.get("findings") or []:
        with st.container(border=True):
            st.text(
                f"{f['label']} · {f['decision_id']} · score {f['score']} · via {' + '.join(f.get('hops') or [])}"
                f" · rules {', '.join(f.get('rules') or []) or '-'}"
            )
            st.text(f.get("summary") or "")
            st.text(f.get("reason") or "")

"""Rows for the Eval page's tables (plain dicts; the page only lays them out)."""

from __future__ import annotations

from typing import Any

from ..jsontypes import JSONObject

type Row = dict[str, object]  # one table row: column -> cell; the inputs are the eval JSON records

GUARD_COLUMNS = (
    "recall",
    "false_positive_rate",
    "precision",
    "attribution",
    "graph_ms_p50",
    "graph_ms_p95",
    "total_ms_p50",
    "total_ms_p95",
)
MEMORY_COLUMNS = (
    "poisoned_served",
    "valid_preserved",
    "withdrawal_precision",
    "bad_decisions_missed",
    "decisions_labelled_correctly",
)


def guard_run_row(record: JSONObject) -> Row:
    """One guard run (a history record or a fresh result's record) as a table row."""
    m = record.get("metrics") or {}
    counts = m.get("counts") or {}
    return {
        "at": record.get("at"),
        "git_sha": _short_sha(record.get("git_sha")),
        "judge": record.get("judge"),
        "repo": record.get("repo"),
        "cases": counts.get("cases"),
        **{k: m.get(k) for k in GUARD_COLUMNS},
    }


def guard_runs_table(records: list[JSONObject]) -> list[Row]:
    """Rows newest first, each with how its recall and false-positive rate moved since the run before it."""
    rows = [guard_run_row(r) for r in records]
    for row, prev in zip(rows, rows[1:], strict=False):
        row["recall_change"] = _delta(row.get("recall"), prev.get("recall"))
        row["fp_change"] = _delta(row.get("false_positive_rate"), prev.get("false_positive_rate"))
    return rows


def by_kind_rows(metrics: JSONObject) -> list[Row]:
    """One row per case kind: how many cases, how many the guard got right."""
    return [
        {
            "kind": kind,
            "label": k.get("label"),
            "cases": k.get("n"),
            "ok": k.get("ok"),
            "ok_rate": k.get("ok_rate"),
            "warned": k.get("warned"),
            "attribution": k.get("attribution"),
        }
        for kind, k in (metrics.get("by_kind") or {}).items()
    ]


def case_rows(cases: list[JSONObject]) -> list[Row]:
    """The per-case table: expected vs got."""
    return [
        {
            "ok": "✅" if c.get("ok") else "❌",
            "id": c.get("id"),
            "kind": c.get("kind"),
            "label": c.get("label"),
            "expected": _expected(c),
            "verdict": c.get("verdict"),
            "cited": ", ".join(c.get("cited") or []) or "-",
        }
        for c in cases
    ]


def _expected(case: JSONObject) -> str:
    if case.get("label") != "contradicts":
        return "no warning"
    exp = case.get("expect_source")
    return f"warn citing #{exp}" if isinstance(exp, int) else f"warn citing {exp}"


def memory_rows(results: list[JSONObject]) -> list[Row]:
    """Every system row (and RGuard with mirror detection) of each benchmark result, tagged with its variant."""
    rows: list[Row] = []
    for res in results:
        systems = list(res.get("systems") or [])
        if res.get("mirror_aware"):
            systems.append(res["mirror_aware"])
        for s in systems:
            rows.append(
                {
                    "variant": res.get("variant"),
                    "system": s.get("system"),
                    "seeds": res.get("seeds"),
                    **{k: s.get(k) for k in MEMORY_COLUMNS},
                }
            )
    return rows


def memory_runs_table(records: list[JSONObject]) -> list[Row]:
    """Past memory runs: RGuard's row of each, newest first."""
    out: list[Row] = []
    for r in records:
        rg: JSONObject = next((s for s in r.get("systems") or [] if s.get("system") == "rguard"), {})
        aware = r.get("mirror_aware") or {}
        out.append(
            {
                "at": r.get("at"),
                "git_sha": _short_sha(r.get("git_sha")),
                "variant": r.get("variant"),
                "seeds": r.get("seeds"),
                **{f"rguard {k}": rg.get(k) for k in MEMORY_COLUMNS},
                "rguard+mirrors poisoned_served": aware.get("poisoned_served"),
            }
        )
    return out


def _delta(now: Any, before: Any) -> float | None:
    if now is None or before is None:
        return None
    return round(float(now) - float(before), 4)


def _short_sha(sha: Any) -> str:
    if not sha:
        return "-"
    text = str(sha)
    return text[:10] + ("-dirty" if text.endswith("-dirty") else "")

"""Guard eval: scoring rules, and the real guard on a real embedded FalkorDB run over labelled cases."""

from __future__ import annotations

import io
import json
import shutil
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from rguard_core.commands.main import main
from rguard_core.config import Settings
from rguard_core.db import Store
from rguard_core.errors import InvalidInput, UnknownRepository
from rguard_core.evaluation import list_runs, load_cases, parse_cases, run_guard_eval
from rguard_core.evaluation.guard_eval import cites, compute_metrics, percentile, score_case
from rguard_core.ingest.pipeline import ingest_snapshot
from tests.conftest import realdata_or_skip

ROOT = Path(__file__).resolve().parent.parent
LEDGER = ROOT / "tests" / "fixtures" / "guard" / "github"  # the guard's acme/ledger fixture
LEDGER_CASES = ROOT / "tests" / "fixtures" / "eval" / "ledger_cases.yaml"


def _finding(
    label: str = "contradicts",
    kind: str = "pr",
    number: int | None = 10,
    path: str | None = None,
    did: str = "decision:pr:10",
) -> dict[str, Any]:
    return {"decision_id": did, "label": label, "source": {"kind": kind, "number": number, "path": path}}


def test_cites_matches_numbers_paths_ids_and_adr_numbers() -> None:
    assert cites(_finding(), 10)
    assert not cites(_finding(), 11)
    assert not cites(_finding(kind="commit"), 10)
    adr = _finding(
        kind="doc",
        number=None,
        path="docs/adr/0003-decimal-for-money.md",
        did="decision:doc:docs/adr/0003-decimal-for-money.md",
    )
    for want in (
        "docs/adr/0003-decimal-for-money.md",
        "0003-decimal-for-money.md",
        "ADR-0003",
        "adr-3",
        "decision:doc:docs/adr/0003-decimal-for-money.md",
        "doc:docs/adr/0003-decimal-for-money.md",
    ):
        assert cites(adr, want), want
    for wrong in ("ADR-0002", "docs/adr/0002-idempotency-keys.md", "decimal"):
        assert not cites(adr, wrong), wrong


def _scored(
    label: str,
    kind: str,
    verdict: str,
    findings: list[dict[str, Any]],
    graph_ms: float,
    expect: int | None = 10,
    cid: str = "",
) -> Any:
    raw = {
        "id": cid or f"{kind}-{label}-{verdict}-{graph_ms}",
        "label": label,
        "kind": kind,
        "diff": "x",
        "expect_source": expect,
    }
    case = parse_cases({"repo": "a/b", "cases": [raw]}, check_diffs=False).cases[0]
    return score_case(
        case, {"verdict": verdict, "findings": findings, "timings_ms": {"graph": graph_ms, "total": graph_ms + 1}}
    )


def test_metrics_follow_their_definitions() -> None:
    results = [
        _scored("contradicts", "revert", "warn", [_finding()], 1.0),  # caught, attributed
        _scored("contradicts", "revert", "warn", [_finding(number=99)], 2.0),  # caught, wrong source
        _scored("contradicts", "paraphrase", "note", [_finding(label="related")], 3.0),  # missed
        _scored("benign", "benign-same-file", "warn", [_finding()], 4.0, expect=None),  # false warning
        _scored("benign", "benign-same-file", "note", [_finding(label="related")], 5.0, expect=None),
        _scored("benign", "benign-other-file", "pass", [], 6.0, expect=None),
    ]
    m = compute_metrics(results)
    assert m["recall"] == round(2 / 3, 4)
    assert m["false_positive_rate"] == round(1 / 3, 4)
    assert m["precision"] == round(2 / 3, 4)
    assert m["attribution"] == 0.5
    assert m["counts"] == {"cases": 6, "contradicts": 3, "benign": 3, "caught": 2, "false_warnings": 1, "ok": 3}
    assert m["by_kind"]["revert"] == {
        "label": "contradicts",
        "n": 2,
        "warned": 2,
        "ok": 1,
        "ok_rate": 0.5,
        "recall": 1.0,
        "false_positive_rate": None,
        "attribution": 0.5,
    }
    assert m["by_kind"]["benign-same-file"]["false_positive_rate"] == 0.5
    assert m["by_kind"]["paraphrase"]["attribution"] is None
    assert m["graph_ms_p50"] == 3.5 and m["total_ms_p50"] == 4.5
    assert [r.cited for r in results[:3]] == [["#10"], ["#99"], []]
    assert [r.ok for r in results] == [True, False, False, False, True, True]


def test_percentile_interpolates_and_handles_empty() -> None:
    assert percentile([], 50) is None
    assert percentile([5.0], 95) == 5.0
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile(list(range(1, 101)), 95) == 95.05


@pytest.fixture
def ledger_repo(store: Store, repo_name: str, tmp_path: Path) -> Any:
    """The acme/ledger fixture snapshot copied under a unique repository name, ingested."""
    owner, name = repo_name.split("/")
    shutil.copytree(LEDGER / "repos" / "acme" / "ledger", tmp_path / "snap" / "repos" / owner / name)
    ingest_snapshot(store, tmp_path / "snap")
    yield repo_name
    store.repo_graph(repo_name).delete()


def test_ledger_cases_through_the_real_guard(store: Store, ledger_repo: str) -> None:
    cs = load_cases(LEDGER_CASES)
    seen: list[tuple[int, int, str]] = []
    res = run_guard_eval(store, cs, repo=ledger_repo, progress=lambda d, t, c: seen.append((d, t, c)))
    assert seen[0] == (0, 4, "ledger-revert-missing-rate") and seen[-1] == (4, 4, "")
    by_id = {r.case.id: r for r in res.results}
    revert = by_id["ledger-revert-missing-rate"]
    assert revert.verdict == "warn" and revert.attributed and revert.cited[0] == "#10"
    assert by_id["ledger-benign-readme-typo"].verdict != "warn"
    # the metrics are the per-case outcomes, counted
    contra = [r for r in res.results if r.case.label == "contradicts"]
    assert res.metrics["recall"] == round(sum(r.warned for r in contra) / len(contra), 4)
    assert res.metrics["counts"]["ok"] == sum(r.ok for r in res.results)
    assert all(r.timings_ms["total"] >= r.timings_ms["graph"] > 0 for r in res.results)
    out = res.as_dict()
    assert set(out) >= {"metrics", "cases", "run"}
    assert set(out["cases"][0]) >= {"id", "kind", "label", "verdict", "cited", "ok", "findings"}
    assert out["run"]["judge"] == "offline" and out["repo"] == ledger_repo


def test_cli_eval_guard_json_contract_and_history(store: Store, ledger_repo: str, settings: Settings) -> None:
    before = len(list_runs(settings, "guard", limit=10_000, where={"repo": ledger_repo}).runs)
    buf = io.StringIO()
    with redirect_stdout(buf):
        code = main(["eval", "guard", "--cases", str(LEDGER_CASES), "--repo", ledger_repo, "--json"])
    assert code == 0
    data = json.loads(buf.getvalue())
    assert set(data["metrics"]) >= {
        "recall",
        "false_positive_rate",
        "precision",
        "attribution",
        "by_kind",
        "graph_ms_p50",
        "graph_ms_p95",
        "total_ms_p50",
        "total_ms_p95",
    }
    assert [c["id"] for c in data["cases"]] == [c.id for c in load_cases(LEDGER_CASES).cases]
    assert set(data["run"]) == {"at", "git_sha", "judge"}
    runs = list_runs(settings, "guard", limit=10_000, where={"repo": ledger_repo}).runs
    assert len(runs) == before + 1 and runs[0]["metrics"] == data["metrics"]
    assert "findings" not in runs[0]["cases"][0]  # history keeps outcomes, not whole reports


def test_eval_on_a_repository_that_was_never_ingested_fails_clearly(store: Store) -> None:
    with pytest.raises(UnknownRepository, match="ingest it first"):
        run_guard_eval(store, load_cases(LEDGER_CASES), repo="nobody/nothing-here")


def test_cli_reports_a_missing_cases_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "guard", "--cases", str(tmp_path / "none.yaml")]) == 2
    assert "cases file not found" in capsys.readouterr().err


@pytest.mark.realdata
def test_starlette_cases_meet_the_bar(store: Store) -> None:
    """The real-data figures: recall >= 0.9 with paraphrases counted, false warnings <= 5%."""
    root = realdata_or_skip()
    repo = "Kludex/starlette"
    if repo not in store.list_repos():
        ingest_snapshot(store, root / "github", repo=repo)
    res = run_guard_eval(store, load_cases(root / "cases" / "starlette.yaml"))
    m = res.metrics
    print(
        f"starlette: recall {m['recall']} fp {m['false_positive_rate']} precision {m['precision']} "
        f"attribution {m['attribution']} total p95 {m['total_ms_p95']} ms"
    )
    assert m["recall"] >= 0.9 and m["false_positive_rate"] <= 0.05
    assert m["attribution"] >= 0.9


def test_by_rule_counts_hits_and_false_hits_and_by_split_halves_the_ids() -> None:
    def f(rules: list[str], number: int = 10) -> dict[str, Any]:
        return {**_finding(number=number), "rules": [{"id": r, "why": "w"} for r in rules]}

    results = [
        _scored("contradicts", "revert", "warn", [f(["REV1", "U1"])], 1.0, cid="x-01"),  # dev, attributed
        _scored("contradicts", "paraphrase", "warn", [f(["D1"], number=99)], 1.0, cid="x-02"),  # holdout, wrong PR
        _scored("contradicts", "paraphrase", "note", [], 1.0, cid="x-04"),  # holdout, missed
        _scored("benign", "benign-same-file", "warn", [f(["D1"])], 1.0, expect=None, cid="x-03"),  # dev, false
    ]
    m = compute_metrics(results)
    assert m["by_rule"] == {
        "D1": {"hits": 0, "fired": 1, "false_hits": 1},
        "REV1": {"hits": 1, "fired": 1, "false_hits": 0},
        "U1": {"hits": 1, "fired": 1, "false_hits": 0},
    }
    assert m["by_split"]["dev"] == {
        "cases": 2,
        "contradicts": 1,
        "caught": 1,
        "attributed": 1,
        "benign": 1,
        "false_warnings": 1,
        "recall": 1.0,
        "false_positive_rate": 1.0,
    }
    assert m["by_split"]["holdout"]["recall"] == 0.5 and m["by_split"]["holdout"]["false_positive_rate"] is None
    assert compute_metrics([_scored("benign", "b", "pass", [], 1.0, expect=None, cid="plain")])["by_split"] == {}


def test_demo_seed_cases_meet_the_bar(store: Store) -> None:
    """Our own 93 labelled diffs (issue bar): recall >= 0.9 with paraphrases counted, false warnings <= 5%."""
    from rguard_core.seed import load_demo

    load_demo(store)
    res = run_guard_eval(store, load_cases(ROOT / "eval" / "cases.yaml"))
    m = res.metrics
    print(
        f"seed: recall {m['recall']} fp {m['false_positive_rate']} attribution {m['attribution']} "
        f"by kind {m['by_kind']}"
    )
    assert m["recall"] >= 0.9 and m["false_positive_rate"] <= 0.05
    assert m["attribution"] >= 0.9
    # the rules were fitted on the dev half (odd ids); the held-out half (even ids) is gated on its own
    dev, hold = m["by_split"]["dev"], m["by_split"]["holdout"]
    print(f"seed DEV {dev} HOLDOUT {hold} by rule {m['by_rule']}")
    assert dev["recall"] >= 0.95 and dev["false_positive_rate"] <= 0.05
    assert hold["recall"] >= 0.85 and hold["false_positive_rate"] <= 0.05
    assert hold["attributed"] == hold["caught"]
    assert sum(r["false_hits"] for r in m["by_rule"].values()) == 0


def test_pristine_copy_of_the_seed_and_the_graph_state_statement(store: Store) -> None:
    from rguard_core.evaluation.pristine import PRISTINE_DEMO, graph_state, pristine_copy
    from rguard_core.memory import quarantine_source
    from rguard_core.seed import DEMO_REPO, load_demo

    load_demo(store)
    target = pristine_copy(store, DEMO_REPO)
    assert target == PRISTINE_DEMO and graph_state(store, target, DEMO_REPO).pristine
    quarantine_source(store.repo_graph(target), "issue:31", "edited", "t")
    dirty = graph_state(store, target, DEMO_REPO)
    assert not dirty.pristine and dirty.edits == {"quarantine": 1} and "NOT a pristine graph" in dirty.statement
    assert pristine_copy(store, DEMO_REPO) == target and graph_state(store, target, DEMO_REPO).pristine  # rebuilt
    with pytest.raises(InvalidInput, match="no seed"):
        pristine_copy(store, "Kludex/starlette")
    with pytest.raises(UnknownRepository):
        graph_state(store, "nobody/nothing-here", "nobody/nothing-here")

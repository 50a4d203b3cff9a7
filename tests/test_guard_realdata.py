"""The guard on the recorded Starlette history and its 36 labelled diffs (offline judge).

Thresholds from the issue: recall >= 0.8 on contradicting diffs, <= 10% false warnings on benign ones,
and the top finding cites the expected PR in >= 80% of catches. Skipped when ../shared/realdata is absent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from rguard_core.db import Store
from rguard_core.guard import run_guard
from rguard_core.ingest.pipeline import ingest_snapshot
from tests.conftest import realdata_or_skip

pytestmark = pytest.mark.realdata
REPO = "Kludex/starlette"


@pytest.fixture(scope="module")
def starlette(store: Store) -> list[dict[str, Any]]:
    root = realdata_or_skip()
    ingest_snapshot(store, root / "github", repo=REPO)
    return yaml.safe_load((root / "cases" / "starlette.yaml").read_text(encoding="utf-8"))["cases"]


def test_starlette_cases_meet_recall_false_warning_and_attribution_targets(
    store: Store, starlette: list[dict[str, Any]]
) -> None:
    tp = fn = fp = tn = cited = 0
    misses = []
    for case in starlette:
        report = run_guard(store, REPO, case["diff"])
        warned = report.verdict == "warn"
        if case["label"] == "contradicts":
            if warned:
                tp += 1
                top = report.findings[0]
                assert top.label == "contradicts"
                cited += top.source["kind"] == "pr" and top.source["number"] == case["expect_source"]
            else:
                fn += 1
                misses.append(case["id"])
        else:
            fp += warned
            tn += not warned
            if warned:
                misses.append(case["id"])
    recall, fpr, attribution = tp / (tp + fn), fp / (fp + tn), cited / max(tp, 1)
    print(
        f"\nstarlette: recall {recall:.2f} ({tp}/{tp + fn}), false warnings {fpr:.2f} ({fp}/{fp + tn}), "
        f"attribution {attribution:.2f} ({cited}/{tp}); misses: {misses}"
    )
    assert recall >= 0.8
    assert fpr <= 0.10
    assert attribution >= 0.8


def test_every_finding_quotes_its_source_verbatim(store: Store, starlette: list[dict[str, Any]]) -> None:
    graph = store.repo_graph(REPO)
    case = next(c for c in starlette if c["id"].startswith("st-revert"))
    report = run_guard(store, REPO, case["diff"])
    assert report.findings
    for f in report.findings:
        rows = graph.read(
            "MATCH (d:Decision {id: $id})-[:DERIVED_FROM]->(s:Source) WHERE s.id = d.source_id "
            "RETURN s.text AS text, d.start AS start, d.end AS end",
            {"id": f.decision_id},
        )
        assert rows and rows[0]["text"][rows[0]["start"] : rows[0]["end"]] == f.quote
        assert f.source_url.startswith("https://")
        assert f.path[-1] == f.decision_id and f.hops


def test_stored_prs_guarded_against_earlier_decisions_raise_no_false_warning(
    store: Store, starlette: list[dict[str, Any]]
) -> None:
    """Each merged feature PR, guarded as stored, against what was decided before it: nothing it undoes."""
    graph = store.repo_graph(REPO)
    reverts = {r["n"] for r in graph.read("MATCH (p:PR)-[:REVERTS]->() RETURN p.number AS n")}
    # a PR titled Revert "..." is a revert whether or not ingest linked it: warning on it is a catch
    reverts |= {r["n"] for r in graph.read("MATCH (p:PR) WHERE p.title STARTS WITH 'Revert' RETURN p.number AS n")}
    numbers = [
        r["n"]
        for r in graph.read(
            "MATCH (d:Decision)-[:DERIVED_FROM]->(p:PR) WHERE d.source_id = p.id RETURN p.number AS n ORDER BY n"
        )
    ]
    warned = [n for n in numbers if n not in reverts and run_guard(store, REPO, None, pr=n).verdict == "warn"]
    assert len(warned) <= len(numbers) // 10, f"stored PRs that warned: {warned}"


def test_starlette_tuning_cases_for_the_paraphrase_rules(store: Store, starlette: list[dict[str, Any]]) -> None:
    """eval/tuning_starlette.yaml: hand-written paraphrased undos of real starlette decisions and benign
    look-alikes, fitted while building X1/W1/K1 and the broadened C1 (tuned, not held out)."""
    from rguard_core.evaluation import load_cases, run_guard_eval

    root = Path(__file__).resolve().parent.parent
    m = run_guard_eval(store, load_cases(root / "eval" / "tuning_starlette.yaml")).metrics
    print(f"starlette tuning cases: {m['counts']} by rule {m['by_rule']}")
    assert m["recall"] == 1.0 and m["attribution"] == 1.0
    # st-tune-17 (a log line of the mount point) is a known false warning of U1, before and after these rules
    assert m["counts"]["false_warnings"] <= 1 and m["by_rule"]["U1"]["false_hits"] <= 1
    assert m["by_rule"]["X1"]["hits"] >= 2 and m["by_rule"]["C1"]["hits"] >= 1
    assert all(m["by_rule"].get(r, {}).get("false_hits", 0) == 0 for r in ("X1", "W1", "K1", "E1", "C1"))


def test_blind_starlette_cases_each_half_gated(store: Store, starlette: list[dict[str, Any]]) -> None:
    """eval/blind_starlette.yaml, written without reading the guard: the odd half was read and fitted (T1), the
    even half was not. Gated at what was measured, so a change that loses a catch or adds a false warning fails."""
    from rguard_core.evaluation import load_cases, run_guard_eval

    root = Path(__file__).resolve().parent.parent
    m = run_guard_eval(store, load_cases(root / "eval" / "blind_starlette.yaml")).metrics
    print(f"blind starlette cases: {m['by_split']} by rule {m['by_rule']}")
    dev, held = m["by_split"]["dev"], m["by_split"]["holdout"]
    assert (dev["caught"], dev["contradicts"], dev["false_warnings"]) == (5, 5, 0), dev
    assert held["caught"] >= 4 and held["false_warnings"] <= 1, held
    assert m["attribution"] == 1.0 and m["by_rule"]["T1"]["hits"] >= 1


# Blind sets written later, each by a helper that read neither the guard nor the other cases: (cases right,
# false warnings) as measured after the sets were read and the rules fitted on them (eval/README.md gives each
# set's first, unread run). A change that loses a case or adds a false warning fails.
BLIND_GATES = {
    "blind2": (15, 0),
    "blind3": (12, 0),
    "blind4": (17, 0),
    "blind5": (22, 0),
    "blind6": (22, 0),
    "blind7": (22, 0),
    "blind8": (24, 0),
    "blind9": (23, 0),
    "blind10": (21, 0),
    "blind11": (20, 2),
    "blind12": (22, 0),
    "blind13": (22, 0),
    "blind14": (23, 0),
    "blind15": (23, 0),
    "blind16": (24, 0),
    "blind17": (24, 0),
    "blind18": (23, 0),
    "blind19": (23, 0),
    "blind20": (24, 0),
    "blind21": (24, 0),
    "blind22": (24, 0),
    "blind23": (24, 0),
    "blind24": (23, 0),
    "blind25": (24, 0),
}


def test_later_blind_starlette_sets_at_what_was_measured(store: Store, starlette: list[dict[str, Any]]) -> None:
    from rguard_core.evaluation import load_cases, run_guard_eval

    root = Path(__file__).resolve().parent.parent
    for name, (right, warned) in BLIND_GATES.items():
        counts = run_guard_eval(store, load_cases(root / "eval" / f"{name}_starlette.yaml")).metrics["counts"]
        print(name, counts)
        assert counts["ok"] >= right and counts["false_warnings"] <= warned, (name, counts)

"""Memory benchmark: generator, oracle, baselines, mirror detection, and RGuard on the real FalkorDB."""

from __future__ import annotations

import ast
import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from rguard_core.commands.main import main
from rguard_core.config import Settings
from rguard_core.db import Store
from rguard_core.errors import InvalidInput
from rguard_core.evaluation import list_runs, run_memory_bench
from rguard_core.evaluation.memory_bench import seed_metrics
from rguard_core.evaluation.memory_gen import MemoryInstance, generate, mirror_sentence
from rguard_core.evaluation.memory_oracle import judge
from rguard_core.evaluation.memory_systems import run_delete_cascade, run_plain, run_rguard
from rguard_core.evaluation.mirrors import find_mirrors, fragments
from rguard_core.memory.scenario import parse_scenario
from tests.memory_oracle import Oracle

EVAL = Path(__file__).resolve().parent.parent / "rguard_core" / "evaluation"

# A tiny hand-made graph: bad source "x"; c2 rests on x only, c3 on x OR y; c4/c5 only justify each other
# besides resting on x; decisions: d1 falls (executed -> compensation), d2 keeps support (-> review),
# d3 falls with nothing executed (-> correction), d4 never touches x (no label).
TINY = {
    "sources": [
        {"id": "x", "kind": "page", "title": "X", "text": "alpha beta gamma."},
        {"id": "y", "kind": "page", "title": "Y", "text": "delta epsilon zeta."},
    ],
    "claims": [
        {"id": "ox", "statement": "memo ox", "source": "x", "quote": "alpha beta"},
        {"id": "oy", "statement": "memo oy", "source": "y", "quote": "delta epsilon"},
        {"id": "c2", "statement": "memo c2"},
        {"id": "c3", "statement": "memo c3"},
        {"id": "c4", "statement": "memo c4"},
        {"id": "c5", "statement": "memo c5"},
    ],
    "justifications": [
        {"id": "j2", "conclusion": "c2", "premises": ["ox"]},
        {"id": "j3a", "conclusion": "c3", "premises": ["ox"]},
        {"id": "j3b", "conclusion": "c3", "premises": ["oy"]},
        {"id": "j4", "conclusion": "c4", "premises": ["ox"]},
        {"id": "j45", "conclusion": "c4", "premises": ["c5"]},
        {"id": "j54", "conclusion": "c5", "premises": ["c4"]},
        {"id": "jd1", "conclusion": "d1", "premises": ["c2", "oy"]},
        {"id": "jd2", "conclusion": "d2", "premises": ["c3"]},
        {"id": "jd3", "conclusion": "d3", "premises": ["c5"]},
        {"id": "jd4", "conclusion": "d4", "premises": ["oy"]},
    ],
    "decisions": [{"id": f"d{i}", "summary": f"decision {i}"} for i in range(1, 5)],
    "actions": [
        {"id": "a1", "summary": "did it", "decision": "d1", "executed": True},
        {"id": "a3", "summary": "not yet", "decision": "d3", "executed": False},
    ],
}


def _tiny() -> MemoryInstance:
    return MemoryInstance(0, "base", TINY, ("x",), ("x",))


def test_oracle_on_a_hand_made_graph() -> None:
    t = judge(TINY, {"x"})
    assert t.before == {"ox", "oy", "c2", "c3", "c4", "c5", "d1", "d2", "d3", "d4"}
    assert t.poisoned == {"ox", "c2", "c4", "c5"}  # the c4/c5 cycle does not hold itself up
    assert t.valid == {"oy", "c3"}
    assert t.fell_decisions == {"d1", "d3"}
    assert t.labels == {"d1": "compensation", "d2": "review", "d3": "correction", "d4": None}


def test_baselines_on_the_hand_made_graph() -> None:
    truth = judge(TINY, {"x"})
    plain = seed_metrics(_tiny(), truth, run_plain(_tiny()))
    assert plain == {
        "poisoned_served": 0.75,
        "valid_preserved": 1.0,
        "withdrawal_precision": 1.0,
        "bad_decisions_missed": 1.0,
        "decisions_labelled_correctly": 0.25,
    }
    cascade = seed_metrics(_tiny(), truth, run_delete_cascade(_tiny()))
    # deletes c3 although y still supports it, and labels d2 correction instead of review
    assert cascade == {
        "poisoned_served": 0.0,
        "valid_preserved": 0.5,
        "withdrawal_precision": 0.8,
        "bad_decisions_missed": 0.0,
        "decisions_labelled_correctly": 0.75,
    }


def test_rguard_on_the_hand_made_graph_matches_the_oracle(store: Store) -> None:
    out = run_rguard(store, _tiny())
    assert out.served == {"oy", "c3"} and out.standing == {"d2", "d4"}
    assert out.labels == {"d1": "compensation", "d2": "review", "d3": "correction", "d4": None}
    assert not any(g.startswith("rguard_ws__eval-") for g in store.list_graphs())  # workspace deleted


def test_the_oracle_imports_nothing_from_the_engine() -> None:
    tree = ast.parse((EVAL / "memory_oracle.py").read_text())
    imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [m for m in imported if "memory" in m or m.startswith("rguard_core") or m.startswith(".")], imported


def test_generator_is_deterministic_and_has_the_promised_shape() -> None:
    a, b = generate(3), generate(3)
    assert a.scenario == b.scenario and a.reported == b.reported
    assert generate(4).scenario != a.scenario
    for seed in range(5):
        inst = generate(seed)
        sc = inst.scenario
        parse_scenario({**sc, "workspace": "w"})  # the engine's own validation accepts it (quotes verbatim)
        assert len(sc["sources"]) == 12 and len(inst.reported) == 3
        assert 60 <= len(sc["claims"]) <= 80 and len(sc["decisions"]) == 20
        just_count: dict[str, int] = {}
        for j in sc["justifications"]:
            just_count[j["conclusion"]] = just_count.get(j["conclusion"], 0) + 1
        assert any(len(j["premises"]) > 1 for j in sc["justifications"])  # AND
        assert any(n > 1 for n in just_count.values())  # OR
        uses: dict[str, int] = {}
        for j in sc["justifications"]:
            for p in j["premises"]:
                uses[p] = uses.get(p, 0) + 1
        assert any(n > 1 for n in uses.values())  # shared premises
        assert any("cycle" in j["id"] for j in sc["justifications"])
        assert {a["executed"] for a in sc["actions"]} == {True, False}
        truth = judge(sc, inst.truly_bad)
        assert truth.before == {c["id"] for c in sc["claims"]} | {d["id"] for d in sc["decisions"]}
        assert truth.poisoned and truth.fell_decisions and truth.valid


def test_hidden_mirror_variant_hides_copies_behind_half_the_rescuing_proofs() -> None:
    for seed in range(5):
        inst = generate(seed, "hidden-mirror")
        sc = inst.scenario
        assert len(inst.mirrors) == 3 and set(inst.mirrors.values()) == set(inst.reported)
        assert set(inst.truly_bad) == set(inst.reported) | set(inst.mirrors)
        mirrors = {s["id"]: s for s in sc["sources"] if s["id"] in inst.mirrors}
        assert all(not s.get("derived_from") for s in mirrors.values())  # undeclared
        assert inst.mirror_proofs == (inst.alternative_proofs + 1) // 2 >= 1
        on_mirror = {c["id"] for c in sc["claims"] if c.get("source") in mirrors}
        assert sum(1 for j in sc["justifications"] if set(j["premises"]) & on_mirror) == inst.mirror_proofs


def test_my_one_step_labels_equal_the_sequential_reference_oracle() -> None:
    """Quarantining bad sources one at a time (tests/memory_oracle.py) ends with the same labels and holds."""
    for seed in range(6):
        for variant in ("base", "hidden-mirror"):
            inst = generate(seed, variant)
            ref = Oracle(inst.scenario)
            for sid in inst.truly_bad:
                ref.quarantine(sid)
            st = ref.status()
            truth = judge(inst.scenario, inst.truly_bad)
            assert {d: v["label"] for d, v in st["decisions"].items()} == truth.labels
            assert {c for c, v in st["claims"].items() if v["holds"]} == truth.valid


def test_mirror_detection_finds_copies_not_quoting_sources() -> None:
    import random

    rng = random.Random(1)
    original = (
        "Globex updated the bank account for order 4411 to DE12-3456-7890 on 2026-03-01. "
        "The unit price that Initech confirmed for shipment 8812 was EUR 12,400. "
        "Hooli approved a new credit limit of 60 days under contract 5120. "
        "On 2026-02-11 Acme reported that the tax number of account 9001 is 2026-05-17."
    )
    mirror = "Forwarded by ops, see below.\n" + " ".join(mirror_sentence(rng, s) for s in fragments(original))
    quoting = (
        "Wayne recorded the delivery date for order 1234 to 45 days on 2026-01-02. "
        "The unit price that Initech confirmed for shipment 8812 was EUR 12,400. "
        "Stark flagged a new warranty period of 90 days under contract 7777."
    )
    texts = {"orig": original, "mirror": mirror, "quoting": quoting, "other": "Nothing to see here at all today."}
    found = find_mirrors(texts, ["orig"])
    assert [(m.mirror, m.original) for m in found] == [("mirror", "orig")]
    assert found[0].similarity >= 0.5
    assert find_mirrors(texts, ["orig"], declared={"mirror": {"orig"}}) == []  # declared lineage is not news
    assert find_mirrors(texts, ["missing"]) == []


def test_rguard_matches_the_oracle_in_base_and_leaks_through_hidden_mirrors_until_detected(store: Store) -> None:
    for seed in range(3):
        base = generate(seed)
        truth = judge(base.scenario, base.truly_bad)
        m = seed_metrics(base, truth, run_rguard(store, base))
        assert m == {
            "poisoned_served": 0.0,
            "valid_preserved": 1.0,
            "withdrawal_precision": 1.0,
            "bad_decisions_missed": 0.0,
            "decisions_labelled_correctly": 1.0,
        }
        hidden = generate(seed, "hidden-mirror")
        htruth = judge(hidden.scenario, hidden.truly_bad)
        blind = seed_metrics(hidden, htruth, run_rguard(store, hidden))
        assert blind["poisoned_served"] > 0  # the honest leak: a mirror keeps a poisoned proof alive
        aware = run_rguard(store, hidden, detect=True)
        assert {(x.mirror, x.original) for x in aware.mirrors} == set(hidden.mirrors.items())
        assert seed_metrics(hidden, htruth, aware)["poisoned_served"] == 0.0


def test_bench_means_and_cli_contract(store: Store, settings: Settings) -> None:
    res = run_memory_bench(store, 3, "hidden-mirror")
    rows = {r["system"]: r for r in res.systems}
    assert list(rows) == ["plain", "delete-cascade", "rguard"]
    assert rows["rguard"]["poisoned_served"] > 0 and res.mirror_aware["poisoned_served"] == 0.0
    assert res.mirror_aware["detection"]["false"] == 0
    for name, row in rows.items():  # each mean is the mean of the per-seed values
        vals = [s[name]["valid_preserved"] for s in res.per_seed]
        assert row["valid_preserved"] == round(sum(vals) / len(vals), 4)
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["eval", "memory", "--seeds", "2", "--variant", "base", "--json"]) == 0
    data = json.loads(buf.getvalue())
    assert data["seeds"] == 2 and data["variant"] == "base"
    assert [s["system"] for s in data["systems"]] == ["plain", "delete-cascade", "rguard"]
    rg = data["systems"][2]
    assert (rg["poisoned_served"], rg["valid_preserved"], rg["decisions_labelled_correctly"]) == (0.0, 1.0, 1.0)
    for s in data["systems"]:
        assert all(
            0.0 <= s[k] <= 1.0
            for k in (
                "poisoned_served",
                "valid_preserved",
                "withdrawal_precision",
                "bad_decisions_missed",
                "decisions_labelled_correctly",
            )
        )
    assert list_runs(settings, "memory", limit=1).runs[0]["seeds"] == 2


def test_bench_rejects_bad_arguments(store: Store) -> None:
    with pytest.raises(InvalidInput, match="unknown variant"):
        run_memory_bench(store, 2, "mirror")
    with pytest.raises(InvalidInput, match="--seeds must be between"):
        run_memory_bench(store, 0)

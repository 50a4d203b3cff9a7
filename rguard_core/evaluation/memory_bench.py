"""Memory benchmark: three systems against the oracle on seeded evidence graphs, means over seeds.

Per seed, with *poisoned*, *valid* and *fell* from the oracle (memory_oracle.py) and *served* /
*standing* / labels from the system (memory_systems.py); every claim holds before anything is reported:
- poisoned_served = poisoned claims the system still returns / poisoned claims
  (poisoned: held before, no longer holds once every truly compromised source is quarantined).
- valid_preserved = oracle-valid claims the system still returns / oracle-valid claims.
- withdrawal_precision = withdrawn claims the oracle also says fall / all claims the system withdrew
  (withdrawn: returned before, not after).
- bad_decisions_missed = decisions the oracle says lost support that the system still treats as
  standing / all decisions that lost support.
- decisions_labelled_correctly = decisions whose label (none/review/correction/compensation) equals the
  oracle's / all decisions.
Each metric is the mean of the per-seed rates over the seeds where its denominator is not zero
(``defined_seeds`` says how many). In the hidden-mirror variant the oracle also quarantines the mirrors;
the systems are told only about the originals. ``mirror_aware`` is RGuard with near-duplicate mirror
detection (mirrors.py), reported next to the three systems with the detector's own hits and misses.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..db import Store
from ..jsontypes import JSONObject
from .history import RunInfo, current_run
from .memory_gen import VARIANTS, MemoryInstance, generate
from .memory_oracle import Truth, judge
from .memory_systems import SystemOutcome, run_delete_cascade, run_plain, run_rguard

METRICS = (
    "poisoned_served",
    "valid_preserved",
    "withdrawal_precision",
    "bad_decisions_missed",
    "decisions_labelled_correctly",
)
MAX_SEEDS = 500
Progress = Callable[[int, int, str], None]


def seed_metrics(inst: MemoryInstance, truth: Truth, out: SystemOutcome) -> dict[str, float | None]:
    """The five rates for one system on one seed (None where the denominator is zero)."""
    claims = {c["id"] for c in inst.scenario["claims"]}
    withdrawn = claims - out.served
    return {
        "poisoned_served": _rate(len(truth.poisoned & out.served), len(truth.poisoned)),
        "valid_preserved": _rate(len(truth.valid & out.served), len(truth.valid)),
        "withdrawal_precision": _rate(len(withdrawn & truth.poisoned), len(withdrawn)),
        "bad_decisions_missed": _rate(len(truth.fell_decisions & out.standing), len(truth.fell_decisions)),
        "decisions_labelled_correctly": _rate(
            sum(out.labels.get(d) == lab for d, lab in truth.labels.items()), len(truth.labels)
        ),
    }


def _rate(num: int, den: int) -> float | None:
    return num / den if den else None


def mean_row(system: str, per_seed: list[dict[str, float | None]]) -> JSONObject:
    row: JSONObject = {"system": system}
    defined: dict[str, int] = {}
    for m in METRICS:
        vals = [v for r in per_seed if (v := r[m]) is not None]
        row[m] = round(sum(vals) / len(vals), 4) if vals else None
        defined[m] = len(vals)
    row["defined_seeds"] = defined
    return row


@dataclass(frozen=True)
class MemoryBenchResult:
    seeds: int
    variant: str
    systems: list[JSONObject]
    mirror_aware: JSONObject
    per_seed: list[JSONObject]
    run: RunInfo
    seconds: float
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> JSONObject:
        """The CLI's JSON contract (``systems``, ``seeds``, ``variant``) plus mirror_aware, per_seed and run."""
        return {
            "systems": self.systems,
            "seeds": self.seeds,
            "variant": self.variant,
            "mirror_aware": self.mirror_aware,
            "per_seed": self.per_seed,
            "run": self.run.as_dict(),
            "seconds": round(self.seconds, 3),
            "notes": self.notes,
        }

    def history_record(self) -> JSONObject:
        return {
            **self.run.as_dict(),
            "kind": "memory",
            "seeds": self.seeds,
            "variant": self.variant,
            "systems": self.systems,
            "mirror_aware": self.mirror_aware,
            "seconds": round(self.seconds, 3),
        }


def run_memory_bench(
    store: Store, seeds: int = 20, variant: str = "base", *, progress: Progress | None = None
) -> MemoryBenchResult:
    """Generate ``seeds`` instances of ``variant`` and score plain, delete-cascade, rguard (and rguard+mirrors)."""
    from ..errors import InvalidInput

    if variant not in VARIANTS:
        raise InvalidInput(f"unknown variant {variant!r}; choose one of: {', '.join(VARIANTS)}")
    if not 1 <= seeds <= MAX_SEEDS:
        raise InvalidInput(f"--seeds must be between 1 and {MAX_SEEDS}, got {seeds}")
    t0 = time.perf_counter()
    run = current_run(None)
    rows: dict[str, list[dict[str, float | None]]] = {
        s: [] for s in ("plain", "delete-cascade", "rguard", "rguard+mirrors")
    }
    per_seed: list[JSONObject] = []
    detection = {"mirrors": 0, "detected": 0, "correct": 0, "false": 0}
    for seed in range(seeds):
        if progress:
            progress(seed, seeds, f"seed {seed}")
        inst = generate(seed, variant)
        truth = judge(inst.scenario, inst.truly_bad)
        outs = [
            run_plain(inst),
            run_delete_cascade(inst),
            run_rguard(store, inst),
            run_rguard(store, inst, detect=True),
        ]
        entry: JSONObject = {
            "seed": seed,
            "claims": len(inst.scenario["claims"]),
            "decisions": len(inst.scenario["decisions"]),
            "poisoned": len(truth.poisoned),
            "fell": len(truth.fell_decisions),
            "mirror_proofs": inst.mirror_proofs,
        }
        for out in outs:
            m = seed_metrics(inst, truth, out)
            rows[out.system].append(m)
            entry[out.system] = m
        found = {(m.mirror, m.original) for m in outs[-1].mirrors}
        hidden = set(inst.mirrors.items())
        detection["mirrors"] += len(hidden)
        detection["detected"] += len(found)
        detection["correct"] += len(found & hidden)
        detection["false"] += len(found - hidden)
        per_seed.append(entry)
    if progress:
        progress(seeds, seeds, "")
    systems = [mean_row(s, rows[s]) for s in ("plain", "delete-cascade", "rguard")]
    aware = {**mean_row("rguard+mirrors", rows["rguard+mirrors"]), "detection": detection}
    return MemoryBenchResult(seeds, variant, systems, aware, per_seed, run, time.perf_counter() - t0)

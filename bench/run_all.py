"""Run every benchmark in turn (``make bench``); each writes its JSON under bench/results/."""

from __future__ import annotations

import runpy
import sys

BENCHES = (
    "bench.ingest",
    "bench.guard",
    "bench.memory",
    "bench.views",
    "bench.agents",
    "bench.cli",
    "bench.ingest_incremental",
    "bench.replay_history",
    "bench.codemap",
)


def main() -> None:
    for name in BENCHES:
        print(f"== {name}", flush=True)
        sys.argv = [name]
        runpy.run_module(name, run_name="__main__")


if __name__ == "__main__":
    main()

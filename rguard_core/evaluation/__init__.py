"""Measuring RGuard: the guard against labelled diffs, the memory against baselines, and past runs."""

from .cases import CaseSet, GuardCase, check_applies, load_cases, parse_cases
from .guard_eval import GuardEvalResult, run_guard_eval
from .history import RunInfo, append_run, list_runs
from .memory_bench import MemoryBenchResult, run_memory_bench
from .why_eval import WhyEvalResult, load_why_cases, run_why_eval

__all__ = [
    "CaseSet",
    "GuardCase",
    "GuardEvalResult",
    "MemoryBenchResult",
    "RunInfo",
    "append_run",
    "check_applies",
    "list_runs",
    "load_cases",
    "parse_cases",
    "run_guard_eval",
    "run_memory_bench",
    "WhyEvalResult",
    "load_why_cases",
    "run_why_eval",
]

"""The Guard: warn before a change undoes an earlier decision (see README.md in this package)."""

from .feedback import record_feedback
from .model import Finding, GuardReport
from .run import run_guard

__all__ = ["Finding", "GuardReport", "record_feedback", "run_guard"]

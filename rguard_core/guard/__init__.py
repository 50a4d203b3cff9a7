"""The Guard: warn before a change undoes an earlier decision (see README.md in this package)."""

from .feedback import record_feedback
from .model import Finding, GuardReport
from .request import GuardRequest
from .run import run_guard, run_request

__all__ = ["Finding", "GuardReport", "GuardRequest", "record_feedback", "run_guard", "run_request"]

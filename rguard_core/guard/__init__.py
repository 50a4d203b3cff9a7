"""The Guard: warn before a change undoes an earlier decision (see README.md in this package)."""

from typing import TYPE_CHECKING

from .model import Finding, GuardReport
from .request import GuardRequest
from .run import run_guard, run_request

if TYPE_CHECKING:
    from .feedback import record_feedback

__all__ = ["Finding", "GuardReport", "GuardRequest", "record_feedback", "run_guard", "run_request"]


def __getattr__(name: str) -> object:
    # record_feedback writes through the memory engine; loading it only when feedback is given keeps a guard
    # call from importing the whole engine (PEP 562)
    if name == "record_feedback":
        from .feedback import record_feedback

        return record_feedback
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

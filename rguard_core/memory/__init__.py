"""Memory that can take things back: support, quarantine, corrections, what still stands, retrieval.

Every function takes a Graph (a memory workspace or a repository graph) except load_scenario (a Store).
"""

from .corrections import CorrectionPreview, CorrectionResult, apply_correction, preview_correction
from .incidents import IncidentResult, quarantine_source
from .loader import LoadResult, load_scenario
from .retrieve import RetrieveResult, retrieve
from .status import RecomputeResult, recompute, status
from .steps import StepReport

__all__ = [
    "CorrectionPreview", "CorrectionResult", "IncidentResult", "LoadResult", "RecomputeResult", "RetrieveResult",
    "StepReport", "apply_correction", "load_scenario", "preview_correction", "quarantine_source", "recompute",
    "retrieve", "status",
]

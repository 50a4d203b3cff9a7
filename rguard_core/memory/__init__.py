"""Memory that can take things back: support, quarantine, corrections, what still stands, retrieval.

Every function takes a Graph (a memory workspace or a repository graph) except load_scenario (a Store).

Semantics (engine.py; checked against the independent oracle in tests/memory_oracle.py):
- an observation (a claim with a source and a verbatim quote) holds while its source is not quarantined and
  the claim is not superseded; a superseded (corrected) claim never holds, not even through a justification;
- a justification holds when it has at least one premise and all premises hold; a claim or decision holds if
  it is a holding observation or any of its justifications holds; decisions hold only through justifications;
  support is the least fixed point grown from holding observations, so cycles never support themselves;
- quarantine of a source is one step: each decision that held before it and no longer holds is labelled
  ``compensation`` (an action was executed) or ``correction``; one that still holds but whose holding support
  included an observation of that source gets ``review``; labels only move up;
- a claim correction is one step too, with one difference the issue asks for: decisions that keep other
  support are listed (``decisions_keep_support``) but NOT flagged; decisions that lose their last support get
  ``correction``/``compensation``. The replacement claim (the reviewer's words as a ``human_correction``
  source) does not take the old claim's place as a premise: a corrected fact is a different fact;
- actions: ``active`` while their decision holds, else ``compensate`` if executed, else ``held``;
- independent sources of a holding claim: distinct lineage roots (``derived_from``) of the sources of the
  holding observations in its holding support; quarantine does not travel along ``derived_from`` (a claim
  falls with its own source only);
- retrieve never returns the text of a claim (or decision) that does not hold; it counts them as withheld;
- every step can be previewed (``preview_quarantine``, ``preview_correction``, ``preview_undo``) and undone
  (``undo``, ``lift_quarantine``) as a new audit entry; guard feedback is written here too (reviews.py), so
  there is one writer of corrections.

How it is stored and kept safe:
- every memory write is ONE compare-and-set query on the graph's ``MemoryState`` revision plus the revision
  of every node it changes (writes.py): atomic (a crash leaves all or nothing; tests kill the writer), no
  lost update under concurrent reviewers (tests run 16 at once), serializable (tests replay the oracle in
  commit order);
- a step reads and recomputes only the region downstream of the change (graphio.read_region): its reads do
  not grow with the graph (bench/memory.py);
- ``memory load`` validates the whole scenario first and replaces the workspace in one query; scenarios too
  big for one query are written in batches under a ``loading`` state that every command refuses.

Graph additions beyond docs/GRAPH_MODEL.md: ``MemoryState {id: 'memory', rev, state, epoch}``;
``Source.quarantined_by/quarantine_reason/quarantined_at``; ``Claim.superseded_by/confidence/confidence_kind``;
``Correction.replacement_id/source_id/statement/previous_statement/result``; ``Incident.result`` (JSON).
"""

from .corrections import CorrectionPreview, CorrectionResult, apply_correction, preview_correction
from .incidents import IncidentResult, QuarantinePreview, preview_quarantine, quarantine_source, quarantined_by
from .loader import LoadResult, load_scenario
from .recompute import RecomputeResult, recompute
from .retrieve import RetrieveResult, retrieve
from .status import status
from .steps import StepReport
from .undo import UndoPreview, UndoResult, lift_quarantine, preview_lift, preview_undo, undo

__all__ = [
    "CorrectionPreview",
    "CorrectionResult",
    "IncidentResult",
    "LoadResult",
    "QuarantinePreview",
    "RecomputeResult",
    "RetrieveResult",
    "StepReport",
    "UndoPreview",
    "UndoResult",
    "apply_correction",
    "lift_quarantine",
    "load_scenario",
    "preview_correction",
    "preview_lift",
    "preview_quarantine",
    "preview_undo",
    "quarantine_source",
    "quarantined_by",
    "recompute",
    "retrieve",
    "status",
    "undo",
]

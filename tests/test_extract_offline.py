"""The offline extractor's rejected alternatives: the clause that names what was rejected, verbatim."""

from __future__ import annotations

from rguard_core.ingest.extract.base import SourceDoc
from rguard_core.ingest.extract.offline import OfflineExtractor

# starlette #3307's body, as recorded in the snapshot (its summary sentence)
STARLETTE_3307 = (
    "Clamp oversized suffix ranges in `FileResponse`\n\n## Summary\n\nClamp suffix byte ranges whose requested "
    "length is larger than the file size so FileResponse returns the full representation instead of treating the "
    "range as unsatisfiable.\n"
)


def _alternatives(text: str, title: str) -> list[str]:
    doc = SourceDoc(id="pr:1", kind="pr", title=title, text=text, role="decision")
    return [a.quote for a in OfflineExtractor().extract(doc).alternatives]


def test_the_change_s_own_fix_is_not_listed_as_rejected() -> None:
    alts = _alternatives(STARLETTE_3307, "Clamp oversized suffix ranges in `FileResponse`")
    assert alts == ["instead of treating the range as unsatisfiable"]
    assert all(a in STARLETTE_3307 for a in alts)  # verbatim


def test_a_leading_contrast_keeps_what_comes_before_the_comma() -> None:
    text = "Per-tenant locks\n\nInstead of a global lock, we use a per-tenant lock.\n"
    assert _alternatives(text, "Per-tenant locks") == ["Instead of a global lock"]


def test_a_reason_after_the_contrast_is_not_part_of_the_alternative() -> None:
    text = "Locks\n\nWe use a per-tenant lock rather than a global lock, because a global one serialises tenants.\n"
    assert _alternatives(text, "Locks") == ["rather than a global lock"]


def test_other_cues_keep_the_whole_sentence() -> None:
    text = "Cache\n\nWe considered Redis but rejected it for the extra service.\n"
    assert _alternatives(text, "Cache") == ["We considered Redis but rejected it for the extra service."]

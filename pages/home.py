"""Overview: what RGuard holds for the selected repository."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rguard_core.overview import repo_overview
from ui.common import get_store, guarded, require_repo

st.title("RGuard")
st.caption("Decision memory for a code repository, with receipts: every decision and the claims it rests on, "
           "quoted verbatim from the PRs, issues, reviews and ADRs they came from.")

repo = require_repo()
if repo:
    ov = guarded(repo_overview, get_store(), repo)
    if ov is not None:
        st.subheader(repo)
        if ov.ingest_state and ov.ingest_state != "complete":
            st.warning("The last ingest of this repository did not finish; run it again (ingest is idempotent).")
        cols = st.columns(6)
        for col, label in zip(cols, ("PR", "Issue", "Doc", "Decision", "Claim", "Person"), strict=True):
            col.metric({"Doc": "ADRs/docs", "Person": "People"}.get(label, label + "s"), ov.counts.get(label, 0))
        st.caption(f"Last ingest: {ov.ingested_at or 'never'} from `{ov.ingest_source or '-'}`")
        st.dataframe(pd.DataFrame(sorted(ov.counts.items()), columns=["node", "count"]), hide_index=True)
        st.markdown("Next: **Guard** a diff against these decisions, explore the **Decision graph**, or review "
                    "**Corrections**.")

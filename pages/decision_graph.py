"""Decision graph: explore Sources → Claims → Decisions → Actions (filled in by its own issue)."""

import streamlit as st

from pages.common import require_repo

st.title("Decision graph")
if require_repo():
    st.info("The interactive decision graph is not built yet. Use the CLI `python -m rguard_core export --repo R` "
            "to inspect the graph meanwhile.")

"""Guard: Guard a diff against earlier decisions (this page is filled in by its own issue)."""

import streamlit as st

from ui.common import require_repo

st.title("Guard")
if require_repo():
    st.info("This page is not built yet.")

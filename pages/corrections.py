"""Corrections: Preview and apply corrections, quarantine sources (this page is filled in by its own issue)."""

import streamlit as st

from pages.common import require_repo

st.title("Corrections")
if require_repo():
    st.info("This page is not built yet.")

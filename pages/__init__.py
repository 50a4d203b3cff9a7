"""Streamlit pages: layout and widgets only; every graph read or write is a rguard_core call."""

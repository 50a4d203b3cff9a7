"""Streamlit helpers shared by app.py and the pages (kept out of pages/, which holds pages only)."""

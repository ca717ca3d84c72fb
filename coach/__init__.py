"""Rehearse: the application core (no Streamlit outside coach.ui)."""

__version__ = "0.1.0"

"""Streamlit pages and widgets. Importing this package makes every Markdown body and label the
app renders unable to load a remote image (see coach.ui.safe_markdown)."""

from coach.ui import safe_markdown

safe_markdown.install()

"""No remote resource is loaded from text the app renders: Markdown image syntax (`![alt](url)`,
`![alt][ref]`) is neutralised in every body and label handed to Streamlit, so a persona line
worded by a (prompt-injected) model, a card or a persona cannot make the browser fetch a URL.
HTML is never rendered (no `unsafe_allow_html`), and links load nothing until clicked.

`install()` wraps the DeltaGenerator methods that render Markdown (and `st.` aliases bound
to them at import); it is idempotent and runs when `coach.ui` is imported."""

from __future__ import annotations

import functools

# methods whose first argument (or `body` / `label`) is rendered as Markdown
METHODS = ("markdown", "caption", "info", "success", "warning", "error", "toast", "expander", "button",
           "download_button", "link_button", "popover", "checkbox", "toggle", "radio", "selectbox", "text_area",
           "text_input", "subheader", "header", "title")


def no_images(text):
    """`text` with every `![` escaped (`!\\[`): Markdown then shows it as text, never an image."""
    return text.replace("![", "!\\[") if isinstance(text, str) else text


def _wrap(method):
    if getattr(method, "_no_images", False):
        return method

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if args:
            args = (no_images(args[0]), *args[1:])
        for name in ("body", "label"):
            if name in kwargs:
                kwargs[name] = no_images(kwargs[name])
        return method(self, *args, **kwargs)

    wrapper._no_images = True
    return wrapper


def install() -> None:
    import streamlit as st
    from streamlit.delta_generator import DeltaGenerator

    for name in METHODS:
        method = getattr(DeltaGenerator, name, None)
        if method is not None:
            setattr(DeltaGenerator, name, _wrap(method))
    main = getattr(st, "_main", None)
    if main is None:
        return
    for name in METHODS:  # st.markdown & co. are methods of the main container bound at import
        if getattr(getattr(st, name, None), "__self__", None) is main:
            setattr(st, name, getattr(main, name))

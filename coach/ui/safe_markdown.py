"""No remote resource is loaded from text the app renders: Markdown image syntax (`![alt](url)`,
`![alt][ref]`) is neutralised in every body, label, tooltip, tab label, option and table cell
handed to Streamlit, so a persona line worded by a (prompt-injected) model, a card, a persona or a
learner cannot make the browser fetch a URL. HTML is never rendered (no `unsafe_allow_html`), and
links load nothing until clicked.

`install()` wraps the DeltaGenerator methods that render Markdown (and `st.` aliases bound
to them at import); it is idempotent and runs when `coach.ui` is imported. It is the one safe
renderer: pages call Streamlit as usual and never escape images themselves."""

from __future__ import annotations

import functools

# methods whose first argument (or `body` / `label`) is rendered as Markdown
METHODS = ("markdown", "caption", "info", "success", "warning", "error", "toast", "expander", "button",
           "download_button", "link_button", "popover", "checkbox", "toggle", "radio", "selectbox", "text_area",
           "text_input", "subheader", "header", "title", "metric", "page_link", "multiselect", "number_input",
           "slider", "select_slider", "form_submit_button", "pills", "segmented_control", "audio_input",
           "file_uploader", "date_input", "time_input", "color_picker", "write", "tabs", "table", "status")
# keyword arguments rendered as Markdown wherever they appear (tooltips, metric values, captions)
TEXT_KWARGS = ("body", "label", "help", "value", "delta", "captions", "tabs", "data")
# methods whose `value` is a widget's value, not rendered text: left as given
VALUE_IS_INPUT = frozenset({"text_area", "text_input", "number_input", "slider", "select_slider", "checkbox",
                            "toggle", "date_input", "time_input", "color_picker"})
# methods whose options are shown through `format_func` (their return value stays the option)
WITH_OPTIONS = frozenset({"radio", "selectbox", "multiselect", "pills", "segmented_control", "select_slider"})


def no_images(text):
    """`text` with every `![` escaped (`!\\[`): Markdown then shows it as text, never an image.
    Lists, tuples, dicts and data frames are cleaned cell by cell; anything else is returned."""
    if isinstance(text, str):
        return text.replace("![", "!\\[")
    if type(text) in (list, tuple):
        return type(text)(no_images(item) for item in text)
    if isinstance(text, dict):
        return {key: no_images(value) for key, value in text.items()}
    frame = _as_frame(text)
    if frame is not None:
        return frame.map(no_images).rename(columns=no_images, index=no_images)
    return text


def _as_frame(value):
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - streamlit depends on pandas
        return None
    if isinstance(value, pd.Series):
        return value.to_frame()
    return value if isinstance(value, pd.DataFrame) else None


def _wrap(name, method):
    if getattr(method, "_no_images", False):
        return method
    input_value = name in VALUE_IS_INPUT

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if args:
            args = tuple(no_images(a) for a in args) if name == "write" else (no_images(args[0]), *args[1:])
        for key in TEXT_KWARGS:
            if key in kwargs and not (key == "value" and input_value):
                kwargs[key] = no_images(kwargs[key])
        if name == "metric" and len(args) > 1:  # metric(label, value, delta)
            args = (args[0], *(no_images(a) for a in args[1:3]), *args[3:])
        if name in WITH_OPTIONS:
            shown = kwargs.get("format_func", str)
            kwargs["format_func"] = lambda option, shown=shown: no_images(shown(option))
        return method(self, *args, **kwargs)

    wrapper._no_images = True
    return wrapper


def install() -> None:
    import streamlit as st
    from streamlit.delta_generator import DeltaGenerator

    for name in METHODS:
        method = getattr(DeltaGenerator, name, None)
        if method is not None:
            setattr(DeltaGenerator, name, _wrap(name, method))
    main = getattr(st, "_main", None)
    if main is None:
        return
    for name in METHODS:  # st.markdown & co. are methods of the main container bound at import
        if getattr(getattr(st, name, None), "__self__", None) is main:
            setattr(st, name, getattr(main, name))

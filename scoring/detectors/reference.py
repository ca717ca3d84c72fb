"""content/README.md's detector reference, made from the registry: each detector's parameters
(meaning, kind and default, from its `Params` fields) and its examples, and the grammar readings
a `readings` parameter may name. `cog` writes them into the README, and
`tests/test_generated_docs.py` fails when the README differs."""

from __future__ import annotations

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from scoring.detectors import REGISTRY


def _default(info) -> str:
    extra = info.json_schema_extra or {}
    if extra.get("shown_default"):
        return str(extra["shown_default"])
    if info.default_factory is not None:
        return "empty"
    if info.default is PydanticUndefined:
        return "— (required)"
    if info.default is None:
        return "none"
    if info.default == "":
        return "empty"
    return f"`{str(info.default).lower() if isinstance(info.default, bool) else info.default}`"


def _rows(model: type[BaseModel], prefix: str = "") -> list[str]:
    rows = []
    for name, info in model.model_fields.items():
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        rows.append(f"| `{prefix}{name}` | {extra.get('kind', '')} | {_default(info)} | {info.description or ''} |")
        args = getattr(info.annotation, "__args__", ())
        nested = next((a for a in args if isinstance(a, type) and issubclass(a, BaseModel)), None)
        if nested is not None:
            rows += _rows(nested, f"{prefix}{name}[].")
    return rows


def params_table(detector_type: str) -> str:
    """The parameters of one detector as a Markdown table ("no parameters" when it has none)."""
    rows = _rows(REGISTRY[detector_type].Params)
    if not rows:
        return "This detector takes no parameters."
    return "\n".join(["| param | kind | default | meaning |", "|---|---|---|---|", *rows])


def examples(detector_type: str) -> str:
    """Its declared examples: what meets it and what does not, with the params they need."""
    lines = []
    for example in REGISTRY[detector_type].examples:
        given = f" (with `{example.params}`)" if example.params else ""
        lines.append(f"- meets{given}: " + "; ".join(f"“{t}”" for t in example.met))
        lines.append(f"- does not meet{given}: " + "; ".join(f"“{t}”" for t in example.not_met))
    return "\n".join(lines)


def reference(detector_type: str) -> str:
    return params_table(detector_type) + "\n\n" + examples(detector_type)


def readings_table() -> str:
    """The grammar readings (scoring.readings.READINGS) with what they are for and one example."""
    from scoring.readings import READINGS

    rows = ["| reading | what it is | for example |", "|---|---|---|"]
    for name, reading in sorted(READINGS.items()):
        rows.append(f"| `{name}` | {reading.description} | “{reading.match[0]}” |")
    return "\n".join(rows)

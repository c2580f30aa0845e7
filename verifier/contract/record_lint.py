"""Lint rules for the ``record:`` block: settings that cannot do what they say.

The block's shape (modes, paths, a positive ``max_bytes``, no unknown key) is the
model's to check; these are the combinations that are valid but mislead.
"""

from __future__ import annotations

from typing import Any

from verifier.contract.judge_lint import Report
from verifier.fieldpath import paths_overlap


def lint_record(data: dict[str, Any], report: Report) -> None:
    """Reports misleading settings of the contract's ``record:`` block, if it has one."""
    record = data.get("record")
    if not isinstance(record, dict):
        return
    content = record.get("content", "full")
    if content in ("hashes", "none") and "max_bytes" in record:
        report(
            ("record", "max_bytes"),
            f"record.max_bytes has no effect with content: {content} (no content is stored)",
            severity="warning",
        )
    redact = record.get("redact")
    for index, path in enumerate(redact if isinstance(redact, list) else ()):
        foreign = _foreign_syntax(path) if isinstance(path, str) else None
        if foreign is not None:
            report(
                ("record", "redact", index),
                f"record.redact: {path!r} is not a field path: {foreign} (keys and indexes "
                "joined by dots, `*` for every one: items.0.name, items.*.name); as written "
                "it would redact nothing",
            )
        elif isinstance(path, str) and paths_overlap(path, "id"):
            report(
                ("record", "redact", index),
                f"record.redact: {path!r} covers the case id, which every row keeps as "
                "its case_id whatever is redacted; give cases ids that are not secret",
                severity="warning",
            )


_BRACKETS = frozenset("[]")
_QUOTES = frozenset("'\"")


def _foreign_syntax(path: str) -> str | None:
    """What of another path language (JSONPath, jq) ``path`` is written in, if any.

    Such a path is a valid key as field paths read it (``output[`` names a key of that
    name) and so matches nothing in a case: for a claim that is a failing result naming
    the path, but a redaction that matches nothing keeps the value it was meant to hide,
    silently.
    """
    segments = path.split(".")
    if segments[0] in ("$", "@"):
        return f"a path starts at a key of the case, not at {segments[0]!r}"
    if any(_BRACKETS & set(segment) for segment in segments):
        return "brackets are not path syntax"
    if any(_QUOTES & set(segment) for segment in segments):
        return "quotes are not path syntax"
    return None

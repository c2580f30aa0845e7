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
        if isinstance(path, str) and paths_overlap(path, "id"):
            report(
                ("record", "redact", index),
                f"record.redact: {path!r} covers the case id, which every row keeps as "
                "its case_id whatever is redacted; give cases ids that are not secret",
                severity="warning",
            )

"""Moving rows out of and into a store: export (JSONL, Parquet), import and purge.

Import from here; the submodules' other names may change. Names load lazily.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier._internal.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from verifier.transfer._format import exported_form as exported_form
    from verifier.transfer.export import ExportSummary as ExportSummary
    from verifier.transfer.export import export_jsonl as export_jsonl
    from verifier.transfer.export import export_parquet as export_parquet
    from verifier.transfer.importer import ExportRefused as ExportRefused
    from verifier.transfer.importer import ImportSummary as ImportSummary
    from verifier.transfer.importer import import_jsonl as import_jsonl

_EXPORTS = {
    "ExportSummary": "verifier.transfer.export",
    "export_jsonl": "verifier.transfer.export",
    "export_parquet": "verifier.transfer.export",
    "ExportRefused": "verifier.transfer.importer",
    "ImportSummary": "verifier.transfer.importer",
    "import_jsonl": "verifier.transfer.importer",
    "exported_form": "verifier.transfer._format",
}

__all__ = sorted(_EXPORTS)


if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)

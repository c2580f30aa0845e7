"""The JSONL export format (``verifier.gap-export.v1``), shared by export and import.

An export is one JSON object a line, told apart by ``schema``:

1. a header (``verifier.gap-export.v1``): the scope (``store`` or one ``run``);
2. the rows (``verifier.gap-row.v1``) in seq order, each exactly the stored body
   with ``row_hash`` spliced in before its closing brace, so the body that was hashed
   is recovered byte for byte and every hash re-verifies; before the first row that
   refers to a case content, that content (``verifier.gap-export.content.v1``: its
   ``sha256`` and its stored ``body`` as a string, which must hash to it);
3. the contracts the runs checked (``verifier.gap-export.contract.v1``);
4. the runs (``verifier.gap-export.run.v1``), with how many rows the export holds of
   each and the last one's hash;
5. an end line (``verifier.gap-export.end.v1``) with the totals, so a file cut short
   is told from a complete one.

Run and contract lines follow the rows so that a run that ends while it is exported
is described as it ended; the import reads the file twice anyway (see ``importer``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from verifier._internal.canonical import canonical_json
from verifier.gaps.row_fields import CHAIN_FIELDS

EXPORT_SCHEMA = "verifier.gap-export.v1"
CONTENT_SCHEMA = "verifier.gap-export.content.v1"
CONTRACT_SCHEMA = "verifier.gap-export.contract.v1"
RUN_SCHEMA = "verifier.gap-export.run.v1"
END_SCHEMA = "verifier.gap-export.end.v1"

RESEALED_KEY = "resealed_from"
"""Evidence key of an imported row: its chain positions in the stores it came from,
the last one the store it was exported from (see ``resealed_evidence``)."""

_HASH_HEAD = b',"row_hash":"'
_HASH_TAIL = b'"}'
_SUFFIX = len(_HASH_HEAD) + 64 + len(_HASH_TAIL)
_HEX = frozenset(b"0123456789abcdef")


def header_scope(header: Mapping[str, Any]) -> str | None:
    """The run a header says the export holds (``None``: the whole store), once its
    ``scope`` and ``run_id`` agree.

    The two decide how strictly the rows are checked (a store export holds every row
    from the first, each with its seal; a run export the rows of one run), so a header
    whose scope was changed must not pass for the other kind.

    Raises:
        ValueError: An unknown scope, a run export naming no run, or a store export
            naming one; the message says which.
    """
    scope, run_id = header.get("scope"), header.get("run_id")
    if scope == "store":
        if run_id is not None:
            raise ValueError(f"a store export names no run, but its header names {run_id!r}")
        return None
    if scope == "run":
        if not isinstance(run_id, str) or not run_id:
            raise ValueError("a run export names its run, but its header's run_id is not one")
        return run_id
    raise ValueError(f"unknown export scope {scope!r}")


def row_line(body: str, row_hash: str) -> str:
    """The export line of a stored row: its body with ``row_hash`` added last."""
    return f'{body[:-1]},"row_hash":"{row_hash}"}}'


def split_row_line(line: bytes) -> tuple[bytes, str] | None:
    """The hashed body and ``row_hash`` of a line as ``row_line`` wrote it, else None.

    Args:
        line: One line without its line ending.
    """
    if len(line) <= _SUFFIX + 2 or not line.endswith(_HASH_TAIL):
        return None
    tail = line[-_SUFFIX:]
    digest = tail[len(_HASH_HEAD) : -len(_HASH_TAIL)]
    if not tail.startswith(_HASH_HEAD) or not _HEX.issuperset(digest):
        return None
    return line[:-_SUFFIX] + b"}", digest.decode("ascii")


def canonical_body(row: Mapping[str, Any]) -> bytes:
    """The body a row was hashed over, rebuilt from its parsed fields (``row_hash``
    left out): how a line rewritten by another tool is still verified."""
    return canonical_json({k: v for k, v in row.items() if k != "row_hash"})


def resealed_evidence(row: Mapping[str, Any]) -> dict[str, Any]:
    """The evidence of a row about to be re-sealed into another chain: the same, plus
    where the row stood in the chain it leaves (seq, prev_hash, row_hash)."""
    evidence = dict(row["evidence"])
    hop = {name: row[name] for name in CHAIN_FIELDS}
    evidence[RESEALED_KEY] = [*evidence.get(RESEALED_KEY, []), hop]
    return evidence


def exported_form(row: Mapping[str, Any]) -> tuple[bytes, str, str] | None:
    """The row as it stood before its last import: (body, prev_hash, row_hash).

    Verify with ``verify_link(prev_hash, body, row_hash)``: it holds exactly when the
    imported row is the exported one, moved. ``None`` for a row never imported.
    """
    evidence = row.get("evidence")
    hops = evidence.get(RESEALED_KEY) if isinstance(evidence, Mapping) else None
    if not isinstance(hops, list) or not hops or not isinstance(hops[-1], Mapping):
        return None
    hop = hops[-1]
    before = dict(evidence)  # type: ignore[arg-type]  # a Mapping, checked above
    if len(hops) > 1:
        before[RESEALED_KEY] = hops[:-1]
    else:
        del before[RESEALED_KEY]
    original = {k: v for k, v in row.items() if k != "row_hash"}
    original.update(evidence=before, seq=hop.get("seq"), prev_hash=hop.get("prev_hash"))
    return canonical_json(original), str(hop.get("prev_hash")), str(hop.get("row_hash"))

"""The one definition of a gap row's fields, from which every other list derives.

``ROW_FIELDS`` names each field of ``verifier.gap-row.v1`` once, with its type, who
sets it (the draft or the chain), whether rows written before it existed may lack it,
and whether the stores keep a copy of it in a column of their ``rows`` table beside
the body. The pydantic model (``verifier.gaps.row.GapRow``, and through it the JSON
Schema), the chain's draft keys, the stores' table and column order, the audit's
column check and the Parquet export all take their field lists from here; a test
checks that each of them, and the tables of real databases, agree with it.

Kept apart from ``verifier.gaps.row`` because the hot paths (sealing, storing) import
these lists, and that module imports pydantic, which they otherwise never load. Every
list is built once, at import.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ROW_SCHEMA = "verifier.gap-row.v1"
"""The ``schema`` value of every gap row: its format and version."""

FieldType = Literal["text", "integer", "number", "object"]
"""A field's JSON type: ``number`` is a float, ``object`` a JSON object."""


@dataclass(frozen=True, slots=True)
class StoreColumn:
    """A column of the stores' ``rows`` table.

    Attributes:
        position: Its place in the table, from 0 (the column order of every
            INSERT, COPY and SELECT of rows, and of ``SealedRow``).
        sqlite: Its type and constraints in the SQLite store.
        postgres: Its type and constraints in the PostgreSQL store.
        binary: Its PostgreSQL type name for binary COPY.
    """

    position: int
    sqlite: str
    postgres: str
    binary: str


@dataclass(frozen=True, slots=True)
class RowField:
    """One field of a gap row.

    Attributes:
        name: The key in the row's JSON object.
        type: Its JSON type.
        nullable: Whether the value may be null.
        description: What it means, as the JSON Schema says it.
        chain: Whether sealing assigns it (a draft has every other field).
        column: Where the stores keep a copy of it beside the body, or ``None``.
        legacy_optional: Whether rows written before the field existed lack it
            (they stay valid and are sealed as they were).
        in_body: Whether it is part of the hashed body (only ``row_hash``, the hash
            over the body, is not).
    """

    name: str
    type: FieldType
    nullable: bool
    description: str
    chain: bool = False
    column: StoreColumn | None = None
    legacy_optional: bool = False
    in_body: bool = True


def _text(position: int) -> StoreColumn:
    return StoreColumn(position, "TEXT NOT NULL", "TEXT NOT NULL", "text")


# Stored formats depend on these: a column added or moved needs a store migration,
# and a field added changes what is hashed. In the order of the JSON Schema.
ROW_FIELDS: tuple[RowField, ...] = (
    RowField("schema", "text", False, "Format and version of this row."),
    RowField("row_id", "text", False, "Unique id of the row within its store.", column=_text(1)),
    RowField("run_id", "text", False, "The run that produced the row.", column=_text(2)),
    RowField(
        "seq",
        "integer",
        False,
        "Position in the store's hash chain, from 1, without gaps.",
        chain=True,
        column=StoreColumn(0, "INTEGER PRIMARY KEY", "BIGINT PRIMARY KEY", "int8"),
    ),
    RowField(
        "recorded_at",
        "text",
        False,
        "When the result was recorded: ISO-8601 in UTC (Z or +00:00).",
        column=_text(8),
    ),
    RowField("contract_id", "text", False, "Id of the contract whose claim was checked."),
    RowField("contract_version", "integer", False, "The contract's version as its author set it."),
    RowField("contract_sha256", "text", False, "SHA-256 (hex) of the contract file's bytes."),
    RowField(
        "case_id",
        "text",
        False,
        "Id of the case the claim was checked against.",
        column=_text(3),
    ),
    RowField(
        "content_sha256",
        "text",
        True,
        "SHA-256 (hex) of the case's content record: what the claim was checked "
        "against (input, output, fields, a system's output and runs, a baseline), stored once "
        "per distinct content. Null or absent when no content was recorded (rows written "
        "before the record existed, an unreadable line, a contract recording none).",
        legacy_optional=True,
    ),
    RowField("claim_id", "text", False, "Id of the claim within the contract.", column=_text(4)),
    RowField(
        "kind",
        "text",
        False,
        "Shape of the claim: rubric, judge, comparative, or imported from another tool.",
        column=_text(5),
    ),
    RowField(
        "status",
        "text",
        False,
        "pass or fail is a verdict; error means no verdict could be had; "
        "skipped means the claim was not checked (a gate before it failed).",
        column=_text(6),
    ),
    RowField(
        "score",
        "number",
        True,
        "Score in [0, 1], or null when there is none (errors).",
        column=StoreColumn(7, "REAL", "DOUBLE PRECISION", "float8"),
    ),
    RowField("reason", "text", False, "One sentence a person understands."),
    RowField(
        "evidence",
        "object",
        False,
        "What a reviewer needs: matched spans, parse errors, the judge triple, "
        "verdict, usage and latency.",
    ),
    RowField(
        "prev_hash",
        "text",
        False,
        "row_hash of the previous row in the store (64 zeros for the first).",
        chain=True,
        column=_text(10),
    ),
    RowField(
        "row_hash",
        "text",
        False,
        "sha256(prev_hash + canonical JSON of this row without row_hash), hex.",
        chain=True,
        column=_text(11),
        in_body=False,
    ),
)

FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in ROW_FIELDS)
"""Every field, in the order of the JSON Schema."""

FIELDS_BY_NAME: dict[str, RowField] = {f.name: f for f in ROW_FIELDS}

CHAIN_FIELDS: tuple[str, ...] = tuple(f.name for f in ROW_FIELDS if f.chain)
"""The fields sealing assigns: ``seq``, ``prev_hash``, ``row_hash``."""

DRAFT_FIELDS: frozenset[str] = frozenset(f.name for f in ROW_FIELDS if not f.chain)
"""Keys of a draft: every gap-row field except those the chain assigns."""

DRAFT_ORDER: tuple[str, ...] = tuple(f.name for f in ROW_FIELDS if not f.chain)
"""``DRAFT_FIELDS`` in the order of the JSON Schema, the order the runner writes them
(sealing checks a draft in this order first: it is the cheaper comparison)."""

LEGACY_DRAFT_FIELDS: frozenset[str] = DRAFT_FIELDS - {
    f.name for f in ROW_FIELDS if f.legacy_optional
}
"""Keys of a draft of a row from before the content record (an imported old export):
sealed as it was, without ``content_sha256``."""

BODY_COLUMN = "body"
"""The stores' column holding the exact canonical JSON that was hashed."""
_BODY = (BODY_COLUMN, StoreColumn(9, "TEXT NOT NULL", "TEXT NOT NULL", "text"))

_TABLE: tuple[tuple[str, StoreColumn], ...] = tuple(
    sorted(
        [(f.name, f.column) for f in ROW_FIELDS if f.column is not None] + [_BODY],
        key=lambda named: named[1].position,
    )
)

STORE_COLUMNS: tuple[str, ...] = tuple(name for name, _ in _TABLE)
"""The columns of the stores' ``rows`` table, in order (``SealedRow``'s fields)."""

STORE_COLUMN_LIST = ", ".join(STORE_COLUMNS)
"""``STORE_COLUMNS`` as SQL, for INSERT, COPY and SELECT."""

COPIED_COLUMNS: tuple[str, ...] = tuple(
    name for name, _ in _TABLE if name != BODY_COLUMN and FIELDS_BY_NAME[name].in_body
)
"""The columns that copy a body value, which the audit compares with the body."""

POSTGRES_BINARY_TYPES: tuple[str, ...] = tuple(column.binary for _, column in _TABLE)
"""The PostgreSQL types of ``STORE_COLUMNS`` for binary COPY."""


def rows_table_columns(dialect: Literal["sqlite", "postgres"]) -> str:
    """The column definitions of the ``rows`` table, for its CREATE TABLE statement."""
    return ", ".join(
        f"{name} {column.sqlite if dialect == 'sqlite' else column.postgres}"
        for name, column in _TABLE
    )

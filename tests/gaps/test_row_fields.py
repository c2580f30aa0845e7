"""Every place that lists a gap row's fields agrees with the one definition."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import orjson
import pytest

from tests.engine.test_runner import run
from tests.gaps import _support
from tests.gaps._backends import Backend, SqliteBackend
from verifier.analyses.audit import COPIED_COLUMNS as AUDITED_COLUMNS
from verifier.gaps.chain import SealedRow, seal
from verifier.gaps.row import GapRow, gap_row_json_schema
from verifier.gaps.row_fields import (
    CHAIN_FIELDS,
    COPIED_COLUMNS,
    DRAFT_FIELDS,
    FIELD_NAMES,
    FIELDS_BY_NAME,
    LEGACY_DRAFT_FIELDS,
    ROW_FIELDS,
    ROW_SCHEMA,
    STORE_COLUMNS,
)
from verifier.gaps.sqlite.store import SqliteStore
from verifier.transfer.export import export_parquet

_JSON_TYPES = {"text": "string", "integer": "integer", "number": "number", "object": "object"}


def _python_type(annotation: Any) -> tuple[type, bool]:
    """The JSON-relevant Python type of a model annotation, and whether it is nullable."""
    args = get_args(annotation)
    nullable = get_origin(annotation) is types.UnionType and type(None) in args
    if nullable:
        (annotation,) = [a for a in args if a is not type(None)]
    if get_origin(annotation) is Literal:
        return type(get_args(annotation)[0]), nullable
    if get_origin(annotation) is dict:
        return dict, nullable
    return annotation, nullable


def test_the_model_has_the_definitions_fields_in_order() -> None:
    fields = GapRow.model_fields
    assert [f.alias or name for name, f in fields.items()] == list(FIELD_NAMES)
    assert get_args(fields["schema_"].annotation) == (ROW_SCHEMA,)
    python = {"text": str, "integer": int, "number": float, "object": dict}
    for (name, info), row_field in zip(fields.items(), ROW_FIELDS, strict=True):
        kind, nullable = _python_type(info.annotation)
        if row_field.name not in ("kind", "status"):  # Literal aliases of str
            assert kind is python[row_field.type], name
        assert nullable == row_field.nullable, name
        assert info.description == row_field.description, name
        assert info.is_required() == (not row_field.legacy_optional), name


def test_the_json_schema_derives_from_the_definition() -> None:
    schema = gap_row_json_schema()
    assert list(schema["properties"]) == list(FIELD_NAMES)
    assert schema["required"] == [f.name for f in ROW_FIELDS if not f.legacy_optional]
    for row_field in ROW_FIELDS:
        prop = schema["properties"][row_field.name]
        assert prop["description"] == row_field.description
        found = {p.get("type") for p in prop.get("anyOf", [prop])}
        if row_field.name not in ("kind", "status"):  # enums by $ref
            assert _JSON_TYPES[row_field.type] in found, row_field.name
        assert ("null" in found) == row_field.nullable, row_field.name


def test_the_chain_and_draft_lists_split_the_fields() -> None:
    assert CHAIN_FIELDS == ("seq", "prev_hash", "row_hash")
    assert DRAFT_FIELDS | set(CHAIN_FIELDS) == set(FIELD_NAMES)
    assert not DRAFT_FIELDS & set(CHAIN_FIELDS)
    assert {"content_sha256"} == DRAFT_FIELDS - LEGACY_DRAFT_FIELDS
    assert set(_support.draft(1)) == DRAFT_FIELDS


def test_a_sealed_row_copies_the_column_values_of_its_body() -> None:
    assert SealedRow._fields == STORE_COLUMNS
    assert AUDITED_COLUMNS == COPIED_COLUMNS
    assert tuple(c for c in STORE_COLUMNS if c not in ("body", "row_hash")) == COPIED_COLUMNS
    for sealed in seal([_support.draft(n) for n in (1, 4)], 0, "0" * 64):
        body = orjson.loads(sealed.body)
        assert set(body) == set(FIELD_NAMES) - {"row_hash"}
        for name in COPIED_COLUMNS:
            assert getattr(sealed, name) == body[name], name


def _table_columns(backend: Backend) -> list[tuple[str, str, bool]]:
    """(name, declared type, nullable) of the ``rows`` table, read from the database."""
    if backend.name == "sqlite":
        found = backend.query("PRAGMA table_info(rows)")
        return [(name, kind, not (notnull or key)) for _, name, kind, notnull, _, key in found]
    found = backend.query(
        "SELECT column_name, upper(data_type), is_nullable = 'YES' FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND table_name = 'rows' ORDER BY ordinal_position"
    )
    return [(name, kind, nullable) for name, kind, nullable in found]


def test_the_stores_tables_have_the_derived_columns(store_backend: Backend) -> None:
    with store_backend.open():
        pass
    columns = _table_columns(store_backend)
    assert [name for name, _, _ in columns] == list(STORE_COLUMNS)
    for name, declared, nullable in columns:
        if name == "body":
            continue
        column = FIELDS_BY_NAME[name].column
        assert column is not None
        spec = column.sqlite if store_backend.name == "sqlite" else column.postgres
        assert spec.startswith(declared), name
        assert nullable == FIELDS_BY_NAME[name].nullable, name


def test_a_store_reads_back_what_it_sealed(store_backend: Backend) -> None:
    with store_backend.open() as store:
        _support.fill(store, 5)
        rows = list(store.iter_rows())
    assert len(rows) == 5
    for row in rows:
        body = orjson.loads(row.body)
        assert [getattr(row, n) for n in COPIED_COLUMNS] == [body[n] for n in COPIED_COLUMNS]


def test_the_parquet_export_has_every_field_content_sha256_included(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    sha = "c" * 64
    with SqliteStore(tmp_path / "gaps.db") as store:
        _support.begin(store)
        store.append([_support.draft(1, content_sha256=sha), _support.draft(2)])
        _support.finish(store)
        export_parquet(store, tmp_path / "rows.parquet", batch_rows=10)
    table = pq.read_table(tmp_path / "rows.parquet")
    assert table.column_names == list(FIELD_NAMES)
    assert str(table.schema.field("content_sha256").type) == "string"
    assert [r["content_sha256"] for r in table.to_pylist()] == [sha, None]


def test_a_run_writes_rows_of_exactly_the_defined_fields(tmp_path: Path, write_contract) -> None:  # type: ignore[no-untyped-def]
    cases = [{"id": "c1", "output": "hello"}, {"id": "c2", "output": "bye"}]
    _, _, rows = run(tmp_path, write_contract, cases)
    assert rows
    for row in rows:
        assert list(orjson.loads(row.body)) == sorted(set(FIELD_NAMES) - {"row_hash"})


def test_a_new_sqlite_store_records_the_rows_table_as_it_always_did(tmp_path: Path) -> None:
    # Derived from the definition, the statement is still the one of schema version 1.
    SqliteStore(tmp_path / "gaps.db").close()
    backend = SqliteBackend(tmp_path / "gaps.db")
    [(sql,)] = backend.query("SELECT sql FROM sqlite_master WHERE name = 'rows'")
    assert sql == (
        "CREATE TABLE rows ( seq INTEGER PRIMARY KEY, row_id TEXT NOT NULL, run_id TEXT NOT NULL,"
        " case_id TEXT NOT NULL, claim_id TEXT NOT NULL, kind TEXT NOT NULL,"
        " status TEXT NOT NULL, score REAL, recorded_at TEXT NOT NULL, body TEXT NOT NULL,"
        " prev_hash TEXT NOT NULL, row_hash TEXT NOT NULL)"
    )

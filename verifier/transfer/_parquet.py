"""Gap rows into a Parquet file with a fixed schema, one row group a batch (pyarrow).

The schema is the same whatever the rows hold, so files of different stores and days
can be read together: every gap-row field is a column; ``evidence`` is its canonical
JSON text (sorted keys), as nested evidence differs from claim to claim. A body that
is not a JSON object (a damaged store) still gets its row: the columns a store keeps
beside the body are used and the rest are null.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Any, Self

import orjson

from verifier.gaps.row_fields import FIELD_NAMES, ROW_FIELDS
from verifier.gaps.store import StoredRow

COLUMNS: tuple[str, ...] = FIELD_NAMES
"""The columns, in file order: every gap-row field."""
# The store's own columns, not the body's values: a damaged body cannot move a row.
_FROM_STORE = ("seq", "row_hash")
_TEXT_COLUMNS = tuple(
    f.name for f in ROW_FIELDS if f.type in ("text", "object") and f.name not in _FROM_STORE
)
_INTEGER_COLUMNS = tuple(
    f.name for f in ROW_FIELDS if f.type == "integer" and f.name not in _FROM_STORE
)
_NUMBER_COLUMNS = tuple(f.name for f in ROW_FIELDS if f.type == "number")


def parquet_schema() -> Any:
    """The pyarrow schema of an export: integers int64, numbers float64, the rest
    strings (``evidence`` as JSON text); only the chain's fields never null."""
    import pyarrow as pa

    types = {"integer": pa.int64(), "number": pa.float64()}
    return pa.schema(
        [pa.field(f.name, types.get(f.type, pa.string()), not f.chain) for f in ROW_FIELDS]
    )


class ParquetRows:
    """Writes rows to ``path`` a row group at a time; use as a context manager."""

    def __init__(self, path: Path, *, batch_rows: int) -> None:
        import pyarrow.parquet as pq

        self._schema = parquet_schema()
        self._writer = pq.ParquetWriter(str(path), self._schema, compression="zstd")
        self._batch_rows = batch_rows
        self._columns: dict[str, list[Any]] = {name: [] for name in COLUMNS}

    def add(self, row: StoredRow) -> None:
        """Adds one row; a full batch is written as a row group."""
        try:
            body: Any = orjson.loads(row.body)
        except orjson.JSONDecodeError:
            body = None
        if type(body) is not dict:
            body = {k: v for k, v in row._asdict().items() if k != "body"}
        columns = self._columns
        for name in _TEXT_COLUMNS:
            value = body.get(name)
            columns[name].append(value if value is None or type(value) is str else _json(value))
        for name in _INTEGER_COLUMNS:
            value = body.get(name)
            columns[name].append(value if type(value) is int else None)
        for name in _NUMBER_COLUMNS:
            value = body.get(name)
            columns[name].append(float(value) if type(value) in (int, float) else None)
        columns["seq"].append(row.seq)
        columns["row_hash"].append(row.row_hash)
        if len(columns["seq"]) >= self._batch_rows:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if not self._columns["seq"]:
            return
        self._writer.write_batch(pa.RecordBatch.from_pydict(self._columns, schema=self._schema))
        self._columns = {name: [] for name in COLUMNS}

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if exc_type is None:
                self._flush()
        finally:
            self._writer.close()


def _json(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode("utf-8")

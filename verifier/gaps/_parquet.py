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

from verifier.gaps.store import StoredRow

COLUMNS: tuple[str, ...] = (
    "seq",
    "row_id",
    "run_id",
    "recorded_at",
    "contract_id",
    "contract_version",
    "contract_sha256",
    "case_id",
    "claim_id",
    "kind",
    "status",
    "score",
    "reason",
    "evidence",
    "schema",
    "prev_hash",
    "row_hash",
)
"""The columns, in file order."""
_TEXT_COLUMNS = tuple(
    name for name in COLUMNS if name not in ("seq", "contract_version", "score", "row_hash")
)


def parquet_schema() -> Any:
    """The pyarrow schema of an export (``seq`` and ``contract_version`` int64,
    ``score`` float64, the rest strings; only ``seq`` and the hashes never null)."""
    import pyarrow as pa

    types = {"seq": pa.int64(), "contract_version": pa.int64(), "score": pa.float64()}
    never_null = {"seq", "prev_hash", "row_hash"}
    return pa.schema(
        [pa.field(name, types.get(name, pa.string()), name not in never_null) for name in COLUMNS]
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
        version, score = body.get("contract_version"), body.get("score")
        columns["seq"].append(row.seq)
        columns["contract_version"].append(version if type(version) is int else None)
        columns["score"].append(float(score) if type(score) in (int, float) else None)
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

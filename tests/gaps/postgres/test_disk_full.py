"""A PostgreSQL server whose disk is full: said so in one line, exit 2, rows kept."""

from __future__ import annotations

from pathlib import Path

from tests._cli import assert_no_traceback, verifier
from tests.conftest import EXAMPLES

CONTRACT = EXAMPLES / "data-extraction.yaml"
CASES = EXAMPLES / "data-extraction.cases.jsonl"

# What PostgreSQL raises when it cannot extend a table's file (SQLSTATE 53100).
_FULL_ON_INSERT = """
CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'could not extend file "base/5/16384": No space left on device'
    USING ERRCODE = 'disk_full';
END $$;
CREATE TRIGGER disk_full BEFORE INSERT ON rows FOR EACH ROW EXECUTE FUNCTION disk_full();
"""


def test_a_full_disk_on_the_postgresql_server_is_one_line_and_keeps_earlier_rows(
    postgres_url: str, tmp_path: Path
) -> None:
    import psycopg

    args = ("run", str(CONTRACT), "--cases", str(CASES), "--store", postgres_url)
    assert verifier(*args, cwd=tmp_path).returncode == 1
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(_FULL_ON_INSERT)  # type: ignore[arg-type]

    result = verifier(*args, cwd=tmp_path)

    assert result.returncode == 2, result.stderr
    assert_no_traceback(result)
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.stderr
    assert "cannot write: the database server's disk is full (could not extend file" in errors[0]
    with psycopg.connect(postgres_url) as conn:
        row = conn.execute("SELECT count(*) FROM rows").fetchone()
    assert row is not None and row[0] == 70

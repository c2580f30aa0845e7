"""Cases stream from JSONL; a bad line becomes an error for that line and the rest go on."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from verifier.cases import read_cases
from verifier.errors import CasesError


def write(tmp_path: Path, raw: bytes) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_bytes(raw)
    return path


def test_good_lines_become_cases_with_line_numbers(tmp_path: Path) -> None:
    path = write(tmp_path, b'{"id": "a", "output": "x"}\n\n{"id": 7, "output": {"k": 1}}\n')
    lines = list(read_cases(path))
    assert [(c.line, c.case_id, c.error) for c in lines] == [(1, "a", None), (3, "7", None)]
    assert lines[1].case == {"id": 7, "output": {"k": 1}}


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (b'{"id": "a", "output": \n', "invalid JSON"),
        (b'["not", "an", "object"]\n', "must be a JSON object, not an array"),
        (b"null\n", "must be a JSON object, not null"),
        (b'{"output": "no id"}\n', 'has no "id"'),
        (b'{"id": "", "output": "blank id"}\n', 'has no "id"'),
        (b'{"id": "a", "output": "caf\xe9"}\n', "not valid UTF-8"),
    ],
)
def test_bad_line_is_an_error_naming_its_line(tmp_path: Path, raw: bytes, fragment: str) -> None:
    path = write(tmp_path, b'{"id": "first"}\n' + raw + b'{"id": "last"}\n')
    lines = list(read_cases(path))
    assert [c.case_id for c in lines] == ["first", "line-2", "last"]
    bad = lines[1]
    assert bad.case is None and bad.error is not None
    assert bad.error.startswith("line 2: ") and fragment in bad.error


def test_invalid_json_names_the_files_line_and_the_column_not_orjsons_line_1(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, b'{"id": "first"}\n{"id": "a", "output": \n')
    assert list(read_cases(path))[1].error == (
        "line 2: invalid JSON: unexpected end of data (column 23)"
    )


def test_duplicate_id_is_an_error_for_the_second_occurrence(tmp_path: Path) -> None:
    path = write(tmp_path, b'{"id": "a"}\n{"id": "a"}\n')
    first, second = read_cases(path)
    assert first.error is None
    assert second.error == "line 2: duplicate case id 'a'" and second.case_id == "a@line-2"


def test_missing_file_is_a_cases_error(tmp_path: Path) -> None:
    with pytest.raises(CasesError, match="cannot read cases"):
        list(read_cases(tmp_path / "nope.jsonl"))


def test_reading_is_streamed(tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for i in range(20_000):
            handle.write(json.dumps({"id": f"c{i}", "output": "x" * 400}) + "\n")
    tracemalloc.start()
    count = sum(1 for _ in read_cases(path))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert count == 20_000
    # 20,000 cases of ~420 bytes would be ~8 MB if held; digests for duplicates are small.
    assert peak < 4_000_000


def test_a_byte_order_mark_at_the_start_is_not_part_of_the_first_case(tmp_path: Path) -> None:
    # Editors on Windows save UTF-8 with a BOM; only the file's start may carry one.
    path = write(tmp_path, b'\xef\xbb\xbf{"id": "first"}\n\xef\xbb\xbf{"id": "second"}\n')
    lines = list(read_cases(path))
    assert lines[0].case == {"id": "first"}
    assert lines[1].case is None and lines[1].error is not None
    assert lines[1].error.startswith("line 2: invalid JSON")

"""Production logs read as cases through a contract's ``cases:`` mapping: by the one
reader every surface uses, by a run (recorded, redacted, resumed) and by the gate's
case identity."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path
from typing import Any

from tests.conftest import EXAMPLES
from verifier import run_contract
from verifier._internal.case_mapping import CaseMapping, parse_since
from verifier.cases import case_lines, read_cases, sample_cases
from verifier.compare.case_identity import case_identity
from verifier.contract.load import load_contract
from verifier.gaps.store import open_store

MAPPING = CaseMapping(
    {"id": "trace_id", "input": "request.messages.-1.content", "output": "response.text"},
    time="ts",
    since=dt.datetime(2026, 11, 16, tzinfo=dt.UTC),
)


def log_line(trace: str, ts: Any, text: str = "ok [source: Faq]", **extra: Any) -> dict[str, Any]:
    line = {
        "trace_id": trace,
        "ts": ts,
        "request": {"messages": [{"content": "system"}, {"content": f"question {trace}"}]},
        "response": {"text": text},
        "user": {"email": "someone@example.com"},
    }
    line.update(extra)
    return line


def write_log(tmp_path: Path, lines: list[dict[str, Any]]) -> Path:
    path = tmp_path / "prod.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_each_log_line_becomes_the_case_its_mapping_names_and_nothing_else(
    tmp_path: Path,
) -> None:
    path = write_log(tmp_path, [log_line("t1", "2026-11-20T10:00:00Z")])
    [line] = read_cases(path, mapping=MAPPING)
    assert (line.line, line.case_id, line.error) == (1, "t1", None)
    # The last message (-1), the response's text; the user's e-mail never reaches a case.
    assert line.case == {"id": "t1", "input": "question t1", "output": "ok [source: Faq]"}


def test_lines_before_the_cutoff_are_passed_over_and_times_are_read_in_every_form(
    tmp_path: Path,
) -> None:
    lines = [
        log_line("old", "2026-11-15T23:59:59Z"),
        log_line("iso", "2026-11-16T00:00:00+00:00"),
        log_line("naive-utc", "2026-11-17T08:00:00"),
        log_line("epoch", dt.datetime(2026, 11, 18, tzinfo=dt.UTC).timestamp()),
        log_line("epoch-old", dt.datetime(2026, 11, 1, tzinfo=dt.UTC).timestamp()),
        log_line("zoned", "2026-11-16T00:30:00+01:00"),  # 2026-11-15T23:30 UTC
    ]
    read = list(read_cases(write_log(tmp_path, lines), mapping=MAPPING))
    assert [(c.line, c.case_id, c.error) for c in read] == [
        (2, "iso", None),
        (3, "naive-utc", None),
        (4, "epoch", None),
    ]


def test_a_path_that_finds_nothing_is_an_error_row_naming_the_closest_path_and_the_id(
    tmp_path: Path,
) -> None:
    moved = log_line("t2", "2026-11-20T10:00:00Z")
    moved["response"] = {"Text": "written by an older logger"}
    no_messages = log_line("t3", "2026-11-20T10:00:00Z")
    no_messages["request"]["messages"] = []
    no_id = log_line("t4", "2026-11-20T10:00:00Z")
    del no_id["trace_id"]
    path = write_log(tmp_path, [moved, no_messages, no_id])
    read = list(read_cases(path, mapping=MAPPING))
    assert [(c.line, c.case_id, c.case, c.error) for c in read] == [
        (
            1,
            "t2",
            None,
            "line 1: map.output: path response.text matched nothing in the log line "
            "(closest: response.Text)",
        ),
        (
            2,
            "t3",
            None,
            "line 2: map.input: path request.messages.-1.content matched nothing in the log line",
        ),
        (
            3,
            "line-3",
            None,
            "line 3: map.id: path trace_id matched nothing in the log line",
        ),
    ]


def test_a_time_that_cannot_be_read_is_an_error_never_a_silent_skip(tmp_path: Path) -> None:
    lines = [
        log_line("t5", "last tuesday"),
        log_line("t6", None),
        {k: v for k, v in log_line("t7", "x").items() if k != "ts"} | {"time": "2026-11-20"},
    ]
    read = list(read_cases(write_log(tmp_path, lines), mapping=MAPPING))
    assert [(c.case_id, c.error) for c in read] == [
        (
            "t5",
            "line 1: time: ts holds 'last tuesday', not an ISO 8601 time or seconds since 1970",
        ),
        ("t6", "line 2: time: ts holds 'null', not an ISO 8601 time or seconds since 1970"),
        ("t7", "line 3: time: path ts matched nothing in the log line"),
    ]


def test_cases_given_in_memory_are_mapped_too_and_sampled_by_their_mapped_ids() -> None:
    values = [log_line(f"t{i}", "2026-11-20T10:00:00Z") for i in range(40)]
    mapped = list(case_lines(values, MAPPING))
    assert [c.case_id for c in mapped] == [f"t{i}" for i in range(40)]
    plain = [{"id": f"t{i}", "output": "x"} for i in range(40)]
    picked = [c.case_id for c in sample_cases(iter(mapped), 0.5, seed=11)]
    assert picked == [c.case_id for c in sample_cases(case_lines(plain), 0.5, seed=11)]
    assert 0 < len(picked) < 40


def test_since_is_a_window_back_from_the_run_or_a_date() -> None:
    now = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.UTC)
    assert parse_since("7d", now) == dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)
    assert parse_since("4w", now) == dt.datetime(2026, 10, 31, 12, 0, tzinfo=dt.UTC)
    assert parse_since("12h", now) == dt.datetime(2026, 11, 28, 0, 0, tzinfo=dt.UTC)
    assert parse_since("2026-11-01", now) == dt.datetime(2026, 11, 1, tzinfo=dt.UTC)


def _example(tmp_path: Path) -> tuple[Path, Path]:
    for name in ("support-log.yaml", "support-log.cases.jsonl"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return tmp_path / "support-log.yaml", tmp_path / "support-log.cases.jsonl"


def test_a_run_of_a_log_records_its_mapping_and_stores_only_redacted_mapped_cases(
    tmp_path: Path,
) -> None:
    contract, log = _example(tmp_path)
    result = run_contract(contract, log, store=tmp_path / "gaps.db")
    # tr-0907 was logged before `since`; tr-1120's response was logged as Text.
    ids = ["tr-1117", "tr-1118", "tr-1119", "tr-1120", "tr-1121"]
    assert [c.case_id for c in result.cases] == ids
    assert (result.summary.passed_cases, result.summary.failed_cases) == (3, 2)
    with open_store(str(tmp_path / "gaps.db")) as store:
        record = store.run(result.run_id)
        assert record is not None
        assert record.options["cases_mapping"] == {
            "map": {
                "id": "trace_id",
                "input": "request.messages.-1.content",
                "output": "response.text",
                "model": "response.model",
            },
            "time": "timestamp",
            "since": "2026-11-16T00:00:00+00:00",
        }
        bodies = [row.body for row in store.iter_rows()]
    stored = "\n".join(bodies)
    assert "How long do refunds take?" not in stored  # input is redacted
    assert "latency_ms" not in stored and "You answer support questions." not in stored
    assert "closest: response.Text" in stored


def test_the_gate_identity_of_a_log_leaves_out_the_outputs_the_mapping_reads(
    tmp_path: Path,
) -> None:
    contract, log = _example(tmp_path)
    loaded = load_contract(contract).contract
    before = case_identity(log, loaded)
    lines = [json.loads(raw) for raw in log.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        if "text" in line["response"]:
            line["response"]["text"] = "another answer"
        line["latency_ms"] = 1
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert case_identity(other, loaded) == before
    lines[1]["request"]["messages"][-1]["content"] = "another question"
    other.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert case_identity(other, loaded) != before

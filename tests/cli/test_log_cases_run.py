"""``verifier run`` over a production log: the contract's mapping, sampled with a seed."""

from __future__ import annotations

import json
from pathlib import Path

from tests._cli import cli
from tests.conftest import EXAMPLES

CONTRACT = EXAMPLES / "support-log.yaml"
LOG = EXAMPLES / "support-log.cases.jsonl"
IN_WINDOW = {"tr-1117", "tr-1118", "tr-1119", "tr-1120", "tr-1121"}


def run_ids(tmp_path: Path, *extra: str) -> tuple[list[str], str]:
    report = tmp_path / "report.json"
    result = cli(
        "run",
        str(CONTRACT),
        "--cases",
        str(LOG),
        "--store",
        str(tmp_path / "gaps.db"),
        "--format",
        "json",
        "--out",
        str(report),
        *extra,
    )
    assert result.exit_code in (0, 1), result.output
    cases = json.loads(report.read_text(encoding="utf-8"))["cases"]
    return [case["id"] for case in cases], result.stderr


def test_a_sample_of_a_log_is_drawn_from_its_mapped_cases_and_repeats_with_its_seed(
    tmp_path: Path,
) -> None:
    every, _ = run_ids(tmp_path)
    assert set(every) == IN_WINDOW
    sampled, said = run_ids(tmp_path, "--sample", "0.6", "--seed", "3")
    again, _ = run_ids(tmp_path, "--sample", "0.6", "--seed", "3")
    assert sampled == again and set(sampled) <= IN_WINDOW and 0 < len(sampled) < len(every)
    assert "--sample 0.6 --seed 3 picks the same cases again" in said


def test_a_log_line_a_path_misses_is_an_error_named_by_its_trace_id(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    cli(
        "run",
        str(CONTRACT),
        "--store",
        str(tmp_path / "g.db"),
        "--format",
        "json",
        "--out",
        str(report),
    )
    cases = {c["id"]: c for c in json.loads(report.read_text(encoding="utf-8"))["cases"]}
    reasons = {r["reasoning"] for r in cases["tr-1120"]["results"]}
    assert reasons == {
        "line 5: map.output: path response.text matched nothing in the log line "
        "(closest: response.Text)"
    }

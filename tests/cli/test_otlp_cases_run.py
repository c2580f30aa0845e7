"""``verifier run`` over OpenTelemetry GenAI spans exported as OTLP JSON: sampled with
a seed, the unreadable span an error row named by its span id, a file of spans refused
under a contract that reads log lines."""

from __future__ import annotations

import json
from pathlib import Path

from tests._cli import cli
from tests.conftest import EXAMPLES, FIXTURES

CONTRACT = FIXTURES / "otlp" / "support-spans.yaml"
SPANS = FIXTURES / "otlp" / "support-spans.otlp.jsonl"


def _run(tmp_path: Path, contract: Path, *extra: str) -> tuple[int, list[dict], str]:  # type: ignore[type-arg]
    report = tmp_path / "report.json"
    args = ["run", str(contract), "--cases", str(SPANS), "--store", str(tmp_path / "g.db")]
    result = cli(*args, "--format", "json", "--out", str(report), *extra)
    if not report.exists():
        return result.exit_code, [], result.stderr
    return result.exit_code, json.loads(report.read_text(encoding="utf-8"))["cases"], result.stderr


def test_a_sample_of_spans_repeats_with_its_seed_and_names_cases_by_span_id(
    tmp_path: Path,
) -> None:
    code, every, _ = _run(tmp_path, CONTRACT)
    assert code == 1
    assert [c["id"] for c in every] == ["eee19b7ec3c1b174", "ccc19b7ec3c1b177", "ddd19b7ec3c1b178"]
    [bad] = every[2]["results"]
    assert bad["status"] == "error"
    assert bad["reasoning"].startswith("line 2 span 2: attribute gen_ai.input.messages: not JSON")
    _, sampled, said = _run(tmp_path, CONTRACT, "--sample", "0.5", "--seed", "1")
    _, again, _ = _run(tmp_path, CONTRACT, "--sample", "0.5", "--seed", "1")
    assert [c["id"] for c in sampled] == [c["id"] for c in again]
    assert [c["id"] for c in sampled] == ["eee19b7ec3c1b174", "ccc19b7ec3c1b177"]
    assert "--sample 0.5 --seed 1 picks the same cases again" in said


def test_spans_under_a_contract_reading_log_lines_are_a_one_line_error(tmp_path: Path) -> None:
    code, _, said = _run(tmp_path, EXAMPLES / "support-log.yaml")
    assert code == 2
    assert (
        said.strip()
        .splitlines()[-1]
        .endswith(
            "line 1 is an OTLP JSON trace document (resourceSpans); read its spans as cases "
            "with `cases: {format: otlp}` in the contract"
        )
    )
    assert "Traceback" not in said

"""A Python function as the system under test: imported once, called per case."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from tests.sut._support import HERE, results, run_report, stored_rows, write_cases
from verifier.cases import CaseLine
from verifier.contract.sut_models import SutSpec
from verifier.errors import SutError
from verifier.sut.setup import ModelAccess, make_stage

PLAIN = (
    "contract: py-sut\nversion: 1\nsut:\n  python: {target}\n  timeout: 10\nclaims:\n"
    "  - {{id: cites, rubric: regex, field: output, pattern: 'source: Handbook'}}\n"
)


def produce(spec: dict, *lines: CaseLine) -> list[CaseLine]:
    stage = make_stage(SutSpec.model_validate(spec), base_dir=HERE, access=ModelAccess())
    return asyncio.run(stage.produce(lines))


def test_sync_and_async_functions_produce_outputs() -> None:
    line = CaseLine(1, "a", {"id": "a", "input": "refunds"})
    (sync,) = produce({"python": "sut_functions:answer"}, line)
    assert sync.case is not None and sync.case["output"] == "You asked: refunds. [source: Handbook]"
    assert sync.sut is not None and sync.sut["function"] == "sut_functions:answer"
    (async_,) = produce({"python": "sut_functions:answer_async"}, line)
    assert async_.case is not None and async_.case["output"].startswith("Async answer to refunds")


def test_json_format_keeps_returned_data_and_text_format_refuses_it() -> None:
    line = CaseLine(1, "a", {"id": "a", "question": {"q": "how are you"}})
    spec = {"python": "sut_functions:structured", "input": "question", "format": "json"}
    (done,) = produce(spec, line)
    assert done.case is not None and done.case["output"] == {"answer": "HOW ARE YOU", "words": 3}
    (refused,) = produce({"python": "sut_functions:not_text"}, CaseLine(2, "b", {"input": "x"}))
    assert refused.case is None and "returned int, not text" in (refused.error or "")


def test_a_function_returning_empty_text_is_an_error_unless_allowed() -> None:
    line = CaseLine(1, "a", {"id": "a", "input": "refunds"})
    (refused,) = produce({"python": "sut_functions:empty"}, line)
    assert refused.case is None
    assert "sut_functions:empty failed: returned nothing" in (refused.error or "")
    (allowed,) = produce({"python": "sut_functions:empty", "allow_empty": True}, line)
    assert allowed.case is not None and allowed.case["output"] == ""


def test_exception_and_timeout_are_errors_of_their_case_naming_the_cause() -> None:
    (raised,) = produce({"python": "sut_functions:explode"}, CaseLine(1, "a", {"input": "q"}))
    assert raised.case is None
    assert "raised ValueError: cannot answer 'q' (at sut_functions.py:" in (raised.error or "")
    (slow,) = produce(
        {"python": "sut_functions:slow", "timeout": 0.2}, CaseLine(1, "a", {"input": "q"})
    )
    assert slow.case is None and "did not return within 0.2 s" in (slow.error or "")


def test_unknown_module_or_function_stops_before_any_case() -> None:
    with pytest.raises(SutError, match="cannot import 'no_such_module'"):
        produce({"python": "no_such_module:f"})
    with pytest.raises(SutError, match="has no 'missing'"):
        produce({"python": "sut_functions:missing"})


@pytest.mark.e2e
def test_a_module_beside_the_contract_runs_through_the_cli(tmp_path: Path) -> None:
    (tmp_path / "beside_bot.py").write_text(
        "def reply(text):\n    return f'{text}! [source: Handbook]'\n", encoding="utf-8"
    )
    path = tmp_path / "py.yaml"
    path.write_text(PLAIN.format(target="beside_bot:reply"), encoding="utf-8")
    cases = write_cases(tmp_path / "cases.jsonl", {"id": "a", "input": "hi"}, {"id": "b"})
    result, report = run_report(tmp_path, path, cases)
    assert result.returncode == 1
    by_case = results(report)
    assert by_case["a"]["cites"]["status"] == "pass"
    assert by_case["b"]["cites"]["status"] == "error"
    row = stored_rows(tmp_path / "gaps.db")[0]
    assert row["evidence"]["sut"]["kind"] == "python"
    assert row["evidence"]["sut"]["function"] == "beside_bot:reply"


@pytest.mark.e2e
def test_the_readme_example_runs_as_written(tmp_path: Path) -> None:
    from tests.conftest import ROOT
    from tests.sut._support import verifier

    example = "contracts/examples/"
    store = str(tmp_path / "gaps.db")
    plain = verifier(
        ROOT,
        "run",
        example + "support-bot.yaml",
        "--cases",
        example + "support-bot.cases.jsonl",
        "--store",
        store,
    )
    assert plain.returncode == 0, plain.stderr
    assert ": 6/6 cases passed" in plain.stderr
    variants = verifier(
        ROOT,
        "run",
        example + "support-bot.yaml",
        "--cases",
        example + "support-bot.cases.jsonl",
        "--store",
        store,
        "--variant",
        "current=python:support_bot:answer",
        "--variant",
        "brief=python:support_bot:answer_brief",
    )
    assert variants.returncode == 1
    assert "variant current: run " in variants.stderr and ": 6/6 cases passed" in variants.stderr
    assert "-brief: 4/6 cases passed" in variants.stderr


@pytest.mark.e2e
def test_a_runaway_function_neither_delays_queued_calls_nor_holds_up_the_exit(
    tmp_path: Path,
) -> None:
    """More runaway calls than a default thread pool has threads, then instant ones:
    the instant ones start at once and pass, and the process ends soon after the
    timeout although the runaway threads are still asleep.

    The runaways sleep 100 s, far beyond the 3 s timeout and the 50 s bound, so neither
    a slow start of the process nor a slow instant call on a loaded machine can pass
    for waiting on them (the run's own subprocess limit is 120 s)."""
    path = tmp_path / "slow.yaml"
    path.write_text(
        "contract: slow\nversion: 1\nsut:\n  python: sut_functions:sleep_for\n  timeout: 3\n"
        "claims:\n  - {id: cites, rubric: regex, field: output, pattern: 'source: Handbook'}\n",
        encoding="utf-8",
    )
    slow = [{"id": f"slow{i}", "input": "100"} for i in range(36)]
    fast = [{"id": f"fast{i}", "input": "0"} for i in range(6)]
    cases = write_cases(tmp_path / "cases.jsonl", *slow, *fast)
    started = time.monotonic()
    result, report = run_report(tmp_path, path, cases, "--concurrency", "48")
    assert time.monotonic() - started < 50, "the process waited for the runaway threads"
    assert result.returncode == 1
    by_case = results(report)
    assert all(by_case[c["id"]]["cites"]["status"] == "pass" for c in fast), by_case
    slow_reason = by_case["slow0"]["cites"]["reasoning"]
    assert "did not return within 3 s" in slow_reason

from __future__ import annotations

import io
import json
import tracemalloc
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from verifier.report import make_writer
from verifier.report.json_report import JsonReportWriter
from verifier.results import CaseResult, ClaimResult, RunSummary

TOP_KEYS = {
    "run_id",
    "contract",
    "total_cases",
    "passed_cases",
    "failed_cases",
    "average_score",
    "assertion_breakdown",
    "head",
    "cases",
}
CASE_KEYS = {"id", "pass", "score", "passed", "failed", "errors", "total", "results"}
RESULT_KEYS = {"id", "status", "pass", "score", "reasoning", "evidence"}
TALLY_KEYS = {"pass_rate", "passed", "failed", "errors", "skipped"}


def render(cases: Iterable[CaseResult], summary: RunSummary) -> dict[str, Any]:
    out = io.StringIO()
    writer = JsonReportWriter(out)
    for case in cases:
        writer.add_case(case)
    writer.finish(summary)
    parsed: dict[str, Any] = json.loads(out.getvalue())
    return parsed


def test_report_has_exactly_the_keys_of_the_design(
    mixed_cases: list[CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    doc = render(mixed_cases, make_summary(mixed_cases))

    assert set(doc) == TOP_KEYS
    assert list(doc)[-1] == "cases"
    assert set(doc["contract"]) == {"id", "version", "sha256"}
    assert all(set(t) == TALLY_KEYS for t in doc["assertion_breakdown"].values())
    assert all(set(c) == CASE_KEYS for c in doc["cases"])
    assert all(set(r) == RESULT_KEYS for c in doc["cases"] for r in c["results"])


def test_report_totals_and_breakdown_match_the_run(
    mixed_cases: list[CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    doc = render(mixed_cases, make_summary(mixed_cases))

    assert doc["run_id"] == "run-1"
    assert doc["contract"] == {"id": "account-research", "version": 2, "sha256": "ab" * 32}
    assert (doc["total_cases"], doc["passed_cases"], doc["failed_cases"]) == (3, 1, 2)
    assert doc["average_score"] == 0.666667
    assert doc["assertion_breakdown"] == {
        "cites_sources": {
            "pass_rate": 0.666667,
            "passed": 2,
            "failed": 1,
            "errors": 0,
            "skipped": 0,
        },
        "short_enough": {
            "pass_rate": 0.666667,
            "passed": 2,
            "failed": 0,
            "errors": 1,
            "skipped": 0,
        },
        "acknowledge_gaps": {
            "pass_rate": 1.0,
            "passed": 2,
            "failed": 0,
            "errors": 0,
            "skipped": 1,
        },
    }


def test_case_entries_count_statuses_and_carry_reasoning_and_evidence(
    mixed_cases: list[CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    doc = render(mixed_cases, make_summary(mixed_cases))
    case_2 = doc["cases"][1]

    assert [c["id"] for c in doc["cases"]] == ["case-1", "case-2", "case-3"]
    assert {k: case_2[k] for k in CASE_KEYS - {"results"}} == {
        "id": "case-2",
        "pass": False,
        "score": 0.333333,
        "passed": 1,
        "failed": 1,
        "errors": 0,
        "total": 3,
    }
    assert case_2["results"][0] == {
        "id": "cites_sources",
        "status": "fail",
        "pass": False,
        "score": 0.0,
        "reasoning": "no [source: ...] marker found",
        "evidence": {"field": "output"},
    }
    assert doc["cases"][2]["errors"] == 1


def test_pass_is_true_only_for_status_pass(
    mixed_cases: list[CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    doc = render(mixed_cases, make_summary(mixed_cases))

    for result in (r for c in doc["cases"] for r in c["results"]):
        assert result["pass"] is (result["status"] == "pass")
    skipped = doc["cases"][1]["results"][2]
    assert (skipped["status"], skipped["pass"], skipped["score"]) == ("skipped", False, None)


def test_zero_cases_is_still_valid_json(make_summary: Callable[..., RunSummary]) -> None:
    doc = render([], make_summary([]))

    assert doc["cases"] == []
    assert (doc["total_cases"], doc["average_score"], doc["assertion_breakdown"]) == (0, 0.0, {})


def test_multibyte_text_survives_the_chunked_copy_from_the_spool(
    make_case: Callable[..., CaseResult],
    make_claim: Callable[..., ClaimResult],
    make_summary: Callable[..., RunSummary],
) -> None:
    # 300k three-byte characters cross several copy-chunk borders mid-character.
    text = "€😀é" * 100_000
    cases = [make_case("c", make_claim("claim", "fail", "r", {"quote": text}))]

    doc = render(cases, make_summary(cases))

    assert doc["cases"][0]["results"][0]["evidence"]["quote"] == text


def test_evidence_that_is_not_json_is_shown_rather_than_breaking_the_report(
    make_case: Callable[..., CaseResult],
    make_claim: Callable[..., ClaimResult],
    make_summary: Callable[..., RunSummary],
) -> None:
    odd = {"big": 2**70, "when": object(), "nan": float("nan"), 3: "int key"}
    cases = [make_case("c", make_claim("claim", "fail", "r", odd))]

    evidence = render(cases, make_summary(cases))["cases"][0]["results"][0]["evidence"]

    assert evidence["big"] == 2**70
    assert evidence["when"].startswith("<object object")
    assert evidence["nan"] is None
    assert evidence["3"] == "int key"


def test_make_writer_json_writes_the_report_to_the_given_stream(
    mixed_cases: list[CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    out = io.StringIO()
    writer = make_writer("json", out)
    for case in mixed_cases:
        writer.add_case(case)
    writer.finish(make_summary(mixed_cases))

    assert json.loads(out.getvalue())["total_cases"] == 3


class _CountingSink(io.TextIOBase):
    """A text stream that keeps only the number of characters written to it."""

    def __init__(self) -> None:
        self.chars = 0

    def write(self, s: str) -> int:
        self.chars += len(s)
        return len(s)


def test_twenty_thousand_cases_keep_the_writer_memory_constant(
    make_case: Callable[..., CaseResult],
    make_claim: Callable[..., ClaimResult],
    make_summary: Callable[..., RunSummary],
) -> None:
    sink = _CountingSink()
    run = make_summary([])
    tracemalloc.start()
    try:
        writer = JsonReportWriter(sink)  # type: ignore[arg-type]
        for i in range(20_000):
            case = make_case(
                f"case-{i}",
                make_claim("cites_sources", "fail", "no marker " * 10, {"span": "x" * 200}),
                make_claim("short_enough"),
                make_claim("acknowledge_gaps"),
            )
            run.add_case(case)
            writer.add_case(case)
        writer.finish(run)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    # The report itself is ~10 MB; holding it, or the cases, would show here.
    assert sink.chars > 9_000_000
    assert peak < 3 * 1024 * 1024


def test_case_entries_hold_result_json_of_each_result(mixed_cases: list[CaseResult]) -> None:
    from verifier.report.json_report import case_json, result_json

    for case in mixed_cases:
        entry = case_json(case)
        assert entry["results"] == [result_json(r) for r in case.results]
        assert entry["passed"] + entry["failed"] + entry["errors"] <= entry["total"]


@pytest.mark.parametrize("encoding", ["utf-8", "UTF8", "latin-1", "utf-16"])
def test_report_written_to_a_file_is_the_same_document_in_any_encoding(
    tmp_path: Path,
    encoding: str,
    make_case: Callable[..., CaseResult],
    make_claim: Callable[..., ClaimResult],
    make_summary: Callable[..., RunSummary],
) -> None:
    cases = [
        make_case(f"case-{i}", make_claim("c", "fail", "déjà vu: café", {"span": "é"}), line=i)
        for i in range(1, 2001)
    ]
    expected = render(cases, make_summary(cases))
    target = tmp_path / "report.json"
    with target.open("w", encoding=encoding) as out:
        writer = JsonReportWriter(out)
        for case in cases:
            writer.add_case(case)
        writer.finish(make_summary(cases))
    text = target.read_text(encoding=encoding)
    assert text.endswith("]}\n")
    assert json.loads(text) == expected

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from pathlib import Path

from verifier.report import make_writer
from verifier.report.junit import JunitReportWriter, xml_text
from verifier.results import CaseResult, ClaimResult, RunSummary, not_applicable_result
from verifier.run.api import run_contract


def render(cases: Iterable[CaseResult], summary: RunSummary) -> str:
    out = io.StringIO()
    writer = JunitReportWriter(out)
    for case in cases:
        writer.add_case(case)
    writer.finish(summary)
    return out.getvalue()


def parse_suite(xml: str) -> ET.Element:
    root = ET.fromstring(xml)
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1
    return suites[0]


def test_one_testcase_per_case_and_claim_with_contract_classname(
    mixed_cases: list[CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    suite = parse_suite(render(mixed_cases, make_summary(mixed_cases)))
    testcases = suite.findall("testcase")

    assert suite.get("name") == "account-research"
    assert len(testcases) == 9
    assert testcases[3].get("classname") == "account-research.case-2"
    assert testcases[3].get("name") == "cites_sources"


def test_suite_and_root_carry_the_outcome_counts(
    mixed_cases: list[CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    xml = render(mixed_cases, make_summary(mixed_cases))
    root = ET.fromstring(xml)
    suite = parse_suite(xml)
    expected = {"tests": "9", "failures": "1", "errors": "1", "skipped": "1"}

    assert {k: suite.get(k) for k in expected} == expected
    assert {k: root.get(k) for k in expected} == expected
    assert suite.get("time") == "2.500"


def test_fail_error_and_skip_become_failure_error_and_skipped_elements(
    mixed_cases: list[CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    testcases = parse_suite(render(mixed_cases, make_summary(mixed_cases))).findall("testcase")
    by_key = {(t.get("classname"), t.get("name")): t for t in testcases}

    failure = by_key[("account-research.case-2", "cites_sources")].find("failure")
    assert failure is not None
    assert failure.get("message") == "no [source: ...] marker found"
    assert failure.text is not None and '"field": "output"' in failure.text
    error = by_key[("account-research.case-3", "short_enough")].find("error")
    assert error is not None and error.get("message") == "judge reply had no verdict"
    skipped = by_key[("account-research.case-2", "acknowledge_gaps")].find("skipped")
    assert skipped is not None and skipped.get("message") == "gate cites_sources failed"
    passing = by_key[("account-research.case-1", "cites_sources")]
    assert list(passing) == []


def test_markup_characters_and_control_chars_in_reasons_still_parse(
    make_case: Callable[..., CaseResult],
    make_claim: Callable[..., ClaimResult],
    make_summary: Callable[..., RunSummary],
) -> None:
    reason = 'output said <b>"x" & y</b>\x00\x1b[31m\x0bend\n'
    evidence = {"raw": "</failure>]]><!--\x07"}
    cases = [make_case('case <&">', make_claim("claim&<", "fail", reason, evidence))]

    suite = parse_suite(render(cases, make_summary(cases)))
    testcase = suite.find("testcase")
    assert testcase is not None
    failure = testcase.find("failure")

    assert testcase.get("classname") == 'account-research.case <&">'
    assert testcase.get("name") == "claim&<"
    assert failure is not None
    assert failure.get("message") == 'output said <b>"x" & y</b>[31m end'
    assert failure.text is not None and "</failure>]]><!--" in failure.text
    assert "\x00" not in failure.text and "\x07" not in failure.text


def test_xml_text_strips_only_characters_xml_forbids() -> None:
    assert xml_text("a\x00b\x08c\td\ne\rf\ufffeg€😀") == "abc\td\ne\rfg€😀"


def test_testcases_point_at_the_claim_line_in_the_contract(
    mixed_cases: list[CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    summary = make_summary(mixed_cases, claim_lines={"cites_sources": 12})
    testcase = parse_suite(render(mixed_cases, summary)).find("testcase")

    assert testcase is not None
    assert testcase.get("file") == "contracts/account-research.yaml"
    assert testcase.get("line") == "12"


def test_failed_case_without_results_is_reported_as_an_error(
    make_case: Callable[..., CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    cases = [make_case("line-7", line=7)]

    suite = parse_suite(render(cases, make_summary(cases)))

    assert suite.get("errors") == "1"
    testcase = suite.find("testcase")
    assert testcase is not None and testcase.find("error") is not None


def test_a_failed_case_whose_claims_were_all_skipped_is_a_failure(
    make_claim: Callable[..., ClaimResult], make_summary: Callable[..., RunSummary]
) -> None:
    skipped = (not_applicable_result("tone", "rubric", "input"), make_claim("cites", "skipped"))
    cases = [
        CaseResult("bare", 1, (skipped[0],), 0.0, passed=False),
        CaseResult("gated", 2, (make_claim("short"), *skipped), 0.5, passed=False),
        CaseResult("fine", 3, (make_claim("short"), skipped[0]), 1.0, passed=True),
    ]

    suite = parse_suite(render(cases, make_summary(cases)))

    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("8", "2", "0")
    failures = {
        (t.get("classname"), t.get("name")): failure.get("message")
        for t in suite.iter("testcase")
        if (failure := t.find("failure")) is not None
    }
    assert failures == {
        ("account-research.bare", "(case)"): (
            "the case failed with score 0.000, below the run's threshold: no claim applies "
            "to it (every claim's `when` path is missing)"
        ),
        ("account-research.gated", "(case)"): (
            "the case failed with score 0.500, below the run's threshold: 2 of its 3 claims "
            "were skipped, which is no pass"
        ),
    }


WHEN_CONTRACT = """\
contract: when-demo
version: 1
claims:
  - id: has_answer
    rubric: regex
    field: output
    pattern: ANSWER
    when: output
  - id: note_long
    rubric: length
    field: note
    min_chars: 5
    when: note
"""


def test_junit_failures_agree_with_the_failing_cases_of_a_run(tmp_path: Path) -> None:
    contract = tmp_path / "when.yaml"
    contract.write_text(WHEN_CONTRACT, encoding="utf-8")
    cases = [
        {"id": "answered", "output": "ANSWER: yes", "note": "long enough"},
        {"id": "unanswered", "output": "no idea"},
        {"id": "empty"},  # no claim applies: it scores 0 and fails
    ]
    out = io.StringIO()
    result = run_contract(contract, cases, store=tmp_path / "g.db", sinks=[JunitReportWriter(out)])

    suite = parse_suite(out.getvalue())
    failing = {c.case_id for c in result.cases if not c.passed}
    shown = {
        t.get("classname", "").removeprefix("when-demo.")
        for t in suite.iter("testcase")
        if t.find("failure") is not None or t.find("error") is not None
    }
    assert failing == {"unanswered", "empty"} == shown
    assert suite.get("failures") == "2"


def test_zero_cases_is_a_valid_empty_suite(make_summary: Callable[..., RunSummary]) -> None:
    suite = parse_suite(render([], make_summary([])))

    assert suite.get("tests") == "0"
    assert suite.findall("testcase") == []


def test_run_identity_is_kept_in_suite_properties(
    make_summary: Callable[..., RunSummary],
) -> None:
    suite = parse_suite(render([], make_summary([])))
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}

    assert properties["run_id"] == "run-1"
    assert properties["contract_version"] == "2"
    assert properties["contract_sha256"] == "ab" * 32


def test_make_writer_junit_writes_xml_to_the_given_stream(
    mixed_cases: list[CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    out = io.StringIO()
    writer = make_writer("junit", out)
    for case in mixed_cases:
        writer.add_case(case)
    writer.finish(make_summary(mixed_cases))

    assert out.getvalue().startswith('<?xml version="1.0" encoding="UTF-8"?>')
    assert parse_suite(out.getvalue()).get("tests") == "9"

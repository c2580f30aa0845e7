"""The findings claim's check: one-to-one matching, recall, precision, and errors.

Every expected figure is worked out by hand in the test that asserts it.
"""

from __future__ import annotations

from typing import Any

import pytest

from verifier.contract.findings import FindingsClaim
from verifier.engine.findings import match_greedy, normalised, parse_numbered, prepare_findings
from verifier.rubric._base import Outcome


def _claim(**changes: Any) -> FindingsClaim:
    spec: dict[str, Any] = {
        "id": "findings",
        "compare": "findings",
        "expected": "expected_findings",
        "min_recall": 0.6,
        "min_precision": 0.5,
        **changes,
    }
    return FindingsClaim.model_validate(spec)


def _check(case: dict[str, Any], **changes: Any) -> Outcome:
    return prepare_findings(_claim(**changes))(case)


EXPECTED = [
    {"dimension": "type_annotations", "severity": "critical"},
    {"dimension": "edge_cases", "severity": "critical", "specific": "ZeroDivisionError"},
    {"dimension": "docstring", "severity": "critical"},
]


def test_two_of_three_found_with_one_extra_is_recall_and_precision_two_thirds() -> None:
    output = [
        {"dimension": "type_annotations", "severity": "critical", "text": "no hints"},
        {"dimension": "Edge cases", "severity": "CRITICAL", "text": "empty list divides by 0"},
        {"dimension": "naming", "severity": "low", "text": "`numbers` is fine"},
    ]
    outcome = _check({"output": output, "expected_findings": EXPECTED})
    # matched: type_annotations and edge_cases (case and separators ignored) = 2;
    # recall 2/3, precision 2/3, F1 = 2/3: both thresholds (0.6, 0.5) hold.
    assert outcome.status == "pass"
    assert outcome.evidence["recall"] == pytest.approx(2 / 3)
    assert outcome.evidence["precision"] == pytest.approx(2 / 3)
    assert outcome.score == pytest.approx(2 / 3)
    assert [(m["expected"], m["actual"]) for m in outcome.evidence["matched"]] == [(0, 0), (1, 1)]
    assert outcome.evidence["missed"] == [{"dimension": "docstring", "severity": "critical"}]
    assert outcome.evidence["unexpected"] == [
        {"dimension": "naming", "severity": "low", "text": "`numbers` is fine"}
    ]
    assert outcome.reason == (
        "recall 2/3 (67%) >= min_recall 0.6; precision 2/3 (67%) >= min_precision 0.5; "
        "missed: docstring (critical); unexpected: naming (low)"
    )


def test_a_severity_that_differs_is_no_match_and_the_claim_fails_below_min_recall() -> None:
    output = [
        {"dimension": "type_annotations", "severity": "high"},
        {"dimension": "docstring", "severity": "critical"},
    ]
    outcome = _check({"output": output, "expected_findings": EXPECTED})
    # matched: docstring only. recall 1/3 < 0.6 fails; precision 1/2 = 0.5 holds.
    assert outcome.status == "fail"
    assert outcome.evidence["recall"] == pytest.approx(1 / 3)
    assert outcome.evidence["precision"] == 0.5
    # F1 = 2 * (1/3) * (1/2) / (1/3 + 1/2) = (1/3) / (5/6) = 2/5
    assert outcome.score == pytest.approx(0.4)
    assert "recall 1/3 (33%) < min_recall 0.6" in outcome.reason
    assert "precision 1/2 (50%) >= min_precision 0.5" in outcome.reason


def test_matching_is_one_to_one_so_a_repeated_finding_counts_once() -> None:
    output = [{"dimension": "docstring", "severity": "critical"}] * 3
    outcome = _check(
        {"output": output, "expected_findings": EXPECTED[2:]}, min_recall=None, min_precision=0.5
    )
    # one expected docstring; three said: 1 matched, 2 unexpected; precision 1/3 < 0.5.
    assert outcome.status == "fail"
    assert outcome.evidence["recall"] == 1.0
    assert outcome.evidence["precision"] == pytest.approx(1 / 3)
    assert outcome.score == pytest.approx(1 / 3)  # only min_precision: the score is precision
    assert len(outcome.evidence["unexpected"]) == 2


def test_with_only_min_recall_the_score_is_recall_and_extras_do_not_fail() -> None:
    output = [*EXPECTED, {"dimension": "style", "severity": "minor"}]
    outcome = _check({"output": output, "expected_findings": EXPECTED}, min_precision=None)
    # recall 3/3; precision 3/4 is reported but has no threshold.
    assert outcome.status == "pass"
    assert outcome.score == 1.0
    assert outcome.evidence["precision"] == 0.75
    assert "precision 3/4 (75%); unexpected: style (minor)" in outcome.reason


def test_nothing_expected_and_nothing_found_is_recall_and_precision_one() -> None:
    outcome = _check({"output": [], "expected_findings": []})
    assert outcome.status == "pass"
    assert (outcome.evidence["recall"], outcome.evidence["precision"]) == (1.0, 1.0)
    assert outcome.score == 1.0


def test_a_finding_where_none_is_expected_is_precision_zero() -> None:
    outcome = _check(
        {"output": [{"dimension": "style", "severity": "minor"}], "expected_findings": []}
    )
    assert outcome.status == "fail"
    assert (outcome.evidence["recall"], outcome.evidence["precision"]) == (1.0, 0.0)
    assert outcome.score == 0.0  # F1 of 1 and 0


def test_match_on_one_key_ignores_the_others() -> None:
    output = [{"dimension": "docstring", "severity": "low"}]
    outcome = _check({"output": output, "expected_findings": EXPECTED[2:]}, match_on=["dimension"])
    assert outcome.status == "pass"
    assert outcome.evidence["matched"] == [{"expected": 0, "actual": 0, "dimension": "docstring"}]


def test_numbered_text_is_parsed_and_matched() -> None:
    text = (
        "Review of calculate_average:\n"
        "1. [critical] type annotations: the parameter and return have no hints\n"
        "   (continuation lines are passed over)\n"
        "2) [HIGH] edge-cases: an empty list raises ZeroDivisionError\n"
        "3. [critical] docstring\n"
    )
    outcome = _check({"output": text, "expected_findings": EXPECTED}, parse="numbered")
    # type annotations and docstring match; edge cases is high, not critical:
    # recall 2/3, precision 2/3.
    assert outcome.status == "pass"
    assert outcome.evidence["recall"] == pytest.approx(2 / 3)
    assert outcome.evidence["unexpected"] == [
        {
            "dimension": "edge-cases",
            "severity": "HIGH",
            "text": "an empty list raises ZeroDivisionError",
            "line": 4,
        }
    ]


def test_parse_numbered_reads_the_documented_form() -> None:
    assert parse_numbered("No issues found.\n") == []
    assert parse_numbered("10) [low]  naming :  rename x ") == [
        {"dimension": "naming", "severity": "low", "text": "rename x", "line": 1}
    ]


def test_normalised_ignores_case_spaces_and_separators() -> None:
    assert normalised(" Edge cases ") == normalised("edge_cases") == normalised("EDGE-CASES")
    # A numbered line's severity is text: `[3]` must match an expected severity 3.
    assert normalised(3) == normalised(" 3")
    assert normalised(3) != normalised(3.5)


def test_greedy_matching_takes_the_first_free_equal_item_in_order() -> None:
    a, b = ("a",), ("b",)
    assert match_greedy([a, b, a], [b, a, a, a]) == [(0, 1), (1, 0), (2, 2)]
    assert match_greedy([a, a], [a]) == [(0, 0)]


@pytest.mark.parametrize(
    ("case", "changes", "reason"),
    [
        (
            {"output": [], "expected_findngs": []},
            {},
            "not checked: no expected findings at expected_findings (closest: expected_findngs)",
        ),
        (
            {"outptu": [], "expected_findings": []},
            {},
            "not checked: no output at output (closest: outptu)",
        ),
        (
            {"output": "1. [high] x: y", "expected_findings": []},
            {},
            "not checked: output is text, not a list of findings (parse: numbered reads "
            "numbered lines; parse_json: [output] reads JSON text)",
        ),
        (
            {"output": "1. high: no brackets", "expected_findings": []},
            {"parse": "numbered"},
            "not checked: line 1 is numbered but not `N. [severity] dimension: text`: "
            "'1. high: no brackets'",
        ),
        (
            {"output": ["docstring"], "expected_findings": []},
            {},
            "not checked: output.0 is a string, not an object",
        ),
        (
            {"output": [{"dimension": "docstring"}], "expected_findings": []},
            {},
            "not checked: output.0 has no 'severity'",
        ),
        (
            {"output": [], "expected_findings": {"dimension": "docstring"}},
            {},
            "not checked: expected_findings is an object, not a list of findings",
        ),
        (
            {"output": [1], "expected_findings": [{"severity": "low"}]},
            {},
            "not checked: expected_findings.0 has no 'dimension'",
        ),
        (
            {"output": ["x"], "expected_findings": []},
            {"parse": "numbered"},
            "not checked: output is an array, not text",
        ),
    ],
)
def test_what_cannot_be_read_is_an_error_never_a_fail(
    case: dict[str, Any], changes: dict[str, Any], reason: str
) -> None:
    outcome = _check(case, **changes)
    assert outcome.status == "error"
    assert outcome.score is None
    assert outcome.reason == reason


def test_json_text_in_the_field_says_to_parse_it() -> None:
    outcome = _check(
        {"response": '{"findings": []}', "expected_findings": []}, field="response.findings"
    )
    assert outcome.status == "error"
    assert outcome.reason == (
        "not checked: no output at response.findings "
        "(response is JSON text; add parse_json: [response])"
    )

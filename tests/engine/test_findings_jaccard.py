"""Jaccard similarity on finding types: each output read as a findings claim reads it,
reduced to the set of its ``match_on`` values. Each figure is worked out by hand."""

from __future__ import annotations

from typing import Any

import pytest

from verifier.contract.models import CompareClaim
from verifier.engine.comparative import check_deterministic, jaccard
from verifier.engine.findings import UnreadableFindings, finding_types
from verifier.findings_tally import is_findings_row


def _claim(**changes: Any) -> CompareClaim:
    spec = {"id": "same", "compare": "similarity", "method": "jaccard", "outputs": ["a", "b"]}
    return CompareClaim.model_validate({**spec, **changes})


SQL = {"dimension": "security", "severity": "high", "specific": "query from user text"}
NAME = {"dimension": "naming", "severity": "low", "specific": "rename x"}


def test_finding_types_are_normalised_key_tuples_counted_once() -> None:
    items = [SQL, {**SQL, "dimension": "Security ", "specific": "other words"}, NAME]
    assert finding_types(items, "output", "json", ("dimension", "severity")) == {
        ("security", "high"),
        ("naming", "low"),
    }
    text = "Found:\n1. [HIGH] edge-cases: x\n2) [low] Edge Cases\n"
    assert finding_types(text, "output", "numbered", ("dimension",)) == {("edge cases",)}


def test_jaccard_of_two_empty_sets_is_one() -> None:
    assert jaccard(frozenset(), frozenset()) == 1.0
    assert jaccard({("a",)}, frozenset()) == 0.0


def test_similarity_compares_types_not_wording_or_other_keys() -> None:
    # {security/high, naming/low} against {security/high, tests/medium}: 1 of 3.
    case = {
        "a": [SQL, NAME],
        "b": [
            {**SQL, "specific": "unescaped"},
            {**NAME, "dimension": "tests", "severity": "medium"},
        ],
    }
    result = check_deterministic(_claim(parse="json", min_ratio=30), case)
    assert (result.status, result.score) == ("pass", 1 / 3)
    assert result.evidence["finding_types"] == {
        "parse": "json",
        "match_on": ["dimension", "severity"],
    }
    assert not is_findings_row(result.evidence)  # no recall/precision tally for it
    # On dimension alone, a severity that differs is the same type.
    by_dimension = check_deterministic(
        _claim(parse="json", match_on=["dimension"]),
        {"a": [SQL], "b": [{**SQL, "severity": "low"}]},
    )
    assert (by_dimension.status, by_dimension.score) == ("pass", 1.0)


def test_without_parse_a_list_of_objects_is_compared_as_whole_items() -> None:
    case = {"a": [SQL], "b": [{**SQL, "specific": "other words"}]}
    assert check_deterministic(_claim(), case).score == 0.0
    assert check_deterministic(_claim(parse="json"), case).score == 1.0


def test_consistency_is_the_mean_of_the_pairs_of_runs() -> None:
    runs = [
        "1. [high] security: a\n2. [low] naming: b",
        "1. [high] security: c",
        "1. [low] naming: d",
    ]
    claim = _claim(compare="consistency", outputs=None, parse="numbered", min_ratio=40)
    result = check_deterministic(claim, {"output": runs[0], "runs": runs})
    # Pairs: 1/2, 1/2, 0/2: mean 1/3 < 40%, lowest 0.
    assert (result.status, result.evidence["mean"], result.evidence["min"]) == ("fail", 1 / 3, 0.0)


@pytest.mark.parametrize(
    ("b", "parse", "reason"),
    [
        ("looks fine", "json", "not compared: b is text, not a list of findings (parse: "
         "numbered reads numbered lines; parse_json: [b] reads JSON text)"),
        ([{"dimension": "x"}], "json", "not compared: b.0 has no 'severity'"),
        (["x"], "json", "not compared: b.0 is a string, not an object"),
        ("1. high: x", "numbered", "not compared: b: line 1 is numbered but not "
         "`N. [severity] dimension: text`: '1. high: x'"),
        (3, "numbered", "not compared: b is an integer, not text"),
    ],
)  # fmt: skip
def test_an_output_that_cannot_be_read_is_an_error_never_a_fail(
    b: Any, parse: str, reason: str
) -> None:
    nothing = [] if parse == "json" else "No findings."
    result = check_deterministic(_claim(parse=parse), {"a": nothing, "b": b})
    assert (result.status, result.score, result.reason) == ("error", None, reason)


def test_reading_errors_are_raised_as_unreadable_findings() -> None:
    with pytest.raises(UnreadableFindings, match="output is an object"):
        finding_types({}, "output", "json", ("dimension",))

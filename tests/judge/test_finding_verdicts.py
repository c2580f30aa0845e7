"""Critique and compliance verdicts: parsed from the judge's findings, scored by the
claim, malformed answers refused, samples combined by their median."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.contract.models import Compliance, Critique, JudgeClaim, Reference
from verifier.judge.majority import combine_samples
from verifier.judge.tools import verdict_tool
from verifier.judge.verdict import ClaimVerdict, ParsedVerdict, VerdictProblem, parse_verdict
from verifier.llm.types import ModelReply

CRITIQUE = JudgeClaim(judge="j", id="flaws", instruction="Find what is wrong", critique=Critique())
LENIENT = JudgeClaim(
    judge="j",
    id="lenient",
    instruction="Find what is wrong",
    critique=Critique(points=[100, 60, 10], pass_at=60),
)
COMPLIANCE = JudgeClaim(
    judge="j",
    id="follows",
    instruction="Follows the brief",
    compliance=Compliance(),
    reference=Reference(instructions="prompt"),
)


def reply_with(tool_input: Any, stop_reason: str = "tool_use") -> ModelReply:
    return ModelReply(served_model="m", stop_reason=stop_reason, tool_input=tool_input)


def weaknesses(n: int) -> list[dict[str, str]]:
    return [{"weakness": f"flaw {i}", "suggestion": f"fix {i}"} for i in range(1, n + 1)]


def critique_input(n: int, claim_id: str = "flaws") -> dict[str, Any]:
    return {"results": [{"id": claim_id, "weaknesses": weaknesses(n), "assessment": "So so."}]}


def compliance_input(overall: Any = 0.6, **changes: Any) -> dict[str, Any]:
    entry = {
        "id": "follows",
        "well_followed": [{"section": "Format", "evidence": "a table", "score": 0.9}],
        "poorly_followed": [
            {"section": "Length", "evidence": "900 words", "reason": "over 500", "score": 0.2}
        ],
        "overall_compliance": overall,
        **changes,
    }
    return {"results": [entry]}


def one(kind: Any, tool_input: Any, claim: JudgeClaim) -> ClaimVerdict:
    result = parse_verdict(kind, reply_with(tool_input), [claim])
    assert isinstance(result, ParsedVerdict), result
    return result.claims[0]


def problem(kind: Any, tool_input: Any, claim: JudgeClaim, **reply: Any) -> VerdictProblem:
    result = parse_verdict(
        kind,
        ModelReply(
            **{"served_model": "m", "stop_reason": "tool_use", "tool_input": tool_input, **reply}
        ),
        [claim],
    )
    assert isinstance(result, VerdictProblem), result
    return result


@pytest.mark.parametrize(
    ("found", "score", "status"),
    [(0, 1.0, "pass"), (1, 0.75, "fail"), (2, 0.5, "fail"), (3, 0.25, "fail"), (7, 0.25, "fail")],
)
def test_critique_scores_the_points_for_the_weaknesses_found(
    found: int, score: float, status: str
) -> None:
    verdict = one("critique", critique_input(found), CRITIQUE)
    assert (verdict.status, verdict.score) == (status, score)
    assert verdict.evidence["critique"] == {
        "found": found,
        "awarded": int(score * 100),
        "points": [100, 75, 50, 25],
        "pass_at": 100,
    }
    assert verdict.evidence["verdict"]["weaknesses"] == weaknesses(found)
    assert verdict.evidence["verdict"]["assessment"] == "So so."


def test_critique_reason_is_one_line_listing_the_weaknesses() -> None:
    assert one("critique", critique_input(2), CRITIQUE).reason == "2 weaknesses: flaw 1; flaw 2"
    assert one("critique", critique_input(1), CRITIQUE).reason == "1 weakness: flaw 1"
    assert one("critique", critique_input(0), CRITIQUE).reason == "no weakness found: So so."
    multiline = critique_input(1)
    multiline["results"][0]["weaknesses"][0]["weakness"] = "first\nline"
    assert one("critique", multiline, CRITIQUE).reason == "1 weakness: first line"


def test_critique_passes_at_its_pass_at() -> None:
    got = [one("critique", critique_input(n, "lenient"), LENIENT) for n in range(4)]
    assert [(v.status, v.score) for v in got] == [
        ("pass", 1.0),
        ("pass", 0.6),
        ("fail", 0.1),
        ("fail", 0.1),
    ]


def test_compliance_scores_the_overall_compliance_against_pass_at() -> None:
    verdict = one("compliance", compliance_input(0.6), COMPLIANCE)
    assert (verdict.status, verdict.score) == ("pass", 0.6)
    assert verdict.reason == "compliance 0.6; poorly followed: Length (over 500)"
    assert verdict.evidence["verdict"]["poorly_followed"] == [
        {"section": "Length", "evidence": "900 words", "score": 0.2, "reason": "over 500"}
    ]
    assert verdict.evidence["verdict"]["well_followed"][0]["section"] == "Format"
    assert verdict.evidence["compliance"] == {"pass_at": 0.5}
    low = one("compliance", compliance_input(0.45), COMPLIANCE)
    assert (low.status, low.score) == ("fail", 0.45)
    edge = one("compliance", compliance_input(0.5, poorly_followed=[]), COMPLIANCE)
    assert edge.status == "pass" and edge.reason == "compliance 0.5; no section poorly followed"


@pytest.mark.parametrize(
    ("tool_input", "where"),
    [
        ({"results": [{"id": "flaws", "assessment": "x"}]}, "results.0.weaknesses"),
        ({"results": []}, "results"),
        ({"results": [{"id": "flaws", "weaknesses": "none", "assessment": "x"}]}, "weaknesses"),
        (
            {"results": [{"id": "flaws", "weaknesses": [{"weakness": " "}], "assessment": "x"}]},
            "weakness",
        ),
        ({"verdict": "fine"}, "results"),
    ],
)
def test_malformed_critique_is_a_retryable_problem(tool_input: Any, where: str) -> None:
    found = problem("critique", tool_input, CRITIQUE)
    assert found.kind == "malformed" and found.retry
    assert found.reason.startswith("malformed verdict: ") and where in found.reason
    assert found.raw["tool_input"] == tool_input


@pytest.mark.parametrize("overall", [1.2, -0.1, True, "0.6", None])
def test_compliance_outside_zero_one_or_not_a_number_is_malformed(overall: Any) -> None:
    found = problem("compliance", compliance_input(overall), COMPLIANCE)
    assert found.kind == "malformed" and "overall_compliance" in found.reason


def test_a_section_score_outside_zero_one_is_malformed() -> None:
    bad = compliance_input(
        0.6, well_followed=[{"section": "Format", "evidence": "a table", "score": 3}]
    )
    found = problem("compliance", bad, COMPLIANCE)
    assert found.kind == "malformed" and "well_followed.0.score" in found.reason
    missing_reason = compliance_input(
        0.6, poorly_followed=[{"section": "Length", "evidence": "long", "score": 0.1}]
    )
    assert "reason" in problem("compliance", missing_reason, COMPLIANCE).reason


def test_wrong_ids_refusals_truncation_and_prose_are_the_usual_problems() -> None:
    assert problem("critique", critique_input(0, "other"), CRITIQUE).kind == "claim_ids"
    assert problem("compliance", None, COMPLIANCE, stop_reason="refusal").kind == "refused"
    assert problem("critique", None, CRITIQUE, stop_reason="max_tokens").kind == "truncated"
    prose = problem("compliance", None, COMPLIANCE, stop_reason="end_turn", text="It complies.")
    assert prose.kind == "no_tool_call"
    assert prose.reason == "the judge did not call record_compliance; it wrote: It complies."


def test_a_kind_asked_of_claims_without_its_key_is_a_caller_error() -> None:
    with pytest.raises(ValueError, match="critique verdict needs claims that have a critique"):
        parse_verdict("critique", reply_with(critique_input(0)), [COMPLIANCE])
    with pytest.raises(ValueError, match="compliance"):
        parse_verdict("compliance", reply_with(compliance_input()), [CRITIQUE])


def test_tools_are_valid_json_schema_and_accept_what_the_models_accept() -> None:
    for kind, tool_input in (("critique", critique_input(2)), ("compliance", compliance_input())):
        tool = verdict_tool(kind)  # type: ignore[arg-type]
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        jsonschema.validate(tool_input, tool.input_schema)
    assert verdict_tool("critique").name == "record_critique"
    assert verdict_tool("compliance").name == "record_compliance"
    # Grounds before the verdict: the judge writes its findings first.
    item = verdict_tool("compliance").input_schema["properties"]["results"]["items"]
    assert list(item["properties"])[-1] == "overall_compliance"
    missed = item["properties"]["poorly_followed"]["items"]["properties"]
    assert list(missed) == ["section", "evidence", "reason", "score"]


def sample(status: str, score: float, reason: str) -> ClaimVerdict:
    return ClaimVerdict("flaws", status, score, reason)  # type: ignore[arg-type]


def test_samples_of_a_critique_take_the_median_count() -> None:
    votes = [sample("fail", 0.5, "two"), sample("pass", 1.0, "none"), sample("fail", 0.75, "one")]
    combined = combine_samples(votes, kind="critique")
    assert (combined.status, combined.score) == ("fail", 0.75)
    assert combined.reason == "one (2 of 3 verdicts agree)"
    # Binary and scale claims keep the mean.
    assert combine_samples(votes, kind="scale").score == pytest.approx(0.75)


def test_an_even_split_of_compliance_samples_fails_with_a_failing_median() -> None:
    votes = [
        sample(*v)
        for v in [("pass", 0.9, "a"), ("fail", 0.2, "b"), ("pass", 0.6, "c"), ("fail", 0.4, "d")]
    ]
    combined = combine_samples(votes, kind="compliance")
    assert combined.status == "fail" and combined.score == 0.4
    assert combined.reason.startswith("samples split evenly (2 pass, 2 fail)")


@given(st.lists(st.integers(0, 5), min_size=1, max_size=9))
def test_the_median_sample_agrees_with_the_majority(counts: list[int]) -> None:
    votes = [one("critique", critique_input(n, "lenient"), LENIENT) for n in counts]
    combined = combine_samples(votes, kind="critique")
    assert combined.score is not None
    assert (combined.score >= 0.6) == (combined.status == "pass")

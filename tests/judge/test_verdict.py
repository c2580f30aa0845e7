from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.judge.conftest import JUDGE_FIXTURES, fixture_contract, load_reply
from verifier.judge.verdict import (
    ClaimVerdict,
    ParsedVerdict,
    VerdictProblem,
    parse_verdict,
    verdict_tool,
)
from verifier.llm.types import ModelReply, VerdictKind

CONTRACT = fixture_contract()
BINARY = [CONTRACT.claim("acknowledge_gaps"), CONTRACT.claim("cites_sources")]
SCALE = [CONTRACT.claim("formal_tone")]
PAIRWISE = [CONTRACT.claim("better_cited")]


def reply_with(tool_input: Any, stop_reason: str = "tool_use") -> ModelReply:
    return ModelReply(served_model="m", stop_reason=stop_reason, tool_input=tool_input)


def parsed(result: ParsedVerdict | VerdictProblem) -> ParsedVerdict:
    assert isinstance(result, ParsedVerdict), result
    return result


def problem(result: ParsedVerdict | VerdictProblem) -> VerdictProblem:
    assert isinstance(result, VerdictProblem), result
    return result


def test_binary_pass_needs_pass_and_every_criterion_met() -> None:
    verdict = parsed(parse_verdict("binary", load_reply("binary-pass"), BINARY))
    assert [(v.claim_id, v.status, v.score) for v in verdict.claims] == [
        ("acknowledge_gaps", "pass", 1.0),
        ("cites_sources", "pass", 1.0),
    ]
    first = verdict.claims[0]
    assert first.reason == "The missing call data is named and nothing is invented in its place."
    assert [c["met"] for c in first.evidence["verdict"]["criteria"]] == [True, True]
    assert "disagreement" not in first.evidence


def test_judge_saying_pass_with_an_unmet_criterion_fails_and_records_the_disagreement() -> None:
    verdict = parsed(parse_verdict("binary", load_reply("binary-disagreement"), BINARY))
    gaps, cites = verdict.claims
    assert gaps.status == "fail" and gaps.score == 0.0
    assert gaps.evidence["disagreement"] == "the judge said pass although criteria were not met"
    assert gaps.reason.startswith(
        "1 of 2 criteria not met (Does the output avoid fabricating information to fill gaps?)"
    )
    assert cites.status == "fail"
    assert cites.evidence["disagreement"] == "the judge said fail although every criterion was met"


def test_criteria_are_recorded_under_the_contracts_wording() -> None:
    tool_input = json.loads(json.dumps(load_reply("binary-pass").tool_input))
    tool_input["results"][1]["criteria"][0]["criterion"] = "paraphrased by the judge"
    verdict = parsed(parse_verdict("binary", reply_with(tool_input), BINARY))
    recorded = verdict.claims[1].evidence["verdict"]["criteria"][0]["criterion"]
    assert recorded == BINARY[1].criteria[0]


def test_unanswered_criterion_is_malformed_and_worth_a_retry() -> None:
    tool_input = json.loads(json.dumps(load_reply("binary-pass").tool_input))
    del tool_input["results"][0]["criteria"][1]
    found = problem(parse_verdict("binary", reply_with(tool_input), BINARY))
    assert found.kind == "malformed" and found.retry
    assert found.reason == "malformed verdict: acknowledge_gaps: the judge answered 1 of 2 criteria"


def test_wrong_missing_and_duplicated_ids_are_a_claim_ids_problem() -> None:
    found = problem(parse_verdict("binary", load_reply("binary-wrong-ids"), BINARY))
    assert found.kind == "claim_ids" and not found.retry
    assert found.reason == (
        "no verdict for acknowledge_gaps; verdicts for unknown ids acknowledge_gap; "
        "several verdicts for cites_sources"
    )


def test_malformed_input_is_retried_and_keeps_the_raw_reply() -> None:
    reply = load_reply("binary-malformed")
    found = problem(parse_verdict("binary", reply, BINARY))
    assert found.kind == "malformed" and found.retry
    assert found.reason.startswith(
        "malformed verdict: results.0.pass: Input should be a valid boolean"
    )
    assert found.raw["tool_input"] == reply.tool_input
    assert found.raw["raw"] == reply.raw


def test_reply_without_tool_call_is_a_problem_quoting_the_text() -> None:
    found = problem(parse_verdict("binary", load_reply("no-tool-call"), BINARY))
    assert found.kind == "no_tool_call" and found.retry
    assert found.reason.startswith(
        "the judge did not call record_assertion_results; it wrote: Both"
    )
    assert found.raw["text"].startswith("Both assertions pass")


def test_refusal_is_a_problem_worth_a_retry() -> None:
    found = problem(parse_verdict("binary", load_reply("refusal"), BINARY))
    assert (found.kind, found.retry) == ("refused", True)
    assert found.raw["stop_reason"] == "refusal"


def test_truncated_reply_is_a_problem_even_with_partial_tool_input() -> None:
    found = problem(parse_verdict("binary", load_reply("truncated"), BINARY))
    assert (found.kind, found.retry) == ("truncated", True)
    assert found.reason == "the judge's answer was cut off (max_tokens)"


def test_scale_score_passes_at_pass_at_and_is_normalised() -> None:
    verdict = parsed(parse_verdict("scale", load_reply("scale-ok"), SCALE))
    (tone,) = verdict.claims
    assert (tone.status, tone.score) == ("pass", 0.75)
    assert tone.evidence["verdict"]["score"] == 4
    assert tone.evidence["scale"] == {"min": 1, "max": 5, "pass_at": 4}
    low = {"results": [{"id": "formal_tone", "reasoning": "Casual.", "score": 3}]}
    (tone,) = parsed(parse_verdict("scale", reply_with(low), SCALE)).claims
    assert (tone.status, tone.score) == ("fail", 0.5)


def test_score_outside_the_scale_is_a_problem() -> None:
    found = problem(parse_verdict("scale", load_reply("scale-out-of-range"), SCALE))
    assert (found.kind, found.retry) == ("score_out_of_range", False)
    assert found.reason == "formal_tone: score 7 lies outside the scale [1, 5]"


@pytest.mark.parametrize("score", [True, "4", 4.5, None])
def test_score_that_is_not_an_integer_is_malformed(score: Any) -> None:
    tool_input = {"results": [{"id": "formal_tone", "reasoning": "r", "score": score}]}
    assert problem(parse_verdict("scale", reply_with(tool_input), SCALE)).kind == "malformed"


def test_scale_verdict_for_claims_without_a_scale_is_a_caller_error() -> None:
    with pytest.raises(ValueError, match="scale"):
        parse_verdict("scale", load_reply("scale-ok"), BINARY)


def test_pairwise_returns_the_winner_by_position() -> None:
    verdict = parsed(parse_verdict("pairwise", load_reply("pairwise"), PAIRWISE))
    assert verdict.winner == "2" and verdict.claims == ()
    assert verdict.reasoning.startswith("Response 2 cites the CRM")
    as_number = parsed(
        parse_verdict("pairwise", reply_with({"winner": 1, "reasoning": "r"}), PAIRWISE)
    )
    assert as_number.winner == "1"


@pytest.mark.parametrize("winner", ["baseline", "3", 3, True, ""])
def test_pairwise_winner_outside_the_labels_is_malformed(winner: Any) -> None:
    found = problem(
        parse_verdict("pairwise", reply_with({"winner": winner, "reasoning": "r"}), PAIRWISE)
    )
    assert found.kind == "malformed"


@pytest.mark.parametrize(
    ("kind", "reply"),
    [
        ("binary", "binary-pass"),
        ("binary", "binary-disagreement"),
        ("scale", "scale-ok"),
        ("scale", "scale-out-of-range"),
        ("pairwise", "pairwise"),
    ],
)
def test_recorded_tool_inputs_match_the_tool_schema(kind: VerdictKind, reply: str) -> None:
    data = json.loads((JUDGE_FIXTURES / "replies" / f"{reply}.json").read_text(encoding="utf-8"))
    jsonschema.validate(data["tool_input"], verdict_tool(kind).input_schema)


@pytest.mark.parametrize("kind", ["binary", "scale", "pairwise"])
def test_tool_schemas_are_valid_json_schema(kind: VerdictKind) -> None:
    jsonschema.Draft202012Validator.check_schema(verdict_tool(kind).input_schema)


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 9)
    | st.sampled_from(["", "1", "acknowledge_gaps", "cites_sources", "x"]),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "results",
                    "id",
                    "criteria",
                    "criterion",
                    "met",
                    "pass",
                    "reasoning",
                    "score",
                    "winner",
                ]
            ),
            children,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@given(tool_input=st.dictionaries(st.sampled_from(["results", "winner", "reasoning"]), _json))
def test_no_reply_is_a_default_pass(tool_input: dict[str, Any]) -> None:
    result = parse_verdict("binary", reply_with(tool_input), BINARY)
    if isinstance(result, VerdictProblem):
        assert "\n" not in result.reason and result.reason
        return
    for verdict in result.claims:
        if verdict.status == "pass":
            answer = verdict.evidence["verdict"]
            assert answer["pass"] is True
            assert all(c["met"] is True for c in answer["criteria"])
            assert len(answer["criteria"]) == len(
                next(c for c in BINARY if c.id == verdict.claim_id).criteria
            )


def test_claim_verdict_is_frozen() -> None:
    verdict = ClaimVerdict("c", "pass", 1.0, "r")
    with pytest.raises(AttributeError):
        verdict.status = "fail"  # type: ignore[misc]

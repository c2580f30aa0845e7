"""The prompt evaluator end to end: the prompt run on each example by the target model
and every check answered by the judge, through the real SDK against the local Messages
API stand-in; one run of gap rows; the seed's arithmetic and layout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.judge.behaviours import malformed
from tests.judge.messages_server import AZURE_TEST_KEY, MessagesServer
from tests.prompt_eval.evaluator_brain import REVERSE_ANSWER, brain
from verifier.gaps.store import open_store
from verifier.prompt_eval.models import EvaluateRequest
from verifier.prompt_eval.run import PromptEvalError, evaluate_prompt
from verifier.run.assembly import Judges

MODEL = "claude-haiku-4-5-20251001"
PROMPT = "You are a helpful coding assistant."
REVERSE = "Write a Python function that reverses a string"
EXPECTED = 'def reverse_string(s: str) -> str:\n    """s reversed."""\n    return s[::-1]\n\nprint(reverse_string("abc"))'

SEED_FEEDBACK = """\
Score: 53/100 (FAILED)

Empirical (50%): 75/100 - Tested against 1 example
  ✓ Example 1: 75/100
    - semantic_match: ✓
    - format_match: ✓
    - correctness: ✓
    - completeness: ✗

Structural (30%): 20/100 - 1/5 checks passed
  ✓ has_role
  ✗ has_task
  ✗ has_format
  ✗ has_constraints
  ✗ has_examples

Adversarial (20%): 50/100 - 2 weaknesses found
  - "Extremely vague, lacks detail about language or context"
  - "No error handling or edge case guidance"

Assessment: This prompt is so generic it's practically useless for consistent coding assistance."""


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    with MessagesServer(default=brain) as running:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", running.base_url)
        yield running


def seed_request(**more: Any) -> EvaluateRequest:
    fields: dict[str, Any] = {
        "prompt": PROMPT,
        "training_examples": [{"input": REVERSE, "expected_output": EXPECTED}],
        "model": MODEL,
    }
    return EvaluateRequest.model_validate({**fields, **more})


def rows(store: Path, run_id: str) -> dict[tuple[str, str], dict[str, Any]]:
    with open_store(str(store)) as gaps:
        found = list(gaps.iter_rows(run_id))
    return {
        (r.case_id, r.claim_id): {"status": r.status, "evidence": json.loads(r.body)["evidence"]}
        for r in found
    }


def test_the_seeds_example_scores_53_and_prints_the_seeds_layout(
    tmp_path: Path, server: MessagesServer
) -> None:
    store = tmp_path / "gaps.db"
    evaluation = evaluate_prompt(seed_request(), store=store, judges=Judges(mode="live"))
    response = evaluation.response
    assert response.feedback == SEED_FEEDBACK
    assert (response.score, response.passed) == (0.53, False)
    assert response.prompt == PROMPT
    assert response.strengths == ["Has role"]
    assert response.weaknesses == [
        "Missing: has task",
        "Missing: has format",
        "Missing: has constraints",
        "Missing: has examples",
        "Extremely vague, lacks detail about language or context",
        "No error handling or edge case guidance",
    ]
    assert response.suggestions[-2:] == [
        "Name the languages, the audience and the help expected",
        "Define error handling",
    ]
    assert "Add output format specification" in response.suggestions
    assert evaluation.understanding == {
        "well_followed": [
            {
                "section": "Role definition",
                "evidence": "Acted as a coding assistant",
                "score": 0.9,
                "example": 1,
            }
        ],
        "poorly_followed": [],
        "overall_compliance": 0.9,
    }
    assert evaluation.errors == ()


def test_the_prompt_runs_on_the_target_with_the_input_as_the_user_message(
    tmp_path: Path, server: MessagesServer
) -> None:
    evaluate_prompt(seed_request(), store=tmp_path / "gaps.db", judges=Judges(mode="live"))
    generations = [c.body for c in server.model_calls() if "tool_choice" not in c.body]
    assert len(generations) == 1  # the prompt case is not given to the target
    (call,) = generations
    system = call["system"] if isinstance(call["system"], str) else call["system"][0]["text"]
    assert system == PROMPT
    assert call["messages"][0]["content"] in (REVERSE, [{"type": "text", "text": REVERSE}])
    assert call["model"] == MODEL


def test_every_check_is_a_gap_row_of_one_run_with_its_triple(
    tmp_path: Path, server: MessagesServer
) -> None:
    store = tmp_path / "gaps.db"
    evaluation = evaluate_prompt(seed_request(), store=store, judges=Judges(mode="live"))
    found = rows(store, evaluation.run_id)
    checks = {
        "semantic_match",
        "format_match",
        "correctness",
        "completeness",
        "prompt_understanding",
    }
    prompt_checks = {
        "has_role",
        "has_task",
        "has_format",
        "has_constraints",
        "has_examples",
        "adversarial",
    }
    for claim in checks:
        row = found[("example-1", claim)]
        assert row["status"] in ("pass", "fail"), (claim, row)
        assert set(row["evidence"]["judge"]) >= {"model_id", "prompt_sha", "sampling_sha"}
    for claim in prompt_checks:
        assert found[("prompt", claim)]["status"] in ("pass", "fail")
        assert found[("example-1", claim)]["status"] == "skipped"
    for claim in checks:
        assert found[("prompt", claim)]["status"] == "skipped"
    assert found[("example-1", "completeness")]["status"] == "fail"
    # The output judged is the one the target produced, with the target's own triple.
    sut = found[("example-1", "semantic_match")]["evidence"]["sut"]
    assert sut["triple"]["model_id"] == MODEL
    assert sut["triple"]["prompt_sha"] and sut["triple"]["sampling_sha"]


def test_a_rerun_is_answered_from_the_cache_with_the_same_score(
    tmp_path: Path, server: MessagesServer
) -> None:
    store = tmp_path / "gaps.db"
    first = evaluate_prompt(seed_request(), store=store, judges=Judges(mode="live"))
    calls = len(server.model_calls())
    second = evaluate_prompt(seed_request(), store=store, judges=Judges(mode="live"))
    assert len(server.model_calls()) == calls
    assert second.run_id != first.run_id
    assert second.response == first.response


def test_negative_examples_score_in_reverse_and_combine_with_positive_ones(
    tmp_path: Path, server: MessagesServer
) -> None:
    negatives = [
        # The target guesses on this input and the bad output guesses too: all four faults.
        {
            "input": "What is the capital of Mars?",
            "bad_output": "I guess Olympus",
            "reason_why_bad": "It guesses",
        },
        # The target's answer avoids the bad output's fault: no penalty.
        {
            "input": "Please reverse 'abc'",
            "bad_output": "print('cba')",
            "reason_why_bad": "Hard-codes the answer",
        },
    ]
    only_negative = evaluate_prompt(
        seed_request(training_examples=[], negative_examples=negatives),
        store=tmp_path / "gaps.db",
        judges=Judges(mode="live"),
    )
    # Reverse: (0 + 100) / 2 = 50; structural 20; adversarial 50 -> 25 + 6 + 10 = 41.
    assert only_negative.response.score == 0.41
    feedback = only_negative.response.feedback
    assert "Empirical (50%): 50/100 - Tested against 2 examples" in feedback
    assert "  ✗ Negative example 1: 0/100\n    - differs_from_bad_output: ✗" in feedback
    assert "  ✓ Negative example 2: 100/100\n    - differs_from_bad_output: ✓" in feedback
    combined = evaluate_prompt(
        seed_request(negative_examples=negatives),
        store=tmp_path / "gaps.db",
        judges=Judges(mode="live"),
    )
    # Positive 75, negative 50 -> 62.5 empirical: 31.25 + 6 + 10 = 47.25, shown as 47.
    assert combined.response.score == 0.47
    assert (
        "Combined Empirical (50%): 62/100 — Positive: 75/100 (1 example), Negative: 50/100 (2 examples)"
        in combined.response.feedback
    )


def test_a_check_the_judge_could_not_answer_is_named_and_not_scored(
    tmp_path: Path, server: MessagesServer
) -> None:
    def broken_structure(request: dict[str, Any]):  # type: ignore[no-untyped-def]
        if "has_role" in json.dumps(request.get("messages", "")):
            return malformed()
        return brain(request)

    server.default = broken_structure
    evaluation = evaluate_prompt(
        seed_request(), store=tmp_path / "gaps.db", judges=Judges(mode="live")
    )
    assert evaluation.passed is False and evaluation.verdict == "incomplete"
    assert evaluation.errors and all(line.startswith("prompt has_") for line in evaluation.errors)
    assert len(evaluation.errors) == 5
    feedback = evaluation.response.feedback
    assert feedback.startswith("Score: —/100 (INCOMPLETE: 5 checks could not be answered)")
    assert "Structural (30%): —/100 - not scored: 5 checks could not be answered" in feedback
    assert "  ? has_role" in feedback
    # What was answered is still scored: the example and the critique.
    assert "Empirical (50%): 75/100 - Tested against 1 example" in feedback
    assert "Adversarial (20%): 50/100 - 2 weaknesses found" in feedback
    assert "Not answered (5; not scored, so the evaluation is incomplete)" in evaluation.feedback()
    assert evaluation.response.score is None
    assert not any(w.startswith("Missing:") for w in evaluation.response.weaknesses)
    report = evaluation.report()
    assert report.components["structural"].score is None
    assert report.components["structural"].not_scored == "5 checks could not be answered"
    assert report.components["empirical"].score == 0.75


def test_batch_size_draws_the_same_examples_for_the_same_seed(
    tmp_path: Path, server: MessagesServer
) -> None:
    examples = [{"input": f"Reverse word {i}", "expected_output": REVERSE_ANSWER} for i in range(6)]
    store = tmp_path / "gaps.db"
    first = evaluate_prompt(
        seed_request(training_examples=examples, batch_size=2, seed=7),
        store=store,
        judges=Judges(mode="live"),
    )
    again = evaluate_prompt(
        seed_request(training_examples=examples, batch_size=2, seed=7),
        store=store,
        judges=Judges(mode="live"),
    )
    cases = {case for case, _ in rows(store, first.run_id)}
    assert len(cases) == 3 and "prompt" in cases
    assert cases == {case for case, _ in rows(store, again.run_id)}
    assert "Tested against 2 examples" in first.response.feedback


def test_a_model_that_is_not_pinned_is_refused_before_any_call(
    tmp_path: Path, server: MessagesServer
) -> None:
    with pytest.raises(PromptEvalError) as raised:
        evaluate_prompt(
            seed_request(model="claude-sonnet-4-0"),
            store=tmp_path / "gaps.db",
            judges=Judges(mode="live"),
        )
    assert "claude-sonnet-4-0" in str(raised.value)
    assert "\n" not in str(raised.value)
    assert server.model_calls() == []


def test_an_azure_deployment_evaluates_as_the_seeds_example_with_its_served_model(
    tmp_path: Path, server: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("openai", reason="the azure extra (openai SDK) is not installed")
    served = "gpt-4o-mini-2024-07-18"
    server.deployments["gpt-4o-mini"] = served
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", AZURE_TEST_KEY)
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", server.azure_endpoint)
    store = tmp_path / "gaps.db"

    evaluation = evaluate_prompt(
        seed_request(model="azure/gpt-4o-mini"), store=store, judges=Judges(mode="live")
    )

    assert (evaluation.response.score, evaluation.errors) == (0.53, ())
    paths = {call.path for call in server.model_calls()}
    assert paths == {"/openai/deployments/gpt-4o-mini/chat/completions"}
    found = rows(store, evaluation.run_id)
    judged = [row["evidence"]["judge"] for row in found.values() if "judge" in row["evidence"]]
    assert len(judged) > 10 and {triple["model_id"] for triple in judged} == {served}

"""Reducing promptfoo assertion results to the v1 artifact, and refusing everything else."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import FIXTURES
from verifier.integrations.promptfoo_artifact import (
    ARTIFACT_SCHEMA,
    MalformedPromptfooResult,
    reduce_promptfoo_result,
)
from verifier.integrations.promptfoo_import import read_promptfoo_result

PROMPTFOO = FIXTURES / "promptfoo"


def load(relative: str) -> Any:
    return json.loads((PROMPTFOO / relative).read_text(encoding="utf-8"))


SURFACED_PASS = load("surfaced/equals-pass.json")
SURFACED_FAIL = load("surfaced/equals-fail.json")
REDUCED_PASS = load("reduced/equals-pass.v1.json")


@pytest.mark.parametrize("name", ["equals-pass", "equals-fail"])
def test_captured_surfaced_result_reduces_to_the_committed_artifact(name: str) -> None:
    artifact, _ = read_promptfoo_result(PROMPTFOO / "surfaced" / f"{name}.json")
    assert artifact.as_json() == load(f"reduced/{name}.v1.json")


def test_surfaced_fixtures_are_the_component_results_of_the_captured_eval() -> None:
    """The fixtures were extracted from the raw promptfoo output, not written by hand."""
    export = load("discovery/out.json")
    components = [r["gradingResult"]["componentResults"] for r in export["results"]["results"]]
    assert components == [[SURFACED_PASS], [SURFACED_FAIL]]
    lines = (PROMPTFOO / "discovery/out.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["gradingResult"]["componentResults"] for line in lines] == components


def test_reduced_artifact_keeps_only_pass_score_reason_and_type() -> None:
    artifact = reduce_promptfoo_result(SURFACED_FAIL).as_json()
    assert artifact == {
        "schema": ARTIFACT_SCHEMA,
        "framework": "promptfoo",
        "surface": "assertion_grading_result",
        "target_kind": "promptfoo_output_assertion",
        "assertion_type": "equals",
        "result": {"pass": False, "score": 0, "reason": 'Expected output "Lyon" to equal "Paris"'},
    }
    assert "value" not in json.dumps(artifact)  # the expected text is never copied


@pytest.mark.parametrize("name", ["equals-pass", "equals-fail"])
def test_a_reduced_artifact_is_accepted_again_unchanged(name: str) -> None:
    reduced = load(f"reduced/{name}.v1.json")
    assert reduce_promptfoo_result(reduced).as_json() == reduced


def test_reason_is_optional() -> None:
    surfaced = {k: v for k, v in SURFACED_PASS.items() if k != "reason"}
    assert reduce_promptfoo_result(surfaced).result.reason is None
    assert "reason" not in reduce_promptfoo_result(surfaced).as_json()["result"]


def test_an_integral_float_score_is_the_same_binary_score() -> None:
    assert reduce_promptfoo_result({**SURFACED_PASS, "score": 1.0}).result.score == 1


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("discovery/out.json", "a promptfoo eval export envelope"),
        ("discovery/out.jsonl", "2 JSON documents, one per line (JSONL)"),
        ("malformed/eval-result-row.json", "an eval result row"),
        ("malformed/test-level-grading-result.json", "a test-level GradingResult"),
        ("malformed/component-results-array.json", "an array of 1 item(s)"),
    ],
)
def test_real_promptfoo_wrappers_are_refused(name: str, reason: str) -> None:
    with pytest.raises(MalformedPromptfooResult, match=re.escape(reason)):
        read_promptfoo_result(PROMPTFOO / name)


def test_one_jsonl_line_is_refused_as_a_result_row(tmp_path: Path) -> None:
    line = (PROMPTFOO / "discovery/out.jsonl").read_text(encoding="utf-8").splitlines()[0]
    (tmp_path / "line.json").write_text(line, encoding="utf-8")
    with pytest.raises(MalformedPromptfooResult, match="an eval result row"):
        read_promptfoo_result(tmp_path / "line.json")


def surfaced(**changes: Any) -> dict[str, Any]:
    result = copy.deepcopy(SURFACED_PASS)
    for key, value in changes.items():
        if value is DROP:
            result.pop(key, None)
        else:
            result[key] = value
    return result


def artifact(outcome: Any = None, **changes: Any) -> dict[str, Any]:
    document = copy.deepcopy(REDUCED_PASS)
    if outcome is not None:
        document["result"] = outcome
    for key, value in changes.items():
        if value is DROP:
            document.pop(key, None)
        else:
            document[key] = value
    return document


DROP = object()
OUTCOME = {"pass": True, "score": 1, "reason": "Assertion passed"}

# One case per malformed rule of the plan seed (and the shapes discovery showed).
MALFORMED: list[tuple[str, Any, str]] = [
    # the surfaced shape
    ("no assertion", surfaced(assertion=DROP), "no assertion type"),
    ("assertion not an object", surfaced(assertion="equals"), "'assertion' must be an object"),
    ("assertion without type", surfaced(assertion={"value": "Paris"}), "no assertion type"),
    ("empty assertion type", surfaced(assertion={"type": " "}), "no assertion type"),
    ("no pass", surfaced(**{"pass": DROP}), "no pass"),
    ("no score", surfaced(score=DROP), "no score"),
    ("pass as a string", surfaced(**{"pass": "true"}), "pass must be a boolean"),
    ("pass as a number", surfaced(**{"pass": 1}), "pass must be a boolean"),
    ("pass null", surfaced(**{"pass": None}), "pass must be a boolean, got null"),
    ("score as a string", surfaced(score="1"), "score must be a number"),
    ("score as a boolean", surfaced(score=True), "score must be a number"),
    ("score null", surfaced(score=None), "score must be a number"),
    ("score not binary", surfaced(score=0.5), "is not 0 or 1"),
    ("score out of range", surfaced(score=2), "is not 0 or 1"),
    ("pass contradicts score", surfaced(score=0), "pass true with score 0"),
    ("empty reason", surfaced(reason=""), "reason is empty"),
    ("whitespace reason", surfaced(reason=" \t "), "reason is empty"),
    ("multi-line reason", surfaced(reason="first\nsecond"), "spans several lines"),
    ("reason with a carriage return", surfaced(reason="one\r"), "spans several lines"),
    ("reason with a line separator", surfaced(reason="a\u2028b"), "spans several lines"),
    ("long reason", surfaced(reason="x" * 281), "has 281 characters"),
    ("structured reason", surfaced(reason='{"verdict": "pass"}'), "structured JSON"),
    ("reason not a string", surfaced(reason=["ok"]), "reason must be a string"),
    ("reason null", surfaced(reason=None), "reason must be a string"),
    (
        "rubric-like reason",
        surfaced(**{"pass": False}, score=0, reason="The output fails the rubric: score 0.2"),
        "reads like a model-graded rubric explanation ('rubric')",
    ),
    ("reason with a score", surfaced(reason="Scored 0.9 on helpfulness"), "('Scored 0.9')"),
    ("reason with a mark", surfaced(reason="Relevant and concise, 4/5"), "('4/5')"),
    ("reason of a grader", surfaced(reason="Grader: meets all criteria"), "('Grader')"),
    (
        "artifact rubric-like reason",
        artifact({**OUTCOME, "reason": "Meets the criteria: 3 out of 5"}),
        "result.reason reads like a model-graded rubric explanation ('criteria')",
    ),
    ("componentResults", surfaced(componentResults=[SURFACED_PASS]), "test-level GradingResult"),
    ("namedScores", surfaced(namedScores={}), "namedScores"),
    ("tokensUsed", surfaced(tokensUsed={"total": 0}), "token, cost or latency"),
    ("cost", surfaced(cost=0), "token, cost or latency"),
    ("latency", surfaced(latencyMs=8), "token, cost or latency"),
    ("raw prompt", surfaced(prompt={"raw": "Paris"}), "raw prompt, output, vars or expected"),
    ("raw output", surfaced(output="Paris"), "raw prompt, output, vars or expected"),
    ("raw vars", surfaced(vars={"output": "Paris"}), "raw prompt, output, vars or expected"),
    ("raw expected", surfaced(expected="Paris"), "raw prompt, output, vars or expected"),
    ("provider id", surfaced(provider={"id": "echo"}), "provider identifiers"),
    ("provider response", surfaced(response={"output": "Paris"}), "provider identifiers"),
    ("metadata", surfaced(metadata={}), "provider identifiers, responses and metadata"),
    ("export envelope", surfaced(evalId="eval-1"), "eval export envelope"),
    ("config", surfaced(config={}), "eval export envelope"),
    ("stats", surfaced(stats={}), "eval export envelope"),
    ("result row", surfaced(testIdx=0), "an eval result row"),
    ("unknown key", surfaced(weight=2), "unexpected key 'weight'"),
    ("assertion threshold", surfaced(assertion={"type": "equals", "threshold": 1}), "'threshold'"),
    ("assertion config", surfaced(assertion={"type": "equals", "config": {}}), "configuration"),
    ("assertion metric", surfaced(assertion={"type": "equals", "metric": "m"}), "configuration"),
    ("model-graded", surfaced(assertion={"type": "llm-rubric"}), "model-graded assertion"),
    ("model-graded family", surfaced(assertion={"type": "model-graded-closedqa"}), "model-graded"),
    ("factuality", surfaced(assertion={"type": "factuality"}), "model-graded"),
    ("similar", surfaced(assertion={"type": "similar"}), "model-graded"),
    ("red team", surfaced(assertion={"type": "promptfoo:redteam:harmful"}), "red-team"),
    ("other deterministic type", surfaced(assertion={"type": "contains"}), "not frozen in v1"),
    ("inverted equals", surfaced(assertion={"type": "not-equals"}), "not frozen in v1"),
    # the artifact shape
    ("artifact without assertion_type", artifact(assertion_type=DROP), "no assertion_type"),
    ("artifact without result", artifact(result=DROP), "no result"),
    ("artifact result not an object", artifact(result=[OUTCOME]), "result must be an object"),
    ("artifact without pass", artifact({"score": 1}), "no result.pass"),
    ("artifact without score", artifact({"pass": True}), "no result.score"),
    ("artifact pass not boolean", artifact({"pass": "yes", "score": 1}), "must be a boolean"),
    ("artifact score not numeric", artifact({"pass": True, "score": "1"}), "must be a number"),
    ("artifact empty reason", artifact({**OUTCOME, "reason": ""}), "result.reason is empty"),
    ("artifact multi-line", artifact({**OUTCOME, "reason": "a\nb"}), "several lines"),
    ("artifact namedScores", artifact({**OUTCOME, "namedScores": {}}), "namedScores"),
    ("artifact componentResults", artifact(componentResults=[]), "test-level GradingResult"),
    ("artifact raw output", artifact(output="Paris"), "raw prompt"),
    ("artifact target id", artifact(target_id_ref="t-1"), "unexpected key 'target_id_ref'"),
    ("artifact timestamp", artifact(timestamp="2026-01-01T00:00:00Z"), "unexpected key"),
    ("artifact other schema", artifact(schema="promptfoo.assertion-grading-result.v2"), "schema"),
    ("artifact wrong framework", artifact(framework="deepeval"), "framework is"),
    ("artifact without surface", artifact(surface=DROP), "no 'surface'"),
    ("artifact wrong target kind", artifact(target_kind="promptfoo_test"), "target_kind is"),
    ("artifact model-graded", artifact(assertion_type="llm-rubric"), "model-graded"),
    # whole documents
    ("array of results", [SURFACED_PASS, SURFACED_FAIL], "an array of 2 item(s)"),
    ("empty array", [], "an array of 0 item(s)"),
    ("a string", "Assertion passed", "a JSON string"),
    ("a number", 1, "a JSON number"),
    ("null", None, "a JSON null"),
]


@pytest.mark.parametrize(
    ("data", "reason"), [(d, r) for _, d, r in MALFORMED], ids=[n for n, _, _ in MALFORMED]
)
def test_malformed_input_fails_closed_with_a_one_line_reason(data: Any, reason: str) -> None:
    with pytest.raises(MalformedPromptfooResult) as caught:
        reduce_promptfoo_result(data)
    message = str(caught.value)
    assert reason in message
    assert "\n" not in message and message.strip() == message


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"", "empty file"),
        (b"  \n", "empty file"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b'{"pass": true,', "invalid JSON at line 1"),
        (
            b'{"pass": false, "score": 0, "pass": true, "assertion": {"type": "equals"}}',
            "key 'pass' appears twice in one object",
        ),
        (
            b'{"pass": true, "score": 1, "assertion": {"type": "llm-rubric", "type": "equals"}}',
            "key 'type' appears twice in one object",
        ),
        (json.dumps(SURFACED_PASS).encode() + b"\n" + json.dumps(SURFACED_FAIL).encode(), "JSONL"),
    ],
)
def test_undecodable_files_fail_closed(tmp_path: Path, raw: bytes, reason: str) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(raw)
    with pytest.raises(MalformedPromptfooResult, match=re.escape(reason)):
        read_promptfoo_result(path)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=10,
)
KEYS = st.sampled_from(["pass", "score", "reason", "assertion", "schema", "result", "type"])


@given(
    st.dictionaries(KEYS | st.text(max_size=6), JSON_VALUES | st.just("equals"), max_size=5)
    | JSON_VALUES
)
def test_any_json_either_reduces_to_a_valid_artifact_or_is_refused(data: Any) -> None:
    try:
        reduced = reduce_promptfoo_result(data)
    except MalformedPromptfooResult as exc:
        assert "\n" not in str(exc)
        return
    again = reduce_promptfoo_result(reduced.as_json())
    assert again == reduced and reduced.result.score == int(reduced.result.passed)


@given(st.text(min_size=1, max_size=8).filter(lambda k: k not in SURFACED_PASS))
def test_any_extra_key_on_a_surfaced_result_is_refused(key: str) -> None:
    with pytest.raises(MalformedPromptfooResult):
        reduce_promptfoo_result({**SURFACED_PASS, key: 0})


@pytest.mark.parametrize(
    "reason",
    [
        "Assertion passed",
        'Expected output "Lyon" to equal "Paris"',
        'Expected output "fails the rubric: score 0.2" to equal "4/5"',
    ],
)
def test_an_equals_reason_is_kept_whatever_the_texts_it_quotes_say(reason: str) -> None:
    outcome = {"pass": False, "score": 0, "reason": reason}
    reduced = reduce_promptfoo_result(artifact(outcome))
    assert reduced.result.reason == reason

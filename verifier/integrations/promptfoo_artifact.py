"""One promptfoo assertion result, reduced to ``promptfoo.assertion-grading-result.export.v1``.

The import is deliberately narrow: it takes exactly one *surfaced* deterministic
assertion result, the object promptfoo 0.121 writes into
``results.results[i].gradingResult.componentResults[j]`` of ``promptfoo eval -o
out.json`` (the JSONL output holds the same objects)::

    {"pass": false, "score": 0, "reason": "Expected output \\"Lyon\\" to equal \\"Paris\\"",
     "assertion": {"type": "equals", "value": "Paris"}}

Only ``pass``, ``score``, a short ``reason`` and ``assertion.type`` are kept.
``assertion.value`` (the expected text) is read past and never copied. The reduced
artifact itself is accepted too, so an artifact can be imported again.

Everything else fails closed, never partially imported: the eval export envelope,
result rows and JSONL lines, arrays, test-level aggregates (``componentResults``),
``namedScores``, token or cost data, raw prompt/output/vars/expected, provider data,
assertion configuration beyond ``type`` and ``value``, model-graded and red-team
assertions, and reasons that are empty, multi-line, structured, long or rubric-like
(a grader's explanation: "fails the rubric", "score 0.2", "4/5"). Only
``equals`` was captured, so only ``equals`` is frozen; a score is 0 or 1 and agrees
with ``pass``, because that is the shape a deterministic ``equals`` was seen to have.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from verifier.errors import VerifierError

__all__ = [
    "ARTIFACT_SCHEMA",
    "MalformedPromptfooResult",
    "PromptfooAssertionArtifact",
    "PromptfooAssertionOutcome",
    "reduce_promptfoo_result",
]

ARTIFACT_SCHEMA: Final = "promptfoo.assertion-grading-result.export.v1"
FRAMEWORK: Final = "promptfoo"
SURFACE: Final = "assertion_grading_result"
TARGET_KIND: Final = "promptfoo_output_assertion"
MAX_REASON_CHARS: Final = 280
"""Longer reasons are refused: v1 keeps a reviewer's hint, not a transcript."""

_SURFACED_KEYS = frozenset({"pass", "score", "reason", "assertion"})
_DESCRIPTOR_KEYS = frozenset({"type", "value"})
_ARTIFACT_KEYS = frozenset({"schema", "framework", "surface", "target_kind", "assertion_type"})
_RESULT_KEYS = frozenset({"pass", "score", "reason"})

# Checked in this order, so the most telling description wins when several apply.
_REFUSED: tuple[tuple[frozenset[str], str], ...] = (
    (
        frozenset({"evalId", "results", "config", "shareableUrl", "runtimeOptions", "stats"}),
        "a promptfoo eval export envelope; extract one assertion result from a "
        "gradingResult's componentResults instead",
    ),
    (
        frozenset({"gradingResult", "testCase", "testIdx", "promptIdx", "promptId", "success"}),
        "an eval result row (a results[] entry or a JSONL line), not one assertion result",
    ),
    (
        frozenset({"componentResults"}),
        "a test-level GradingResult aggregating its assertions; import one component result",
    ),
    (frozenset({"namedScores"}), "namedScores are not part of one assertion result"),
    (
        frozenset({"tokensUsed", "tokenUsage", "cost", "latencyMs", "failureReason"}),
        "token, cost or latency data is not imported",
    ),
    (
        frozenset({"prompt", "output", "vars", "expected", "prompts"}),
        "raw prompt, output, vars or expected values are not imported",
    ),
    (
        frozenset({"provider", "providerResponse", "response", "metadata"}),
        "provider identifiers, responses and metadata are not imported",
    ),
)

# promptfoo's assertion types that ask a model (or an embedding) to grade.
_MODEL_GRADED = frozenset(
    {
        *("answer-relevance", "classifier", "factuality", "g-eval", "llm-rubric", "max-score"),
        *("context-faithfulness", "context-recall", "context-relevance", "similar"),
        *("conversation-relevance", "moderation", "pi", "search-rubric", "select-best"),
    }
)


# A reason a grader model writes, not one an equals check gives ("Assertion passed",
# 'Expected output "Lyon" to equal "Paris"'): it speaks of a rubric, criteria or
# grading, or gives a score or a mark out of a total ("score 0.2", "4/5", "3 out of 5").
_RUBRIC_LIKE = re.compile(
    r"\b(?:rubric|criteri(?:a|on)|grad(?:er|ers|ing|ed))\b"
    r"|\bscor(?:e|es|ed)\b\W{0,3}(?:of\W{0,2})?\d+(?:\.\d+)?"
    r"|\b\d+(?:\.\d+)?\s*(?:/|out of)\s*\d+\b",
    re.IGNORECASE,
)
# promptfoo's equals reason quotes the output and the expected text, the system's own
# words, which may say anything: that shape is not read for rubric words.
_EQUALS_REASON = re.compile(r'Expected output ".*" to equal ".*"')


class MalformedPromptfooResult(VerifierError):
    """Input that is not exactly one v1-shaped promptfoo assertion result; one line."""


class PromptfooAssertionOutcome(BaseModel):
    """``result`` of the artifact: the assertion's outcome as promptfoo surfaced it."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, populate_by_name=True)

    passed: bool = Field(alias="pass", description="The assertion's pass, exactly as surfaced.")
    score: Literal[0, 1] = Field(description="0 or 1: equals was seen to score nothing else.")
    reason: str | None = Field(
        default=None, description="promptfoo's one-line reason, when it surfaced one."
    )


class PromptfooAssertionArtifact(BaseModel):
    """The reduced v1 artifact: one deterministic promptfoo assertion outcome, nothing more.

    It claims only that promptfoo reported this outcome for one ``equals``
    assertion; not that the output, the expected value or the eval as a whole were
    right, and it names no prompt, test, provider or run (promptfoo's surfaced
    result carries no stable identity for them, so none is invented).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, populate_by_name=True)

    schema_: Literal["promptfoo.assertion-grading-result.export.v1"] = Field(
        default=ARTIFACT_SCHEMA, alias="schema"
    )
    framework: Literal["promptfoo"] = FRAMEWORK
    surface: Literal["assertion_grading_result"] = SURFACE
    target_kind: Literal["promptfoo_output_assertion"] = TARGET_KIND
    assertion_type: Literal["equals"]
    result: PromptfooAssertionOutcome

    def as_json(self) -> dict[str, Any]:
        """The artifact as a JSON object (``reason`` left out when there is none)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


def reduce_promptfoo_result(data: Any) -> PromptfooAssertionArtifact:
    """Reduces one surfaced assertion result (or re-checks a v1 artifact).

    Args:
        data: A decoded JSON document: promptfoo's surfaced component GradingResult,
            or an artifact whose ``schema`` is ``ARTIFACT_SCHEMA``.

    Raises:
        MalformedPromptfooResult: Anything else, with a one-line reason.
    """
    if isinstance(data, list):
        raise MalformedPromptfooResult(
            f"an array of {len(data)} item(s): exactly one assertion result is imported, "
            "never a list or a part of one"
        )
    if not isinstance(data, dict):
        raise MalformedPromptfooResult(f"a JSON {_json_type(data)}, not an assertion result object")
    if "schema" in data:
        return _checked_artifact(data)
    _refuse_keys(data, _SURFACED_KEYS, "")
    descriptor = data.get("assertion")
    if descriptor is None:
        raise MalformedPromptfooResult("no assertion type: the result has no 'assertion' object")
    if not isinstance(descriptor, dict):
        raise MalformedPromptfooResult(
            f"'assertion' must be an object with a type, got a {_json_type(descriptor)}"
        )
    extra = sorted(set(descriptor) - _DESCRIPTOR_KEYS)
    if extra:
        raise MalformedPromptfooResult(
            f"assertion configuration {extra[0]!r} is not imported: the descriptor may hold "
            "only type and value"
        )
    assertion_type = _checked_type(descriptor.get("type"), "assertion.type")
    return _artifact(assertion_type, _checked_outcome(data, ""))


def _checked_artifact(data: dict[str, Any]) -> PromptfooAssertionArtifact:
    _refuse_keys(data, _ARTIFACT_KEYS | {"result"}, "")
    fixed = (
        ("schema", ARTIFACT_SCHEMA),
        ("framework", FRAMEWORK),
        ("surface", SURFACE),
        ("target_kind", TARGET_KIND),
    )
    for key, expected in fixed:
        if key not in data:
            raise MalformedPromptfooResult(f"no {key!r}: a v1 artifact has {key} {expected!r}")
        if data[key] != expected:
            raise MalformedPromptfooResult(
                f"{key} is {_shown(data[key])}; a v1 artifact has {expected!r}"
            )
    if "assertion_type" not in data:
        raise MalformedPromptfooResult("no assertion_type")
    assertion_type = _checked_type(data["assertion_type"], "assertion_type")
    if "result" not in data:
        raise MalformedPromptfooResult("no result")
    result = data["result"]
    if not isinstance(result, dict):
        raise MalformedPromptfooResult(f"result must be an object, got a {_json_type(result)}")
    _refuse_keys(result, _RESULT_KEYS, "result.")
    return _artifact(assertion_type, _checked_outcome(result, "result."))


def _artifact(assertion_type: str, outcome: dict[str, Any]) -> PromptfooAssertionArtifact:
    return PromptfooAssertionArtifact.model_validate(
        {"assertion_type": assertion_type, "result": outcome}
    )


def _refuse_keys(data: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    for keys, why in _REFUSED:
        found = sorted(keys.intersection(data))
        if found:
            raise MalformedPromptfooResult(f"{why} (key {where}{found[0]!r})")
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise MalformedPromptfooResult(
            f"unexpected key {where}{unknown[0]!r}: v1 keeps only " + ", ".join(sorted(allowed))
        )


def _checked_type(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise MalformedPromptfooResult(f"no assertion type: {where} must be a non-empty string")
    if value.startswith("promptfoo:redteam") or value.startswith("redteam"):
        raise MalformedPromptfooResult(f"red-team assertion {value!r} is not imported")
    if value in _MODEL_GRADED or value.startswith("model-graded"):
        raise MalformedPromptfooResult(
            f"model-graded assertion {value!r}: only deterministic assertions are imported"
        )
    if value != "equals":
        raise MalformedPromptfooResult(
            f"assertion type {value!r} is not frozen in v1: only equals was captured"
        )
    return value


def _checked_outcome(data: Mapping[str, Any], where: str) -> dict[str, Any]:
    if "pass" not in data:
        raise MalformedPromptfooResult(f"no {where}pass")
    passed = data["pass"]
    if not isinstance(passed, bool):
        raise MalformedPromptfooResult(f"{where}pass must be a boolean, got {_shown(passed)}")
    if "score" not in data:
        raise MalformedPromptfooResult(f"no {where}score")
    score = data["score"]
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        raise MalformedPromptfooResult(f"{where}score must be a number, got {_shown(score)}")
    if score not in (0, 1):
        raise MalformedPromptfooResult(
            f"{where}score {score!r} is not 0 or 1, the only scores a deterministic equals gives"
        )
    if bool(score) != passed:
        raise MalformedPromptfooResult(
            f"{where}pass {str(passed).lower()} with score {score!r}: equals scores 1 on a "
            "pass and 0 on a fail"
        )
    outcome: dict[str, Any] = {"pass": passed, "score": int(score)}
    if "reason" in data:
        outcome["reason"] = _checked_reason(data["reason"], f"{where}reason")
    return outcome


def _checked_reason(reason: Any, where: str) -> str:
    if not isinstance(reason, str):
        raise MalformedPromptfooResult(f"{where} must be a string, got {_shown(reason)}")
    if not reason.strip():
        raise MalformedPromptfooResult(f"{where} is empty")
    if len(reason.splitlines()) > 1 or reason.endswith(("\n", "\r")):
        raise MalformedPromptfooResult(f"{where} spans several lines; v1 keeps one short line")
    if len(reason) > MAX_REASON_CHARS:
        raise MalformedPromptfooResult(
            f"{where} has {len(reason)} characters; v1 keeps at most {MAX_REASON_CHARS}"
        )
    rubric_like = None if _EQUALS_REASON.fullmatch(reason) else _RUBRIC_LIKE.search(reason)
    if rubric_like is not None:
        raise MalformedPromptfooResult(
            f"{where} reads like a model-graded rubric explanation ({rubric_like[0]!r}), "
            "not a deterministic assertion's reason"
        )
    if reason.lstrip().startswith(("{", "[")):
        try:
            structured = isinstance(json.loads(reason), (dict, list))
        except ValueError:
            structured = False
        if structured:
            raise MalformedPromptfooResult(f"{where} is structured JSON, not a one-line reason")
    return reason


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _shown(value: Any) -> str:
    if value is None:
        return "null"
    text = json.dumps(value, ensure_ascii=False)
    text = text if len(text) <= 40 else text[:39] + "…"
    return f"{_json_type(value)} {text}"

"""Writes the prompt evaluator example's recordings: answers written by hand.

`coding-assistant.prompt-eval.json` must evaluate offline, so the target's answer and
every judge verdict were written by hand (the tables below) rather than by a model.
Every recorded reply names its served model "example/hand-written", so no gap row can
be mistaken for a real model's answer. The script evaluates the example in `record`
mode with a stand-in provider answering from the tables, so the recordings' cache keys
are exactly the ones a replay computes. Rerun it after changing the example or how the
evaluator asks its checks:

    python contracts/examples/record_prompt_eval.py
"""

from __future__ import annotations

import dataclasses
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from verifier._internal.json_documents import read_document
from verifier.llm.providers.registry import provider_entry, register, unregister
from verifier.llm.types import ModelReply, ModelRequest
from verifier.prompt_eval.models import EvaluateRequest
from verifier.prompt_eval.run import evaluate_prompt
from verifier.run.assembly import Judges
from verifier.scaffold.verdicts import SERVED_MODEL

HERE = Path(__file__).resolve().parent
REQUEST = HERE / "coding-assistant.prompt-eval.json"
RECORDINGS = HERE / "coding-assistant.prompt-eval.recordings.jsonl"

# What the target answers to the example's input: correct, but without the call the
# input asked for.
ANSWER = "def reverse_string(s):\n    return s[::-1]"

# Claim id -> (passes, why), for the example's output and for the prompt itself.
CHECKS: dict[str, tuple[bool, str]] = {
    "semantic_match": (True, "Both define a function returning the string reversed."),
    "format_match": (True, "Both answer with a Python function definition."),
    "correctness": (True, "Slicing with [::-1] reverses a string."),
    "completeness": (False, "The input asked to show how to call it; the output does not."),
    "has_role": (True, "It says who the model is: a helpful coding assistant."),
    "has_task": (False, "It names no task beyond being helpful."),
    "has_format": (False, "It says nothing about how to format answers."),
    "has_constraints": (False, "It sets no rules or limits."),
    "has_examples": (False, "It gives no example."),
}
WEAKNESSES = [
    {
        "weakness": "Extremely vague, lacks detail about language or context",
        "suggestion": "Name the languages, the audience and the kind of help expected",
    },
    {
        "weakness": "No error handling or edge case guidance",
        "suggestion": "Define error handling",
    },
]
ASSESSMENT = "This prompt is so generic it's practically useless for consistent coding assistance."
UNDERSTANDING = {
    "well_followed": [
        {"section": "Role definition", "evidence": "Answered as a coding assistant", "score": 0.9}
    ],
    "poorly_followed": [],
    "overall_compliance": 0.9,
}

_BLOCK = re.compile(r"<([a-z0-9._-]+)-([0-9a-f]{16})>\n.*?\n</\1-\2>", re.S)


def _claim_ids(request: ModelRequest) -> list[str]:
    """The claims a judge request asks about (outside every fenced data block)."""
    return re.findall(r'"id": "([^"]+)"', _BLOCK.sub("", request.user))


def _verdict(request: ModelRequest) -> dict[str, Any]:
    ids = _claim_ids(request)
    if request.verdict == "critique":
        return {
            "results": [{"id": i, "weaknesses": WEAKNESSES, "assessment": ASSESSMENT} for i in ids]
        }
    if request.verdict == "compliance":
        return {"results": [{"id": i, **UNDERSTANDING} for i in ids]}
    results = []
    for claim_id in ids:
        ok, why = CHECKS[claim_id]
        results.append({"id": claim_id, "criteria": [], "pass": ok, "reasoning": why})
    return {"results": results}


class HandWritten:
    """Answers the target's request with ``ANSWER`` and each judge request from the
    tables."""

    name = "anthropic"

    async def complete(self, request: ModelRequest, *, timeout: float) -> ModelReply:
        if request.verdict == "generation":
            return ModelReply(
                SERVED_MODEL, "end_turn", None, text=ANSWER, response_id="hand-written-answer"
            )
        return ModelReply(
            SERVED_MODEL,
            "tool_use",
            _verdict(request),
            response_id=f"hand-written-{request.verdict}-{'-'.join(_claim_ids(request))}"[:120],
        )

    async def aclose(self) -> None:
        return None


def main() -> None:
    entry = provider_entry("anthropic")
    unregister("anthropic")
    register(dataclasses.replace(entry, factory=lambda spec, **options: HandWritten()))
    os.environ.setdefault("ANTHROPIC_API_KEY", "hand-written")
    RECORDINGS.unlink(missing_ok=True)
    request = read_document(str(REQUEST), EvaluateRequest, "a prompt evaluation")
    with tempfile.TemporaryDirectory() as scratch:
        evaluation = evaluate_prompt(
            request,
            store=Path(scratch) / "gaps.db",
            judges=Judges(mode="record", recordings=RECORDINGS),
            contract_path=REQUEST.with_suffix(".yaml"),
        )
    print(evaluation.feedback())
    print(f"wrote {RECORDINGS.name}")


if __name__ == "__main__":
    main()

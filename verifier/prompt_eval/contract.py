"""An evaluation request as a contract and cases, so it runs like any other contract.

The prompt under evaluation is the system under test (a prompt system on the target
model: the prompt is the system prompt, each example's input the user message), and
every check is a claim answered by the judge model:

- on each positive example (a case with ``expected_output``): the four standard checks,
  each comparing the output with the expected output (``reference: {expected: ...}``);
- on each negative example (a case with ``bad_output``): the four reverse checks, each
  passing when the output does *not* share the bad output's fault;
- on every example: how well the output followed the prompt (a ``compliance`` claim);
- on the prompt itself (the case ``prompt``, which the system under test skips): the
  five structural checks and the adversarial critique.

Claims apply by ``when:`` to the cases that have what they read. The contract text is
made from the request alone (same request, same contract, same sha), so two
evaluations of one prompt pair up in ``verifier compare`` and a rerun hits the cache.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import yaml

from verifier.llm.providers.registry import provider_entry, route_model
from verifier.prompt_eval.models import EvaluateRequest, NegativeExample, TrainingExample

__all__ = [
    "CONTRACT_ID",
    "PROMPT_CASE",
    "evaluation_cases",
    "evaluation_contract",
    "example_case_id",
    "split_model",
]

CONTRACT_ID: Final = "prompt-eval"
PROMPT_CASE: Final = "prompt"
"""The id of the case holding the prompt itself (structural checks and critique)."""
JUDGE: Final = "judge"
MAX_TOKENS: Final = 2048

STANDARD: Final = {
    "semantic_match": "The output achieves the same meaning and goal as the expected output.",
    "format_match": "The output has a format and structure similar to the expected output's.",
    "correctness": "The output is factually and functionally correct for the input.",
    "completeness": "The output fully addresses the task the input sets.",
}
REVERSE: Final = {
    "differs_from_bad_output": "The output is not semantically similar to the known bad output.",
    "avoids_bad_pattern": (
        "The output does not exhibit the failure described by why the bad output is bad."
    ),
    "avoids_bad_tone": "The output does not have the bad output's problematic tone or style.",
    "avoids_bad_mistakes": "The output does not repeat the bad output's specific mistakes.",
}
STRUCTURAL: Final = {
    "has_role": "The prompt defines who the AI should be: a role or persona.",
    "has_task": "The prompt explains what to do with the input: the task.",
    "has_format": "The prompt specifies how to format the output.",
    "has_constraints": "The prompt sets boundaries or rules: limits, what not to do, how to "
    "handle bad or missing input.",
    "has_examples": "The prompt includes at least one example.",
}
_STRUCTURAL_NOTE: Final = "The text judged is a prompt written for an AI system, not an answer. "
CRITIQUE: Final = (
    "The text judged is a prompt written for an AI system. Find its weaknesses as "
    "instructions: ambiguity, missing context, missing edge-case or error handling, and "
    "ways a model could misread it or be led astray. List each distinct weakness once, "
    "with a suggestion that would fix it, and none when it has none."
)
COMPLIANCE: Final = (
    "How well does the output follow each section of the instructions the system was "
    "given? Name the sections followed well and those followed poorly, with evidence."
)
ADVERSARIAL: Final = "adversarial"
UNDERSTANDING: Final = "prompt_understanding"


def split_model(model: str) -> tuple[str, str]:
    """``provider/model`` as a provider name and a model id (``azure/NAME`` is the
    ``azure-openai`` provider); an id without a prefix is Anthropic's
    (``claude-haiku-4-5-20251001``). See ``verifier.llm.providers.registry.route_model``.

    Raises:
        ValueError: The prefix names no provider.
    """
    return route_model(model)


def _accepted_unpinned(provider: str) -> dict[str, bool]:
    """``pinned: false`` for a provider none of whose ids is pinned (an Azure OpenAI
    deployment's name): a request cannot pin more, and the rows record the model
    each response names (ADR 0076)."""
    form = provider_entry(provider).pinned_form
    return {"pinned": False} if form is not None and form.never_pinned else {}


def example_case_id(number: int) -> str:
    """The case id of the example numbered ``number`` (from 1, as feedback names it)."""
    return f"example-{number}"


def _claim(claim_id: str, instruction: str, when: str, **more: Any) -> dict[str, Any]:
    return {"id": claim_id, "judge": JUDGE, "instruction": instruction, "when": when, **more}


def _template(prompt: str) -> str:
    """The prompt as a template: the system prompt, then the input as the user message;
    a prompt that places the input itself (``{{input}}``) is the user message."""
    if "{{input" in prompt:
        return prompt
    return f"{prompt}\n<!-- dynamic -->\n{{{{input}}}}"


def evaluation_contract(request: EvaluateRequest) -> bytes:
    """The contract an evaluation of ``request`` runs, as YAML text."""
    judge_provider, judge_model = split_model(request.judge)
    target_provider, target_model = split_model(request.model)
    claims: list[dict[str, Any]] = []
    if request.training_examples:
        claims += [
            _claim(cid, text, "expected_output", reference={"expected": "expected_output"})
            for cid, text in STANDARD.items()
        ]
    if request.negative_examples:
        reference = {"bad": "bad_output", "why": "reason_why_bad"}
        claims += [
            _claim(cid, text, "bad_output", reference=reference) for cid, text in REVERSE.items()
        ]
    claims.append(
        _claim(
            UNDERSTANDING,
            COMPLIANCE,
            "output",
            reference={"instructions": "instructions"},
            compliance={"pass_at": 0.5},
        )
    )
    claims += [
        _claim(cid, _STRUCTURAL_NOTE + text, "prompt", field="prompt")
        for cid, text in STRUCTURAL.items()
    ]
    claims.append(
        _claim(
            ADVERSARIAL,
            CRITIQUE,
            "prompt",
            field="prompt",
            critique={"points": [100, 75, 50, 25], "pass_at": 75},
        )
    )
    document: dict[str, Any] = {
        "contract": CONTRACT_ID,
        "version": 1,
        "description": "An empirical evaluation of a prompt: run on examples, then judged.",
        "judges": {
            JUDGE: {
                "provider": judge_provider,
                "model": judge_model,
                "sampling": {"max_tokens": MAX_TOKENS},
                "group": "case",
                **_accepted_unpinned(judge_provider),
            }
        },
        "sut": {
            "prompt": {
                "provider": target_provider,
                "model": target_model,
                "template": _template(request.prompt),
                "sampling": {"max_tokens": MAX_TOKENS},
            },
            "when": "input",
        },
        "claims": claims,
    }
    text = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
    return text.encode("utf-8")


def _example_case(
    number: int, example: TrainingExample | NegativeExample, prompt: str
) -> dict[str, Any]:
    case: dict[str, Any] = {"id": example_case_id(number), "input": example.input}
    if isinstance(example, TrainingExample):
        case["expected_output"] = example.expected_output
    else:
        case["bad_output"] = example.bad_output
        case["reason_why_bad"] = example.reason_why_bad
    case["instructions"] = prompt
    return case


def evaluation_cases(request: EvaluateRequest) -> list[Mapping[str, Any]]:
    """The cases: each example drawn (``batch_size``, ``seed``), then the prompt."""
    cases: list[Mapping[str, Any]] = [
        _example_case(number, example, request.prompt) for number, example in request.examples()
    ]
    cases.append({"id": PROMPT_CASE, "prompt": request.prompt})
    return cases

"""Provider-prefixed model ids (``azure/gpt-4o-mini``, ``bedrock/...``), as evaluation
requests write them, route to the provider they name, by the registry alone."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from verifier.judge.config import JudgeConfigError, choose_judge
from verifier.llm.providers.registry import (
    provider_entry,
    provider_names,
    register,
    route_model,
    unregister,
)
from verifier.prompt_eval.contract import evaluation_contract
from verifier.prompt_eval.models import EvaluateRequest


@pytest.mark.parametrize(
    ("model", "routed"),
    [
        ("claude-haiku-4-5-20251001", ("anthropic", "claude-haiku-4-5-20251001")),
        ("anthropic/claude-haiku-4-5-20251001", ("anthropic", "claude-haiku-4-5-20251001")),
        ("openai/gpt-4o-mini-2024-07-18", ("openai", "gpt-4o-mini-2024-07-18")),
        ("azure/gpt-4o-mini", ("azure-openai", "gpt-4o-mini")),
        ("azure-openai/prod-judge", ("azure-openai", "prod-judge")),
        ("openai/meta-llama/Llama-3.1-8B", ("openai", "meta-llama/Llama-3.1-8B")),
    ],
)
def test_a_prefix_names_the_provider_and_is_stripped(model: str, routed: tuple[str, str]) -> None:
    assert route_model(model) == routed


@pytest.fixture
def platform_providers() -> Iterator[None]:
    """``bedrock`` and ``vertex`` as registry entries only (their modules are not needed
    to route to them), unless this branch registers them already."""
    added = [name for name in ("bedrock", "vertex") if name not in provider_names()]
    for name in added:
        register(replace(provider_entry("anthropic"), name=name, prefixes=()))
    yield
    for name in added:
        unregister(name)


@pytest.mark.usefixtures("platform_providers")
@pytest.mark.parametrize(
    ("model", "routed"),
    [
        (
            "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            ("bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
        ),
        ("vertex/claude-sonnet-4-5@20250929", ("vertex", "claude-sonnet-4-5@20250929")),
    ],
)
def test_a_registered_platforms_name_routes_by_the_registry(
    model: str, routed: tuple[str, str]
) -> None:
    assert route_model(model) == routed


def test_an_unknown_prefix_is_one_line_naming_the_known_providers() -> None:
    with pytest.raises(ValueError) as caught:
        route_model("mistral/mistral-large-2411")

    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("model 'mistral/mistral-large-2411': no provider 'mistral'; ")
    assert "anthropic, openai, azure-openai (azure), " in message


def test_a_prefix_without_a_model_is_refused() -> None:
    with pytest.raises(ValueError, match=r"no model id after azure/"):
        route_model("azure/")


def _request(model: str) -> EvaluateRequest:
    return EvaluateRequest.model_validate(
        {"prompt": "Summarise.", "training_examples": [{"input": "a", "expected_output": "b"}],
         "model": model}
    )  # fmt: skip


def test_an_evaluation_request_on_azure_runs_on_the_azure_openai_provider() -> None:
    text = evaluation_contract(_request("azure/gpt-4o-mini")).decode()

    assert "judges:\n  judge:\n    provider: azure-openai\n    model: gpt-4o-mini\n" in text
    assert "    group: case\n    pinned: false\n" in text  # a deployment pins no model
    assert "sut:\n  prompt:\n    provider: azure-openai\n    model: gpt-4o-mini\n" in text


def test_an_evaluation_request_on_openai_keeps_its_judge_pinned() -> None:
    text = evaluation_contract(_request("openai/gpt-4o-mini-2024-07-18")).decode()

    assert "pinned:" not in text


def test_an_evaluation_request_with_an_unknown_prefix_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError) as caught:
        _request("azur/gpt-4o-mini")

    assert "no provider 'azur'" in str(caught.value)


def test_a_judge_given_by_a_prefixed_model_alone_is_on_that_provider() -> None:
    rest: dict[str, None] = dict.fromkeys(("base_url", "max_tokens", "config", "name"))

    choice = choose_judge(provider=None, model="openai/gpt-4o-mini-2024-07-18", **rest)

    assert (choice.spec.provider, choice.spec.model) == ("openai", "gpt-4o-mini-2024-07-18")
    with pytest.raises(JudgeConfigError, match=r"^--model: model 'nope/x': no provider 'nope'"):
        choose_judge(provider=None, model="nope/x", **rest)

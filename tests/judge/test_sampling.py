from __future__ import annotations

import pytest

from verifier.contract.models import Sampling
from verifier.llm.providers.registry import sent_sampling, unsupported_reason, unsupported_sampling
from verifier.llm.triple import sampling_sha_of


def test_anthropic_sends_only_max_tokens_by_default() -> None:
    assert sent_sampling("anthropic", Sampling()) == {"max_tokens": 1024}


def test_anthropic_sends_stop_sequences_thinking_and_effort_when_set() -> None:
    sampling = Sampling(
        max_tokens=4096,
        stop_sequences=("END",),
        thinking={"type": "enabled", "budget_tokens": 2048},
        effort="low",
    )
    assert sent_sampling("anthropic", sampling) == {
        "max_tokens": 4096,
        "stop_sequences": ["END"],
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "output_config": {"effort": "low"},
    }


def test_empty_stop_sequences_are_not_sent() -> None:
    assert "stop_sequences" not in sent_sampling("anthropic", Sampling(stop_sequences=()))


@pytest.mark.parametrize("provider", ["anthropic", "replay"])
@pytest.mark.parametrize(
    ("name", "value"), [("temperature", 0.0), ("top_p", 0.9), ("top_k", 5), ("seed", 1)]
)
def test_anthropic_judge_refuses_parameters_the_api_does_not_accept(
    provider: str, name: str, value: float
) -> None:
    sampling = Sampling.model_validate({name: value})
    assert unsupported_sampling(provider, sampling) == [name]
    with pytest.raises(ValueError, match=f"the anthropic API does not accept {name}"):
        sent_sampling(provider, sampling)


def test_temperature_zero_counts_as_set() -> None:
    assert unsupported_sampling("anthropic", Sampling(temperature=0)) == ["temperature"]


def test_every_unsupported_parameter_is_reported_at_once() -> None:
    sampling = Sampling(temperature=0.2, top_k=3, seed=9)
    assert unsupported_sampling("anthropic", sampling) == ["temperature", "top_k", "seed"]
    assert unsupported_reason("anthropic", "seed").startswith("sampling.seed: ")


def test_replay_sends_what_anthropic_sends() -> None:
    sampling = Sampling(max_tokens=300, stop_sequences=("x",), effort="high")
    assert sent_sampling("replay", sampling) == sent_sampling("anthropic", sampling)


def test_openai_sends_its_own_names_for_the_parameters_it_accepts() -> None:
    sampling = Sampling(max_tokens=512, stop_sequences=("##",), temperature=0, top_p=0.5, seed=7)
    assert sent_sampling("openai", sampling) == {
        "max_tokens": 512,
        "stop": ["##"],
        "temperature": 0,
        "top_p": 0.5,
        "seed": 7,
    }


@pytest.mark.parametrize(
    ("name", "value"), [("top_k", 40), ("thinking", {"type": "enabled"}), ("effort", "low")]
)
def test_openai_refuses_what_it_cannot_send(name: str, value: object) -> None:
    sampling = Sampling.model_validate({name: value})
    assert unsupported_sampling("openai", sampling) == [name]
    with pytest.raises(ValueError, match=f"cannot send {name}"):
        sent_sampling("openai", sampling)


def test_openai_temperature_zero_and_zero_point_zero_share_a_sampling_sha() -> None:
    a = sent_sampling("openai", Sampling(temperature=0))
    b = sent_sampling("openai", Sampling(temperature=0.0))
    assert sampling_sha_of(a) == sampling_sha_of(b)


def test_unknown_provider_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown judge provider"):
        unsupported_sampling("no-such-provider", Sampling())

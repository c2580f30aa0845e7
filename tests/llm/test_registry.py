"""A provider registered in the registry is honoured everywhere, with nothing else changed:
the contract loader and lint, the default modes of judges and of a prompt system, the
sampling sent and ``make_provider``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from verifier.contract.load import check_contract, load_contract
from verifier.contract.models import Sampling
from verifier.contract.sut_models import SutSpec
from verifier.judge.setup import default_mode
from verifier.llm.providers import make_provider
from verifier.llm.providers.registry import (
    ProviderEntry,
    provider_names,
    register,
    sent_sampling,
    unregister,
)
from verifier.llm.sampling import SamplingSettings
from verifier.llm.types import ModelReply, ModelRequest, ProviderError, ProviderSpec
from verifier.sut.setup import default_sut_mode

HEADER = "contract: demo\nversion: 1\n"
CLAIM = "claims:\n  - id: a\n    judge: j\n    instruction: Is it polite?\n"


class AcmeProvider:
    """A provider that is never called: only how it was made is looked at."""

    name = "acme"

    def __init__(self, spec: ProviderSpec, *, base_url: str | None, max_retries: int) -> None:
        self.model = spec.model
        self.base_url = base_url
        self.max_retries = max_retries

    async def complete(self, request: ModelRequest, *, timeout: float) -> ModelReply:
        raise ProviderError("acme: not reachable from tests", retryable=False)

    async def aclose(self) -> None:
        return None


def _make_acme(
    spec: ProviderSpec, *, base_url: str | None, max_retries: int, **_options: Any
) -> AcmeProvider:
    return AcmeProvider(spec, base_url=base_url, max_retries=max_retries)


def _acme_params(sampling: SamplingSettings) -> dict[str, Any]:
    sent: dict[str, Any] = {"max_output_tokens": sampling.max_tokens}
    if sampling.temperature is not None:
        sent["temp"] = sampling.temperature
    return sent


def _acme_snapshot(model: str) -> str | None:
    return f"{model}-2026-05" if model == "acme-large" else None


ACME = ProviderEntry(
    name="acme",
    key_variable="ACME_API_KEY",
    accepts=frozenset({"max_tokens", "temperature"}),
    send=_acme_params,
    factory=_make_acme,
    dated_snapshot=_acme_snapshot,
    retirements=lambda: {"acme-old": "January 2nd, 2026"},
)


@pytest.fixture
def acme() -> Iterator[ProviderEntry]:
    register(ACME)
    try:
        yield ACME
    finally:
        unregister("acme")


def judge_contract(write_contract: Any, model: str, sampling: str = "{}") -> Path:
    path: Path = write_contract(
        HEADER
        + f"judges:\n  j:\n    provider: acme\n    model: {model}\n    sampling: {sampling}\n"
        + CLAIM
    )
    return path


def messages(path: Path, severity: str) -> list[str]:
    _, diagnostics = check_contract(path)
    return [d.message for d in diagnostics if d.severity == severity]


def test_a_registered_provider_is_accepted_by_the_loader(acme, write_contract) -> None:
    loaded = load_contract(judge_contract(write_contract, "acme-small-1", "{temperature: 0.2}"))

    assert loaded.contract.judges["j"].provider == "acme"
    assert provider_names()[-1] == "acme"


def test_the_lint_refuses_sampling_the_provider_cannot_send(acme, write_contract) -> None:
    path = judge_contract(write_contract, "acme-small-1", "{top_k: 5, seed: 1}")

    assert messages(path, "error") == [
        "judge 'j': sampling.top_k: the acme provider cannot send top_k; remove it",
        "judge 'j': sampling.seed: the acme provider cannot send seed; remove it",
    ]


def test_the_lint_knows_the_providers_moving_aliases(acme, write_contract) -> None:
    path = judge_contract(write_contract, "acme-large")

    assert messages(path, "error") == [
        "judge 'j': model 'acme-large' is an alias that moves with new snapshots; "
        "pin the snapshot 'acme-large-2026-05' so verdicts stay reproducible, "
        "or set `pinned: false` on the judge to accept it"
    ]


def test_the_lint_warns_of_the_providers_retired_models(acme, write_contract) -> None:
    path = judge_contract(write_contract, "acme-old")

    [warning] = messages(path, "warning")
    assert warning.startswith("judge 'j': model 'acme-old' retired on 2026-01-02")


def test_a_prompt_system_on_the_provider_is_linted_the_same_way(acme, write_contract) -> None:
    path = write_contract(
        HEADER
        + "sut:\n  prompt:\n    provider: acme\n    model: acme-large\n"
        + "    template: 'Answer: {{input}}'\n    sampling: {top_p: 0.5}\n"
        + "claims:\n  - id: a\n    rubric: present\n    field: output\n"
    )

    assert messages(path, "error") == [
        "sut prompt: model 'acme-large' is an alias that moves with new snapshots; "
        "pin the snapshot 'acme-large-2026-05' so verdicts stay reproducible",
        "sut prompt: sampling.top_p: the acme provider cannot send top_p; remove it",
    ]


def test_judges_replay_while_the_providers_key_is_unset(
    acme, write_contract, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded = load_contract(judge_contract(write_contract, "acme-small-1"))
    monkeypatch.delenv("ACME_API_KEY", raising=False)

    assert default_mode(loaded) == (
        "replay",
        "ACME_API_KEY is not set, so judges replay recorded verdicts",
    )
    monkeypatch.setenv("ACME_API_KEY", "k")
    assert default_mode(loaded) == ("live", None)


def test_a_prompt_system_replays_while_the_providers_key_is_unset(
    acme, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = SutSpec.model_validate(
        {"prompt": {"provider": "acme", "model": "acme-small-1", "template": "{{input}}"}}
    )
    monkeypatch.delenv("ACME_API_KEY", raising=False)

    assert default_sut_mode(spec) == (
        "replay",
        "ACME_API_KEY is not set, so the prompt SUT replays recordings",
    )
    monkeypatch.setenv("ACME_API_KEY", "k")
    assert default_sut_mode(spec) == ("live", None)


def test_make_provider_and_the_sampling_sent_come_from_the_entry(acme, write_contract) -> None:
    spec = load_contract(judge_contract(write_contract, "acme-small-1", "{temperature: 0}"))
    judge = spec.contract.judges["j"]

    provider = make_provider(judge, base_url="http://acme.test/v1", max_retries=0)

    assert isinstance(provider, AcmeProvider)
    assert (provider.model, provider.base_url, provider.max_retries) == (
        "acme-small-1",
        "http://acme.test/v1",
        0,
    )
    assert sent_sampling("acme", judge.sampling) == {"max_output_tokens": 1024, "temp": 0}


def test_an_unregistered_provider_is_unknown_again(write_contract) -> None:
    register(ACME)
    unregister("acme")

    path = judge_contract(write_contract, "acme-small-1")

    [error] = messages(path, "error")
    assert error == (
        "judge 'j': provider: input should be 'anthropic', 'openai', 'azure-openai', "
        "'replay', 'bedrock', 'vertex' or 'foundry' (got 'acme')"
    )
    with pytest.raises(ValueError, match="unknown judge provider 'acme'"):
        sent_sampling("acme", Sampling())


def test_a_name_is_registered_once(acme) -> None:
    with pytest.raises(ValueError, match="'acme' is registered already"):
        register(ACME)

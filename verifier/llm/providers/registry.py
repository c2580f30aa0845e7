"""The providers a judge or a prompt system can name: one entry each.

An entry says everything the rest of verifier needs to know about a provider: its
name, the variable its API key is read from (``None``: it needs none), the sampling
settings it can send and under which names, what a pinned snapshot id looks like,
how a model id that moves with new snapshots is recognised, when its models retire,
and a factory for the provider itself. The contract models, the lint, the default
modes of judges and of a prompt system, and ``make_provider`` all read these entries,
so adding a provider means writing its module and registering its entry here, nothing
else.

Factories import their provider's module when first called: the command line
(``verifier check`` above all) must not pay for an SDK it does not call.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from verifier.llm.pinning import (
    ANTHROPIC_FORM,
    BEDROCK_FORM,
    DEPLOYMENT_FORM,
    OPENAI_FORM,
    VERTEX_FORM,
    PinnedForm,
)
from verifier.llm.providers._platform_ids import (
    bedrock_base,
    bedrock_snapshot,
    bedrock_undated_pinned,
    vertex_base,
    vertex_snapshot,
    vertex_undated_pinned,
)
from verifier.llm.providers._sdk_tables import dated_snapshot, retirement_dates, undated_snapshot
from verifier.llm.sampling import (
    SamplingSettings,
    anthropic_params,
    openai_params,
    set_parameters,
)
from verifier.llm.types import ModelProvider, ProviderSpec


class ProviderFactory(Protocol):
    """Makes the provider of an entry (``base_url`` already chosen; ``options`` are
    the replay provider's and ignored by the others)."""

    def __call__(
        self, spec: ProviderSpec, *, base_url: str | None, max_retries: int, **options: Any
    ) -> ModelProvider: ...


def _no_snapshots(model: str) -> str | None:
    return None


def _no_retirements() -> Mapping[str, str]:
    return {}


def _same_model(model: str) -> str:
    return model


@dataclass(frozen=True)
class ProviderEntry:
    """One provider, as every part of verifier sees it.

    Attributes:
        name: How a contract names it (``provider: NAME``).
        key_variable: The environment variable holding its API key, or ``None`` when
            it needs none; without the key, runs replay recordings by default.
        accepts: The sampling settings it can send (names of
            ``verifier.llm.sampling.SAMPLING_PARAMETERS``; ``max_tokens`` always).
        send: The settings under the names its API takes, exactly as sent.
        factory: Makes the provider.
        pinned_form: What its pinned snapshot ids look like; the lint refuses a judge
            model without that form (``None``: no form is known, nothing is refused).
        dated_snapshot: For an undated model id that moves with new snapshots, the
            dated snapshot to pin instead; ``None`` for an id that is pinned.
        retirements: Model id -> the date it retires, as text ("November 30th, 2026").
        refusal: Why it cannot send a setting, with ``{provider}`` and ``{name}``.
        other_keys: Variables that stand in for ``key_variable`` (a token instead
            of a key); any one of them set is enough.
        endpoint: What ``base_url`` must name when the provider has no address of its
            own (``None``: it has one, and ``base_url`` is optional).
        endpoint_variable: The variable that may name that address instead.
        prefixes: Other names a provider-prefixed model id may use for it
            (``azure/gpt-4o-mini``); its own name always works.
        base_model: The id ``retirements`` lists a model under (a cloud platform's id
            -> the Anthropic id it stands for).
        settings: The judge keys naming where its platform is (``region``,
            ``project``); the lint refuses them on a provider that takes none.
        batches: Whether it sends Message Batches (``--batch``).
    """

    name: str
    key_variable: str | None
    accepts: frozenset[str]
    send: Callable[[SamplingSettings], dict[str, Any]]
    factory: ProviderFactory
    pinned_form: PinnedForm | None = None
    dated_snapshot: Callable[[str], str | None] = _no_snapshots
    retirements: Callable[[], Mapping[str, str]] = _no_retirements
    refusal: str = "the {provider} provider cannot send {name}; remove it"
    other_keys: tuple[str, ...] = ()
    endpoint: str | None = None
    endpoint_variable: str | None = None
    prefixes: tuple[str, ...] = ()
    base_model: Callable[[str], str] = _same_model
    settings: frozenset[str] = frozenset()
    batches: bool = False

    def unsupported(self, sampling: SamplingSettings) -> list[str]:
        """The settings ``sampling`` makes that this provider cannot send."""
        return [name for name in set_parameters(sampling) if name not in self.accepts]

    def retirement(self, model: str) -> str | None:
        """When ``model`` retires, as its table says it (``None``: it lists none)."""
        return self.retirements().get(self.base_model(model))

    def refusal_of(self, name: str) -> str:
        """One line saying why this provider cannot send setting ``name``."""
        return f"sampling.{name}: " + self.refusal.format(provider=self.name, name=name)


_PROVIDERS: dict[str, ProviderEntry] = {}


def register(entry: ProviderEntry) -> None:
    """Adds ``entry``; contracts may name it from now on.

    Raises:
        ValueError: A provider of that name is registered already.
    """
    if entry.name in _PROVIDERS:
        raise ValueError(f"provider {entry.name!r} is registered already")
    _PROVIDERS[entry.name] = entry


def unregister(name: str) -> None:
    """Removes the provider ``name`` (a test's, say); nothing when there is none."""
    _PROVIDERS.pop(name, None)


def provider_names() -> tuple[str, ...]:
    """The names of every registered provider, in the order they were registered."""
    return tuple(_PROVIDERS)


def find_provider(name: object) -> ProviderEntry | None:
    """The entry of ``name``, or ``None`` when no provider has that name."""
    return _PROVIDERS.get(name) if isinstance(name, str) else None


def provider_entry(name: str) -> ProviderEntry:
    """The entry of ``name``.

    Raises:
        ValueError: No provider has that name.
    """
    entry = find_provider(name)
    if entry is None:
        raise ValueError(f"unknown judge provider {name!r}")
    return entry


def unset_key(provider: str) -> str | None:
    """The variable of ``provider``'s API key when it is needed and not set, else ``None``
    (``AZURE_OPENAI_API_KEY (or AZURE_OPENAI_AD_TOKEN)`` when others stand in for it)."""
    entry = provider_entry(provider)
    if entry.key_variable is None:
        return None
    variables = (entry.key_variable, *entry.other_keys)
    if any(os.environ.get(variable) for variable in variables):
        return None
    others = " or ".join(entry.other_keys)
    return f"{entry.key_variable} (or {others})" if others else entry.key_variable


def missing_endpoint(provider: object, base_url: object) -> str | None:
    """Why a judge or prompt system of ``provider`` needs a ``base_url`` it lacks, or
    ``None`` (an unknown provider is the contract validation's to report)."""
    entry = find_provider(provider)
    if entry is None or entry.endpoint is None or (isinstance(base_url, str) and base_url):
        return None
    variable = entry.endpoint_variable
    if variable and os.environ.get(variable):
        return None
    otherwise = f" (or set {variable})" if variable else ""
    return f"provider {entry.name} needs base_url: {entry.endpoint}{otherwise}"


DEFAULT_PROVIDER = "anthropic"
"""The provider of a model id without a provider prefix (``claude-haiku-4-5-20251001``)."""


def route_model(model: str) -> tuple[str, str]:
    """The provider a model id names and the id that provider is asked for.

    ``PROVIDER/ID`` (``openai/gpt-4o-mini-2024-07-18``, ``azure/my-deployment``,
    ``bedrock/anthropic.claude-...``) names a registered provider, by its name or one
    of its ``prefixes``, and loses the prefix; an id without a slash is Anthropic's.
    Only the first slash splits, so ``openai/org/model`` asks ``openai`` for
    ``org/model``.

    Raises:
        ValueError: The prefix names no registered provider (one line naming those
            that are), or nothing follows it.
    """
    prefix, slash, rest = model.partition("/")
    if not slash:
        return DEFAULT_PROVIDER, model
    entry = find_provider(prefix) or next(
        (e for e in _PROVIDERS.values() if prefix in e.prefixes), None
    )
    if entry is None:
        known = ", ".join(
            f"{name} ({', '.join(e.prefixes)})" if e.prefixes else name
            for name, e in _PROVIDERS.items()
        )
        raise ValueError(
            f"model {model!r}: no provider {prefix!r}; a prefixed model id starts with one "
            f"of {known}, then /"
        )
    if not rest:
        raise ValueError(f"model {model!r}: no model id after {prefix}/")
    return entry.name, rest


def unsupported_sampling(provider: str, sampling: SamplingSettings) -> list[str]:
    """Names of the parameters set in ``sampling`` that ``provider`` cannot send.

    Returns parameter names (``temperature``, ``top_k``, ...) in a fixed order, so the
    lint can point at ``sampling.<name>`` in the contract; ``unsupported_reason`` gives
    the message for each.

    Raises:
        ValueError: No provider has that name.
    """
    return provider_entry(provider).unsupported(sampling)


def unsupported_reason(provider: str, name: str) -> str:
    """One line saying why ``provider`` cannot send sampling parameter ``name``."""
    return provider_entry(provider).refusal_of(name)


def sent_sampling(provider: str, sampling: SamplingSettings) -> dict[str, Any]:
    """Exactly the generation parameters a call to ``provider`` will send.

    Args:
        provider: A registered provider's name.
        sampling: The sampling settings from the contract.

    Returns:
        The parameters under the names the provider's API uses; optional ones only
        when set (an empty ``stop_sequences`` is not sent).

    Raises:
        ValueError: A parameter is set that the provider does not accept, or no
            provider has that name.
    """
    entry = provider_entry(provider)
    refused = entry.unsupported(sampling)
    if refused:
        raise ValueError("; ".join(entry.refusal_of(name) for name in refused))
    return entry.send(sampling)


# Each factory imports its provider's module when called, not when the registry is
# read: `verifier check` reads the registry and must not load a provider's SDK.
def _anthropic(
    spec: ProviderSpec, *, base_url: str | None, max_retries: int, **_options: Any
) -> ModelProvider:
    from verifier.llm.providers.anthropic import AnthropicProvider

    return AnthropicProvider(base_url=base_url, max_retries=max_retries)


def _openai(
    spec: ProviderSpec, *, base_url: str | None, max_retries: int, **_options: Any
) -> ModelProvider:
    from verifier.llm.providers.openai_compat import OpenAICompatProvider

    return OpenAICompatProvider(base_url=base_url, max_retries=max_retries)


def _azure_openai(
    spec: ProviderSpec, *, base_url: str | None, max_retries: int, **_options: Any
) -> ModelProvider:
    from verifier.llm.providers.azure_openai import AzureOpenAIProvider

    return AzureOpenAIProvider(base_url=base_url, max_retries=max_retries)


def _bedrock(
    spec: ProviderSpec, *, base_url: str | None, max_retries: int, **_options: Any
) -> ModelProvider:
    from verifier.llm.providers.bedrock import make_bedrock_provider

    return make_bedrock_provider(spec, base_url=base_url, max_retries=max_retries)


def _vertex(
    spec: ProviderSpec, *, base_url: str | None, max_retries: int, **_options: Any
) -> ModelProvider:
    from verifier.llm.providers.vertex import make_vertex_provider

    return make_vertex_provider(spec, base_url=base_url, max_retries=max_retries)


def _foundry(
    spec: ProviderSpec, *, base_url: str | None, max_retries: int, **_options: Any
) -> ModelProvider:
    from verifier.llm.providers.foundry import make_foundry_provider

    return make_foundry_provider(spec, base_url=base_url, max_retries=max_retries)


def _replay(
    spec: ProviderSpec, *, base_url: str | None, max_retries: int, **options: Any
) -> ModelProvider:
    from verifier.llm.providers.replay import ReplayProvider

    return ReplayProvider(spec, **options)


_ANTHROPIC = ProviderEntry(
    name="anthropic",
    key_variable="ANTHROPIC_API_KEY",
    # The anthropic API (SDK 2.x) has no temperature, top_p, top_k or seed.
    accepts=frozenset({"max_tokens", "stop_sequences", "thinking", "effort"}),
    send=anthropic_params,
    factory=_anthropic,
    pinned_form=replace(ANTHROPIC_FORM, undated_pinned=undated_snapshot),
    dated_snapshot=dated_snapshot,
    retirements=retirement_dates,
    refusal="the anthropic API does not accept {name}; remove it "
    "(judge determinism comes from a pinned model, caching and samples)",
    batches=True,
)
register(_ANTHROPIC)
register(
    ProviderEntry(
        name="openai",
        # A key is optional: a local OpenAI-compatible server takes none.
        key_variable=None,
        # Chat completions have no top_k, and no portable spelling of Anthropic's
        # thinking or effort settings (``reasoning_effort`` exists only on some models
        # and servers), so neither is sent rather than guessed.
        accepts=frozenset({"max_tokens", "stop_sequences", "temperature", "top_p", "seed"}),
        send=openai_params,
        factory=_openai,
        pinned_form=OPENAI_FORM,
    )
)
register(
    ProviderEntry(
        name="azure-openai",
        key_variable="AZURE_OPENAI_API_KEY",
        # A Microsoft Entra ID token instead of a key.
        other_keys=("AZURE_OPENAI_AD_TOKEN",),
        # Chat completions, as the openai provider sends them.
        accepts=frozenset({"max_tokens", "stop_sequences", "temperature", "top_p", "seed"}),
        send=openai_params,
        factory=_azure_openai,
        # A model id here is a deployment's name; the response names the model.
        pinned_form=DEPLOYMENT_FORM,
        endpoint="the resource endpoint, https://NAME.openai.azure.com",
        endpoint_variable="AZURE_OPENAI_ENDPOINT",
        prefixes=("azure",),
    )
)
# It stands in for an anthropic judge, so it refuses and sends the same; it calls no
# one, so it needs no key and has no models of its own to pin or retire.
register(
    replace(
        _ANTHROPIC,
        name="replay",
        key_variable=None,
        factory=_replay,
        pinned_form=None,
        dated_snapshot=_no_snapshots,
        retirements=_no_retirements,
        batches=False,
    )
)
_PLATFORM_REFUSAL = (
    "a {provider} judge is called through the Messages API, which takes no {name}; "
    "remove it (judge determinism comes from a pinned model, caching and samples)"
)
# Claude on a cloud platform, through the anthropic SDK's client for it: the same
# Messages API, so the same settings are sent and refused. Credentials are the
# platform's own (no single key variable: runs are live by default, and a judge made
# without credentials stops the run in one line); they name no batch API.
register(
    replace(
        _ANTHROPIC,
        name="bedrock",
        key_variable=None,
        factory=_bedrock,
        pinned_form=replace(BEDROCK_FORM, undated_pinned=bedrock_undated_pinned),
        dated_snapshot=bedrock_snapshot,
        base_model=bedrock_base,
        settings=frozenset({"region"}),
        refusal=_PLATFORM_REFUSAL,
        batches=False,
    )
)
register(
    replace(
        _ANTHROPIC,
        name="vertex",
        key_variable=None,
        factory=_vertex,
        pinned_form=replace(VERTEX_FORM, undated_pinned=vertex_undated_pinned),
        dated_snapshot=vertex_snapshot,
        base_model=vertex_base,
        settings=frozenset({"region", "project"}),
        refusal=_PLATFORM_REFUSAL,
        batches=False,
    )
)
# A Foundry model is named by its deployment: a deployment named after the dated
# snapshot it serves is pinned as an anthropic id is; rows record the model it says served.
register(
    replace(
        _ANTHROPIC,
        name="foundry",
        key_variable=None,
        factory=_foundry,
        refusal=_PLATFORM_REFUSAL,
        batches=False,
    )
)

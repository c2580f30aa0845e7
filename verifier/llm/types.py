"""The shapes every model call shares: requests, replies, usage, provider errors.

Judges and a prompt run as the system under test both speak them. A ``ModelRequest``
is fully rendered before any provider sees it, so the cache key, the triple's
``prompt_sha`` and ``sampling_sha`` and a replayed answer all derive from the same
object. Providers turn a request into one ``ModelReply`` (one call; the caller owns
retries beyond the SDK's, concurrency and rate limits).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

VerdictKind = Literal["binary", "scale", "pairwise", "critique", "compliance"]
RequestKind = Literal["binary", "scale", "pairwise", "critique", "compliance", "generation"]
"""What a request asks for: a verdict of a kind, or (``generation``) free text, as a
prompt run as the system under test does."""

CallMode = Literal["live", "replay", "record"]
"""Where replies come from: ``live`` (cache, then call), ``replay`` (cache and
recordings only) or ``record`` (always call, and write recordings)."""


@dataclass(frozen=True, slots=True)
class SystemBlock:
    """A block of the system prompt; ``cache`` marks it for provider prompt caching."""

    text: str
    cache: bool = False


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool the model is forced to answer through (a judge's: its input is the verdict)."""

    name: str
    description: str
    input_schema: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        """The tool as it enters hashes (the cache key, a judge's ``prompt_sha``)."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
        }


@dataclass(frozen=True, slots=True)
class StoredPromptCall:
    """A prompt kept at the vendor, as one call names it: the data go in as variables.

    Attributes:
        id: The vendor's prompt id.
        version: The pinned version.
        variables: Values for the prompt's variables, by name (untrusted data inside
            nonce-fenced blocks, as in a rendered template).
    """

    id: str
    version: str
    variables: dict[str, str]

    def as_dict(self) -> dict[str, Any]:
        """The ``prompt`` object of the request body."""
        return {"id": self.id, "version": self.version, "variables": dict(self.variables)}


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One model call (a judge's, or a prompt system's), rendered and ready to send.

    Attributes:
        provider: ``anthropic``, ``openai`` or ``replay``.
        model: The requested (pinned) model id from the contract.
        system: Static role and instructions first (cacheable), as blocks.
        user: The dynamic part: delimited input, output and what to judge.
        tool: The forced tool whose input is the verdict (``None``: a plain text
            answer is asked for, as from a prompt run as the system under test).
        sampling: Every generation parameter sent, exactly as sent
            (``max_tokens``, ``stop_sequences``, ``thinking``, ...).
        verdict: What kind of verdict the tool returns (``generation``: none).
        prompt_sha: See ``verifier.llm.triple`` (a judge's covers its template, tool and
            rendering), or a ``vendor-managed:`` sentinel.
        sampling_sha: SHA-256 of canonical JSON of ``sampling``.
        custom_id: Stable id of the request within a run (batches map results by it).
        base_url: Endpoint override (OpenAI-compatible servers, tests).
        cache_key: SHA-256 over the cache-key parts (see ``verifier.llm.cache_key``),
            computed from the request with its nonce masked, so identical work hits
            the cache although every request carries a fresh nonce.
        nonce: The random delimiter nonce of this request.
        stored_prompt: A prompt kept at the vendor that the call names instead of
            sending ``system`` (then empty); ``user`` is then the prompt object as JSON.
    """

    provider: str
    model: str
    system: tuple[SystemBlock, ...]
    user: str
    tool: ToolSpec | None
    sampling: dict[str, Any]
    verdict: RequestKind
    prompt_sha: str
    sampling_sha: str
    custom_id: str = ""
    base_url: str | None = None
    cache_key: str = ""
    nonce: str = ""
    stored_prompt: StoredPromptCall | None = None


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens a call consumed, as the provider reported them."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
        )

    def as_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
        }


@dataclass(frozen=True, slots=True)
class ModelReply:
    """What one call returned, before the verdict is parsed.

    Attributes:
        served_model: The model the API says it served (``None`` when it said none:
            such a reply can never back a pass or fail).
        stop_reason: Why generation stopped (``tool_use``, ``end_turn``,
            ``max_tokens``, ``refusal``, ...).
        tool_input: The input of the forced tool call, when there was one.
        text: Any text content, kept as raw evidence.
        usage: Tokens consumed.
        response_id: The provider's id of the response.
        latency_ms: Wall time of the call.
        raw: The response as JSON-compatible data, for the evidence of error rows.
    """

    served_model: str | None
    stop_reason: str | None
    tool_input: dict[str, Any] | None
    text: str = ""
    usage: Usage = field(default_factory=Usage)
    response_id: str | None = None
    latency_ms: float = 0.0
    raw: dict[str, Any] = field(default_factory=dict)


class ProviderError(Exception):
    """A call that failed at the provider or transport level.

    Attributes:
        message: One line, never containing a key.
        retryable: Whether trying again may succeed (429, 5xx, 529, timeouts).
        retry_after: Seconds the provider asked us to wait, when it said.
        status: HTTP status, when there was one.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        retry_after: float | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status


class ModelProvider(Protocol):
    """Sends one rendered request and returns the reply, or raises ``ProviderError``."""

    name: str

    async def complete(self, request: ModelRequest, *, timeout: float) -> ModelReply: ...

    async def aclose(self) -> None: ...


class ProviderSpec(Protocol):
    """Who is asked: a provider's name, the pinned model and an endpoint override, as a
    judge's spec and a prompt system's both declare them."""

    @property
    def provider(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def base_url(self) -> str | None: ...

"""A judge provider for any OpenAI-compatible chat completions endpoint (and OpenAI's
Responses API, for a judge whose prompt is stored at OpenAI: ``openai_responses``).

vLLM, llama.cpp's server, Ollama and OpenAI itself take ``POST {base_url}/chat/completions``
with ``tools`` and a ``tool_choice`` forcing one function. Needs ``httpx`` (the
``openai`` extra). The transport retries failed connections ``max_retries`` times; HTTP
error statuses are not retried here but reach the scheduler as ``ProviderError`` with
``retryable`` and ``retry_after`` set.
"""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING, Any

from verifier.llm.providers import openai_responses
from verifier.llm.providers._errors import one_line, refuse_unsent, status_error
from verifier.llm.types import ModelReply, ModelRequest, ProviderError, Usage

if TYPE_CHECKING:
    import httpx

API_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"
DEFAULT_BASE_URL = "https://api.openai.com/v1"

# ``sampling`` holds parameters under the API's own names (see ``verifier.llm.sampling``);
# others are refused, so the triple never names a parameter that was not sent.
SAMPLING_PARAMS = frozenset({"max_tokens", "temperature", "top_p", "seed", "stop"})

# ``finish_reason`` in the vocabulary of ``ModelReply.stop_reason`` (Anthropic's), so
# verdict parsing has one set of names; ``raw`` keeps the original.
_STOP_REASONS = {
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "stop": "end_turn",
    "length": "max_tokens",
    "content_filter": "refusal",
}


def chat_body(request: ModelRequest) -> dict[str, Any]:
    """The JSON body of ``POST /chat/completions`` for ``request``.

    Raises:
        ProviderError: Not retryable, when ``sampling`` has a key this API lacks.
    """
    refuse_unsent(request.sampling, SAMPLING_PARAMS, "chat completions take")
    messages: list[dict[str, str]] = []
    if request.system:
        system = "\n\n".join(block.text for block in request.system)
        messages.append({"role": "system", "content": system})
    messages.append({"role": "user", "content": request.user})
    body: dict[str, Any] = {"model": request.model, **request.sampling, "messages": messages}
    tool = request.tool
    if tool is not None:
        function = {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.input_schema,
        }
        body["tools"] = [{"type": "function", "function": function}]
        body["tool_choice"] = {"type": "function", "function": {"name": tool.name}}
    return body


def reply_from_completion(data: dict[str, Any], *, tool_name: str, latency_ms: float) -> ModelReply:
    """Maps a chat completion to a ``ModelReply``.

    Tool call ``arguments`` are a JSON string; when they do not parse to an object
    (a truncated call, say) ``tool_input`` is ``None`` and ``raw`` keeps the text.
    """
    choices = data.get("choices") or [{}]
    choice = choices[0] if isinstance(choices[0], dict) else {}
    message = choice.get("message") or {}
    tool_input: dict[str, Any] | None = None
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        if function.get("name") != tool_name:
            continue
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                arguments = None
        tool_input = arguments if isinstance(arguments, dict) else None
        break
    content = message.get("content")
    usage = data.get("usage") or {}
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    finish_reason = choice.get("finish_reason")
    served_model = data.get("model")
    return ModelReply(
        served_model=str(served_model) if served_model else None,
        stop_reason=_STOP_REASONS.get(finish_reason, finish_reason) if finish_reason else None,
        tool_input=tool_input,
        text=content if isinstance(content, str) else "",
        usage=Usage(
            input_tokens=int(usage.get("prompt_tokens") or 0),
            output_tokens=int(usage.get("completion_tokens") or 0),
            cache_read_input_tokens=int(cached),
        ),
        response_id=data.get("id"),
        latency_ms=latency_ms,
        raw=data,
    )


def _import_httpx() -> Any:
    try:
        import httpx
    except ImportError:
        raise ProviderError(
            "openai: the OpenAI-compatible provider needs httpx: "
            "pip install 'verifier-llm[openai]'",
            retryable=False,
        ) from None
    return httpx


class OpenAICompatProvider:
    """Judge calls to an OpenAI-compatible ``/chat/completions`` endpoint.

    Args:
        base_url: Up to and including the version, e.g. ``http://localhost:8000/v1``;
            a request's own ``base_url`` wins, then ``OPENAI_BASE_URL``, then OpenAI's.
        max_retries: Retries of a failed connection (not of HTTP error statuses).
    """

    name = "openai"

    def __init__(self, *, base_url: str | None = None, max_retries: int = 2) -> None:
        self.base_url = base_url
        self.max_retries = max_retries
        self._client: httpx.AsyncClient | None = None

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            httpx_module = _import_httpx()
            transport = httpx_module.AsyncHTTPTransport(retries=self.max_retries)
            self._client = httpx_module.AsyncClient(transport=transport)
        return self._client

    def _url(self, request: ModelRequest) -> str:
        base = request.base_url or self.base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL
        # A judge whose prompt is stored at OpenAI names it through the Responses API.
        path = openai_responses.ENDPOINT if request.stored_prompt else "chat/completions"
        return base.rstrip("/") + "/" + path

    async def complete(self, request: ModelRequest, *, timeout: float) -> ModelReply:
        """Sends ``request`` and maps the completion (or, for a stored prompt, the
        Responses API's response) to a ``ModelReply``.

        Raises:
            ProviderError: The call failed (status, timeout, connection, body not JSON).
        """
        stored = request.stored_prompt is not None
        body = openai_responses.responses_body(request) if stored else chat_body(request)
        client = self._http()
        import httpx

        key = os.environ.get(API_KEY_ENV) or None
        headers = {"authorization": f"Bearer {key}"} if key else {}
        started = time.perf_counter()
        try:
            response = await client.post(
                self._url(request), json=body, headers=headers, timeout=timeout
            )
        except httpx.TimeoutException:
            raise ProviderError(f"openai: timed out after {timeout:g}s", retryable=True) from None
        except httpx.HTTPError as exc:
            message = one_line(f"openai: {type(exc).__name__}: {exc}", secret=key)
            raise ProviderError(message, retryable=True) from None
        latency_ms = (time.perf_counter() - started) * 1000
        if response.status_code >= 400:
            detail = _error_detail(response)
            headers_seen = dict(response.headers.items())
            raise status_error("openai", response.status_code, detail, headers_seen, secret=key)
        try:
            data = response.json()
        except ValueError as exc:
            message = one_line(f"openai: malformed JSON in the response body: {exc}", secret=key)
            raise ProviderError(message, retryable=True, status=response.status_code) from None
        if not isinstance(data, dict):
            raise ProviderError("openai: the response body is not a JSON object", retryable=True)
        tool_name = request.tool.name if request.tool is not None else ""
        read = openai_responses.reply_from_response if stored else reply_from_completion
        return read(data, tool_name=tool_name, latency_ms=latency_ms)

    async def aclose(self) -> None:
        """Closes the HTTP client."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()


def _error_detail(response: httpx.Response) -> str:
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        return response.text[:200]
    if isinstance(error, dict):
        return str(error.get("message") or error.get("type") or error)
    return str(error or response.reason_phrase)

"""OpenAI's Responses API, for a judge whose prompt is stored at OpenAI.

A stored prompt is named by id and version in ``POST {base_url}/responses`` as
``prompt: {id, version, variables}``; the vendor fills the variables into its own
template, which verifier never sees. The verdict tool is forced as for chat
completions, in the Responses API's spelling (``tools: [{type: function, name,
description, parameters}]``, ``tool_choice: {type: function, name}``), and the answer
comes back as a ``function_call`` item of ``output`` whose ``arguments`` are JSON text.

Only the body and the reply live here; ``OpenAICompatProvider`` sends the call, so
errors, retries and keys are handled as for its chat completions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from verifier.llm.providers._errors import refuse_unsent
from verifier.llm.triple import vendor_managed
from verifier.llm.types import ModelReply, ModelRequest, ProviderError, Usage

ENDPOINT: Final = "responses"
"""The path below the base URL, and the endpoint the ``prompt_sha`` sentinel names."""

PROMPT_SHA: Final = vendor_managed("openai", ENDPOINT)
"""The ``prompt_sha`` of every judge with a stored prompt (``vendor-managed:openai:responses``)."""

SAMPLING_PARAMS: Final = frozenset({"max_output_tokens", "temperature", "top_p"})
"""What a Responses call is sent, under the API's names."""

REFUSED_SETTINGS: Final = ("stop_sequences", "seed")
"""Contract sampling settings the Responses API has no parameter for."""

_CHAT_TO_RESPONSES: Final = {
    "max_tokens": "max_output_tokens",
    "temperature": "temperature",
    "top_p": "top_p",
}

# ``incomplete_details.reason`` in the vocabulary of ``ModelReply.stop_reason``.
_INCOMPLETE: Final = {"max_output_tokens": "max_tokens", "content_filter": "refusal"}


def refused_settings(set_names: Iterable[str]) -> list[str]:
    """Which of the contract settings ``set_names`` a Responses call cannot send."""
    return [name for name in set_names if name in REFUSED_SETTINGS]


def responses_sampling(chat_params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters a Responses call sends, from those chat completions would send.

    Raises:
        ValueError: A parameter (``stop``, ``seed``) has no Responses counterpart.
    """
    unknown = sorted(set(chat_params) - set(_CHAT_TO_RESPONSES))
    if unknown:
        raise ValueError(
            f"the openai Responses API takes no {', '.join(unknown)}; "
            "remove it from the judge's sampling"
        )
    return {_CHAT_TO_RESPONSES[name]: value for name, value in chat_params.items()}


def responses_body(request: ModelRequest) -> dict[str, Any]:
    """The JSON body of ``POST /responses`` for a request naming a stored prompt.

    Raises:
        ProviderError: Not retryable, when the request names no stored prompt or
            ``sampling`` has a key this API lacks.
    """
    if request.stored_prompt is None:
        raise ProviderError("openai: a Responses call needs a stored prompt", retryable=False)
    refuse_unsent(request.sampling, SAMPLING_PARAMS, "the Responses API takes")
    body: dict[str, Any] = {
        "model": request.model,
        "prompt": request.stored_prompt.as_dict(),
        **request.sampling,
    }
    tool = request.tool
    if tool is not None:
        body["tools"] = [
            {
                "type": "function",
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.input_schema,
            }
        ]
        body["tool_choice"] = {"type": "function", "name": tool.name}
    return body


def reply_from_response(data: dict[str, Any], *, tool_name: str, latency_ms: float) -> ModelReply:
    """Maps a Responses API response to a ``ModelReply``.

    ``arguments`` that do not parse to an object (a cut-off call) leave ``tool_input``
    ``None``; ``raw`` keeps the response. A refusal or an incomplete response sets the
    stop reason verdict parsing knows (``refusal``, ``max_tokens``).
    """
    tool_input: dict[str, Any] | None = None
    called = False
    texts: list[str] = []
    refused = False
    for item in _dicts(data.get("output")):
        if item.get("type") == "function_call" and item.get("name") == tool_name and not called:
            called = True
            tool_input = _arguments(item.get("arguments"))
        elif item.get("type") == "message":
            for part in _dicts(item.get("content")):
                if part.get("type") == "refusal":
                    refused = True
                    texts.append(str(part.get("refusal") or ""))
                elif isinstance(part.get("text"), str):
                    texts.append(part["text"])
    usage = _mapping(data.get("usage"))
    details = _mapping(usage.get("input_tokens_details"))
    served_model = data.get("model")
    return ModelReply(
        served_model=str(served_model) if served_model else None,
        stop_reason=_stop_reason(data, called=called, refused=refused),
        tool_input=tool_input,
        text="\n".join(t for t in texts if t),
        usage=Usage(
            input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            cache_read_input_tokens=int(details.get("cached_tokens") or 0),
        ),
        response_id=data.get("id") if isinstance(data.get("id"), str) else None,
        latency_ms=latency_ms,
        raw=data,
    )


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _arguments(arguments: Any) -> dict[str, Any] | None:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    return arguments if isinstance(arguments, dict) else None


def _stop_reason(data: dict[str, Any], *, called: bool, refused: bool) -> str | None:
    status = data.get("status")
    if status == "incomplete":
        reason = _mapping(data.get("incomplete_details")).get("reason")
        return _INCOMPLETE.get(str(reason), str(reason or "incomplete"))
    if refused:
        return "refusal"
    if called:
        return "tool_use"
    if status == "completed":
        return "end_turn"
    return str(status) if status else None

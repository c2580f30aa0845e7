"""A judge with a prompt stored at OpenAI: the request it renders and the Responses API
call it makes, against a local stand-in of that API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.judge import behaviours as b
from tests.judge._support import clean_provider_env, run
from tests.judge.responses_server import ResponsesServer
from verifier.contract.judge_template import load_template
from verifier.contract.models import CompareClaim, JudgeClaim, JudgeSpec, Scale
from verifier.judge.prompt import render_request
from verifier.judge.verdict import ParsedVerdict, VerdictProblem, parse_verdict
from verifier.llm.providers.openai_compat import OpenAICompatProvider
from verifier.llm.types import ModelReply, ModelRequest, ProviderError

provider_env = pytest.fixture(clean_provider_env, autouse=True, name="provider_env")

MODEL = "gpt-4o-2024-08-06"
CLAIM = JudgeClaim(id="answers", judge="j", instruction="The output answers the question")
CASE = {"id": "c1", "input": "How many seats?", "output": "240 seats."}


@pytest.fixture
def server() -> Any:
    with ResponsesServer() as running:
        yield running


def _spec(version: str = "3", **changes: Any) -> JudgeSpec:
    block: dict[str, Any] = {
        "provider": "openai",
        "model": MODEL,
        "stored_prompt": {"id": "pmpt_judge", "version": version},
        "sampling": {"max_tokens": 300, "temperature": 0},
        **changes,
    }
    return JudgeSpec.model_validate(block)


def _render(
    spec: JudgeSpec, claim: JudgeClaim = CLAIM, case: dict[str, Any] = CASE
) -> ModelRequest:
    kind = "scale" if claim.scale else "binary"
    template = load_template(spec, Path.cwd(), kind)  # the built-in one: no file is read
    return render_request(
        spec=spec, template=template, kind=kind, claims=[claim], case=case, custom_id="c1"
    )


async def _complete(server: ResponsesServer, request: ModelRequest) -> ModelReply:
    provider = OpenAICompatProvider(base_url=server.base_url, max_retries=0)
    try:
        return await provider.complete(request, timeout=5.0)
    finally:
        await provider.aclose()


def test_the_data_go_in_as_nonce_fenced_variables() -> None:
    request = _render(_spec())
    assert request.prompt_sha == "vendor-managed:openai:responses"
    assert request.stored_prompt is not None
    assert (request.stored_prompt.id, request.stored_prompt.version) == ("pmpt_judge", "3")
    variables = request.stored_prompt.variables
    nonce = request.nonce
    assert set(variables) == {"input", "output", "assertions", "nonce"}
    assert variables["nonce"] == nonce
    assert variables["output"] == f"<output-{nonce}>\n240 seats.\n</output-{nonce}>"
    assert variables["input"] == f"<input-{nonce}>\nHow many seats?\n</input-{nonce}>"
    assert json.loads(variables["assertions"])[0]["id"] == "answers"
    assert request.system == ()
    assert request.sampling == {"max_output_tokens": 300, "temperature": 0}


def test_a_scale_claim_sends_its_scale() -> None:
    scale = Scale(min=1, max=5, pass_at=4, anchors={1: "wrong", 5: "exact"})
    claim = CLAIM.model_copy(update={"scale": scale})
    variables = _render(_spec(), claim).stored_prompt.variables
    assert "answers: an integer from 1 to 5" in variables["scale"]


def test_a_pairwise_request_sends_both_responses_without_claim_ids() -> None:
    spec = _spec()
    claim = CompareClaim(id="no_worse", compare="pairwise", judge="j", instruction="Clearer?")
    template = load_template(spec, Path.cwd(), "pairwise")
    request = render_request(
        spec=spec,
        template=template,
        kind="pairwise",
        claims=[claim],
        case=CASE,
        outputs=("A text", "B text"),
        custom_id="c1",
    )
    assert request.stored_prompt is not None
    variables = request.stored_prompt.variables
    nonce = request.nonce
    assert set(variables) == {"input", "output_1", "output_2", "assertions", "nonce"}
    assert variables["output_2"] == f"<response-2-{nonce}>\nB text\n</response-2-{nonce}>"
    assert "no_worse" not in variables["assertions"]


def test_the_cache_key_follows_the_version_and_the_data_not_the_nonce() -> None:
    first, again = _render(_spec()), _render(_spec())
    assert first.nonce != again.nonce
    assert first.cache_key == again.cache_key
    assert _render(_spec("4")).cache_key != first.cache_key
    other_output = {**CASE, "output": "241 seats."}
    assert _render(_spec(), case=other_output).cache_key != first.cache_key
    hotter = _spec(sampling={"max_tokens": 300, "temperature": 1})
    assert _render(hotter).cache_key != first.cache_key
    assert _render(hotter).sampling_sha != first.sampling_sha


def test_the_call_names_the_prompt_and_forces_the_verdict_tool(server: ResponsesServer) -> None:
    request = _render(_spec())

    reply = run(_complete(server, request))

    (body,) = server.bodies
    assert server.paths == ["/v1/responses"]
    assert body["model"] == MODEL
    assert body["prompt"] == {
        "id": "pmpt_judge",
        "version": "3",
        "variables": request.stored_prompt.variables,
    }
    assert body["max_output_tokens"] == 300 and body["temperature"] == 0
    (tool,) = body["tools"]
    assert tool["type"] == "function" and tool["name"] == request.tool.name
    assert body["tool_choice"] == {"type": "function", "name": tool["name"]}
    assert "messages" not in body and "input" not in body
    assert reply.served_model == MODEL
    assert reply.stop_reason == "tool_use"
    parsed = parse_verdict("binary", reply, [CLAIM])
    assert isinstance(parsed, ParsedVerdict)
    assert parsed.claims[0].status == "pass"


@pytest.mark.parametrize(
    ("behaviour", "status", "retryable"),
    [(b.server_error(), 500, True), (b.rate_limited(retry_after=2), 429, True)],
)
def test_error_statuses_reach_the_scheduler(
    server: ResponsesServer, behaviour: b.Behaviour, status: int, retryable: bool
) -> None:
    server.script(behaviour)
    with pytest.raises(ProviderError) as caught:
        run(_complete(server, _render(_spec())))
    assert caught.value.status == status
    assert caught.value.retryable is retryable
    if status == 429:
        assert caught.value.retry_after == 2


def test_a_malformed_body_is_a_retryable_error(server: ResponsesServer) -> None:
    server.script(b.malformed())
    with pytest.raises(ProviderError) as caught:
        run(_complete(server, _render(_spec())))
    assert caught.value.retryable
    assert "malformed JSON" in caught.value.message


@pytest.mark.parametrize(
    ("behaviour", "kind"),
    [
        (b.max_tokens({"results": [{"id": "answers", "pass": True}]}), "truncated"),
        (b.refusal(), "refused"),
        (b.text_only("It passes, I think."), "no_tool_call"),
        (b.tool_use({"verdict": "yes"}), "malformed"),
    ],
)
def test_unusable_answers_are_verdict_problems(
    server: ResponsesServer, behaviour: b.Behaviour, kind: str
) -> None:
    server.script(behaviour)
    reply = run(_complete(server, _render(_spec())))
    problem = parse_verdict("binary", reply, [CLAIM])
    assert isinstance(problem, VerdictProblem)
    assert problem.kind == kind


def test_sampling_the_responses_api_lacks_is_refused() -> None:
    with pytest.raises(ValueError, match="takes no seed"):
        _render(_spec(sampling={"max_tokens": 300, "seed": 7}))

"""A prompt run on a pinned model as the system under test, through the real anthropic
SDK against the local Messages API server."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.judge import behaviours as b
from tests.judge.messages_server import MessagesServer
from tests.sut._support import KEY, MODEL, results, run_report, stored_rows, write_cases
from verifier._internal.canonical import params_sha256
from verifier.cases import CaseLine
from verifier.contract.load import load_contract
from verifier.contract.prompt_template import PromptTemplate
from verifier.contract.sut_models import SutSpec
from verifier.errors import SutError
from verifier.llm.limits import CallLimits
from verifier.sut.setup import ModelAccess, make_stage

TEMPLATE = (
    "You are a support bot. Cite [source: Handbook].\n<!-- dynamic -->\nQuestion: {{input}}\n"
)
CONTRACT = f"""\
contract: prompt-sut
version: 1
llm_fields: [output]
sut:
  prompt:
    provider: anthropic
    model: {MODEL}
    template_file: bot.md
    sampling: {{max_tokens: 300}}
  timeout: 10
claims:
  - id: answers
    rubric: regex
    field: output
    pattern: '^ANSWER: Question: '
"""


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    from tests.sut._support import model

    with MessagesServer(default=model) as running:
        yield running


@pytest.fixture
def contract(tmp_path: Path) -> Path:
    (tmp_path / "bot.md").write_text(TEMPLATE, encoding="utf-8")
    path = tmp_path / "prompt.yaml"
    path.write_text(CONTRACT, encoding="utf-8")
    return path


@pytest.mark.e2e
def test_prompt_outputs_carry_their_own_triple(
    tmp_path: Path, server: MessagesServer, contract: Path
) -> None:
    cases = write_cases(tmp_path / "cases.jsonl", {"id": "a", "input": "Where is my parcel?"})
    result, report = run_report(tmp_path, contract, cases, base_url=server.base_url)
    assert result.returncode == 0, result.stderr
    assert results(report)["a"]["answers"]["status"] == "pass"
    sent = server.model_calls()[0].body
    assert "tools" not in sent and "tool_choice" not in sent
    assert sent["system"][0]["text"] == "You are a support bot. Cite [source: Handbook]."
    assert sent["messages"][0]["content"] == "Question: Where is my parcel?\n"
    assert sent["max_tokens"] == 300
    sut = stored_rows(tmp_path / "gaps.db")[0]["evidence"]["sut"]
    assert sut["kind"] == "prompt" and sut["requested_model"] == MODEL
    assert sut["triple"] == {
        "model_id": MODEL,
        "prompt_sha": hashlib.sha256(TEMPLATE.encode()).hexdigest(),
        "sampling_sha": params_sha256({"max_tokens": 300}),
    }
    assert sut["calls"][0]["usage"]["input_tokens"] == 30
    from verifier.analyses.audit import audit_store
    from verifier.gaps.sqlite.store import SqliteStore

    with SqliteStore(tmp_path / "gaps.db") as store:
        assert audit_store(store).ok  # the audit re-checks the system's triple too


@pytest.mark.e2e
def test_recorded_outputs_replay_offline(
    tmp_path: Path, server: MessagesServer, contract: Path
) -> None:
    cases = write_cases(
        tmp_path / "cases.jsonl", {"id": "a", "input": "one"}, {"id": "b", "input": "two"}
    )
    recordings = tmp_path / "prompt.recordings.jsonl"
    run_report(tmp_path, contract, cases, "--judges", "record", base_url=server.base_url)
    assert len(recordings.read_text().splitlines()) == 2
    calls = len(server.model_calls())
    (tmp_path / "gaps.db").unlink()
    result, report = run_report(tmp_path, contract, cases, "--judges", "replay")
    assert result.returncode == 0, result.stderr
    assert report["passed_cases"] == 2 and len(server.model_calls()) == calls
    sut = stored_rows(tmp_path / "gaps.db")[0]["evidence"]["sut"]
    assert sut["calls"][0]["cache"]["hit"] is True and sut["triple"]["model_id"] == MODEL
    recordings.unlink()
    (tmp_path / "gaps.db").unlink()
    _, missing = run_report(tmp_path, contract, cases, "--judges", "replay")
    reason = results(missing)["a"]["answers"]["reasoning"]
    assert "replay: no recorded output for case a" in reason


@pytest.mark.parametrize(
    ("behaviour", "cause"),
    [
        (b.Behaviour("text", text="fine answer", model=None), "names no served model"),
        (b.refusal(), "the model refused"),
        (b.max_tokens(), "cut off (max_tokens)"),
        (b.http_error(400, "bad request"), "model call failed: anthropic: HTTP 400"),
    ],
)
def test_unusable_answers_are_errors_of_their_case_naming_the_cause(
    server: MessagesServer,
    contract: Path,
    monkeypatch: pytest.MonkeyPatch,
    behaviour: b.Behaviour,
    cause: str,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    server.script(behaviour)
    loaded = load_contract(contract)
    assert loaded.contract.sut is not None
    access = ModelAccess(limits=CallLimits(retries=0), base_url=server.base_url)
    stage = make_stage(loaded.contract.sut, base_dir=contract.parent, access=access)

    async def produce() -> list[CaseLine]:
        try:
            return await stage.produce([CaseLine(1, "a", {"id": "a", "input": "q"})])
        finally:
            await stage.aclose()

    (line,) = asyncio.run(produce())
    assert line.case is None and cause in (line.error or "")
    assert line.sut is not None and line.sut["kind"] == "prompt"


@pytest.mark.e2e
def test_each_repeat_is_its_own_call(
    tmp_path: Path, server: MessagesServer, contract: Path
) -> None:
    cases = write_cases(tmp_path / "cases.jsonl", {"id": "a", "input": "q"})
    run_report(tmp_path, contract, cases, "--repeat", "3", base_url=server.base_url)
    assert len(server.model_calls()) == 3
    sut = stored_rows(tmp_path / "gaps.db")[0]["evidence"]["sut"]
    assert len(sut["calls"]) == 3
    # A rerun replays all three from the cache: no call.
    run_report(tmp_path, contract, cases, "--repeat", "3", base_url=server.base_url)
    assert len(server.model_calls()) == 3
    assert json.dumps(stored_rows(tmp_path / "gaps.db")[-1]["evidence"]["sut"]).count('"hit"') == 3


def test_an_openai_compatible_server_answers_a_prompt_sut_in_text(
    server: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    spec = SutSpec.model_validate(
        {
            "prompt": {
                "provider": "openai",
                "model": "local-model-1",
                "template": "Q: {{input.q}}",
                "base_url": server.openai_base_url,
            },
            "format": "text",
        }
    )
    stage = make_stage(spec, base_dir=Path.cwd(), access=ModelAccess())

    async def produce() -> list[CaseLine]:
        try:
            return await stage.produce([CaseLine(1, "a", {"id": "a", "input": {"q": "why?"}})])
        finally:
            await stage.aclose()

    (line,) = asyncio.run(produce())
    assert line.case is not None and line.case["output"] == "ANSWER: Q: why?"
    sent = server.model_calls()[0].body
    assert "tools" not in sent and sent["messages"] == [{"role": "user", "content": "Q: why?"}]
    assert line.sut is not None and line.sut["triple"]["model_id"] == "local-model-1"


JUDGED = (
    CONTRACT
    + f"""\
  - id: polite
    judge: grader
    instruction: The answer is polite and does not guess.
judges:
  grader:
    provider: anthropic
    model: {MODEL}
    sampling: {{max_tokens: 300}}
"""
)


@pytest.mark.e2e
def test_both_variants_share_the_runs_concurrency(tmp_path: Path) -> None:
    # The two variants' systems produce each chunk at the same time; --concurrency
    # bounds the calls of the whole run, not each variant's.
    (tmp_path / "bot.md").write_text(TEMPLATE, encoding="utf-8")
    contract = tmp_path / "judged.yaml"
    contract.write_text(JUDGED, encoding="utf-8")
    cases = write_cases(
        tmp_path / "cases.jsonl", *({"id": f"c{n}", "input": f"question {n}"} for n in range(8))
    )
    variant = "{prompt: {provider: anthropic, model: %s, template: '%s {{input}}'}}"
    from tests.sut._support import model

    with MessagesServer(default=model, latency=0.1) as server:
        result, _ = run_report(
            tmp_path, contract, cases, "--concurrency", "2",
            "--variant", "a=" + variant % (MODEL, "Answer:"),
            "--variant", "b=" + variant % (MODEL, "Reply:"),
            base_url=server.base_url,
        )  # fmt: skip
        peak, calls = server.max_in_flight, len(server.model_calls())
    assert result.returncode in (0, 1), result.stderr
    assert calls == 32  # per case: two outputs and each run's verdict
    assert peak == 2  # not 2 for each variant


def test_one_limiter_per_limits_and_event_loop() -> None:
    from verifier.llm.limits import shared_limiter

    async def two() -> tuple[object, object, object]:
        return (
            shared_limiter(CallLimits(concurrency=3)),
            shared_limiter(CallLimits(concurrency=3)),
            shared_limiter(CallLimits(concurrency=4)),
        )

    first, same, other = asyncio.run(two())
    again, _, _ = asyncio.run(two())
    assert first is same and first is not other and again is not first


@pytest.mark.parametrize(
    "data",
    [
        TEMPLATE.replace("\n", "\r\n").encode("utf-8"),  # as written on Windows or by git
        b"\xef\xbb\xbf" + TEMPLATE.encode("utf-8"),  # a BOM first
    ],
)
def test_a_crlf_or_bom_template_splits_at_its_marker_line(data: bytes) -> None:
    template = PromptTemplate(data, source="bot.md")
    assert template.system == "You are a support bot. Cite [source: Handbook]."
    assert template.render("Hours?").rstrip("\r\n") == "Question: Hours?"
    assert template.sha == hashlib.sha256(data).hexdigest()  # the bytes as committed


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b"Hi {{inp\nut}}",
            "sut prompt p.md: unknown placeholder '{{inp\\nut}}' (use {{input}} or {{input.PATH}})",
        ),
        (
            b"Hi {{input.\r}}",
            "sut prompt p.md: '{{input.\\r}}': invalid field path '\\r': segment '\\r' "
            "must be a key, an index or '*'",
        ),
    ],
)
def test_a_placeholder_over_a_line_break_is_named_on_one_line(data: bytes, message: str) -> None:
    with pytest.raises(SutError) as raised:
        PromptTemplate(data, source="p.md")
    assert str(raised.value) == message


def test_a_template_with_two_marker_lines_is_refused() -> None:
    data = b"System.\n<!-- dynamic -->\nQ: {{input}}\n<!-- dynamic -->\nmore\n"
    with pytest.raises(SutError) as raised:
        PromptTemplate(data, source="p.md")
    assert str(raised.value) == (
        "sut prompt p.md: 2 '<!-- dynamic -->' lines; at most one may end the system part"
    )


@pytest.mark.e2e
def test_a_contract_redacting_the_output_keeps_no_prompt_reply_in_the_store(
    tmp_path: Path, server: MessagesServer, contract: Path
) -> None:
    # The reply quotes the question, so both fields are redacted.
    contract.write_text(CONTRACT + "record:\n  redact: [input, output]\n", encoding="utf-8")
    secret = "Where is parcel 7731-QX for Ann Smith of Leeds?"
    cases = write_cases(tmp_path / "cases.jsonl", {"id": "a", "input": secret})
    result, report = run_report(tmp_path, contract, cases, base_url=server.base_url)
    assert result.returncode == 0, result.stderr
    assert results(report)["a"]["answers"]["status"] == "pass"
    assert secret in server.model_calls()[0].body["messages"][0]["content"]
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("gaps.db*"))
    assert b"7731-QX" not in stored and b"Ann Smith" not in stored
    # The rubric claim on the output shows what was withheld, and keeps where the
    # output came from with the system's whole triple, which the audit re-checks.
    evidence = stored_rows(tmp_path / "gaps.db")[0]["evidence"]
    assert evidence["redacted"] == ["output"] and set(evidence) == {"redacted", "sut"}
    assert evidence["sut"]["triple"]["model_id"] == MODEL
    assert evidence["sut"]["kind"] == "prompt"
    from verifier.analyses.audit import audit_store
    from verifier.gaps.sqlite.store import SqliteStore

    with SqliteStore(tmp_path / "gaps.db") as store:
        assert audit_store(store).ok
    # Nothing was cached, so a rerun asks the model again.
    run_report(tmp_path, contract, cases, base_url=server.base_url)
    assert len(server.model_calls()) == 2

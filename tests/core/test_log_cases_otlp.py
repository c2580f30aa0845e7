"""OpenTelemetry GenAI spans exported as OTLP JSON, read as cases by the one cases
reader under a contract's ``cases: {format: otlp}``: sampled, cut by span start time,
redacted before anything is stored, named by span ids."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from verifier import run_contract
from verifier._internal.case_mapping import CaseMapping
from verifier.cases import check_cases_file, read_cases, sample_cases
from verifier.compare.case_identity import case_identity
from verifier.contract.cases_spec import CasesSpec
from verifier.contract.load import load_contract
from verifier.errors import CasesError
from verifier.gaps.store import open_store
from verifier.run.options import Sample

SPANS = FIXTURES / "otlp" / "support-spans.otlp.jsonl"
NOW = dt.datetime(2026, 11, 28, tzinfo=dt.UTC)
OTLP = CasesSpec(format="otlp", since="2026-11-16").mapping(NOW)
EMAIL = "ana@example.com"


def _copy(tmp_path: Path) -> tuple[Path, Path]:
    for name in ("support-spans.yaml", "support-spans.otlp.jsonl"):
        shutil.copy(FIXTURES / "otlp" / name, tmp_path / name)
    return tmp_path / "support-spans.yaml", tmp_path / "support-spans.otlp.jsonl"


def test_each_gen_ai_span_is_a_case_named_by_its_span_id_with_the_default_map() -> None:
    read = list(read_cases(SPANS, mapping=OTLP))
    # Span 2 of line 1 has no gen_ai attribute (passed over); span 3 started before
    # `since`; line 2 span 2's input messages are no JSON.
    assert [(c.line, c.case_id) for c in read] == [
        (1, "eee19b7ec3c1b174"),
        (4, "ccc19b7ec3c1b177"),
        (5, "ddd19b7ec3c1b178"),
    ]
    assert read[0].case == {
        "id": "eee19b7ec3c1b174",
        "input": f"How long do refunds take? Write to {EMAIL}",  # the last user message
        "output": "Refunds take 5 days. [source: Faq]",
        "model": "claude-haiku-4-5-20251001",
        "usage": {"input_tokens": 42, "output_tokens": 17},
    }
    # The span events form: gen_ai.user.message and gen_ai.choice.
    assert read[1].case is not None
    assert (read[1].case["input"], read[1].case["output"]) == (
        "Can I change my address?",
        "Yes, in settings.",
    )
    assert read[2].case is None
    assert read[2].error == (
        "line 2 span 2: attribute gen_ai.input.messages: not JSON: unexpected character, "
        "expected a string key (column 3)"
    )


def test_since_is_read_by_span_start_time_and_old_attributes_are_read_too() -> None:
    everything = CasesSpec(format="otlp").mapping(NOW)
    read = {c.case_id: c for c in read_cases(SPANS, mapping=everything)}
    old = read["bbb19b7ec3c1b176"].case  # started 2026-11-01, before `since` above
    assert old is not None
    assert (old["input"], old["output"]) == ("An old question", "Old answer [source: Faq]")
    later = CasesSpec(format="otlp", since="2026-11-21T00:00:00Z").mapping(NOW)
    assert [c.case_id for c in read_cases(SPANS, mapping=later)] == [
        "ccc19b7ec3c1b177",
        "ddd19b7ec3c1b178",
    ]


def test_a_map_reads_the_span_attributes_by_their_dotted_names() -> None:
    spec = CasesSpec(
        format="otlp",
        map={
            "input": "gen_ai.input.messages.-1.parts.0.content",
            "model": "gen_ai.request.model",
            "service": "resource.service.name",
        },
        time="end_time",
        since="2026-11-20T10:00:01Z",
    )
    [first, *_] = read_cases(SPANS, mapping=spec.mapping(NOW))
    assert first.case == {
        "id": "eee19b7ec3c1b174",  # the span's id when the map names none
        "input": f"How long do refunds take? Write to {EMAIL}",
        "model": "claude-haiku-4-5",
        "service": "support-bot",
    }
    assert spec.mapping(NOW).record()["format"] == "otlp"


def test_a_sampled_run_of_spans_stores_nothing_of_the_redacted_prompt(tmp_path: Path) -> None:
    contract, spans = _copy(tmp_path)
    store = tmp_path / "gaps.db"
    result = run_contract(contract, spans, store=store, sample=Sample(0.5, seed=1))
    picked = sample_cases(read_cases(spans, mapping=OTLP), 0.5, seed=1)
    assert [c.case_id for c in result.cases] == [c.case_id for c in picked]
    assert [c.case_id for c in result.cases] == ["eee19b7ec3c1b174", "ccc19b7ec3c1b177"]
    assert (result.summary.passed_cases, result.summary.failed_cases) == (1, 1)
    with open_store(str(store)) as opened:
        record = opened.run(result.run_id)
    assert record is not None
    recorded = record.options["cases_mapping"]
    fields = ("span_id", "prompt", "completion", "model", "usage")
    assert recorded["map"] == dict(
        zip(("id", "input", "output", "model", "usage"), fields, strict=True)
    )
    assert recorded["time"] == "start_time" and recorded["format"] == "otlp"
    assert recorded["since"] == "2026-11-16T00:00:00+00:00"
    # Four gen_ai spans, one unreadable (an error row); one other span passed over.
    assert record.options["otlp_spans"] == {"gen_ai": 3, "skipped": 1}
    stored = b"".join(path.read_bytes() for path in tmp_path.glob("gaps.db*"))
    assert b"Refunds take 5 days" in stored  # the output is kept; the input is not
    assert EMAIL.encode() not in stored
    assert b"How long do refunds take" not in stored


def _document(spans: list[dict[str, Any]]) -> str:
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})


def test_a_file_of_spans_is_refused_without_format_otlp_and_a_log_with_it(
    tmp_path: Path,
) -> None:
    with pytest.raises(CasesError, match=r"line 1 is an OTLP JSON trace document .*format: otlp"):
        check_cases_file(SPANS)
    pretty = tmp_path / "spans.json"
    pretty.write_text(json.dumps(json.loads(_document([])), indent=2), encoding="utf-8")
    with pytest.raises(CasesError, match=r"spans.json: an OTLP JSON trace document .*format: otlp"):
        check_cases_file(pretty)
    contract, _ = _copy(tmp_path)
    log = tmp_path / "log.jsonl"
    log.write_text('{"id": "a", "output": "x"}\n', encoding="utf-8")
    with pytest.raises(CasesError) as raised:
        run_contract(contract, log, store=tmp_path / "gaps.db")
    assert str(raised.value) == (
        f"{log}: no GenAI span to read as a case (line 1: not an OTLP JSON trace document "
        "(an object without resourceSpans))"
    )
    plain = tmp_path / "plain.jsonl"
    plain.write_text(_document([{"spanId": "01", "name": "GET /"}]) + "\n", encoding="utf-8")
    with pytest.raises(CasesError, match=r"no GenAI span .*\(1 span\(s\) without gen_ai"):
        run_contract(contract, plain, store=tmp_path / "gaps.db")


def test_a_document_over_many_lines_and_bad_values_are_read_or_named(tmp_path: Path) -> None:
    spans = [
        {
            "spanId": "0a",
            "startTimeUnixNano": "1795168800000000000",
            "attributes": [
                {"key": "gen_ai.prompt.0.role", "value": {"stringValue": "user"}},
                {"key": "gen_ai.prompt.0.content", "value": {"stringValue": "Hi"}},
                {"key": "gen_ai.completion.0.content", "value": {"stringValue": "Hello"}},
            ],
        },
        {
            "spanId": "0b",
            "attributes": [{"key": "gen_ai.usage.input_tokens", "value": {"intValue": "many"}}],
        },
        {"spanId": "0c", "attributes": [{"key": "gen_ai.x", "value": {"bytesValue": "*"}}]},
    ]
    path = tmp_path / "one.json"
    path.write_text(json.dumps(json.loads(_document(spans)), indent=2), encoding="utf-8")
    fields = {"id": "span_id", "input": "prompt", "output": "completion"}
    read = list(read_cases(path, mapping=CaseMapping(fields, format="otlp")))
    assert [(c.case_id, c.case, c.error) for c in read] == [
        ("0a", {"id": "0a", "input": "Hi", "output": "Hello"}, None),
        (
            "0b",
            None,
            "line 1 span 2: attribute gen_ai.usage.input_tokens: intValue 'many' is not an integer",
        ),
        ("0c", None, "line 1 span 3: attribute gen_ai.x: bytesValue is not base64"),
    ]


def test_the_gate_identity_of_spans_leaves_out_the_outputs_the_map_reads(tmp_path: Path) -> None:
    contract, spans = _copy(tmp_path)
    loaded = load_contract(contract).contract
    before = case_identity(spans, loaded)
    assert before.cases == 3  # every GenAI span read, whatever its time (an unreadable one
    # enters the identity as its problem, as a line that is no JSON does)
    text = spans.read_text(encoding="utf-8")
    spans.write_text(text.replace("Refunds take 5 days.", "Another answer."), encoding="utf-8")
    assert case_identity(spans, loaded) == before
    spans.write_text(text.replace("How long do refunds", "How fast do refunds"), encoding="utf-8")
    assert case_identity(spans, loaded) != before


def test_a_resumed_reading_starts_past_the_span_positions_it_stored() -> None:
    everything = CasesSpec(format="otlp").mapping(NOW)
    read = [(c.line, c.case_id) for c in read_cases(SPANS, mapping=everything)]
    assert [line for line, _ in read] == [1, 3, 4, 5]  # span 2 is no GenAI span
    assert [(c.line, c.case_id) for c in read_cases(SPANS, mapping=everything, after=3)] == read[2:]

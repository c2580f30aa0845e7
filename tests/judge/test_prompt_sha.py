"""A judge's prompt_sha covers everything besides the data that shapes a verdict: the
normalised template, the verdict tool and the rendering version (ADR 0032)."""

from __future__ import annotations

import hashlib
from dataclasses import replace

from tests.judge.conftest import JUDGE_FIXTURES, fixture_contract
from verifier.contract.judge_template import load_template, parse_template
from verifier.judge.prompt import RENDERING_VERSION, judge_prompt_sha, render_request
from verifier.judge.tools import verdict_tool
from verifier.llm.triple import judge_prompt_sha as composite_sha
from verifier.llm.triple import normalised_template

CONTRACT = fixture_contract()
SPEC = CONTRACT.judges["strict"]
BUILTIN = load_template(SPEC, JUDGE_FIXTURES, "binary")


def _sha(data: bytes) -> str:
    return judge_prompt_sha(parse_template(data, source="t", kind="binary"), "binary")


def test_a_bom_line_ends_or_final_newline_make_no_new_judge() -> None:
    text = BUILTIN.text.rstrip("\n")
    plain = _sha(text.encode())
    assert _sha(b"\xef\xbb\xbf" + text.encode()) == plain
    assert _sha((text + "\n").encode()) == plain
    assert _sha(text.replace("\n", "\r\n").encode() + b"\r\n") == plain
    assert normalised_template("\ufeffa\r\nb\n\n") == b"a\nb"


def test_a_changed_word_makes_a_new_judge() -> None:
    assert _sha(BUILTIN.text.replace("judge", "grader", 1).encode()) != _sha(BUILTIN.text.encode())


def test_the_prompt_sha_is_not_the_template_bytes_digest() -> None:
    # Before ADR 0032 it was sha256 of the bytes; now the tool and rendering count too.
    raw = hashlib.sha256(BUILTIN.text.encode()).hexdigest()
    assert judge_prompt_sha(BUILTIN, "binary") != raw


def test_the_verdict_tool_schema_is_covered() -> None:
    tool = verdict_tool("binary")
    schema = {**tool.input_schema, "description": "answer briefly"}
    changed = replace(tool, input_schema=schema)
    base = composite_sha(BUILTIN.text, tool, RENDERING_VERSION)
    assert composite_sha(BUILTIN.text, changed, RENDERING_VERSION) != base
    assert composite_sha(BUILTIN.text, replace(tool, description="x"), RENDERING_VERSION) != base
    assert judge_prompt_sha(BUILTIN, "binary") == base


def test_the_rendering_version_is_covered() -> None:
    tool = verdict_tool("binary")
    base = composite_sha(BUILTIN.text, tool, RENDERING_VERSION)
    assert composite_sha(BUILTIN.text, tool, RENDERING_VERSION + 1) != base


def test_requests_carry_it_and_key_the_cache_by_it() -> None:
    claim = CONTRACT.claim("acknowledge_gaps")
    case = {"input": "q", "output": "a"}
    request = render_request(
        spec=SPEC, template=BUILTIN, kind="binary", claims=[claim], case=case, custom_id="c"
    )
    assert request.prompt_sha == judge_prompt_sha(BUILTIN, "binary")
    newline = parse_template(BUILTIN.text.encode() + b"\n", source="t", kind="binary")
    again = render_request(
        spec=SPEC, template=newline, kind="binary", claims=[claim], case=case, custom_id="c"
    )
    assert again.prompt_sha == request.prompt_sha and again.cache_key == request.cache_key

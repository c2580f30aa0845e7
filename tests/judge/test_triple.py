from __future__ import annotations

import hashlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from verifier.contract.judge_template import builtin_template_bytes
from verifier.llm.triple import (
    TRIPLE_PARTS,
    VENDOR_MANAGED_PREFIX,
    StabilityTriple,
    is_valid_prompt_sha,
    missing_parts,
    prompt_sha_of,
    sampling_sha_of,
    triple_problems,
)

SHA = "a" * 64


def test_zero_and_zero_point_zero_hash_the_same() -> None:
    assert sampling_sha_of({"max_tokens": 1024, "temperature": 0}) == sampling_sha_of(
        {"max_tokens": 1024.0, "temperature": 0.0}
    )


def test_changed_max_tokens_changes_sampling_sha() -> None:
    assert sampling_sha_of({"max_tokens": 1024}) != sampling_sha_of({"max_tokens": 1025})


def test_sampling_sha_ignores_key_order() -> None:
    a = sampling_sha_of({"max_tokens": 8, "stop_sequences": ["x"]})
    assert a == sampling_sha_of({"stop_sequences": ["x"], "max_tokens": 8})


def test_prompt_sha_hashes_the_template_bytes_as_committed() -> None:
    data = builtin_template_bytes("binary")
    assert prompt_sha_of(data) == hashlib.sha256(data).hexdigest()
    assert prompt_sha_of(data + b"\n") != prompt_sha_of(data)


@pytest.mark.parametrize(
    "value",
    [
        "vendor-managed:openai:/v1/evals",
        "vendor-managed:anthropic:console-evaluator",
        "vendor-managed:acme:https://judge.example/v2",
    ],
)
def test_vendor_managed_sentinel_is_a_valid_prompt_sha(value: str) -> None:
    assert value.startswith(VENDOR_MANAGED_PREFIX)
    triple = StabilityTriple(model_id="m", prompt_sha=value, sampling_sha=SHA)
    assert triple.prompt_sha == value


@pytest.mark.parametrize(
    "value",
    [
        "vendor-managed:",
        "vendor-managed:openai",
        "vendor-managed:openai:",
        "vendor-managed::x",
        "vendor-managed:openai:has space",
        "A" * 64,
        "a" * 63,
        "template.md",
    ],
)
def test_malformed_prompt_sha_is_rejected(value: str) -> None:
    assert not is_valid_prompt_sha(value)
    with pytest.raises(ValidationError, match="prompt_sha"):
        StabilityTriple(model_id="m", prompt_sha=value, sampling_sha=SHA)


def test_sampling_sha_may_not_be_a_sentinel() -> None:
    with pytest.raises(ValidationError, match="sampling_sha"):
        StabilityTriple(model_id="m", prompt_sha=SHA, sampling_sha="vendor-managed:x:y")


def test_blank_model_id_is_rejected() -> None:
    with pytest.raises(ValidationError, match="model_id"):
        StabilityTriple(model_id="  ", prompt_sha=SHA, sampling_sha=SHA)


def test_triple_is_frozen_and_round_trips_as_a_dict() -> None:
    triple = StabilityTriple(model_id="claude-haiku-4-5-20251001", prompt_sha=SHA, sampling_sha=SHA)
    with pytest.raises(ValidationError):
        triple.model_id = "other"  # type: ignore[misc]
    assert StabilityTriple(**triple.as_dict()) == triple
    assert missing_parts(triple.as_dict()) == []
    assert triple_problems(triple.as_dict()) == []


def test_no_triple_misses_every_part() -> None:
    assert missing_parts(None) == list(TRIPLE_PARTS)
    assert missing_parts({}) == list(TRIPLE_PARTS)
    assert triple_problems(None) == ["judge triple is missing model_id, prompt_sha, sampling_sha"]


def test_empty_blank_and_non_string_parts_are_missing() -> None:
    triple = {"model_id": "", "prompt_sha": "   ", "sampling_sha": 7}
    assert missing_parts(triple) == ["model_id", "prompt_sha", "sampling_sha"]
    assert missing_parts({"model_id": "m", "prompt_sha": SHA, "sampling_sha": None}) == [
        "sampling_sha"
    ]


def test_stored_triple_with_malformed_digests_has_problems() -> None:
    problems = triple_problems({"model_id": "m", "prompt_sha": "abc", "sampling_sha": "def"})
    assert len(problems) == 2
    assert "prompt_sha" in problems[0] and "sampling_sha" in problems[1]


_part_values = st.one_of(st.none(), st.text(max_size=5), st.integers(), st.just(SHA))


@given(st.dictionaries(st.sampled_from(TRIPLE_PARTS), _part_values))
def test_missing_parts_names_exactly_the_unusable_parts(triple: dict[str, Any]) -> None:
    expected = [
        p for p in TRIPLE_PARTS if not (isinstance(triple.get(p), str) and triple[p].strip())
    ]
    assert missing_parts(triple) == expected

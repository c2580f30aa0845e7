"""The runner's fast constructor of results builds exactly what the dataclass does."""

from __future__ import annotations

import dataclasses

import pytest

from verifier.results import ClaimResult, claim_result


def test_claim_result_is_the_dataclass_built_field_by_field() -> None:
    evidence = {"path": "output", "start": 3}
    fast = claim_result("tone", "rubric", "fail", 0.0, "output contains 'lol'", evidence)
    assert type(fast) is ClaimResult
    assert fast == ClaimResult("tone", "rubric", "fail", 0.0, "output contains 'lol'", evidence)
    assert dataclasses.astuple(fast) == (
        "tone",
        "rubric",
        "fail",
        0.0,
        "output contains 'lol'",
        evidence,
    )
    assert fast.evidence is evidence
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.status = "pass"  # type: ignore[misc]

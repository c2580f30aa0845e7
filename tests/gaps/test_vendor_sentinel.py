"""A ``vendor-managed`` prompt sentinel must name both vendor and endpoint to audit clean."""

from __future__ import annotations

import pytest

from tests.analyses.test_gap_audit import _plant, audit, kinds
from tests.gaps._backends import Backend
from tests.gaps._support import fill

SHA = "0" * 64


@pytest.fixture
def filled(store_backend: Backend) -> Backend:
    with store_backend.open() as store:
        fill(store, rows=30)
    return store_backend


def _judge(prompt_sha: str) -> dict[str, object]:
    triple = {"model_id": "claude-haiku-4-5-20251001", "prompt_sha": prompt_sha}
    return {"judge": {**triple, "sampling_sha": SHA}, "verdict": "yes"}


@pytest.mark.parametrize(
    "sentinel", ["vendor-managed:openai", "vendor-managed:", "vendor-managed::x"]
)
def test_a_bare_sentinel_is_a_finding(filled: Backend, sentinel: str) -> None:
    _plant(filled, 8, evidence=_judge(sentinel))
    report = audit(filled)
    assert kinds(report) == ["judge_triple"]
    assert report.problems[0].seq == 8
    assert "evidence.judge.prompt_sha is not vendor-managed:<vendor>:<endpoint>" in (
        report.problems[0].message
    )


def test_a_prompt_systems_bare_sentinel_is_a_finding(filled: Backend) -> None:
    triple = {"model_id": "m", "prompt_sha": "vendor-managed:openai", "sampling_sha": SHA}
    _plant(filled, 5, evidence={"sut": {"kind": "prompt", "triple": triple}})
    report = audit(filled)
    assert kinds(report) == ["judge_triple"]
    assert "evidence.sut.triple.prompt_sha" in report.problems[0].message


@pytest.mark.parametrize("prompt_sha", ["vendor-managed:openai:/v1/evals", SHA])
def test_a_full_sentinel_or_a_digest_audits_clean(filled: Backend, prompt_sha: str) -> None:
    _plant(filled, 8, evidence=_judge(prompt_sha))
    assert audit(filled).ok

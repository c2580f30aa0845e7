"""Builders of real run results (plain dataclasses) for the report tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

from tests.report._chromium import browse, chromium  # noqa: F401 (fixtures)
from verifier.results import CaseResult, ClaimResult, RowStatus, RunSummary

_SCORES: dict[RowStatus, float | None] = {"pass": 1.0, "fail": 0.0, "error": None, "skipped": None}


def claim(
    claim_id: str,
    status: RowStatus = "pass",
    reason: str = "",
    evidence: dict[str, Any] | None = None,
) -> ClaimResult:
    return ClaimResult(
        claim_id=claim_id,
        kind="rubric",
        status=status,
        score=_SCORES[status],
        reason=reason or f"{claim_id} {status}",
        evidence=evidence if evidence is not None else {},
    )


def case(case_id: str, *results: ClaimResult, line: int = 1, threshold: float = 1.0) -> CaseResult:
    """A case scored the way the runner scores it (DESIGN §5, unit weights)."""
    score = sum(r.status == "pass" for r in results) / len(results) if results else 0.0
    passed = bool(results) and score >= threshold and all(r.status != "error" for r in results)
    return CaseResult(case_id=case_id, line=line, results=results, score=score, passed=passed)


def summary(cases: Iterable[CaseResult], **overrides: Any) -> RunSummary:
    fields: dict[str, Any] = {
        "run_id": "run-1",
        "contract_id": "account-research",
        "contract_version": 2,
        "contract_sha256": "ab" * 32,
        "contract_path": "contracts/account-research.yaml",
        "threshold": 1.0,
        "started_at": "2025-01-01T00:00:00+00:00",
        "finished_at": "2025-01-01T00:00:02.500000+00:00",
    }
    fields.update(overrides)
    run = RunSummary(**fields)
    for c in cases:
        run.add_case(c)
    return run


@pytest.fixture
def make_claim() -> Callable[..., ClaimResult]:
    return claim


@pytest.fixture
def make_case() -> Callable[..., CaseResult]:
    return case


@pytest.fixture
def make_summary() -> Callable[..., RunSummary]:
    return summary


@pytest.fixture
def mixed_cases() -> list[CaseResult]:
    """Three cases of three claims covering every status; only case-1 passes."""
    return [
        case(
            "case-1",
            claim("cites_sources"),
            claim("short_enough"),
            claim("acknowledge_gaps"),
            line=1,
        ),
        case(
            "case-2",
            claim("cites_sources", "fail", "no [source: ...] marker found", {"field": "output"}),
            claim("short_enough"),
            claim("acknowledge_gaps", "skipped", "gate cites_sources failed"),
            line=2,
        ),
        case(
            "case-3",
            claim("cites_sources"),
            claim("short_enough", "error", "judge reply had no verdict", {"raw": "??"}),
            claim("acknowledge_gaps"),
            line=3,
        ),
    ]

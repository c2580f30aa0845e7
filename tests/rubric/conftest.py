"""Builds predicates the way a contract does: validate the claim model, then prepare it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from verifier.contract.rubric_claims import RUBRIC_CLAIM_MODELS
from verifier.rubric._base import Check, PrepareContext
from verifier.rubric._registry import REGISTRY

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def claim_of(spec: dict[str, Any], context: dict[str, Any] | None = None) -> BaseModel:
    data = {"id": "claim", **spec}
    return RUBRIC_CLAIM_MODELS[data["rubric"]].model_validate(data, context=context)


def check_of(
    spec: dict[str, Any], *, base_dir: Path = FIXTURES, llm_fields: Iterable[str] = ()
) -> Check:
    claim = claim_of(spec)
    ctx = PrepareContext(base_dir=base_dir, llm_fields=tuple(llm_fields))
    return REGISTRY[spec["rubric"]].prepare(claim, ctx)


@pytest.fixture(scope="session")
def make_claim() -> Callable[..., BaseModel]:
    return claim_of


@pytest.fixture(scope="session")
def make_check() -> Callable[..., Check]:
    return check_of


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES

"""What every claim carries, and each rubric predicate's claim model: those keys
with the predicate's spec, made when first asked for."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field, create_model, field_validator

from verifier._internal.lazy_mapping import LazyMapping
from verifier.contract._base import _Frozen
from verifier.contract.sut_models import WhenPath
from verifier.rubric._registry import REGISTRY

CLAIM_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"


class ClaimCommon(_Frozen):
    """Keys every claim may carry, whatever its shape."""

    id: str = Field(pattern=CLAIM_ID_PATTERN, description="Unique claim id within the contract.")
    description: str | None = Field(
        default=None, description="What the claim protects, for readers."
    )
    weight: float = Field(
        default=1.0,
        gt=0,
        allow_inf_nan=False,
        description="Weight of the claim in the case score: a finite number above 0.",
    )
    after: tuple[str, ...] = Field(
        default=(),
        description="Claims that must pass first; when one does not, this claim is skipped.",
    )
    when: WhenPath | None = Field(
        default=None,
        description="A field path (`*` allowed): the claim applies only to cases where it "
        "finds something (after parse_json and the system under test); elsewhere its row "
        "is skipped as not applicable and weighs nothing in the case's score.",
    )

    @field_validator("after", mode="before")
    @classmethod
    def _after_as_list(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


def _rubric_claim_model(name: str) -> type[BaseModel]:
    spec = REGISTRY[name].spec
    model: type[BaseModel] = create_model(
        f"{spec.__name__.removesuffix('Spec')}Claim",
        __base__=(ClaimCommon, spec),
        __doc__=spec.__doc__,
    )
    return model


RUBRIC_CLAIM_MODELS: Mapping[str, type[BaseModel]] = LazyMapping(REGISTRY, _rubric_claim_model)
"""Every rubric predicate's claim model (the claim's common keys and the predicate's
spec) by the predicate's name, made when first asked for."""

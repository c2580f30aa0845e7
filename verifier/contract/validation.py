"""A contract document validated with only the claim shapes it uses (ADR 0052)."""

from __future__ import annotations

import functools
from typing import Any

from pydantic import Field, create_model

from verifier.contract.models import Contract, claim_union
from verifier.contract.rubric_claims import RUBRIC_CLAIM_MODELS


def validate_contract(data: Any, *, context: Any = None) -> Contract:
    """Validates a contract document, building only the claim shapes it uses.

    pydantic builds a model's validator the first time it validates (``defer_build``),
    and ``Contract``'s would cover every claim shape of the format. Here the document's
    claims are validated by a ``Contract`` whose claims may take only the rubric
    predicates they name (with judge and compare claims), and the result is handed
    back as a ``Contract`` holding the very same values. The errors are the same as
    ``Contract.model_validate``'s: a claim can only fail to find its shape when its
    ``rubric`` names no predicate, and then the whole model validates, so the message
    lists every predicate there is (ADR 0052).

    Raises:
        pydantic.ValidationError: As ``Contract.model_validate`` would.
    """
    names = _rubric_names(data)
    if names is None:
        return Contract.model_validate(data, context=context)
    shaped = _contract_for(names).model_validate(data, context=context)
    fields = {name: getattr(shaped, name) for name in Contract.model_fields}
    return Contract.model_construct(shaped.model_fields_set, **fields)


def _rubric_names(data: Any) -> frozenset[str] | None:
    """The predicates a document's rubric claims name (``None``: a claim is not a
    mapping or names no known predicate, and only the whole model words its error)."""
    claims = data.get("claims") if isinstance(data, dict) else None
    if not isinstance(claims, list):
        return None
    names = set()
    for claim in claims:
        if not isinstance(claim, dict):
            return None
        if "rubric" in claim:
            name = claim["rubric"]
            if not isinstance(name, str) or name not in RUBRIC_CLAIM_MODELS:
                return None
            names.add(name)
    return frozenset(names)


@functools.lru_cache(maxsize=32)
def _contract_for(rubric_names: frozenset[str]) -> type[Contract]:
    """``Contract`` with claims limited to these rubric predicates (built once each)."""
    claim = claim_union(sorted(rubric_names))
    claims: Any = (tuple[claim, ...], Field(min_length=1))  # type: ignore[valid-type]
    model: type[Contract] = create_model("Contract", __base__=Contract, claims=claims)
    return model

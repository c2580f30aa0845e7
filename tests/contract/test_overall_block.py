"""A contract's `overall:` block: it needs scale claims on one scale and a
`revise_below` on it; each problem is reported at the block's line."""

from __future__ import annotations

import pytest

from verifier.contract.load import check_contract
from verifier.engine.plan import build_plan


def _scale_claim(claim_id: str, high: int = 5, weight: float = 1.0) -> str:
    return (
        f"  - id: {claim_id}\n    judge: j\n    instruction: Scores well\n    weight: {weight}\n"
        f"    scale: {{min: 1, max: {high}, pass_at: 3}}\n"
    )


def contract_with(overall: str, claims: str) -> str:
    judges = "judges:\n  j: {provider: anthropic, model: claude-haiku-4-5-20251001}\n"
    rubric = "  - id: present\n    rubric: present\n    field: output\n"
    return f"contract: demo\nversion: 1\n{judges}claims:\n{rubric}{claims}overall:\n{overall}"


def test_an_overall_over_weighted_scale_claims_loads(write_contract) -> None:  # type: ignore[no-untyped-def]
    claims = _scale_claim("accuracy") + _scale_claim("safety", weight=2)
    path = write_contract(contract_with("  mean_of: scale\n  revise_below: 3.0\n", claims))
    loaded, diagnostics = check_contract(path)
    assert loaded is not None, [str(d) for d in diagnostics]
    rule = build_plan(loaded).overall
    assert rule is not None
    assert (dict(rule.weights), rule.low, rule.high, rule.revise_below) == (
        {"accuracy": 1.0, "safety": 2.0},
        1,
        5,
        3.0,
    )


@pytest.mark.parametrize(
    ("overall", "claims", "message"),
    [
        (
            "  mean_of: scale\n",
            "",
            "mean_of scale needs at least one judge claim with a `scale`",
        ),
        (
            "  mean_of: scale\n",
            _scale_claim("accuracy") + _scale_claim("depth", high=10),
            "a mean on the claims' own scale needs one scale; they differ "
            "(accuracy: 1-5, depth: 1-10)",
        ),
        (
            "  revise_below: 6\n",
            _scale_claim("accuracy"),
            "revise_below (6) must lie within the scale [1, 5]",
        ),
    ],
)
def test_an_overall_that_cannot_be_made_is_refused_at_its_line(  # type: ignore[no-untyped-def]
    write_contract, overall: str, claims: str, message: str
) -> None:
    path = write_contract(contract_with(overall, claims))
    loaded, diagnostics = check_contract(path)
    assert loaded is None
    line = 1 + contract_with(overall, claims).splitlines().index("overall:")
    assert [str(d) for d in diagnostics] == [f"{path}:{line + 1}:3: overall: {message}"]

"""A contract's ``overall:`` block: a case's overall score as the mean of its scale
claims' scores, on their own scale, with the score below which the case is to revise.

```yaml
overall:
  mean_of: scale        # the judge claims with a `scale`, weighted by their `weight`
  revise_below: 3.0     # a case whose overall is below this is flagged `revise`
```

The overall is reported beside the pass share; it changes no case's pass or fail.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field

from verifier.contract._base import _Frozen
from verifier.overall import OverallRule


class Overall(_Frozen):
    """How a case's overall score is made (``overall:``)."""

    mean_of: Literal["scale"] = Field(
        default="scale",
        description="scale: the weighted mean of the case's scale claims' scores, on their "
        "own scale (weights: each claim's `weight`); errors and skips are left out.",
    )
    revise_below: float | None = Field(
        default=None,
        allow_inf_nan=False,
        description="A case whose overall lies below this score is flagged `revise`.",
    )


def scale_claims(claims: Sequence[Any]) -> list[Any]:
    """The judge claims of ``claims`` that score on a scale."""
    return [c for c in claims if getattr(c, "scale", None) is not None]


def overall_problem(overall: Overall, claims: Sequence[Any]) -> str | None:
    """Why ``overall`` cannot be made of ``claims`` (``None``: it can): it needs a
    scale claim, one scale shared by all of them, and a ``revise_below`` on it."""
    scaled = scale_claims(claims)
    if not scaled:
        return "mean_of scale needs at least one judge claim with a `scale`"
    bounds = {(c.scale.min, c.scale.max) for c in scaled}
    if len(bounds) > 1:
        shown = ", ".join(f"{c.id}: {c.scale.min}-{c.scale.max}" for c in scaled)
        return f"a mean on the claims' own scale needs one scale; they differ ({shown})"
    low, high = bounds.pop()
    below = overall.revise_below
    if below is not None and not low <= below <= high:
        return f"revise_below ({below:g}) must lie within the scale [{low}, {high}]"
    return None


def overall_rule(overall: Overall | None, claims: Sequence[Any]) -> OverallRule | None:
    """The rule a run applies for ``overall`` over the contract's ``claims`` (``None``
    when the contract has no ``overall:``). The contract was validated, so its scale
    claims share one scale."""
    if overall is None:
        return None
    scaled = scale_claims(claims)
    # A choice of claims (--claims) may leave none: then no case has an overall.
    low, high = (scaled[0].scale.min, scaled[0].scale.max) if scaled else (0, 1)
    return OverallRule(
        weights={c.id: float(c.weight) for c in scaled},
        low=low,
        high=high,
        revise_below=overall.revise_below,
    )

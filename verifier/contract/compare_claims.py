"""The comparative claim: two or more outputs scored against each other.

``pairwise`` asks a pinned judge which of two outputs is better; ``similarity`` and
``consistency`` score them by a similarity method, needing no model. Under
``method: jaccard`` with ``parse``, each output is read as a findings claim reads it
and reduced to the set of its finding types (``match_on``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from verifier.contract.findings import NUMBERED_KEYS, distinct_keys, numbered_keys_only
from verifier.contract.rubric_claims import ClaimCommon
from verifier.rubric._base import PathText
from verifier.rubric._scales import Percent

__all__ = ["CompareClaim"]


class CompareClaim(ClaimCommon):
    """Two or more outputs scored against each other, never against a fixed string."""

    compare: Literal["pairwise", "similarity", "consistency"]
    judge: str | None = Field(default=None, description="Judge for `pairwise`.")
    instruction: str | None = None
    field: PathText = Field(default="output", description="The field compared.")
    outputs: tuple[PathText, ...] | None = Field(
        default=None, description="Paths of the outputs compared within one case."
    )
    method: Literal["ratio", "token_set_ratio", "jaccard", "fields"] = "ratio"
    min_ratio: Percent = Field(
        default=80.0,
        description="Lowest passing similarity, on a 0-100 scale (80: 80% similar).",
    )
    parse: Literal["json", "numbered"] | None = Field(
        default=None,
        description="With `method: jaccard`, read each output as a list of findings, as a "
        "findings claim does (`json`: a list of objects; `numbered`: numbered lines "
        "`1. [severity] dimension: text`) and compare the sets of their `match_on` values.",
    )
    match_on: tuple[str, ...] | None = Field(
        default=None,
        min_length=1,
        description="With `parse`, the keys that make a finding's type (default "
        "`[dimension, severity]`); compared as a findings claim compares them.",
    )

    @field_validator("match_on")
    @classmethod
    def _keys_distinct(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return None if value is None else distinct_keys(value)

    @property
    def finding_keys(self) -> tuple[str, ...]:
        """The keys a finding's type is made of, under ``parse``."""
        return self.match_on or NUMBERED_KEYS

    @model_validator(mode="after")
    def _pairwise_needs_judge(self) -> CompareClaim:
        if self.compare == "pairwise" and not self.judge:
            raise ValueError("a pairwise comparison needs a `judge`")
        if self.compare == "pairwise" and not self.instruction:
            raise ValueError("a pairwise comparison needs an `instruction`")
        if self.match_on is not None and self.parse is None:
            raise ValueError("match_on reads findings: add `parse: json` or `parse: numbered`")
        if self.parse is not None and (self.compare == "pairwise" or self.method != "jaccard"):
            raise ValueError(
                "parse reads findings for a jaccard similarity or consistency claim "
                "(`method: jaccard`)"
            )
        numbered_keys_only(self.parse, self.finding_keys)
        return self

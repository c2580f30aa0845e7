"""The findings claim: a list of findings scored against the case's expected ones.

A code-review or audit system outputs findings (a dimension, a severity, wording of
its own); a case lists the findings it should make. The claim matches the two lists
one to one on the keys named in ``match_on`` and passes when recall and precision
reach their thresholds. It is written ``compare: findings`` because it compares two
lists, but it needs no model: it is checked in-process with the rubric claims.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from verifier.contract.rubric_claims import ClaimCommon
from verifier.rubric._base import PathText
from verifier.rubric._scales import Fraction

FINDINGS = "findings"
"""The ``compare:`` value of a findings claim."""
NUMBERED_KEYS = ("dimension", "severity")
"""The keys a numbered line gives (besides its ``text`` and ``line``)."""


class FindingsClaim(ClaimCommon):
    """Findings in the output matched one to one with the case's expected findings."""

    compare: Literal["findings"]
    expected: PathText = Field(
        description="The case field holding the expected findings: a list of objects with "
        "the `match_on` keys (`{dimension, severity, specific}`; keys not matched on are "
        "shown in the evidence only)."
    )
    field: PathText = Field(
        default="output",
        description="The field holding the output's findings: a list of objects (`parse: json`) "
        "or text with one numbered finding a line (`parse: numbered`).",
    )
    match_on: tuple[str, ...] = Field(
        default=("dimension", "severity"),
        min_length=1,
        description="The keys that must agree for two findings to match; case, spaces, "
        "`_` and `-` are ignored, the wording of the finding never matters.",
    )
    parse: Literal["json", "numbered"] = Field(
        default="json",
        description="How the field is read: `json`, a list of objects; `numbered`, text "
        "whose numbered lines read `1. [severity] dimension: what was found`.",
    )
    min_recall: Fraction | None = Field(
        default=None,
        description="The claim fails when fewer than this share (0-1) of the expected "
        "findings are matched.",
    )
    min_precision: Fraction | None = Field(
        default=None,
        description="The claim fails when fewer than this share (0-1) of the output's "
        "findings are matched.",
    )

    @field_validator("match_on")
    @classmethod
    def _keys_distinct(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return distinct_keys(value)

    @field_validator("field", "expected")
    @classmethod
    def _one_list(cls, value: str) -> str:
        if "*" in value.split("."):
            raise ValueError(f"a findings claim reads one list; {value!r} has a `*`")
        return value

    @model_validator(mode="after")
    def _a_threshold(self) -> FindingsClaim:
        if self.min_recall is None and self.min_precision is None:
            raise ValueError("a findings claim needs min_recall, min_precision or both")
        numbered_keys_only(self.parse, self.match_on)
        return self


def distinct_keys(value: tuple[str, ...]) -> tuple[str, ...]:
    """``match_on`` as written, refused when it names a key twice or an empty key."""
    twice = sorted({k for k in value if value.count(k) > 1})
    if twice:
        raise ValueError(f"match_on names {', '.join(map(repr, twice))} twice")
    if "" in value:
        raise ValueError("match_on names an empty key")
    return value


def numbered_keys_only(parse: str | None, match_on: tuple[str, ...]) -> None:
    """Refuses ``match_on`` keys a numbered line does not give (``parse: numbered``)."""
    if parse == "numbered":
        other = [k for k in match_on if k not in NUMBERED_KEYS]
        if other:
            raise ValueError(
                f"numbered lines give only dimension and severity; match_on names {other[0]!r}"
            )

"""``similar``: a text close enough to a reference, by rapidfuzz similarity."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, model_validator

from verifier.fieldpath import MISSING
from verifier.rubric._base import (
    Check,
    Outcome,
    PathText,
    PredicateEntry,
    PredicateSpec,
    PrepareContext,
    clip,
    failed,
    field_missing,
    field_path,
    for_each_value,
    passed,
    unusable_source,
    wrong_kind,
)
from verifier.rubric._scales import Percent


class SimilarSpec(PredicateSpec):
    """Requires a text field to be similar to a reference text."""

    rubric: Literal["similar"]
    field: PathText = Field(description="Path of the text field compared.")
    reference: str | None = Field(default=None, description="The reference text, literally.")
    reference_field: PathText | None = Field(
        default=None, description="Path of a case field holding the reference text."
    )
    min_ratio: Percent = Field(
        default=90.0,
        description="Lowest passing ratio, on rapidfuzz's 0-100 scale (80: 80% similar); "
        "a value in (0, 1] is refused as a fraction written by mistake.",
    )
    method: Literal["ratio", "token_set_ratio"] = Field(
        default="ratio",
        description="`ratio`: edit-distance similarity; `token_set_ratio`: ignores word order "
        "and repeated words.",
    )

    @model_validator(mode="after")
    def _one_reference(self) -> SimilarSpec:
        if (self.reference is None) == (self.reference_field is None):
            raise ValueError("similar needs exactly one of `reference` or `reference_field`")
        if self.reference_field is not None and "*" in self.reference_field.split("."):
            raise ValueError("`reference_field` must name one field, without `*`")
        return self


def _prepare(spec: SimilarSpec, ctx: PrepareContext) -> Check:
    # rapidfuzz is imported by a contract that compares texts, not by every contract
    # validated (`verifier check`, a run's start): ADR 0050.
    from rapidfuzz import fuzz

    path = field_path(spec.field)
    scorer = fuzz.ratio if spec.method == "ratio" else fuzz.token_set_ratio
    min_ratio = spec.min_ratio
    method = spec.method
    literal = spec.reference
    ref_path = field_path(spec.reference_field) if spec.reference_field is not None else None

    def compare(where: str, value: Any, reference: str, ref_name: str) -> Outcome:
        if not isinstance(value, str):
            return wrong_kind(where, value, "text", {"path": where})
        ratio = scorer(value, reference)
        evidence = {
            "path": where,
            "ratio": round(ratio, 2),
            "min_ratio": min_ratio,
            "method": method,
        }
        score = ratio / 100
        if ratio >= min_ratio:
            return passed(f"{where} is {ratio:.1f}% similar to {ref_name}", evidence, score)
        return failed(
            f"{where} is only {ratio:.1f}% similar to {ref_name} (needs {min_ratio:g}%)",
            {**evidence, "value": clip(value, 120)},
            score,
        )

    def check(case: Mapping[str, Any]) -> Outcome:
        if ref_path is None:
            assert literal is not None
            reference, ref_name = literal, "the reference"
        else:
            found = ref_path.get(case)
            if found is MISSING:
                return field_missing(ref_path, case)
            if not isinstance(found, str):
                return unusable_source(ref_path.text, found)
            reference, ref_name = found, ref_path.text
        return for_each_value(
            path, case, lambda where, value: compare(where, value, reference, ref_name)
        )

    return check


ENTRIES = (
    PredicateEntry(
        name="similar",
        spec=SimilarSpec,
        prepare=_prepare,
        doc=(
            "Scores how close the text field is to a reference, given literally (`reference`) "
            "or as another case field (`reference_field`), with rapidfuzz: `ratio` (edit "
            "distance, the default) or `token_set_ratio` (word order and repeats ignored). "
            "Passes at `min_ratio` (0-100, default 90) or above; the score is the ratio / 100. "
            "A `reference_field` that holds no text is an error: nothing was compared. "
            "Evidence: the ratio, the threshold and the method."
        ),
        example={
            "id": "keeps_the_disclaimer",
            "rubric": "similar",
            "field": "fields.disclaimer",
            "reference": "This is not financial advice.",
            "min_ratio": 85,
        },
    ),
)

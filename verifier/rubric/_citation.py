"""``citation``: every quoted span must be found, word for word, in the source text."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, model_validator

from verifier._internal.json_words import json_kind
from verifier.fieldpath import FieldPath
from verifier.rubric._base import (
    Check,
    Outcome,
    PathText,
    PredicateEntry,
    PredicateSpec,
    PrepareContext,
    cannot_apply,
    clip,
    describe,
    errored,
    failed,
    field_missing,
    field_path,
    fold_case,
    names_field,
    original_span,
    passed,
    unusable_source,
)
from verifier.rubric._scales import Percent

_MAX_OFFSETS = 20
_SPAN_CHARS = 80
_MAX_WITHIN = 4
"""Source texts a failure names (``within``): a reader is shown these."""


class CitationSpec(PredicateSpec):
    """Requires every cited span to be a literal (or, with ``min_ratio``, close) substring."""

    rubric: Literal["citation"]
    spans: PathText = Field(description="Path of the spans, usually with `*`.")
    within: PathText = Field(description="Path of the source text the spans must come from.")
    ignore_case: bool = Field(default=False, description="Compare case-folded text.")
    min_ratio: Percent | None = Field(
        default=None,
        description="Also accept a span whose rapidfuzz partial ratio reaches this, on a 0-100 "
        "scale; a value in (0, 1] is refused as a fraction written by mistake.",
    )
    source: Literal["llm"] | None = Field(
        default=None,
        description="`llm`: check only the spans of fields an LLM filled (an entry's "
        "`source: llm`, or `llm_fields` for an entry without a source); the path's last "
        "key is each entry's span.",
    )
    values: PathText | None = Field(
        default=None,
        description="With `source`, where each field's value is, with one `*` for the "
        "field (`fields.*`): an LLM-filled field with no value is not checked.",
    )

    @model_validator(mode="after")
    def _source_paths(self) -> CitationSpec:
        if self.source is None:
            if self.values is not None:
                raise ValueError("values only applies with source: llm")
            return self
        parts = self.spans.split(".")
        if len(parts) < 2 or "*" not in parts[:-1] or parts[-1] == "*":
            raise ValueError(
                "with source, spans is ENTRIES.*.SPAN_KEY (field_meta.*.source_span): "
                "one entry per field, its span under a key"
            )
        if self.values is not None and self.values.split(".").count("*") != 1:
            raise ValueError("values needs exactly one * for the field (fields.*)")
        return self


Sources = list[tuple[str, str, list[int] | None]]
"""Each source text: its concrete path, the text as compared, its case-fold index."""


def _nearest(needle: str, sources: Sources) -> dict[str, Any] | None:
    """Where ``needle`` comes closest to occurring in ``sources`` (for a span that
    missed ``min_ratio``), for a reader to see what the quote may have come from."""
    from rapidfuzz.fuzz import partial_ratio_alignment  # loaded already: min_ratio is set

    best: tuple[float, str, int, int] | None = None
    for where, text, index in sources:
        if len(needle) > len(text):
            continue
        hit = partial_ratio_alignment(needle, text)
        if hit is not None and hit.score > 0 and (best is None or hit.score > best[0]):
            best = (hit.score, where, *original_span(index, hit.dest_start, hit.dest_end))
    if best is None:
        return None
    score, where, start, end = best
    return {"within": where, "start": start, "end": end, "ratio": round(score, 1)}


def _ground(needle: str, sources: Sources, min_ratio: float | None) -> dict[str, Any] | None:
    """Where ``needle`` occurs in a source (with ``min_ratio``, also nearly), or
    ``None`` when it occurs in none."""
    for where, text, index in sources:
        at = text.find(needle)
        if at >= 0:
            start, end = original_span(index, at, at + len(needle))
            return {"within": where, "start": start, "end": end}
    if min_ratio is None:
        return None
    # rapidfuzz is imported by a contract that accepts near spans, not by every
    # contract validated (`verifier check`, a run's start): ADR 0050.
    from rapidfuzz.fuzz import partial_ratio_alignment

    for where, text, index in sources:
        if len(needle) > len(text):
            # partial_ratio aligns the shorter string inside the longer, so a span
            # that merely contains the whole source would score 100.
            continue
        hit = partial_ratio_alignment(needle, text, score_cutoff=min_ratio)
        if hit is not None:
            start, end = original_span(index, hit.dest_start, hit.dest_end)
            return {"within": where, "start": start, "end": end, "ratio": round(hit.score, 1)}
    return None


def _prepare(spec: CitationSpec, ctx: PrepareContext) -> Check:
    spans_path = field_path(spec.spans)
    within_path = field_path(spec.within)
    ignore_case = spec.ignore_case
    min_ratio = spec.min_ratio

    chosen = (
        None
        if spec.source is None
        else _SourceFilter(
            spans_path,
            None if spec.values is None else field_path(spec.values),
            ctx.llm_fields,
        )
    )

    def check(case: Mapping[str, Any]) -> Outcome:
        left: dict[str, int] = {}
        if chosen is not None:
            picked = chosen(case)
            if not isinstance(picked, _LlmSpans):
                return picked
            found, left = picked.found, picked.counts()
        else:
            found = spans_path.find(case)
        if not found:
            missing = field_missing(spans_path, case, "no citation spans found at {}")
            return cannot_apply(missing.reason, {"spans": spans_path.text, "field_missing": True})
        sources: list[tuple[str, str, list[int] | None]] = []
        for where, text in within_path.find(case):
            if not isinstance(text, str):
                return unusable_source(where, text)
            folded, index = fold_case(text) if ignore_case else (text, None)
            sources.append((where, folded, index))
        if not sources:
            return field_missing(within_path, case)

        grounded: list[dict[str, Any]] = []
        first_bad: tuple[str, Any, str] | None = None
        for where, span in found:
            if not isinstance(span, str) or not span.strip():
                why = "empty" if isinstance(span, str) else f"{json_kind(span)}, not text"
                if span is None and chosen is not None:
                    why = "missing: an LLM filled the field but cited no span"
                first_bad = first_bad or (where, span, why)
                continue
            hit = _ground(span.casefold() if ignore_case else span, sources, min_ratio)
            if hit is None:
                first_bad = first_bad or (where, span, f"not found in {within_path.text}")
            else:
                grounded.append({"path": where, **hit})

        counts = {"grounded": len(grounded), "total": len(found), **left}
        if first_bad is not None:
            where, span, why = first_bad
            shown = clip(span, _SPAN_CHARS)
            evidence = {"path": where, "span": shown, **counts}
            evidence["within"] = [w for w, _, _ in sources[:_MAX_WITHIN]]
            if min_ratio is not None and isinstance(span, str) and span.strip():
                closest = _nearest(span.casefold() if ignore_case else span, sources)
                if closest is not None:
                    evidence["nearest"] = closest
            return failed(
                f"citation span at {where} is {why}: {describe(shown)} "
                f"({len(grounded)} of {len(found)} spans grounded)",
                evidence,
            )
        reason = f"all {len(found)} spans at {spans_path.text} are grounded in {within_path.text}"
        near = [g["ratio"] for g in grounded if "ratio" in g]
        if near:
            # A near match may differ in a word or a figure: the reason must not read
            # as if every span were quoted word for word.
            counts["approximate"] = len(near)
            reason += (
                f", {len(near)} of them only approximately (lowest ratio {min(near):g} of 100;"
                " the text may differ in a word or a figure)"
            )
        return passed(reason, {**counts, "offsets": grounded[:_MAX_OFFSETS]})

    return check


# `source: llm` ---------------------------------------------------------------------
# ``citation`` with ``source: llm``: only the spans of the fields an LLM filled.
#
# A case's field metadata says who filled each field; the span rule then holds for the
# fields an LLM filled and leaves the others alone. With ``spans:
# field_meta.*.source_span`` each entry ``field_meta.K`` is one field ``K``:
#
# - its ``source`` (the entry's sibling of the span key) says who filled it; an entry
#   without one is LLM-filled when the contract's ``llm_fields`` lists ``K``
#   (``K``, ``fields.K`` or a path ending ``.K``); any other source (``human``,
#   ``system``) is not checked;
# - with ``values: fields.*``, an LLM-filled field with no value there (missing, null,
#   blank text, an empty list or mapping) is not checked: there is nothing to cite;
# - every other LLM-filled field must cite a span: one with no span key, or a null, is
#   a fail like an empty span.
#
# When the case has no field metadata at all the check could not be made (an error);
# when it has some but no LLM-filled field with a value, the claim does not apply to the
# case (skipped, left out of its score).


@dataclass(frozen=True)
class _LlmSpans:
    """The spans to check, and how many fields were left alone and why."""

    found: list[tuple[str, Any]]
    not_llm: int
    no_value: int

    def counts(self) -> dict[str, int]:
        return {"not_llm_filled": self.not_llm, "no_value": self.no_value}


class _SourceFilter:
    """Picks the spans of LLM-filled fields from a case (module docstring).

    Args:
        spans: The spans path; its last segment is the span key of each entry.
        values: Where each field's value is (one ``*``), or ``None``.
        llm_fields: The contract's ``llm_fields``.
    """

    def __init__(self, spans: FieldPath, values: FieldPath | None, llm_fields: tuple[str, ...]):
        self.entries = spans.prefix(len(spans.parts) - 1)
        self.key = spans.parts[-1]
        self.spans = spans
        self.values = values
        self.star = values.parts.index("*") if values is not None else -1
        self.llm_fields = llm_fields

    def __call__(self, case: Mapping[str, Any]) -> _LlmSpans | Outcome:
        """The spans of ``case``'s LLM-filled fields with values, or the outcome of a
        case that has nothing to check (an error or a not-applicable skip)."""
        entries = self.entries.find(case)
        if not entries:
            return errored(
                f"not checked: no field metadata at {self.entries.text}, so which fields "
                "an LLM filled is unknown",
                {"path": self.entries.text, "field_missing": True},
            )
        values = self._values(case)
        found: list[tuple[str, Any]] = []
        not_llm = no_value = 0
        for where, entry in entries:
            name = where.rsplit(".", 1)[-1]
            if not self._llm_filled(name, entry):
                not_llm += 1
            elif values is not None and _empty(values.get(name)):
                no_value += 1
            else:
                span = entry.get(self.key) if isinstance(entry, Mapping) else None
                found.append((f"{where}.{self.key}", span))
        if not found:
            return _not_applicable(self.spans.text, not_llm, no_value)
        return _LlmSpans(found, not_llm, no_value)

    def _llm_filled(self, name: str, entry: Any) -> bool:
        source = entry.get("source") if isinstance(entry, Mapping) else None
        if source is not None:
            return bool(source == "llm")
        return any(names_field(path, name) for path in self.llm_fields)

    def _values(self, case: Mapping[str, Any]) -> dict[str, Any] | None:
        if self.values is None:
            return None
        return {where.split(".")[self.star]: value for where, value in self.values.find(case)}


def _empty(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    return isinstance(value, list | dict) and not value


def _not_applicable(spans: str, not_llm: int, no_value: int) -> Outcome:
    """The outcome the runner turns into a not-applicable skip: nothing an LLM filled
    with a value, so nothing had to be cited. An ``error`` until then, so a combinator
    above it never reads it as a pass or a fail."""
    # The results module is a run's, not a check's: `verifier check` never loads it.
    from verifier.results import NOT_APPLICABLE

    return errored(
        f"not applicable: no field an LLM filled has a value ({not_llm} filled by "
        f"another source, {no_value} LLM-filled but empty)",
        {NOT_APPLICABLE: spans, "not_llm_filled": not_llm, "no_value": no_value},
    )


ENTRIES = (
    PredicateEntry(
        name="citation",
        spec=CitationSpec,
        prepare=_prepare,
        doc=(
            "Checks that quoted evidence was not invented: every span the `spans` path finds "
            "must be a non-empty string occurring word for word in `within` (case-folded with "
            "`ignore_case`; with `min_ratio`, a rapidfuzz partial ratio at least that high also "
            "counts, and a pass says how many spans matched only approximately: a near match "
            "can differ in a word or a figure, so keep `min_ratio` high where numbers matter). "
            "A path that finds no span fails rather than passing vacuously; a `within` that is "
            "not text (a list: write `within: docs.*` to cite from each item) is an error, "
            "since nothing was checked. With `source: llm` only the fields an LLM filled "
            "are checked (an entry's `source`, else the contract's `llm_fields`), each "
            "must cite a span, and with `values` one with no value is left alone; a case "
            "with field metadata but no LLM-filled value is skipped as not applicable, "
            "one with none at all is an error. Evidence: "
            "the first span not found, its path, how many spans were grounded and the paths "
            "of the texts it was looked for in (with `min_ratio`, also where it came "
            "closest: `nearest`, with its ratio); on a pass, each span's character offsets "
            "in `within`."
        ),
        example={
            "id": "spans_grounded",
            "rubric": "citation",
            "spans": "field_meta.*.source_span",
            "within": "input",
            "ignore_case": True,
        },
    ),
)

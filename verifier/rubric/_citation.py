"""``citation``: every quoted span must be found, word for word, in the source text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from verifier._internal.json_words import json_kind
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
    failed,
    field_missing,
    field_path,
    fold_case,
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


def _prepare(spec: CitationSpec, ctx: PrepareContext) -> Check:
    spans_path = field_path(spec.spans)
    within_path = field_path(spec.within)
    ignore_case = spec.ignore_case
    min_ratio = spec.min_ratio
    if min_ratio is not None:
        # rapidfuzz is imported by a contract that accepts near spans, not by every
        # contract validated (`verifier check`, a run's start): ADR 0050.
        from rapidfuzz.fuzz import partial_ratio_alignment

    def ground(
        needle: str, sources: list[tuple[str, str, list[int] | None]]
    ) -> dict[str, Any] | None:
        """Where ``needle`` occurs in a source, or ``None`` when it occurs in none."""
        for where, text, index in sources:
            at = text.find(needle)
            if at >= 0:
                start, end = original_span(index, at, at + len(needle))
                return {"within": where, "start": start, "end": end}
        if min_ratio is None:
            return None
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

    def check(case: Mapping[str, Any]) -> Outcome:
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
                first_bad = first_bad or (where, span, why)
                continue
            hit = ground(span.casefold() if ignore_case else span, sources)
            if hit is None:
                first_bad = first_bad or (where, span, f"not found in {within_path.text}")
            else:
                grounded.append({"path": where, **hit})

        counts = {"grounded": len(grounded), "total": len(found)}
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
            "since nothing was checked. Evidence: "
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

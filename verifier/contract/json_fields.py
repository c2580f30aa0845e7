"""A contract's ``parse_json``: fields holding JSON text, parsed once per case.

Pipelines log a structured output as a JSON string; a field path cannot read into
text, so ``output.total`` would be "missing". With ``parse_json: [output]`` each case
is parsed before any claim reads it, and every predicate, judge and the stored content
see the value. A field whose text is not JSON is left as text, and each claim that
reads it gets an error naming the field and the JSON error, while the case's other
claims, and the other cases, are checked as usual.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from verifier.cases import CaseLine, parse_json_fields
from verifier.contract.models import CompareClaim, Contract, JudgeClaim
from verifier.fieldpath import FieldPath, compile_path, paths_overlap
from verifier.gaps.redact import claim_paths
from verifier.results import ClaimResult, RowKind
from verifier.rubric._base import Check, errored


def claim_reads(claim: Any) -> tuple[str, ...]:
    """The field paths a claim reads: a judge also reads the case's ``input``, and a
    comparison reads its outputs wherever they are."""
    if isinstance(claim, JudgeClaim):
        return (claim.field, "input")
    if isinstance(claim, CompareClaim):
        return (claim.field, *(claim.outputs or ()), "input", "baseline", "runs", "outputs")
    return tuple(claim_paths(claim.model_dump()))


@dataclass(frozen=True)
class JsonFields:
    """The contract's ``parse_json``, ready to apply to cases.

    Attributes:
        paths: The compiled paths, in the order they are parsed (``output`` before
            ``output.body`` parses JSON text inside JSON text).
        reads: Each claim's id and the paths it reads.
    """

    paths: tuple[FieldPath, ...]
    reads: tuple[tuple[str, tuple[str, ...]], ...]

    @classmethod
    def of(cls, contract: Contract) -> JsonFields | None:
        """The contract's ``parse_json``, or ``None`` when it names no field."""
        if not contract.parse_json:
            return None
        paths = tuple(compile_path(text) for text in contract.parse_json)
        return cls(paths, tuple((claim.id, claim_reads(claim)) for claim in contract.claims))

    def parse(self, line: CaseLine) -> tuple[CaseLine, dict[str, str]]:
        """The line with its case parsed, and why each claim that reads a field whose
        text is not JSON cannot be checked (by claim id; empty when all parsed)."""
        if line.case is None:
            return line, {}
        case, failures = parse_json_fields(line.case, self.paths)
        parsed = CaseLine(line.line, line.case_id, case, line.error, line.sut)
        if not failures:
            return parsed, {}
        reasons: dict[str, str] = {}
        for claim_id, paths in self.reads:
            hit = next(
                (
                    (where, why)
                    for where, why in failures.items()
                    if any(paths_overlap(path, where) for path in paths)
                ),
                None,
            )
            if hit is not None:
                reasons[claim_id] = f"field {hit[0]} is not valid JSON text (parse_json): {hit[1]}"
        return parsed, reasons

    def parse_chunk(
        self, chunk: Sequence[CaseLine]
    ) -> tuple[list[CaseLine], dict[int, dict[str, str]]]:
        """Every line of ``chunk`` parsed, and the claims each line cannot check, by line."""
        lines: list[CaseLine] = []
        broken: dict[int, dict[str, str]] = {}
        for line in chunk:
            parsed, reasons = self.parse(line)
            lines.append(parsed)
            if reasons:
                broken[line.line] = reasons
        return lines, broken


def unparsed_check(reason: str) -> Check:
    """The check of a rubric claim whose field's JSON text did not parse: an error."""
    outcome = errored(reason, {"parse_json": True})
    return lambda _case: outcome


def unparsed_results(
    results: Mapping[str, ClaimResult], reasons: Mapping[str, str], kinds: Mapping[str, RowKind]
) -> dict[str, ClaimResult]:
    """``results`` with each claim in ``reasons`` an error saying which field's JSON
    text could not be parsed."""
    out = dict(results)
    for claim_id, reason in reasons.items():
        out[claim_id] = ClaimResult(
            claim_id, kinds[claim_id], "error", None, reason, {"parse_json": True}
        )
    return out

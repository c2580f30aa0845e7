"""Comparative claims that need no model: similarity of two outputs, consistency of N.

Two outputs are never checked against a fixed expectation, only against each other:
the same system run twice, or a candidate beside a baseline. Where they come from:

- the claim's ``outputs`` paths (two for ``similarity``/``pairwise``; any number, or a
  path with ``*``, for ``consistency``);
- for ``consistency``, when the case holds ``runs`` (the outputs of every run of the
  system under test, ``--repeat``), the claim's field in each run: ``runs.*`` for
  ``output``, ``runs.*.summary`` for ``output.summary``;
- otherwise ``outputs.a`` and ``outputs.b`` of the case, or, when the run joins a
  baseline (``--baseline``, ``--variant``), the claim's field in the case and in its
  baseline.

A comparison with an input missing (a path that finds nothing, a case with no
baseline, fewer than two outputs to agree) could not be made: its row is ``error``,
never ``fail``, so it is no regression in ``compare``, a gate or a trend (ADR 0062).
Scores are stored at full float precision, so a ratio reads back as the fraction it
is (``compare.signed_rank.exact_score``).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence, Set
from fractions import Fraction
from typing import Any

from verifier._internal.canonical import canonical_json
from verifier.contract.models import CompareClaim
from verifier.fieldpath import MISSING, closest_path, compile_path
from verifier.results import ClaimResult

BASELINE_KEY = "baseline"
"""Where a joined baseline case is placed inside the case (``--baseline``)."""
RUNS_KEY = "runs"
"""Where the outputs of every run of the system under test go (``--repeat``)."""


def reads_baseline(claim: CompareClaim) -> bool:
    """Whether ``claim`` may read a joined baseline (``--baseline``): its ``outputs``
    name ``baseline.*``, or it names none and so compares with the baseline when the
    case has one (a ``consistency`` claim only when the case holds no ``runs``)."""
    if not claim.outputs:
        return True
    return any(path.split(".")[0] == BASELINE_KEY for path in claim.outputs)


def output_paths(claim: CompareClaim, case: Mapping[str, Any]) -> tuple[str, ...]:
    """The paths whose values are compared, by the rules in the module docstring."""
    if claim.outputs:
        return claim.outputs
    if claim.compare == "consistency" and RUNS_KEY in case:
        # Each run holds what the output key holds: the field's first step is replaced.
        _, dot, rest = claim.field.partition(".")
        return (f"{RUNS_KEY}.*{dot}{rest}",)
    if BASELINE_KEY in case:
        return (claim.field, f"{BASELINE_KEY}.{claim.field}")
    return ("outputs.a", "outputs.b")


def located_outputs(
    claim: CompareClaim, case: Mapping[str, Any]
) -> tuple[list[tuple[str, Any]], list[str]]:
    """The compared values in order, each with the concrete path it was found at
    (``runs.2`` for ``runs.*``), and the paths that found nothing."""
    found: list[tuple[str, Any]] = []
    missing: list[str] = []
    for text in output_paths(claim, case):
        path = compile_path(text)
        if path.has_wildcard:
            reached = path.find(case)
            if not reached:
                missing.append(text)
            found.extend(reached)
        else:
            value = path.get(case)
            if value is MISSING:
                missing.append(text)
            else:
                found.append((text, value))
    return found, missing


def resolve_outputs(claim: CompareClaim, case: Mapping[str, Any]) -> tuple[list[Any], list[str]]:
    """The compared values in order, and the paths that found nothing."""
    found, missing = located_outputs(claim, case)
    return [value for _, value in found], missing


def _compared_values(
    claim: CompareClaim, case: Mapping[str, Any]
) -> tuple[list[Any], list[str], str | None]:
    """The values compared, the paths that found nothing, and why an output could not
    be read. Under ``parse`` each output is the set of its finding types, read as a
    findings claim reads its output (``verifier.engine.findings``)."""
    found, missing = located_outputs(claim, case)
    if claim.parse is None or missing:
        return [value for _, value in found], missing, None
    from verifier.engine.findings import UnreadableFindings, finding_types

    try:
        types = [finding_types(v, where, claim.parse, claim.finding_keys) for where, v in found]
    except UnreadableFindings as exc:
        return [], missing, f"not compared: {exc}"
    return types, missing, None


def missing_input(case: Mapping[str, Any], missing: Sequence[str]) -> str:
    """Why a comparison could not be made: each path that found nothing, with the
    closest path the case has, or that the case has no baseline at all."""
    no_baseline = BASELINE_KEY in case and case[BASELINE_KEY] is None
    if no_baseline and any(path.split(".")[0] == BASELINE_KEY for path in missing):
        return f"not compared: the baseline has no case with id {str(case.get('id'))!r}"
    named = []
    for path in missing:
        near = closest_path(case, path)
        named.append(f"{path} (closest: {near})" if near else path)
    return f"not compared: no output to compare at {', '.join(named)}"


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else canonical_json(value).decode("utf-8")


def _items(value: Any) -> set[str]:
    if isinstance(value, (list, tuple, set)):
        return {_as_text(v).casefold() for v in value}
    if isinstance(value, Mapping):
        return {str(k).casefold() for k in value}
    return {t.casefold() for t in _as_text(value).split()}


def jaccard(left: Set[Any], right: Set[Any]) -> float:
    """|left & right| / |left | right|; two empty sets are the same (1)."""
    union = left | right
    return 1.0 if not union else len(left & right) / len(union)


def similarity(a: Any, b: Any, method: str) -> float:
    """Similarity of two outputs in [0, 1].

    ``ratio`` and ``token_set_ratio`` are rapidfuzz's (text; objects as canonical
    JSON); ``jaccard`` compares sets of items (list elements, object keys or words; two
    sets of finding types as they are); ``fields`` is the share of the union of keys on
    which two objects agree.
    """
    from rapidfuzz import fuzz

    if method == "jaccard":
        if isinstance(a, frozenset) and isinstance(b, frozenset):
            return jaccard(a, b)
        return jaccard(_items(a), _items(b))
    if method == "fields":
        if not isinstance(a, Mapping) or not isinstance(b, Mapping):
            return 1.0 if canonical_json(a) == canonical_json(b) else 0.0
        keys = set(a) | set(b)
        if not keys:
            return 1.0
        same = sum(
            1 for k in keys if k in a and k in b and canonical_json(a[k]) == canonical_json(b[k])
        )
        return same / len(keys)
    scorer = fuzz.token_set_ratio if method == "token_set_ratio" else fuzz.ratio
    return float(scorer(_as_text(a), _as_text(b))) / 100.0


def _percent(share: float) -> str:
    """A similarity in [0, 1] as the 0-100 ratio ``min_ratio`` is written in."""
    return f"{share * 100:.1f}%"


def check_deterministic(claim: CompareClaim, case: Mapping[str, Any]) -> ClaimResult:
    """A ``similarity`` or ``consistency`` claim on one case."""
    values, missing, unreadable = _compared_values(claim, case)
    threshold = claim.min_ratio / 100.0
    base: dict[str, Any] = {"method": claim.method, "paths": list(output_paths(claim, case))}
    if claim.parse is not None:
        # Nested: a top-level `match_on` marks a findings claim's row (findings_tally).
        base["finding_types"] = {"parse": claim.parse, "match_on": list(claim.finding_keys)}
    if missing:
        reason = missing_input(case, missing)
        return ClaimResult(
            claim.id, "comparative", "error", None, reason, {**base, "missing": missing}
        )
    if unreadable is not None:
        return ClaimResult(claim.id, "comparative", "error", None, unreadable, base)
    if claim.compare == "similarity":
        if len(values) != 2:
            reason = f"similarity compares two outputs; {len(values)} were found"
            return ClaimResult(claim.id, "comparative", "error", None, reason, base)
        score = similarity(values[0], values[1], claim.method)
        ok = score >= threshold
        reason = (
            f"{claim.method} similarity {_percent(score)} {'>=' if ok else '<'} "
            f"{claim.min_ratio:g}% (min_ratio)"
        )
        evidence = {**base, "ratio": round(score * 100, 2), "min_ratio": claim.min_ratio}
        # Full precision: a ratio rounded to a few decimals no longer reads back as
        # the fraction it is, and tied differences stop tying (ADR 0062).
        return ClaimResult(
            claim.id, "comparative", "pass" if ok else "fail", score, reason, evidence
        )
    if len(values) < 2:
        reason = f"not compared: consistency needs at least two outputs; {len(values)} found"
        return ClaimResult(claim.id, "comparative", "error", None, reason, base)
    pairs = [similarity(x, y, claim.method) for x, y in itertools.combinations(values, 2)]
    # Summed exactly, so the mean is the float nearest the mean of the pairs' floats.
    mean, low = float(sum(map(Fraction, pairs)) / len(pairs)), min(pairs)
    ok = mean >= threshold
    reason = (
        f"{len(values)} outputs: mean pairwise {claim.method} similarity {_percent(mean)} "
        f"{'>=' if ok else '<'} {claim.min_ratio:g}% (min_ratio; lowest pair {_percent(low)})"
    )
    # `mean` and `min` are on the score's 0-1 scale; the ratios, like min_ratio, on 0-100.
    evidence = {
        **base,
        "outputs": len(values),
        "mean": mean,
        "min": low,
        "mean_ratio": round(mean * 100, 2),
        "lowest_ratio": round(low * 100, 2),
        "min_ratio": claim.min_ratio,
    }
    return ClaimResult(claim.id, "comparative", "pass" if ok else "fail", mean, reason, evidence)


def combine_orders(first: str, second: str) -> tuple[str, bool]:
    """The pairwise outcome from both presentation orders.

    ``first`` is the winner with output A shown first, ``second`` with B shown first,
    each ``"1"``, ``"2"`` or ``"tie"`` by position. Returns ``("a"|"b"|"tie",
    inconsistent)``: a verdict that follows the position rather than the content (A
    in one order, B in the other) is a tie marked inconsistent.
    """
    a_first = {"1": "a", "2": "b", "tie": "tie"}[first]
    b_first = {"1": "b", "2": "a", "tie": "tie"}[second]
    if a_first == b_first:
        return a_first, False
    if "tie" in (a_first, b_first):
        return "tie", False
    return "tie", True


def pairwise_outputs(
    claim: CompareClaim, case: Mapping[str, Any]
) -> tuple[Sequence[Any] | None, str]:
    """The two outputs of a pairwise claim, or ``None`` with why not (an ``error``)."""
    values, missing = resolve_outputs(claim, case)
    if missing:
        return None, missing_input(case, missing)
    if len(values) != 2:
        return (
            None,
            f"not compared: a pairwise comparison needs two outputs; {len(values)} were found",
        )
    return values, ""

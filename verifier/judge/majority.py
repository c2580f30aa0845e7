"""Combining repeated samples of one judge on one claim (``samples: N``) by majority.

A judge that is asked the same question several times may not always answer the
same; the majority decides, and the share of samples that agree with it is recorded
so a reviewer sees how settled the verdict was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from verifier.judge.verdict import ClaimVerdict, VerdictProblem
from verifier.llm.types import RequestKind

MEDIAN_KINDS: Final[frozenset[RequestKind]] = frozenset({"critique", "compliance"})
"""Kinds whose combined score is the median sample's, not the mean (see
``combine_samples``)."""


@dataclass(frozen=True, slots=True)
class CombinedVerdict:
    """The verdict of N samples on one claim.

    Attributes:
        status: ``pass``, ``fail``, or ``error`` when too few samples gave a verdict.
        score: Mean of the samples' scores (for a pass/fail claim, the share that
            passed), or the lower median's for a critique or compliance claim;
            ``None`` on error.
        agreement_rate: Share of the verdicts that side with the majority (0.5 on an
            even split); ``None`` when no sample gave a verdict.
        reason: One line: the majority's reasoning and the split.
        samples: One summary per sample, in order, for the evidence.
    """

    status: Literal["pass", "fail", "error"]
    score: float | None
    agreement_rate: float | None
    reason: str
    samples: tuple[dict[str, Any], ...]


def _summary(sample: ClaimVerdict | VerdictProblem) -> dict[str, Any]:
    if isinstance(sample, VerdictProblem):
        return {
            "status": "error",
            "problem": sample.kind,
            "reason": sample.reason,
            "raw": sample.raw,
        }
    return {
        "status": sample.status,
        "score": sample.score,
        "reason": sample.reason,
        "evidence": sample.evidence,
    }


def combine_samples(
    verdicts: Sequence[ClaimVerdict | VerdictProblem],
    *,
    requested: int | None = None,
    kind: RequestKind | None = None,
) -> CombinedVerdict:
    """Majority verdict over the samples of one claim.

    Rules:
        - Only samples that produced a verdict vote. Unless more than half of the
          samples requested did, the result is ``error``: a verdict resting on a
          minority of the planned samples is not the verdict the contract asked for.
        - More passes than fails is ``pass``; more fails than passes is ``fail``.
        - An even split is ``fail``, with a reason naming the split. A pass has to be
          earned, and a judge that cannot make up its mind has not shown the behaviour.
          It is not ``error``: every sample gave a valid verdict, so the split is a real
          finding about a borderline output, not a failure to obtain one, and calling
          it an error would send people looking for a broken judge. (An odd ``samples``
          avoids the question.)
        - A critique or compliance claim (``MEDIAN_KINDS``) scores the median sample:
          the lower median of the verdicts' scores (so the median count of weaknesses,
          rounded towards more, or the median compliance), and gives its reason. Such a
          claim passes when its score reaches a mark, so that median passes exactly
          when a majority passes, an even split included: status and score agree. A
          mean of points would be a score no sample gave.

    Args:
        verdicts: The verdict or problem of each sample, all for the same claim.
        requested: How many samples the judge asked for (default: ``len(verdicts)``).
        kind: The verdict kind of the samples (``MEDIAN_KINDS`` take the median).

    Raises:
        ValueError: No samples, or verdicts for different claims.
    """
    if not verdicts:
        raise ValueError("no samples to combine")
    claim_ids = {s.claim_id for s in verdicts if isinstance(s, ClaimVerdict)}
    if len(claim_ids) > 1:
        raise ValueError(f"samples of different claims: {', '.join(sorted(claim_ids))}")
    wanted = requested if requested is not None else len(verdicts)
    summaries = tuple(_summary(s) for s in verdicts)
    valid = [s for s in verdicts if isinstance(s, ClaimVerdict)]
    problems = [s for s in verdicts if isinstance(s, VerdictProblem)]
    if len(valid) * 2 <= wanted:
        agreement = None if not valid else _agreement(valid)
        if wanted == 1 and problems:
            reason = problems[0].reason
        else:
            first = f"; first problem: {problems[0].reason}" if problems else ""
            reason = f"only {len(valid)} of {wanted} samples gave a verdict{first}"
        return CombinedVerdict("error", None, agreement, reason, summaries)
    passes = [v for v in valid if v.status == "pass"]
    fails = [v for v in valid if v.status == "fail"]
    median = sorted(valid, key=lambda v: v.score)[(len(valid) - 1) // 2]
    score = median.score if kind in MEDIAN_KINDS else sum(v.score for v in valid) / len(valid)
    agreement = _agreement(valid)
    if len(passes) == len(fails):
        reason = (
            f"samples split evenly ({len(passes)} pass, {len(fails)} fail); an even split "
            f"does not pass; a failing sample said: {fails[0].reason}"
        )
        return CombinedVerdict("fail", score, agreement, reason, summaries)
    majority = passes if len(passes) > len(fails) else fails
    status = majority[0].status
    reason = median.reason if kind in MEDIAN_KINDS else majority[0].reason
    if len(valid) > 1 or wanted > 1:
        reason = f"{reason} ({len(majority)} of {len(valid)} verdicts agree)"
    return CombinedVerdict(status, score, agreement, reason, summaries)


def _agreement(verdicts: Sequence[ClaimVerdict]) -> float:
    passes = sum(1 for v in verdicts if v.status == "pass")
    return max(passes, len(verdicts) - passes) / len(verdicts)

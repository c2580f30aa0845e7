"""Scores that are ratios are stored so that `verifier compare` reads them back exactly.

Each run here is a real `verifier run` of a jaccard similarity claim, whose score is a
ratio of item counts (thirds, sixths, sevenths); `verifier compare` then ranks the
paired differences. References are scipy's: its exact permutation law of the signed
ranks (ties averaged), its exact binomial test (all differences tied reduce to the sign
test) and its tie-corrected normal approximation.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from tests._cli import verifier
from verifier.compare.signed_rank import exact_score
from verifier.judge.majority import combine_samples
from verifier.judge.verdict import ClaimVerdict

CONTRACT = """\
contract: exact-ratios
version: 1
claims:
  - id: overlap
    compare: similarity
    method: jaccard
    outputs: [output, expected]
    min_ratio: 50
"""

Step = tuple[int, int, int]
"""``(items expected, items given by the baseline, items given by the candidate)``:
the jaccard score of a run is ``given / expected``."""


def _cases(steps: list[Step], side: int) -> str:
    lines = []
    for i, step in enumerate(steps):
        expected = [f"item{j}" for j in range(step[0])]
        lines.append(
            json.dumps({"id": f"c{i}", "output": expected[: step[side]], "expected": expected})
        )
    return "\n".join(lines) + "\n"


def _compare(tmp_path: Path, steps: list[Step]) -> dict:
    (tmp_path / "exact.yaml").write_text(CONTRACT, encoding="utf-8")
    runs = []
    for side in (1, 2):
        cases = tmp_path / f"run{side}.jsonl"
        cases.write_text(_cases(steps, side), encoding="utf-8")
        run = verifier(
            "run", "exact.yaml", "--cases", cases.name, "--store", "gaps.db", "--format", "json",
            cwd=tmp_path,
        )  # fmt: skip
        assert run.returncode in (0, 1), run.stderr
        runs.append(json.loads(run.stdout)["run_id"])
    compared = verifier("compare", *runs, "--store", "gaps.db", "--format", "json", cwd=tmp_path)
    assert compared.returncode in (0, 1), compared.stderr
    (claim,) = [c for c in json.loads(compared.stdout)["claims"] if c["claim"] == "overlap"]
    return dict(claim["scores"])


def _differences(steps: list[Step]) -> list[Fraction]:
    return [Fraction(cand - base, total) for total, base, cand in steps]


def _scaled(differences: list[Fraction]) -> np.ndarray:
    """The differences as integers (times 42, a multiple of 3, 6 and 7): scipy ranks
    floats, and 1/3 - 0 and 2/3 - 1/3 are different floats."""
    return np.array([int(d * 42) for d in differences])


def test_thirds_sixths_and_sevenths_tie_as_they_do_on_paper(tmp_path: Path) -> None:
    steps: list[Step] = [
        (3, 0, 1), (3, 1, 2), (3, 2, 3), (3, 1, 2), (3, 2, 1),  # +1/3 four times, -1/3
        (6, 1, 3), (6, 5, 4),  # +2/6 ties with the thirds, -1/6
        (7, 2, 5), (7, 6, 5), (7, 0, 3),  # +3/7, -1/7, +3/7
    ]  # fmt: skip
    scores = _compare(tmp_path, steps)
    exact = stats.wilcoxon(
        _scaled(_differences(steps)), method=stats.PermutationMethod(n_resamples=np.inf)
    )
    assert scores["method"] == "exact" and scores["nonzero"] == 10
    assert scores["statistic"] == exact.statistic
    assert scores["p_value"] == pytest.approx(exact.pvalue, rel=1e-12)


def test_fifty_steps_of_a_third_are_the_sign_test(tmp_path: Path) -> None:
    # Up a third from 0, 1/3 or 2/3 in 35 cases, down a third in 15: every |difference|
    # ties, so the exact signed-rank law is the binomial law of the signs.
    ups: list[Step] = [(3, k % 3, k % 3 + 1) for k in range(35)]
    downs: list[Step] = [(3, k % 3 + 1, k % 3) for k in range(15)]
    scores = _compare(tmp_path, ups + downs)
    assert scores["method"] == "exact" and scores["nonzero"] == 50
    assert scores["statistic"] == 15 * 25.5  # the 15 negative ranks, each the mean 25.5
    assert scores["p_value"] == pytest.approx(stats.binomtest(15, 50).pvalue, rel=1e-12)


def test_a_tiny_p_value_is_not_printed_as_zero(tmp_path: Path) -> None:
    # 200 steps up (beyond the exact law's 50 pairs: the normal approximation), every
    # one a third or two sixths: z is about 12.3 and p about 1e-34.
    steps: list[Step] = [(3, k % 3, k % 3 + 1) if k % 2 else (6, 1, 3) for k in range(200)]
    scores = _compare(tmp_path, steps)
    approx = stats.wilcoxon(_scaled(_differences(steps)), method="approx", correction=True)
    assert scores["method"] == "normal" and scores["nonzero"] == 200
    assert 0.0 < scores["p_value"] < 1e-30
    assert scores["p_value"] == pytest.approx(approx.pvalue, rel=1e-9)


def test_a_majority_of_two_in_three_samples_reads_back_as_two_thirds() -> None:
    verdicts = [
        ClaimVerdict("c", status, 1.0 if status == "pass" else 0.0, "why", {})
        for status in ("pass", "fail", "pass")
    ]
    score = combine_samples(verdicts).score
    assert score is not None
    assert exact_score(json.loads(json.dumps(score))) == Fraction(2, 3)

"""Keys on a 0-100 or 0-1 scale refuse a value written on the other scale, and the
reasons and evidence of similarity speak the key's 0-100 scale."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._cli import verifier
from verifier.contract.models import CompareClaim
from verifier.engine.comparative import check_deterministic
from verifier.rubric._base import Check
from verifier.rubric._similar import SimilarSpec

HEADER = "contract: demo\nversion: 1\n"
SIMILAR = "  - id: close\n    rubric: similar\n    field: output\n    reference: hello\n"


def check(tmp_path: Path, text: str) -> tuple[int, list[str]]:
    (tmp_path / "c.yaml").write_text(text, encoding="utf-8")
    done = verifier("check", "c.yaml", cwd=tmp_path)
    return done.returncode, [line for line in done.stdout.splitlines() if line.startswith("c.yaml")]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "claims:\n" + SIMILAR + "    min_ratio: 0.8\n",
            "c.yaml:8:16: claim 'close': min_ratio is on a 0-100 scale; 0.8 would pass almost "
            "anything — did you mean 80?",
        ),
        (
            "claims:\n" + SIMILAR + "    min_ratio: 1\n",
            "c.yaml:8:16: claim 'close': min_ratio is on a 0-100 scale; 1 would pass almost "
            "anything — did you mean 100?",
        ),
        (
            "claims:\n  - id: cited\n    rubric: citation\n    spans: quotes.*\n"
            "    within: input\n    min_ratio: 0.9\n",
            "c.yaml:8:16: claim 'cited': min_ratio is on a 0-100 scale; 0.9 would pass almost "
            "anything — did you mean 90?",
        ),
        (
            "claims:\n  - id: same\n    compare: similarity\n    outputs: [a, b]\n"
            "    min_ratio: 0.5\n",
            "c.yaml:7:16: claim 'same': min_ratio is on a 0-100 scale; 0.5 would pass almost "
            "anything — did you mean 50?",
        ),
        (
            "threshold: 80\nclaims:\n" + SIMILAR,
            "c.yaml:3:12: threshold is on a 0-1 scale; 80 is above 1 — did you mean 0.8?",
        ),
        (
            "judges:\n  j:\n    provider: anthropic\n    model: claude-haiku-4-5-20251001\n"
            "    sampling: {top_p: 95}\nclaims:\n" + SIMILAR,
            "c.yaml:7:23: judge 'j': sampling: top_p is on a 0-1 scale; 95 is above 1 — "
            "did you mean 0.95?",
        ),
    ],
)
def test_a_value_on_the_wrong_scale_is_a_located_problem(
    tmp_path: Path, body: str, expected: str
) -> None:
    code, found = check(tmp_path, HEADER + body)
    assert code == 2
    assert found == [expected]


@pytest.mark.parametrize("value", ["0", "80", "100", "1.5"])
def test_values_on_the_right_scale_lint_clean(tmp_path: Path, value: str) -> None:
    code, found = check(tmp_path, HEADER + "claims:\n" + SIMILAR + f"    min_ratio: {value}\n")
    assert code == 0, found


def test_unrelated_text_fails_at_80_and_the_reason_speaks_percent(make_check) -> None:
    run: Check = make_check(
        {"rubric": "similar", "field": "output", "reference": "The cat sat on the mat.",
         "min_ratio": 80}
    )  # fmt: skip
    outcome = run({"output": "Quarterly revenue rose by 12%."})
    assert outcome.status == "fail"
    assert "% similar to the reference (needs 80%)" in outcome.reason
    assert outcome.evidence["min_ratio"] == 80
    assert 0 <= outcome.evidence["ratio"] < 80


def test_the_similar_keys_document_their_scale() -> None:
    meaning = SimilarSpec.model_json_schema()["properties"]["min_ratio"]
    assert "0-100" in meaning["description"]
    assert (meaning["minimum"], meaning["maximum"]) == (0, 100)


@pytest.mark.parametrize(("value", "problem"), [(1.5, "is above 1"), (0, "greater than 0")])
def test_top_p_keeps_its_own_bounds(tmp_path: Path, value: float, problem: str) -> None:
    code, found = check(
        tmp_path,
        HEADER + "judges:\n  j:\n    provider: anthropic\n    model: claude-haiku-4-5-20251001\n"
        f"    sampling: {{top_p: {value}}}\nclaims:\n" + SIMILAR,
    )
    assert code == 2 and len(found) == 1 and problem in found[0], found
    assert "did you mean" not in found[0]


@pytest.mark.parametrize("shape", ["similarity", "consistency"])
def test_comparative_reasons_and_evidence_use_the_0_100_scale(shape: str) -> None:
    claim = CompareClaim(
        id="same",
        compare=shape,
        outputs=("a", "b"),
        min_ratio=50,  # type: ignore[arg-type]
    )
    result = check_deterministic(claim, {"a": "the quick brown fox", "b": "zzzz"})
    assert result.status == "fail"
    assert "< 50% (min_ratio" in result.reason, result.reason
    assert "0.500" not in result.reason
    ratio = result.evidence["ratio" if shape == "similarity" else "mean_ratio"]
    assert result.evidence["min_ratio"] == 50 and 0 <= ratio < 50
    assert result.score == pytest.approx(ratio / 100, abs=1e-4)

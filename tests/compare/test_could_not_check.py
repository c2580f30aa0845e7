"""What could not be checked is an `error`, never a `fail`: a comparison missing an
input, a case with no baseline, a citation source that is not text; and `--baseline`
says how many case ids it matched, or that no claim reads it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests._cli import verifier
from tests.conftest import FIXTURES

COMPARE = FIXTURES / "compare"


def _run(tmp_path: Path, *args: str) -> tuple[dict[str, dict[str, Any]], str, str]:
    """``verifier run ARGS --format json``: the results by case and claim, the run id
    and stderr."""
    result = verifier(*args, "--store", "gaps.db", "--format", "json", cwd=tmp_path)
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    rows = {c["id"]: {r["id"]: r for r in c["results"]} for c in report["cases"]}
    return rows, report["run_id"], result.stderr


def _pairwise_run(tmp_path: Path, baseline: str) -> tuple[dict[str, dict[str, Any]], str]:
    for name in ("answers.yaml", "candidate.jsonl"):
        shutil.copy(COMPARE / name, tmp_path / name)
    (tmp_path / "baseline.jsonl").write_text(baseline, encoding="utf-8")
    rows, _, stderr = _run(
        tmp_path, "run", "answers.yaml", "--cases", "candidate.jsonl",
        "--baseline", "baseline.jsonl", "--judges", "replay",
    )  # fmt: skip
    return rows, stderr


def test_a_case_without_a_baseline_is_not_compared_and_the_run_says_so(
    tmp_path: Path,
) -> None:
    baseline = (COMPARE / "baseline.jsonl").read_text(encoding="utf-8").splitlines()
    rows, stderr = _pairwise_run(
        tmp_path, "\n".join([*baseline[:2], '{"id": "q33", "output": "Usage rose."}']) + "\n"
    )
    for claim in ("close_to_baseline", "no_worse_than_baseline"):
        row = rows["q3"][claim]
        assert (row["status"], row["score"]) == ("error", None)
        assert row["reasoning"] == "not compared: the baseline has no case with id 'q3'"
    assert rows["q1"]["close_to_baseline"]["status"] == "pass"
    assert "baseline: 2 of 3 case ids matched; 1 case has no baseline: q3 (closest: q33)\n" in (
        stderr
    )


def test_a_baseline_matching_no_case_id_is_said(tmp_path: Path) -> None:
    _, stderr = _pairwise_run(tmp_path, '{"id": "other", "output": "x"}\n')
    assert (
        "baseline: 0 of 3 case ids matched; 3 cases have no baseline: q1, q2, q3 "
        "(is it the baseline of these cases?)"
    ) in stderr


def test_a_baseline_no_claim_reads_is_said_to_be_unused(tmp_path: Path) -> None:
    (tmp_path / "plain.yaml").write_text(
        "contract: plain\nversion: 1\nclaims:\n"
        "  - {id: short, rubric: length, field: output, max_words: 50}\n",
        encoding="utf-8",
    )
    shutil.copy(COMPARE / "candidate.jsonl", tmp_path / "cases.jsonl")
    shutil.copy(COMPARE / "baseline.jsonl", tmp_path / "baseline.jsonl")
    _, _, stderr = _run(
        tmp_path, "run", "plain.yaml", "--cases", "cases.jsonl", "--baseline", "baseline.jsonl"
    )
    assert (
        "baseline: baseline.jsonl is not used: the contract has no comparative claim that "
        "reads a baseline"
    ) in stderr
    assert "case ids matched" not in stderr


SIMILAR = """\
contract: similar-answers
version: 1
claims:
  - id: close
    compare: similarity
    outputs: [output, reference]
    min_ratio: 80
  - id: stable
    compare: consistency
    outputs: [runs.*]
    min_ratio: 80
"""


def test_a_missing_comparison_input_is_an_error_and_no_regression_in_compare(
    tmp_path: Path,
) -> None:
    (tmp_path / "similar.yaml").write_text(SIMILAR, encoding="utf-8")
    answer = {"output": "The refund takes five days.", "runs": ["a b", "a b"]}
    before = [{"id": f"c{i}", **answer, "reference": answer["output"]} for i in range(8)]
    # The candidate's cases lost their reference (a typo in the export: `referense`)
    # and half of them kept one run only.
    after = [
        {
            "id": f"c{i}",
            **answer,
            "referense": answer["output"],
            "runs": ["a b", "a b"][: 1 + i % 2],
        }
        for i in range(8)
    ]
    run_ids = []
    for name, cases in (("before", before), ("after", after)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
        rows, run_id, _ = _run(tmp_path, "run", "similar.yaml", "--cases", path.name)
        run_ids.append(run_id)
    close, stable = rows["c0"]["close"], rows["c0"]["stable"]
    assert (close["status"], close["score"]) == ("error", None)
    assert close["reasoning"] == (
        "not compared: no output to compare at reference (closest: referense)"
    )
    assert (stable["status"], stable["score"]) == ("error", None)
    assert stable["reasoning"] == "not compared: consistency needs at least two outputs; 1 found"
    assert rows["c1"]["stable"]["status"] == "pass"

    compared = verifier("compare", *run_ids, "--store", "gaps.db", "--format", "json", cwd=tmp_path)
    assert compared.returncode == 0, compared.stdout + compared.stderr
    claims = {c["claim"]: c for c in json.loads(compared.stdout)["claims"]}
    assert claims["close"]["excluded"] == {"error": 8, "skipped": 0}
    assert claims["close"]["discordant"] == {"baseline_only": 0, "candidate_only": 0}
    assert claims["stable"]["excluded"]["error"] == 4


CITATION = """\
contract: cited
version: 1
claims:
  - id: grounded
    rubric: citation
    spans: quotes.*
    within: sources
"""


def test_a_citation_source_that_is_a_list_is_an_error_naming_the_fix(tmp_path: Path) -> None:
    (tmp_path / "cited.yaml").write_text(CITATION, encoding="utf-8")
    case = {"id": "c1", "output": "ok", "quotes": ["refunds take five days"]}
    case["sources"] = ["Policy: refunds take five days.", "FAQ"]
    (tmp_path / "cases.jsonl").write_text(json.dumps(case) + "\n", encoding="utf-8")
    rows, _, _ = _run(tmp_path, "run", "cited.yaml", "--cases", "cases.jsonl")
    row = rows["c1"]["grounded"]
    assert row["status"] == "error"
    assert row["reasoning"] == (
        "not checked: sources is an array, not text (to use each item, write sources.*)"
    )

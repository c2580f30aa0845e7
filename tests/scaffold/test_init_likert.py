"""``verifier init --template likert``: five Likert dimensions with an overall score,
checked clean and run offline; every report shows the same overall."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._cli import verifier
from verifier.contract.load import load_contract
from verifier.contract.models import JudgeClaim

NAME = "likert-review"
NO_KEYS = ("ANTHROPIC_", "OPENAI_")
DIMENSIONS = ["relevance", "accuracy", "completeness", "format_compliance", "safety_constraints"]
# The hand-written scores of the three cases (relevance, accuracy, completeness, format,
# safety), each case's mean, and the run's mean of those, computed by hand.
CASE_OVERALL = {"review-missing-types": 4.8, "review-well-typed": 4.6, "review-rewritten": 1.8}
RUN_MEAN = round((4.8 + 4.6 + 1.8) / 3, 6)  # 3.733333


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Likert starter project written by ``verifier init --template likert``."""
    root = tmp_path_factory.mktemp("likert")
    made = verifier("init", "evals", "--template", "likert", cwd=root)
    assert made.returncode == 0, made.stderr
    return root


def test_the_rubric_has_five_dimensions_with_anchors_at_1_3_and_5(project: Path) -> None:
    contract = load_contract(project / "evals" / f"{NAME}.yaml").contract
    assert [claim.id for claim in contract.claims] == DIMENSIONS
    for claim in contract.claims:
        assert isinstance(claim, JudgeClaim)
        assert claim.judge == "likert"
        assert claim.scale is not None
        assert (claim.scale.min, claim.scale.max) == (1, 5)
        assert sorted(claim.scale.anchors) == [1, 3, 5]
    assert contract.overall is not None
    assert contract.overall.revise_below == 3.0
    checked = verifier("check", "evals", cwd=project)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"{NAME} v1, 5 claims" in checked.stdout


def test_the_run_reports_each_case_overall_and_the_cases_to_revise(project: Path) -> None:
    contract, cases = f"evals/{NAME}.yaml", f"evals/{NAME}.cases.jsonl"
    ran = verifier(
        "run", contract, "--cases", cases, "--format", "json", "--store", "gaps.db",
        cwd=project, clear_prefixes=NO_KEYS,
    )  # fmt: skip
    # The rewritten review fails its dimensions below pass_at 3: pass/fail is unchanged.
    assert ran.returncode == 1, ran.stdout + ran.stderr
    report = json.loads(ran.stdout)
    assert (report["total_cases"], report["passed_cases"]) == (3, 2)
    by_case = {case["id"]: case for case in report["cases"]}
    assert {k: c["overall"]["value"] for k, c in by_case.items()} == CASE_OVERALL
    assert [k for k, c in by_case.items() if c["overall"]["revise"]] == ["review-rewritten"]
    # The pass share stays beside it: 1 of 5 dimensions passed (safety at 3).
    assert by_case["review-rewritten"]["score"] == 0.2
    assert report["overall"] == {
        "mean": RUN_MEAN,
        "scale": [1, 5],
        "cases": 3,
        "without_overall": 0,
        "revise_below": 3.0,
        "revise": 1,
        "revise_cases": ["review-rewritten"],
    }
    line = "mean overall 3.73 on 1-5 (3 cases; 1 to revise, below 3: review-rewritten)"
    html = verifier("report", "--store", "gaps.db", "--html", "report.html", cwd=project)
    assert html.returncode == 0, html.stderr
    assert f'<dd id="overall">{line}</dd>' in (project / "report.html").read_text()
    console = verifier(
        "run", contract, "--cases", cases, "--store", "gaps.db",
        cwd=project, clear_prefixes=NO_KEYS, env={"COLUMNS": "200"},
    )  # fmt: skip
    assert line in console.stdout, console.stdout
    markdown = verifier(
        "run", contract, "--cases", cases, "--store", "gaps.db", "--format", "markdown",
        cwd=project, clear_prefixes=NO_KEYS,
    )  # fmt: skip
    assert f"\n{line}\n" in markdown.stdout, markdown.stdout


def test_init_refuses_an_unknown_template(tmp_path: Path) -> None:
    made = verifier("init", "evals", "--template", "nps", cwd=tmp_path)
    assert made.returncode == 2
    assert "'nps' is not one of 'starter', 'likert'" in made.stderr
    assert not (tmp_path / "evals").exists()

"""``--repeat`` with a jaccard consistency claim on finding types: each run's findings,
read as a findings claim reads them, become a set of ``match_on`` values, and the runs'
sets are compared pairwise (the system runs for real, as Python functions)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.sut._support import results, run_report, write_cases

CONTRACT = """\
contract: review-consistency
version: 1
{parse_json}sut:
  python: sut_functions:{function}
claims:
  - id: same_findings
    compare: consistency
    method: jaccard
    parse: {parse}
    match_on: [dimension, severity]
    min_ratio: {min_ratio}
"""


def _run(tmp_path: Path, function: str, parse: str, min_ratio: int = 50) -> Any:
    parse_json = "parse_json: [output, runs.*]\n" if parse == "json" else ""
    path = tmp_path / "review.yaml"
    path.write_text(
        CONTRACT.format(function=function, parse=parse, min_ratio=min_ratio, parse_json=parse_json),
        encoding="utf-8",
    )
    cases = write_cases(tmp_path / "cases.jsonl", {"id": "r1", "input": "def f(x): ..."})
    _, report = run_report(tmp_path, path, cases, "--repeat", "3")
    return results(report)["r1"]["same_findings"]


@pytest.mark.e2e
@pytest.mark.parametrize(("function", "parse"), [("reviews", "numbered"), ("reviews_json", "json")])
@pytest.mark.parametrize(("min_ratio", "status"), [(50, "pass"), (60, "fail")])
def test_repeats_are_compared_on_the_sets_of_their_finding_types(
    tmp_path: Path, function: str, parse: str, min_ratio: int, status: str
) -> None:
    # Types per run: {security/high, naming/low} twice (other wording, a repeat), then
    # {security/high, tests/medium}. Pairs: 2/2 = 1, 1/3, 1/3; mean 5/9, lowest 1/3.
    row = _run(tmp_path, function, parse, min_ratio)
    assert row["status"] == status
    evidence = row["evidence"]
    assert evidence["mean"] == 5 / 9 and row["score"] == pytest.approx(5 / 9, abs=1e-6)
    assert evidence["outputs"] == 3 and evidence["paths"] == ["runs.*"]
    assert evidence["lowest_ratio"] == 33.33
    assert evidence["finding_types"] == {"parse": parse, "match_on": ["dimension", "severity"]}


@pytest.mark.e2e
def test_a_run_whose_findings_cannot_be_read_is_an_error_not_a_fail(tmp_path: Path) -> None:
    row = _run(tmp_path, "reviews_unreadable", "numbered")
    assert row["status"] == "error" and row["score"] is None
    # Which run got the second call depends on the threads; the reason names it.
    assert re.fullmatch(
        r"not compared: runs\.[012]: line 1 is numbered but not "
        r"`N\. \[severity\] dimension: text`: '1\. high security'",
        row["reasoning"],
    ), row["reasoning"]

"""One verdict, whoever asks: every surface prints a claim's pass rate with the same
counts, and a gate decides on that same figure.

The claim ``code_ok`` waits for ``answered``; of seven cases it passes four, fails one,
errors on one (equality on a field the case marks as LLM-written cannot be checked)
and is skipped on one (its gate failed): 4 passed of 6 checked, 66.7%.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import httpx
import pytest

from tests._cli import verifier
from tests.server._support import running
from verifier.server.settings import ServerSettings

CONTRACT = """\
contract: tally
version: 1
claims:
  - id: answered
    rubric: contains
    field: output
    values: [answer]
  - id: code_ok
    rubric: equals
    field: code
    value: A
    after: [answered]
"""

LLM_CODE = {"code": {"source": "llm"}}
CASES = [
    *({"id": f"c{i}", "input": f"q{i}", "output": "an answer", "code": "A"} for i in range(1, 5)),
    {"id": "c5", "input": "q5", "output": "an answer", "code": "B"},
    {"id": "c6", "input": "q6", "output": "an answer", "code": "A", "field_meta": LLM_CODE},
    {"id": "c7", "input": "q7", "output": "nothing", "code": "A"},
]
COUNTS = "4 passed of 6 checked; 1 skipped, 1 error"


@pytest.fixture(scope="module")
def where(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("one-verdict")
    (where / "tally.yaml").write_text(CONTRACT)
    (where / "tally.cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES))
    return where


def run(where: Path, *options: str) -> Any:
    return verifier("run", "tally.yaml", "--store", "gaps.db", *options, cwd=where)


def test_every_report_of_a_run_gives_the_claim_the_same_rate_and_counts(where: Path) -> None:
    report = json.loads(run(where, "--format", "json").stdout)
    tally = report["assertion_breakdown"]["code_ok"]
    assert (tally["passed"], tally["failed"], tally["errors"], tally["skipped"]) == (4, 1, 1, 1)
    assert tally["pass_rate"] == pytest.approx(4 / 6, abs=1e-6)
    markdown = run(where, "--format", "markdown").stdout
    assert "| code_ok | 66.7% | 4 | 1 | 1 | 1 |" in markdown
    console = verifier(
        "run", "tally.yaml", "--store", "gaps.db", cwd=where, env={"COLUMNS": "120"}
    ).stdout
    line = next(line for line in console.splitlines() if "code_ok" in line)
    assert [cell.strip() for cell in line.split("│")[2:7]] == ["66.7%", "4", "1", "1", "1"]


def test_run_gate_decides_on_the_rate_the_reports_print(where: Path) -> None:
    """A threshold read off the report (66.7% of the checked results, not 4 of 7 rows)
    is met by the run it was read from."""
    lock = verifier(
        "gate", "lock", "tally.yaml", "--primary", "code_ok", "--threshold", "0.66",
        "--out", "at-66.yaml", "--store", "gaps.db", cwd=where,
    )  # fmt: skip
    assert lock.returncode == 0, lock.stderr
    gated = run(where, "--gate", "at-66.yaml")
    assert gated.returncode == 0, gated.stderr
    assert (
        f"gate: PASS on primary claim code_ok (pass_rate, not-worse, alpha 0.05): pass rate "
        f"66.7% ({COUNTS}) >= threshold 66.0%"
    ) in gated.stderr
    assert "secondary (not deciding): answered: pass rate 85.7% (6 of 7 checked)" in gated.stderr
    high = verifier(
        "gate", "lock", "tally.yaml", "--primary", "code_ok", "--threshold", "0.7",
        "--out", "at-70.yaml", "--store", "gaps.db", cwd=where,
    )  # fmt: skip
    assert high.returncode == 0, high.stderr
    failed = run(where, "--gate", "at-70.yaml", "--format", "json")
    assert failed.returncode == 1
    gate = json.loads(failed.stdout)["gate"]
    assert gate["evidence"] == f"pass rate 66.7% ({COUNTS}) < threshold 70.0%"


def _claim_row(html: str, claim: str) -> list[str]:
    """The cells of a claim's row in an HTML claims table, tags stripped."""
    found = re.search(f'<tr[^>]*data-claim="{claim}"', html)
    assert found, f"no row of {claim}"
    start = found.start()
    row = html[start : html.index("</tr>", start)]
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in row.split("<td")[1:]]


def test_the_html_report_the_viewer_and_junit_count_the_same(where: Path) -> None:
    run_id = json.loads(run(where, "--format", "json").stdout)["run_id"]
    page = verifier("report", run_id, "--store", "gaps.db", "--html", "r.html", cwd=where)
    assert page.returncode == 0, page.stderr
    cells = _claim_row((where / "r.html").read_text(), "code_ok")
    assert [c.split(">")[-1] for c in cells[2:7]] == ["66.7%", "4", "1", "1", "1"]
    settings = ServerSettings(port=0, store=str(where / "gaps.db"))
    with running(settings) as url:
        viewed = httpx.get(f"{url}/view/runs/{run_id}").text
    cells = [c.split(">")[-1] for c in _claim_row(viewed, "code_ok")]
    assert (cells[1], *cells[3:7]) == ("66.7%", "4", "1", "1", "1")
    junit = run(where, "--format", "junit").stdout
    cases = ElementTree.fromstring(junit).iter("testcase")
    outcomes = [
        next((child.tag for child in case), "pass")
        for case in cases
        if "code_ok" in case.get("name", "")
    ]
    assert sorted(outcomes) == ["error", "failure", "pass", "pass", "pass", "pass", "skipped"]


def test_compare_gate_shows_each_runs_checked_cases_beside_the_pairs(where: Path) -> None:
    """The candidate answers on c7 and no longer on c1: ``code_ok`` is checked on other
    cases in each run, so the gate prints both runs' counts and pairs only the cases
    both gave a verdict on."""
    lock = verifier(
        "gate", "lock", "tally.yaml", "--primary", "code_ok", "--out", "pairs.yaml",
        "--store", "pairs.db", cwd=where,
    )  # fmt: skip
    assert lock.returncode == 0, lock.stderr
    candidate = [dict(c) for c in CASES]
    candidate[0]["output"], candidate[6]["output"] = "nothing", "an answer"
    (where / "candidate.jsonl").write_text("".join(json.dumps(c) + "\n" for c in candidate))
    ids = []
    for cases in ("tally.cases.jsonl", "candidate.jsonl"):
        ran = verifier(
            "run", "tally.yaml", "--cases", cases, "--store", "pairs.db", "--format", "json",
            cwd=where,
        )  # fmt: skip
        assert ran.returncode == 1, ran.stderr
        ids.append(json.loads(ran.stdout)["run_id"])
    gated = verifier(
        "compare", *ids, "--store", "pairs.db", "--gate", "pairs.yaml", "--format", "json",
        cwd=where,
    )  # fmt: skip
    assert gated.returncode == 0, gated.stderr
    evidence = json.loads(gated.stdout)["gate"]["evidence"]
    assert evidence.startswith("in the 4 paired cases, passes 3 -> 3 (75.0% -> 75.0%)")
    assert (
        "the test pairs the 4 cases both runs gave a verdict on (2 skipped and 1 with an "
        "error in either run left out)"
    ) in evidence
    assert f"baseline pass rate 66.7% ({COUNTS})" in evidence
    assert "candidate pass rate 66.7% (4 passed of 6 checked; 1 skipped, 1 error)" in evidence

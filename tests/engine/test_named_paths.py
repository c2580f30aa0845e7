"""Every path a contract names that finds nothing in any case of the run is named once
after the run, with the closest path that exists; a claim that applied to no case says
so in the headline of every report."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests._cli import verifier

CASES = [
    {
        "id": f"c{n}",
        "input": "Acme renewed for 240 seats",
        "output": {"text": "Acme renewed.", "citations": ["Acme renewed", "Globex left"]},
        "secrets": {"token": "s3cr3t-value"},
        "answers": {"a": "Acme renewed.", "b": "Acme renewed!"},
    }
    for n in range(3)
]

CITED = """\
contract: cites
version: 1
claims:
  - id: cited
    rubric: citation
    when: output.citatons
    spans: output.citations.*
    within: input
  - id: short
    rubric: length
    field: output.text
    max_chars: 200
"""

WHEN_WARNING = (
    "claim cited applied to no case: its when: path output.citatons matched nothing "
    "(closest: output.citations)"
)


def write(tmp_path: Path, contract: str) -> tuple[Path, Path]:
    path = tmp_path / "contract.yaml"
    path.write_text(contract, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps(c) + "\n" for c in CASES), encoding="utf-8")
    return path, cases


def run_warnings(tmp_path: Path, contract: str, *, exit_code: int = 1) -> list[str]:
    path, cases = write(tmp_path, contract)
    out = tmp_path / "report.json"
    args = ("run", str(path), "--cases", str(cases), "--format", "json", "--out", str(out))
    result = verifier(*args, cwd=tmp_path)
    assert result.returncode == exit_code, result.stderr
    for warning in json.loads(out.read_text(encoding="utf-8")).get("warnings", []):
        assert f"warning: {warning}\n" in result.stderr  # the report went to a file
    warnings: list[str] = json.loads(out.read_text(encoding="utf-8")).get("warnings", [])
    return warnings


def words(text: str) -> str:
    """Text as one line of words: rich wraps long lines."""
    return " ".join(text.split())


def test_a_when_typo_is_named_with_the_closest_path_in_every_reports_headline(
    tmp_path: Path,
) -> None:
    path, cases = write(tmp_path, CITED)
    # The typo makes the claim check nothing: the ungrounded citation passes unseen.
    console = verifier("run", str(path), "--cases", str(cases), cwd=tmp_path)
    assert console.returncode == 0, console.stderr
    said = words(console.stdout)
    assert said.count(f"warning: {WHEN_WARNING}") == 1
    assert said.index(WHEN_WARNING) < said.index("Claims")  # under the verdict, first

    report = json.loads(
        verifier("run", str(path), "--cases", str(cases), "--format", "json", cwd=tmp_path).stdout
    )
    assert report["warnings"] == [WHEN_WARNING]
    assert report["assertion_breakdown"]["cited"]["skipped"] == 3

    markdown = verifier(
        "run", str(path), "--cases", str(cases), "--format", "markdown", cwd=tmp_path
    )
    assert markdown.stdout.index(f"> ⚠️ {WHEN_WARNING}") < markdown.stdout.index("| claim |")

    page = tmp_path / "run.html"
    shown = verifier("report", "--html", str(page), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    html = page.read_text(encoding="utf-8")
    banner = re.search(r'<ul id="run-warnings"[^>]*>(.*?)</ul>', html, re.S)
    assert banner is not None and WHEN_WARNING in banner.group(1)
    assert html.index('id="run-warnings"') < html.index('id="claim-table"')


def test_a_when_path_some_cases_have_is_no_warning(tmp_path: Path) -> None:
    contract = CITED.replace("output.citatons", "output.citations")
    assert run_warnings(tmp_path, contract) == []  # the claim applied: its spans fail


@pytest.mark.parametrize(
    ("item", "warning"),
    [
        (
            "{rubric: citation, spans: output.citations.*, within: inptu}",
            "claim grounded: its within: path inptu matched nothing in all 3 cases "
            "(closest: input)",
        ),
        (
            "{rubric: citation, spans: output.citatons.*, within: input}",
            "claim grounded: its spans: path output.citatons.* matched nothing in all 3 "
            "cases (closest: output.citations.*)",
        ),
    ],
)
def test_a_citation_path_inside_a_combinator_is_named(
    tmp_path: Path, item: str, warning: str
) -> None:
    contract = f"""\
contract: cites
version: 1
claims:
  - id: grounded
    rubric: all
    of:
      - {item}
"""
    assert run_warnings(tmp_path, contract) == [warning]


@pytest.mark.parametrize(
    ("block", "warning"),
    [
        (
            "record:\n  redact: [secrets.tokn]\n",
            # a typo here stores the field it was to keep out
            "record: its redact: path secrets.tokn matched nothing in all 3 cases "
            "(closest: secrets.token)",
        ),
        (
            "parse_json: [answrs]\n",
            "contract: its parse_json: path answrs matched nothing in all 3 cases "
            "(closest: answers)",
        ),
    ],
)
def test_a_contract_path_no_case_has_is_named(tmp_path: Path, block: str, warning: str) -> None:
    contract = CITED.replace("output.citatons", "output.citations")
    assert run_warnings(tmp_path, contract.replace("claims:", block + "claims:")) == [warning]


def test_a_comparisons_outputs_path_is_named(tmp_path: Path) -> None:
    claim = "{id: alike, compare: similarity, outputs: [answers.a, answers.bb]}"
    warnings = run_warnings(tmp_path, f"contract: same\nversion: 1\nclaims:\n  - {claim}\n")
    assert warnings == [
        "claim alike: its outputs: path answers.bb matched nothing in all 3 cases "
        "(closest: answers.b)"
    ]


def test_paths_whose_absence_is_the_point_are_not_named(tmp_path: Path) -> None:
    contract = """\
contract: absent
version: 1
claims:
  - id: no_error
    rubric: not
    of:
      - {rubric: present, field: output.error}
  - id: some_text
    rubric: any
    of:
      - {rubric: present, field: output.text}
      - {rubric: present, field: output.body}
"""
    assert run_warnings(tmp_path, contract, exit_code=0) == []


def test_a_systems_when_no_case_has_says_it_ran_on_no_case(tmp_path: Path) -> None:
    contract = """\
contract: echo
version: 1
sut:
  python: tests.sut.sut_functions:answer
  when: inptu
claims:
  - id: has_output
    rubric: present
    field: output
"""
    assert run_warnings(tmp_path, contract, exit_code=0) == [
        "the system under test ran on no case: its when: path inptu matched nothing "
        "(closest: input)"
    ]

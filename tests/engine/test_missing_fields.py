"""A claim's field path missing in every case is named once after the run, with the
closest path that does exist, in the console, JSON and Markdown reports."""

from __future__ import annotations

import json
from pathlib import Path

from tests._cli import verifier
from verifier.engine.missing_fields import MissingFields
from verifier.results import ClaimResult, ClaimTally

CONTRACT = """\
contract: totals
version: 1
claims:
  - id: total_ok
    rubric: range
    field: fields.totl
    min: 0
  - id: named
    rubric: regex
    field: feilds.name
    pattern: "^[a-z]+$"
  - id: sometimes
    rubric: range
    field: fields.extra
    min: 0
  - id: spans
    rubric: citation
    spans: field_meta.*.source_spam
    within: input
"""

WARNINGS = [
    "claim total_ok: field fields.totl is missing in all 200 cases (closest: fields.total)",
    "claim named: field feilds.name is missing in all 200 cases (closest: fields.name)",
    "claim spans: field field_meta.*.source_spam is missing in all 200 cases "
    "(closest: field_meta.*.source_span)",
]


def write_inputs(tmp_path: Path) -> tuple[Path, Path]:
    contract = tmp_path / "contract.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    lines = [
        json.dumps(
            {
                "id": f"c{n}",
                "input": "Acme renewed",
                "output": "x",
                "fields": {"total": n, "name": "abc", **({"extra": 1} if n % 2 else {})},
                "field_meta": {"total": {"source_span": "Acme"}},
            }
        )
        for n in range(200)
    ]
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return contract, cases


def run(tmp_path: Path, *args: str) -> tuple[str, str]:
    contract, cases = write_inputs(tmp_path)
    result = verifier("run", str(contract), "--cases", str(cases), *args, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    return result.stdout, result.stderr


def test_the_console_report_names_each_missing_path_once(tmp_path: Path) -> None:
    stdout, _ = run(tmp_path)
    # rich wraps long lines: the report is read as one line of words
    words = " ".join(stdout.split())
    for warning in WARNINGS:
        assert words.count(f"warning: {warning}") == 1
    assert "fields.extra is missing in all" not in words


def test_the_json_report_lists_the_warnings(tmp_path: Path) -> None:
    stdout, _ = run(tmp_path, "--format", "json")
    assert json.loads(stdout)["warnings"] == WARNINGS


def test_the_markdown_report_and_stderr_say_them(tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    _, stderr = run(tmp_path, "--format", "markdown", "--out", str(out))
    report = out.read_text(encoding="utf-8")
    for warning in WARNINGS:
        assert report.count(warning) == 1
        assert f"warning: {warning}\n" in stderr


def test_a_clean_run_has_no_warnings_key(tmp_path: Path) -> None:
    contract, cases = write_inputs(tmp_path)
    contract.write_text(CONTRACT.replace("totl", "total").split("  - id: named")[0])
    result = verifier("run", str(contract), "--cases", str(cases), "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "warnings" not in json.loads(result.stdout)


def test_a_path_found_nowhere_near_is_named_without_a_guess() -> None:
    missing = MissingFields()
    result = ClaimResult(
        "c", "rubric", "fail", 0.0, "missing", {"path": "zzz", "field_missing": True}
    )
    missing.add({"id": "a", "output": "x"}, [result])
    tally = ClaimTally()
    tally.add("fail")
    assert missing.warnings({"c": tally}) == ["claim c: field zzz is missing in the only case"]

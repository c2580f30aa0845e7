"""Each file a command reads, damaged, gives one line naming the file, never a traceback.

``tests/cli/test_input_files_fuzz.py`` feeds the readers thousands of damaged files in
process; these run the real command line over one damaged file of each kind, for the
exit code and the line the user sees.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests._cli import assert_no_traceback, verifier
from tests.conftest import EXAMPLES, FIXTURES
from verifier.gaps.sqlite.store import SqliteStore

DEEP = b"[" * 3000 + b"\n"
NOT_UTF8 = b'{"id": "caf\xe9"}\n'
EXTRACTION = EXAMPLES / "data-extraction.yaml"
EXTRACTION_CASES = EXAMPLES / "data-extraction.cases.jsonl"
RESEARCH = EXAMPLES / "account-research.yaml"
RESEARCH_CASES = EXAMPLES / "account-research.cases.jsonl"


def _store(folder: Path) -> str:
    path = folder / "gaps.db"
    with SqliteStore(path):
        pass  # an existing, empty store
    return str(path)


def _contract_with(folder: Path, block: str) -> str:
    path = folder / "c.yaml"
    path.write_text(f"contract: c\nversion: 1\nllm_fields: [output]\n{block}", encoding="utf-8")
    return str(path)


SCHEMA_CLAIM = "claims:\n  - id: shaped\n    rubric: json_schema\n    field: output\n"
JUDGE = "    provider: anthropic\n    model: claude-haiku-4-5-20251001\n"

# (name, damaged file's name, its bytes, argv given the file and folder, exit code,
#  the start of the one line on stderr or stdout, {file} standing for the file's path)
CASES = [
    (
        "labels",
        "labels.jsonl",
        b'{"case_id": "a", "claim_id": "k", "label": "pass"}\n[1]\n',
        lambda f, d: ["calibrate", "--labels", f, "--store", _store(d)],
        2,
        "error: {file}:2: a label must be a JSON object",
    ),
    (
        "recordings",
        "rec.jsonl",
        NOT_UTF8,
        lambda f, d: [
            "run",
            str(RESEARCH),
            "--cases",
            str(RESEARCH_CASES),
            "--judges",
            "replay",
            "--recordings",
            f,
            "--store",
            str(d / "g.db"),
        ],
        2,
        "error: {file}:1: not a recorded judge reply (invalid JSON: ",
    ),
    (
        "judges-config",
        "judges.yaml",
        b"judges:\n  strict: " + DEEP,
        lambda f, d: [
            "evaluate",
            str(FIXTURES / "evaluate" / "prd-example.json"),
            "--config",
            f,
            "--store",
            str(d / "g.db"),
        ],
        2,
        "error: {file}:2:74: document nests deeper than 64 levels",
    ),
    (
        "evaluate-input",
        "in.json",
        b'{"agent_input": "x",\n "agent_output": "y", "assertions": [\n',
        lambda f, d: ["evaluate", f, "--provider", "replay", "--model", "m"],
        2,
        "error: {file}: line 3: invalid JSON: ",
    ),
    (
        "export",
        "export.jsonl",
        b'{"schema": "verifier.gap-export.v1", "scope": "store"}\n\xff\n',
        lambda f, d: ["import", f, "--store", str(d / "g.db")],
        1,  # a refused export is an integrity problem (README: exit 1)
        "error: {file}:2: refused, nothing imported: not JSON",
    ),
    (
        "not an export",
        "contract.yaml",
        b"contract: x\nversion: 1\n",
        lambda f, d: ["import", f, "--store", str(d / "g.db")],
        2,  # no export at all: the wrong file, as for any bad argument
        "error: {file}:1: refused, nothing imported: not a verifier export: its first line "
        "is not JSON",
    ),
    (
        "empty export",
        "empty.jsonl",
        b"\n",
        lambda f, d: ["import", f, "--store", str(d / "g.db")],
        2,
        "error: {file}:1: refused, nothing imported: not a verifier export: the file is empty",
    ),
    (
        "promptfoo",
        "result.json",
        b"\xef\xbb\xbf[1, 2]",
        lambda f, d: ["import", "promptfoo", f, "--store", str(d / "g.db")],
        2,
        "error: {file}: refused, nothing imported: ",
    ),
    (
        "against",
        "main.json",
        b'{"run_id": "x", "contract": {"id": "c", "version": 1}, "cases": {}}',
        lambda f, d: [
            "run",
            str(EXTRACTION),
            "--cases",
            str(EXTRACTION_CASES),
            "--against",
            f,
            "--pr-comment",
            str(d / "c.md"),
            "--store",
            str(d / "g.db"),
        ],
        2,
        "error: {file}: not a JSON report of `verifier run --format json` (cases must be an array, "
        "not an object)",
    ),
    (
        "schema-file",
        "s.json",
        DEEP,
        lambda f, d: ["check", _contract_with(d, SCHEMA_CLAIM + "    schema_file: s.json\n")],
        2,
        "{folder}/c.yaml:5:5: claim 'shaped': schema_file 's.json' nests too deeply to read",
    ),
    (
        "judge-prompt",
        "p.md",
        b"\xff<!-- dynamic -->\n",
        lambda f, d: [
            "check",
            _contract_with(
                d,
                f"judges:\n  j:\n{JUDGE}    prompt: p.md\nclaims:\n"
                "  - id: tone\n    judge: j\n    instruction: Formal\n",
            ),
        ],
        2,
        "{folder}/c.yaml:8:13: judge 'j': cannot read prompt 'p.md': ",
    ),
    (
        "sut-template",
        "bot.md",
        b"Hi {{inp\nut}}\n",
        lambda f, d: [
            "check",
            _contract_with(
                d,
                f"sut:\n  prompt:\n{JUDGE.replace('    ', '      ')}      template_file: bot.md\n"
                "claims:\n  - id: short\n    rubric: length\n    field: output\n"
                "    max_chars: 10\n",
            ),
        ],
        2,
        "{folder}/c.yaml:8:22: sut prompt bot.md: unknown placeholder '{{inp\\nut}}'",
    ),
]


@pytest.mark.parametrize(
    ("name", "data", "argv", "code", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_a_damaged_file_is_one_line_naming_it(
    tmp_path: Path,
    name: str,
    data: bytes,
    argv: Callable[[str, Path], list[str]],
    code: int,
    expected: str,
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    result = verifier(*argv(str(path), tmp_path), cwd=tmp_path)
    assert_no_traceback(result)
    assert result.returncode == code, result.stdout + result.stderr
    shown = expected.replace("{file}", str(path)).replace("{folder}", str(tmp_path))
    lines = [line for line in (result.stdout + result.stderr).splitlines() if shown in line]
    assert len(lines) == 1 and lines[0].startswith(shown), result.stdout + result.stderr


def test_damaged_cases_lines_are_error_rows_naming_their_line(tmp_path: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    good = EXTRACTION_CASES.read_bytes().splitlines()[0]
    bom = b"\xef\xbb\xbf"  # taken at the file's start only
    cases.write_bytes(bom + good + b"\r\n" + NOT_UTF8 + b'{"id": [1]}\n' + bom + good + b"\n")
    result = verifier(
        "run", str(EXTRACTION), "--cases", str(cases), "--format", "json",
        "--store", str(tmp_path / "g.db"), cwd=tmp_path,
    )  # fmt: skip
    assert_no_traceback(result)
    assert result.returncode == 1
    report = json.loads(result.stdout)
    reasons = {case["id"]: case["results"][0]["reasoning"] for case in report["cases"]}
    assert reasons["line-2"] == "line 2: not valid UTF-8 at byte 11"
    assert reasons["line-3"] == 'line 3: case has no "id" (a non-empty string or integer)'
    assert reasons["line-4"].startswith("line 4: invalid JSON: UTF-8 byte order mark")
    assert set(reasons) == {json.loads(good)["id"], "line-2", "line-3", "line-4"}


def _present_output_run(tmp_path: Path, lines: str) -> dict[str, Any]:
    """The JSON report of a run of these case lines (exit 1: some are unusable) against
    one claim that `output` is present, stored in g.db."""
    contract = _contract_with(tmp_path, "claims:\n  - id: x\n    rubric: present\n"
                              "    field: output\n")  # fmt: skip
    cases = tmp_path / "cases.jsonl"
    cases.write_text(lines, encoding="utf-8")
    result = verifier(
        "run", contract, "--cases", str(cases), "--format", "json",
        "--store", str(tmp_path / "g.db"), cwd=tmp_path,
    )  # fmt: skip
    assert_no_traceback(result)
    assert result.returncode == 1, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_a_case_line_with_a_key_written_twice_is_an_error_row_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    report = _present_output_run(
        tmp_path,
        '{"id": "a", "output": "fine"}\n'
        '{"id": "b", "output": "fine", "output": ""}\n'
        '{"id": "c", "output": {"k": 1, "k": 2}}\n'
        '{"id": "d", "output": "a \\"quoted\\" \\u0022 word", "fields": {"k": 1}}\n'
        '{"id": "e", "id": "f", "output": "x"}\n',
    )
    by_line = {case["id"]: case for case in report["cases"]}
    assert by_line["a"]["pass"] and by_line["d"]["pass"]
    reasons = {case["results"][0]["reasoning"] for case in report["cases"] if not case["pass"]}
    assert reasons == {
        "line 2: key 'output' appears twice in one object",
        "line 3: key 'k' appears twice in one object",
        "line 5: key 'id' appears twice in one object",
    }
    assert report["total_cases"] == 5


def test_an_unusable_line_and_a_case_never_share_an_id(tmp_path: Path) -> None:
    report = _present_output_run(
        tmp_path,
        '{"id": "line-2", "output": "a real case"}\n'
        "not json\n"
        '{"id": "ok", "output": "fine"}\n'
        "[1]\n"
        '{"id": "line-4", "output": "a real case after the unusable line 4"}\n',
    )
    by_id = {case["id"]: case for case in report["cases"]}
    assert len(by_id) == 5
    assert by_id["line-2"]["pass"] and by_id["ok"]["pass"]
    assert by_id["line-2~2"]["results"][0]["reasoning"].startswith("line 2: invalid JSON")
    assert by_id["line-4"]["results"][0]["reasoning"].startswith("line 4: a case must be")
    assert by_id["line-4@line-5"]["results"][0]["reasoning"] == (
        "line 5: duplicate case id 'line-4' (an earlier line has it, or it names the error "
        "rows of an unusable one)"
    )
    shown = verifier("show", "last", "line-2", "--store", str(tmp_path / "g.db"), cwd=tmp_path)
    assert "a real case" in shown.stdout and "invalid JSON" not in shown.stdout, shown.stdout


def test_a_file_that_is_no_export_makes_no_store(tmp_path: Path) -> None:
    (tmp_path / "rows.jsonl").write_text('{"schema": "verifier.gap-row.v1"}\n')
    result = verifier("import", "rows.jsonl", "--store", "new.db", cwd=tmp_path)
    assert result.returncode == 2 and "it has no header line" in result.stderr
    assert not (tmp_path / "new.db").exists()


def test_check_counts_one_claim_in_the_singular(tmp_path: Path) -> None:
    (tmp_path / "one.yaml").write_text(
        "contract: one\nversion: 1\nclaims:\n  - {id: a, rubric: regex, field: output, pattern: x}\n"
    )
    assert "one.yaml: ok: one v1, 1 claim\n" in verifier("check", "one.yaml", cwd=tmp_path).stdout

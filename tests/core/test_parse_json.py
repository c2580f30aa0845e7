"""`parse_json`: fields holding JSON text are parsed once per case, before any claim
reads them; text that is not JSON is an error of the claims that read it, never a
traceback or a lost case; without it, a path into JSON text says how to fix it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests._cli import verifier
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from verifier.cases import parse_json_fields
from verifier.fieldpath import compile_path

KEY = "sk-ant-api03-parse-json-test-key-0123456789"

CONTRACT = """\
contract: totals
version: 1
{parse}
claims:
  - id: total_in_range
    rubric: range
    field: output.total
    min: 0
    max: 10
  - id: shaped
    rubric: json_schema
    field: output
    schema: {{type: object, required: [total]}}
  - id: after_total
    rubric: present
    field: input
    after: [total_in_range]
  - id: asked
    rubric: present
    field: input
"""

CASES = [
    {"id": "good", "input": "sum it", "output": json.dumps({"total": 3})},
    {"id": "broken", "input": "sum it", "output": '{"total": 3'},
    {"id": "parsed", "input": "sum it", "output": {"total": 30}},
    {"id": "big", "input": "sum it", "output": '{"total": 18446744073709551617}'},
]


def write(tmp_path: Path, parse: str, cases: list[dict[str, Any]] = CASES) -> None:
    (tmp_path / "c.yaml").write_text(CONTRACT.format(parse=parse), encoding="utf-8")
    (tmp_path / "cases.jsonl").write_text(
        "".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8"
    )


def run(tmp_path: Path, *extra: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    done = verifier(
        "run", "c.yaml", "--cases", "cases.jsonl", "--store", "g.db", "--format", "json",
        "--out", "r.json", *extra, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    return json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))


def results(report: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    return {c["id"]: {r["id"]: r for r in c["results"]} for c in report["cases"]}


def test_a_path_reads_into_a_parsed_json_text_field(tmp_path: Path) -> None:
    write(tmp_path, "parse_json: [output]")
    got = results(run(tmp_path))
    assert got["good"]["total_in_range"]["status"] == "pass"
    assert got["good"]["shaped"]["status"] == "pass"
    assert got["parsed"]["total_in_range"]["status"] == "fail"  # 30 > 10: already an object
    assert got["big"]["total_in_range"]["reasoning"].startswith(
        "output.total = 18446744073709551617"
    )


def test_text_that_is_not_json_is_an_error_of_the_claims_that_read_it(tmp_path: Path) -> None:
    write(tmp_path, "parse_json: [output]")
    got = results(run(tmp_path))["broken"]
    for claim in ("total_in_range", "shaped"):
        assert got[claim]["status"] == "error"
        assert got[claim]["reasoning"].startswith(
            "field output is not valid JSON text (parse_json): "
        ), got[claim]["reasoning"]
        assert "line 1 column" in got[claim]["reasoning"]
    assert got["after_total"]["status"] == "skipped"  # gated on an error
    assert got["asked"]["status"] == "pass"  # reads only input


def test_the_stored_content_holds_the_parsed_value(tmp_path: Path) -> None:
    write(tmp_path, "parse_json: [output]")
    report = run(tmp_path)
    shown = verifier(
        "show", report["run_id"], "good", "--store", "g.db", "--format", "json", cwd=tmp_path
    )
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["content"]["case"]["output"] == {"total": 3}


def test_a_recheck_of_parsed_cases_agrees_with_the_run(tmp_path: Path) -> None:
    write(tmp_path, "parse_json: [output]")
    run(tmp_path)
    done = verifier("audit", "--store", "g.db", "--recheck", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_without_parse_json_the_missing_reason_says_how_to_fix_it(tmp_path: Path) -> None:
    write(tmp_path, "")
    got = results(run(tmp_path))
    reason = got["good"]["total_in_range"]["reasoning"]
    assert reason == (
        "field output.total is missing (output is JSON text; add parse_json: [output])"
    )
    assert got["parsed"]["total_in_range"]["status"] == "fail"
    assert "parse_json" not in got["parsed"]["total_in_range"]["reasoning"]


def test_the_hint_names_the_step_that_holds_the_text_under_a_wildcard() -> None:
    from verifier.fieldpath import json_text_on

    case = {"items": [{"meta": "plain"}, {"meta": ' {"a": 1}'}]}
    assert json_text_on(compile_path("items.*.meta.a"), case) == "items.*.meta"
    assert json_text_on(compile_path("items.*.meta"), case) is None
    assert json_text_on(compile_path("items.0.meta.a"), case) is None


def test_the_parse_step_copies_and_follows_wildcards_and_nested_text() -> None:
    case = {"id": "x", "output": '{"inner": "[1, 2]"}', "items": [{"p": "[1]"}, {"p": "no"}]}
    paths = [compile_path(p) for p in ("output", "output.inner", "items.*.p", "absent.x")]
    parsed, failures = parse_json_fields(case, paths)
    assert parsed["output"] == {"inner": [1, 2]}
    assert parsed["items"] == [{"p": [1]}, {"p": "no"}]
    assert list(failures) == ["items.1.p"]
    again, more = parse_json_fields(parsed, paths)
    assert again == parsed and list(more) == ["items.1.p"]  # idempotent, as a recheck needs
    assert case["output"] == '{"inner": "[1, 2]"}'  # the given case is not changed


def test_json_text_of_a_string_is_refused_so_a_parsed_case_parses_the_same() -> None:
    parsed, failures = parse_json_fields({"output": '"yes"'}, [compile_path("output")])
    assert parsed == {"output": '"yes"'}
    assert failures == {"output": "it holds a JSON string, not a JSON value to read into"}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "parse_json: output",
            "c.yaml:3:13: parse_json: parse_json is a list of field paths: write [output]",
        ),
        ("parse_json: {output: true}", "c.yaml:3:13: parse_json: should be a list"),
        ("parse_json: [5]", "c.yaml:3:14: parse_json.0: should be text (a string) (got 5)"),
        ("parse_json: ['a..b']", "c.yaml:3:14: parse_json.0: invalid field path 'a..b'"),
    ],
)
def test_check_locates_a_parse_json_of_the_wrong_shape(
    tmp_path: Path, line: str, expected: str
) -> None:
    write(tmp_path, line)
    done = verifier("check", "c.yaml", cwd=tmp_path)
    assert done.returncode == 2
    found = [x for x in done.stdout.splitlines() if x.startswith("c.yaml:")]
    assert len(found) == 1 and found[0].startswith(expected), found


JUDGED = """\
contract: judged
version: 1
parse_json: [output]
judges:
  strict:
    provider: anthropic
    model: claude-haiku-4-5-20251001
    sampling: {max_tokens: 512}
claims:
  - id: sound
    judge: strict
    instruction: The answer is sound
"""


def test_a_judge_sees_the_parsed_value_and_is_not_asked_about_broken_text(
    tmp_path: Path,
) -> None:
    (tmp_path / "c.yaml").write_text(JUDGED, encoding="utf-8")
    cases = [
        {"id": "good", "input": "q", "output": '{"answer":"yes"}'},
        {"id": "broken", "input": "q", "output": '{"answer": '},
    ]
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    with MessagesServer(default=brain) as server:
        env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
        got = results(run(tmp_path, "--judges", "live", env=env))
        calls = server.model_calls()
    assert got["good"]["sound"]["status"] == "pass"
    assert got["broken"]["sound"]["status"] == "error"
    assert "field output is not valid JSON text" in got["broken"]["sound"]["reasoning"]
    assert len(calls) == 1
    content = calls[0].body["messages"][0]["content"]
    text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
    # The judge got the value, laid out as JSON, rather than the logged one-line text.
    assert '{\n  "answer": "yes"\n}' in text and '{"answer":"yes"}' not in text

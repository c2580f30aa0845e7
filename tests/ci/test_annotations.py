"""GitHub annotations: the workflow-command protocol, aggregation per claim, the cap."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests._cli import verifier
from tests.conftest import EXAMPLES
from tests.report.conftest import case, claim, summary
from verifier.ci.annotations import (
    AnnotationWriter,
    ClaimPosition,
    escape_data,
    escape_property,
    workflow_command,
)
from verifier.results import ClaimResult

CONTRACT = EXAMPLES / "data-extraction.yaml"
CASES = EXAMPLES / "data-extraction.cases.jsonl"

_UNESCAPE_PROPERTY = {"%25": "%", "%0D": "\r", "%0A": "\n", "%3A": ":", "%2C": ","}
_UNESCAPE_DATA = {"%25": "%", "%0D": "\r", "%0A": "\n"}


def _unescape(text: str, table: dict[str, str]) -> str:
    pattern = "|".join(map(re.escape, table))
    return re.sub(pattern, lambda m: table[m.group(0)], text)


def parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """Parses a workflow command as the Actions runner does (``::cmd k=v,k=v::message``)."""
    assert line.startswith("::")
    head, sep, message = line[2:].partition("::")
    assert sep, line
    name, _, props_text = head.partition(" ")
    props = {}
    for pair in filter(None, props_text.split(",")):
        key, eq, value = pair.partition("=")
        assert eq, pair
        props[key] = _unescape(value, _UNESCAPE_PROPERTY)
    return name, props, _unescape(message, _UNESCAPE_DATA)


def test_escaping_follows_the_runner_rules() -> None:
    assert escape_data("100%\r\nok: a,b") == "100%25%0D%0Aok: a,b"
    assert escape_property("a:b,c%3A\n") == "a%3Ab%2Cc%253A%0A"


@given(
    title=st.text(max_size=40),
    file=st.text(max_size=40),
    message=st.text(max_size=80),
)
def test_any_text_survives_the_command_line(title: str, file: str, message: str) -> None:
    line = workflow_command("error", message, file=file, line=3, title=title)
    assert "\n" not in line and "\r" not in line
    name, props, parsed = parse_command(line)
    assert (name, parsed) == ("error", message)
    assert props == {"file": file, "line": "3", "title": title}


POSITIONS = {
    "cites": ClaimPosition("evals/c.yaml", 7, 5),
    "short": ClaimPosition("evals/c.yaml", 12, 5),
    "judged": ClaimPosition("evals/c.yaml", 20, 5),
}


def _annotate(cases: list, **kwargs: object) -> list[tuple[str, dict[str, str], str]]:
    out = io.StringIO()
    writer = AnnotationWriter(out, POSITIONS, cases_file="evals/cases.jsonl", **kwargs)  # type: ignore[arg-type]
    for c in cases:
        writer.add_case(c)
    writer.finish(summary(cases))
    return [parse_command(line) for line in out.getvalue().splitlines()]


def test_one_annotation_per_failing_claim_with_count_and_first_cases() -> None:
    cases = [
        case(
            f"case-{i}",
            claim("cites", "fail", f"span {i} not found"),
            claim("short", "pass"),
            claim("judged", "pass"),
        )
        for i in range(5)
    ] + [case("ok", claim("cites"), claim("short"), claim("judged"))]

    [(name, props, message)] = _annotate(cases)

    assert name == "error"
    assert props == {
        "file": "evals/c.yaml",
        "line": "7",
        "col": "5",
        "title": "verifier: cites failed for 5 of 6 cases",
    }
    assert message.splitlines() == [
        "claim cites failed for 5 cases:",
        "- case-0: span 0 not found",
        "- case-1: span 1 not found",
        "- case-2: span 2 not found",
        "- …and 2 more",
    ]


def test_error_rows_are_warnings_and_most_failing_claims_come_first() -> None:
    cases = [
        case(
            "a", claim("cites", "fail"), claim("short", "fail"), claim("judged", "error", "timeout")
        ),
        case("b", claim("cites", "pass"), claim("short", "fail"), claim("judged", "pass")),
    ]

    commands = _annotate(cases)

    assert [(name, props["line"]) for name, props, _ in commands] == [
        ("error", "12"),  # short failed twice
        ("error", "7"),
        ("warning", "20"),
    ]
    assert commands[2][1]["title"] == "verifier: judged could not be checked for 1 of 2 cases"
    assert commands[2][2].splitlines()[1] == "- a: timeout"


def test_annotations_are_capped_and_the_rest_counted_in_a_notice() -> None:
    cases = [case("a", claim("cites", "fail"), claim("short", "fail"), claim("judged", "fail"))]

    commands = _annotate(cases, max_per_level=2)

    assert [name for name, _, _ in commands] == ["error", "error", "notice"]
    assert commands[2][2].startswith("1 more claims failed (not annotated)")


def test_unusable_case_line_is_annotated_on_the_cases_file_not_on_every_claim() -> None:
    reason = "line 4: invalid JSON: unexpected end of data"
    results = tuple(ClaimResult(c, "rubric", "error", None, reason, {"line": 4}) for c in POSITIONS)
    cases = [case("line-4", *results, line=4)]

    [(name, props, message)] = _annotate(cases)

    assert (name, props["file"], props["line"], message) == (
        "warning",
        "evals/cases.jsonl",
        "4",
        reason,
    )


def test_passing_run_prints_no_annotation() -> None:
    assert _annotate([case("a", claim("cites"), claim("short"), claim("judged"))]) == []


def test_run_annotates_on_stderr_relative_to_the_workspace_and_keeps_json_stdout(
    tmp_path: Path,
) -> None:
    result = verifier(
        "run",
        str(CONTRACT),
        "--cases",
        str(CASES),
        "--format",
        "json",
        cwd=tmp_path,
        env={"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(EXAMPLES.parent.parent)},
    )

    assert result.returncode == 1
    assert json.loads(result.stdout)["failed_cases"] == 5
    commands = [parse_command(line) for line in result.stderr.splitlines() if line.startswith("::")]
    by_title = {props.get("title", ""): (name, props) for name, props, _ in commands}
    name, props = by_title["verifier: spans_grounded failed for 2 of 7 cases"]
    assert (name, props["file"], props["line"], props["col"]) == (
        "error",
        "contracts/examples/data-extraction.yaml",
        "11",
        "5",
    )
    name, props = by_title["verifier: unusable case line"]
    assert (props["file"], props["line"]) == ("contracts/examples/data-extraction.cases.jsonl", "7")


def test_annotations_none_overrides_github_actions(tmp_path: Path) -> None:
    result = verifier(
        "run",
        str(CONTRACT),
        "--cases",
        str(CASES),
        "--annotations",
        "none",
        cwd=tmp_path,
        env={"GITHUB_ACTIONS": "true"},
    )
    assert result.returncode == 1
    assert "::error" not in result.stderr + result.stdout


def test_annotations_github_without_github_actions(tmp_path: Path) -> None:
    result = verifier(
        "run", str(CONTRACT), "--cases", str(CASES), "--annotations", "github", cwd=tmp_path
    )
    assert result.returncode == 1
    assert result.stderr.count("::error file=") == 9
    assert "::error" not in result.stdout


def test_check_annotates_each_problem_at_its_line_and_column(tmp_path: Path) -> None:
    contract = tmp_path / "contract.yaml"
    contract.write_text(CONTRACT.read_text().replace("rubric: enum", "rubric: enumm"))

    result = verifier("check", "contract.yaml", cwd=tmp_path, env={"GITHUB_ACTIONS": "true"})

    assert result.returncode == 2
    commands = [parse_command(line) for line in result.stderr.splitlines() if line.startswith("::")]
    problems = [(name, props["file"], props["line"], props["col"]) for name, props, _ in commands]
    assert ("error", "contract.yaml", "30", "13") in problems
    assert all(line.split(":")[0] == "contract.yaml" for line in result.stdout.splitlines())
    assert (
        "unknown predicate 'enumm'" in commands[0][2]
        or "unknown predicate 'enumm'" in commands[1][2]
    )


def test_unusable_lines_never_take_warnings_past_the_cap() -> None:
    # Two claims could not be checked (two warnings of a cap of two) and one line was
    # unusable: it is counted in a notice, not shown as a third warning.
    reason = "line 4: invalid JSON: unexpected end of data"
    unusable = tuple(
        ClaimResult(c, "rubric", "error", None, reason, {"line": 4}) for c in POSITIONS
    )
    cases = [
        case("a", claim("cites", "error", "timeout"), claim("short", "error", "timeout"),
             claim("judged", "pass")),
        case("line-4", *unusable, line=4),
    ]  # fmt: skip

    commands = _annotate(cases, max_per_level=2)

    assert sorted(name for name, _, _ in commands) == ["notice", "warning", "warning"]
    assert [m for name, _, m in commands if name == "notice"] == ["1 more unusable case lines"]

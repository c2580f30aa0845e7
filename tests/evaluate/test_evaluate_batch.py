"""`verifier evaluate`: the threshold, and batches (a JSON array or JSONL) with the PRD's
batch report, against the local Messages API."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests._cli import cli
from tests.evaluate.test_evaluate import (
    HERE,
    JUDGE,
    PRD_EXAMPLE,
    PRD_FOUR,
    assert_prd_shape,
    casual,
    evaluated,
    verifier,
)
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from verifier.evaluate import EvaluateError
from verifier.evaluate.batch import parse_evaluations

FOUR_IDS = ["cite_sources", "acknowledge_gaps", "formal_tone", "length_constraint"]


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    with MessagesServer(default=brain) as running:
        yield running


def with_threshold(tmp_path: Path, source: Path, threshold: Any) -> Path:
    path = tmp_path / f"threshold-{source.name}"
    document = json.loads(source.read_text("utf-8"))
    path.write_text(json.dumps({**document, "threshold": threshold}), "utf-8")
    return path


def test_the_threshold_decides_pass_and_the_exit_code(tmp_path: Path) -> None:
    with MessagesServer(default=casual) as server:
        strict = verifier(tmp_path, str(PRD_FOUR), *JUDGE, server=server)
        lenient = verifier(tmp_path, str(PRD_FOUR), *JUDGE, "--threshold", "0.75", server=server)
        in_file = verifier(
            tmp_path, str(with_threshold(tmp_path, PRD_FOUR, 0.7)), *JUDGE, server=server
        )
        overridden = verifier(
            tmp_path,
            str(with_threshold(tmp_path, PRD_FOUR, 0.7)),
            *JUDGE,
            "--threshold",
            "0.8",
            server=server,
        )
    expected = {
        id(strict): (1.0, False, 1),
        id(lenient): (0.75, True, 0),
        id(in_file): (0.7, True, 0),
        id(overridden): (0.8, False, 1),
    }
    for result in (strict, lenient, in_file, overridden):
        report = evaluated(result)
        assert_prd_shape(report, FOUR_IDS)
        assert report["score"] == 0.75
        assert (report["threshold"], report["pass"], result.code) == expected[id(result)]
    assert "(score 0.75, threshold 0.75)" in lenient.stderr


def test_an_error_fails_whatever_the_threshold(tmp_path: Path) -> None:
    result = verifier(tmp_path, str(PRD_EXAMPLE), *JUDGE, "--judges", "replay", "--threshold", "0")
    report = evaluated(result)
    assert (report["score"], report["threshold"], report["pass"], result.code) == (0, 0, False, 1)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (80, "threshold: threshold is on a 0-1 scale; 80 is above 1 — did you mean 0.8?"),
        (-0.5, "threshold: input should be greater than or equal to 0 (got -0.5)"),
        (True, "threshold: must be a number from 0 to 1, not a boolean"),
        ("0.5", "threshold: must be a number from 0 to 1, not a string"),
    ],
)
def test_a_threshold_outside_0_1_in_the_file_is_one_line_exit_2(
    tmp_path: Path, value: Any, message: str
) -> None:
    path = with_threshold(tmp_path, PRD_EXAMPLE, value)
    result = verifier(tmp_path, str(path), *JUDGE, key=False)
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [f"error: {path}: {message}"]


@pytest.mark.parametrize("value", ["1.5", "-0.1", "nan"])
def test_a_threshold_option_outside_0_1_is_refused(tmp_path: Path, value: str) -> None:
    result = verifier(tmp_path, str(PRD_EXAMPLE), *JUDGE, "--threshold", value, key=False)
    assert result.code == 2 and "Invalid value for '--threshold'" in result.stderr
    assert "Traceback" not in result.stderr


def jsonl_batch(tmp_path: Path) -> Path:
    """A passing evaluation, a failing one, a line that is not JSON and one that is
    not an evaluation, with a blank line between."""
    good = json.loads(PRD_EXAMPLE.read_text("utf-8"))
    guessing = json.loads((HERE / "guessing.json").read_text("utf-8"))
    lines = [
        json.dumps(good),
        json.dumps(guessing),
        '{"agent_input": "a", "agent_output": ',
        "",
        json.dumps({**good, "assertions": [{"id": "cite_sources"}]}),
    ]
    path = tmp_path / "suite.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def test_a_jsonl_batch_gives_the_prd_batch_shape(tmp_path: Path, server: MessagesServer) -> None:
    path = jsonl_batch(tmp_path)
    result = verifier(
        tmp_path,
        str(path),
        *JUDGE,
        "--format",
        "batch",
        "--agent-id",
        "account-research",
        "--test-suite",
        "account_research_v1",
        server=server,
    )
    assert result.code == 1, result.stderr
    report = json.loads(result.stdout)
    assert list(report) == ["agent_id", "test_suite", "results", "cases"]
    assert (report["agent_id"], report["test_suite"]) == ("account-research", "account_research_v1")
    assert report["results"] == {
        "total_cases": 4,
        "passed_cases": 1,
        "failed_cases": 3,
        "average_score": 0.25,
        "assertion_breakdown": {
            "cite_sources": {"passed": 1, "failed": 0, "errors": 0, "average_score": 1.0},
            "acknowledge_gaps": {"passed": 1, "failed": 1, "errors": 0, "average_score": 0.5},
        },
    }
    cases = report["cases"]
    assert [c["item"] for c in cases] == [f"{path}:{n}" for n in (1, 2, 3, 5)]
    assert [c["pass"] for c in cases] == [True, False, False, False]
    assert cases[0]["score"] == 1.0 and cases[1]["score"] == 0.0
    assert cases[2]["problems"] == [f"{path}:3: invalid JSON: unexpected end of data (column 38)"]
    assert cases[3]["problems"] == [f"{path}:5: assertions[0]: missing 'instruction'"]
    # Each item read is its own run; the bad lines are errors on stderr, located.
    db = sqlite3.connect(tmp_path / "gaps.db")
    runs = {row[0] for row in db.execute("SELECT run_id FROM rows")}
    db.close()
    assert runs == {cases[0]["run_id"], cases[1]["run_id"]} and len(runs) == 2
    assert f"error: {path}:3: invalid JSON" in result.stderr
    assert f"error: {path}:5: assertions[0]: missing 'instruction'" in result.stderr
    assert "1/4 evaluations passed" in result.stderr
    audit = cli("audit", "--store", str(tmp_path / "gaps.db"))
    assert audit.exit_code == 0, audit.output


def test_a_json_array_batch_lists_each_evaluation(tmp_path: Path, server: MessagesServer) -> None:
    good = json.loads(PRD_EXAMPLE.read_text("utf-8"))
    path = tmp_path / "pair.json"
    path.write_text(json.dumps([good, {**good, "threshold": 2}], indent=2), "utf-8")
    result = verifier(tmp_path, str(path), *JUDGE, server=server)
    assert result.code == 1
    first, second = json.loads(result.stdout)
    assert first["item"] == f"{path}[0]"
    assert_prd_shape(
        {k: v for k, v in first.items() if k != "item"}, ["cite_sources", "acknowledge_gaps"]
    )
    assert second == {
        "item": f"{path}[1]",
        "pass": False,
        "problems": [f"{path}[1]: threshold: threshold is on a 0-1 scale; 2 is above 1"],
    }


def test_the_batch_report_of_one_evaluation_names_the_suite_after_the_file(
    tmp_path: Path, server: MessagesServer
) -> None:
    result = verifier(tmp_path, str(PRD_EXAMPLE), *JUDGE, "--format", "batch", server=server)
    assert result.code == 0
    report = json.loads(result.stdout)
    assert (report["agent_id"], report["test_suite"]) == (None, "prd-example")
    assert report["results"]["total_cases"] == report["results"]["passed_cases"] == 1


def test_a_batch_from_stdin_with_the_threshold_for_every_item(tmp_path: Path) -> None:
    four = json.loads(PRD_FOUR.read_text("utf-8"))
    text = json.dumps(four) + "\n" + json.dumps({**four, "threshold": 1.0}) + "\n"
    with MessagesServer(default=casual) as server:
        result = verifier(
            tmp_path,
            "-",
            *JUDGE,
            "--format",
            "batch",
            "--threshold",
            "0.75",
            server=server,
            stdin=text,
        )
    assert result.code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["test_suite"] == "stdin"
    assert [(c["item"], c["pass"], c["threshold"]) for c in report["cases"]] == [
        ("stdin:1", True, 0.75),
        ("stdin:2", True, 0.75),
    ]
    assert report["results"]["assertion_breakdown"]["formal_tone"]["average_score"] == 0.0


@pytest.mark.parametrize(
    ("raw", "jsonl", "message"),
    [
        (b"[]", False, "x: an empty array; expected evaluations"),
        (b'{\n  "agent_input": "a",\n', False, "x: line 3: invalid JSON: "),
        (b"\n\n", True, "x: empty input; expected a JSON object"),
    ],
)
def test_a_batch_unusable_as_a_whole_is_one_error(raw: bytes, jsonl: bool, message: str) -> None:
    with pytest.raises(EvaluateError) as caught:
        parse_evaluations(raw, "x", jsonl=jsonl)
    assert caught.value.problems[0].startswith(message)


def test_a_jsonl_file_whose_first_line_is_bad_keeps_the_rest() -> None:
    good = PRD_EXAMPLE.read_text("utf-8").replace("\n", " ")
    items = parse_evaluations(("{oops\n" + good + "\n").encode(), "x.jsonl", jsonl=True)
    assert isinstance(items, list)
    assert [(i.where, i.request is None) for i in items] == [
        ("x.jsonl:1", True),
        ("x.jsonl:2", False),
    ]

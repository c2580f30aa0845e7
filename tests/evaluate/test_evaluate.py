"""`verifier evaluate`: the PRD's single evaluation, end to end against a local Messages API."""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests._cli import cli, verifier_process
from tests.conftest import FIXTURES
from tests.judge import behaviours as b
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from verifier.evaluate import EvaluateError, parse_evaluation

HERE = FIXTURES / "evaluate"
PRD_EXAMPLE = HERE / "prd-example.json"
PRD_FOUR = HERE / "prd-four.json"
MODEL = "claude-haiku-4-5-20251001"
JUDGE = ("--provider", "anthropic", "--model", MODEL)
KEY = "sk-ant-api03-evaluate-test-key-0123456789"
OUTPUT_KEYS = ["score", "pass", "threshold", "passed", "failed", "errors", "total", "results"]
"""The single evaluation's output, in order: the PRD's, ``threshold`` and ``errors``."""


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    with MessagesServer(default=brain) as running:
        yield running


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: str
    stderr: str


def verifier(
    tmp_path: Path,
    *args: str,
    server: MessagesServer | None = None,
    stdin: str | None = None,
    key: bool = True,
    process: bool = False,
) -> Outcome:
    """Runs `verifier evaluate` in-process, or as a real process with ``process=True``.

    Most tests run in-process: importing the judge SDK takes seconds, once per process.
    """
    argv = ["evaluate", *args, "--store", str(tmp_path / "gaps.db")]
    cleared = ("ANTHROPIC_", "CI", "VERIFIER_")
    env: dict[str, str] = {}
    if key:
        env["ANTHROPIC_API_KEY"] = KEY
    if server is not None:
        env["ANTHROPIC_BASE_URL"] = server.base_url
    if process:
        done = verifier_process(
            *argv, cwd=tmp_path, env=env, clear_prefixes=cleared, input=stdin, timeout=120
        )
        assert "Traceback" not in done.stderr
        return Outcome(done.returncode, done.stdout, done.stderr)
    removed = dict.fromkeys(k for k in os.environ if k.startswith(cleared))
    result = cli(*argv, env={**removed, **env}, input=stdin)
    return Outcome(result.exit_code, result.stdout, result.stderr)


def evaluated(result: Outcome) -> dict[str, Any]:
    assert "Traceback" not in result.stderr
    assert result.code in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def assert_prd_shape(report: dict[str, Any], ids: list[str]) -> None:
    assert list(report) == OUTPUT_KEYS
    assert report["pass"] is (report["score"] >= report["threshold"] and not report["errors"])
    assert report["total"] == len(ids) == report["passed"] + report["failed"] + report["errors"]
    assert [r["id"] for r in report["results"]] == ids
    for result in report["results"]:
        assert set(result) == {"id", "pass", "reasoning", "status", "judge"}
        assert isinstance(result["pass"], bool) and result["pass"] == (result["status"] == "pass")
        assert isinstance(result["reasoning"], str) and result["reasoning"]
        assert set(result["judge"]) == {"model_id", "prompt_sha", "sampling_sha"}
        assert (
            len(result["judge"]["prompt_sha"]) == 64 and len(result["judge"]["sampling_sha"]) == 64
        )


def user_text(call: Any) -> str:
    content = call.body["messages"][0]["content"]
    return (
        content if isinstance(content, str) else "".join(part.get("text", "") for part in content)
    )


@pytest.mark.e2e
def test_prd_example_file_gives_the_prd_shape_with_the_triple(
    tmp_path: Path, server: MessagesServer
) -> None:
    result = verifier(tmp_path, str(PRD_EXAMPLE), *JUDGE, server=server, process=True)
    report = evaluated(result)
    assert result.code == 0
    assert_prd_shape(report, ["cite_sources", "acknowledge_gaps"])
    assert report["score"] == 1.0 and report["passed"] == 2 and report["errors"] == 0
    assert all(r["judge"]["model_id"] == MODEL for r in report["results"])
    assert "2/2 assertions passed" in result.stderr


@pytest.mark.e2e
def test_prd_example_from_stdin(tmp_path: Path, server: MessagesServer) -> None:
    result = verifier(
        tmp_path,
        "-",
        *JUDGE,
        server=server,
        stdin=PRD_EXAMPLE.read_text(encoding="utf-8"),
        process=True,
    )
    report = evaluated(result)
    assert result.code == 0
    assert_prd_shape(report, ["cite_sources", "acknowledge_gaps"])


def test_one_call_judges_every_assertion(tmp_path: Path, server: MessagesServer) -> None:
    evaluated(verifier(tmp_path, str(PRD_FOUR), *JUDGE, server=server))
    calls = server.model_calls()
    assert len(calls) == 1
    text = user_text(calls[0])
    for claim_id in ("cite_sources", "acknowledge_gaps", "formal_tone", "length_constraint"):
        assert f'"id": "{claim_id}"' in text
    assert "Acme had a pretty solid quarter" in text and "Summarise Acme Corp" in text


def casual(request: dict[str, Any]) -> b.Behaviour:
    """The rule of ``brain``, except that formal_tone always fails."""
    results = [
        {**r, "pass": False, "reasoning": "Casual language ('pretty solid quarter')."}
        if r["id"] == "formal_tone"
        else r
        for r in (brain(request).tool_input or {})["results"]
    ]
    return b.tool_use({"results": results})


def test_a_failing_assertion_scores_like_the_prd_and_exits_1(tmp_path: Path) -> None:
    with MessagesServer(default=casual) as server:
        result = verifier(tmp_path, str(PRD_FOUR), *JUDGE, server=server)
    report = evaluated(result)
    assert result.code == 1
    assert_prd_shape(
        report, ["cite_sources", "acknowledge_gaps", "formal_tone", "length_constraint"]
    )
    assert (report["score"], report["passed"], report["failed"], report["errors"]) == (
        0.75,
        3,
        1,
        0,
    )
    tone = report["results"][2]
    assert (
        tone["pass"] is False and tone["status"] == "fail" and "pretty solid" in tone["reasoning"]
    )


def test_guessing_output_fails_its_assertion(tmp_path: Path, server: MessagesServer) -> None:
    result = verifier(tmp_path, str(HERE / "guessing.json"), *JUDGE, server=server)
    report = evaluated(result)
    assert result.code == 1
    assert report["results"][0]["status"] == "fail" and report["score"] == 0.0


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("truncated.json", "truncated.json: line 5: invalid JSON: "),
        (
            "missing-instruction.json",
            "missing-instruction.json: assertions[1]: missing 'instruction'",
        ),
        (
            "duplicate-ids.json",
            "duplicate-ids.json: assertions: duplicate id 'cite_sources' (assertions[0] and assertions[1])",
        ),
        ("bad-id.json", "bad-id.json: assertions[0].id: 'cite sources!' is not a valid id"),
        ("no-assertions.json", "no-assertions.json: assertions: must have at least 1 item"),
        ("not-utf8.json", "not-utf8.json: not UTF-8 text (byte 0)"),
        ("missing.json", "missing.json: cannot read: "),
    ],
)
def test_malformed_input_is_one_line_error_exit_2(tmp_path: Path, name: str, message: str) -> None:
    result = (
        verifier(tmp_path, name, *JUDGE, key=False)
        if name == "missing.json"
        else verifier(tmp_path, str(HERE / "malformed" / name), *JUDGE, key=False)
    )
    assert result.code == 2
    assert result.stdout == "" and "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert message in lines[0]
    assert not (tmp_path / "gaps.db").exists()


def test_unknown_key_names_the_key_and_suggests_the_right_one(tmp_path: Path) -> None:
    result = verifier(tmp_path, str(HERE / "malformed" / "unknown-key.json"), *JUDGE)
    assert result.code == 2 and "Traceback" not in result.stderr
    assert "unknown key 'agent_ouput' (did you mean 'agent_output'?)" in result.stderr
    assert all(line.startswith("error: ") for line in result.stderr.splitlines())


@pytest.mark.parametrize(
    ("raw", "problems"),
    [
        (b"null", ["in.json: an evaluation must be a JSON object, not null"]),
        (b'"text"', ["in.json: an evaluation must be a JSON object, not a string"]),
        (b"1.5", ["in.json: an evaluation must be a JSON object, not a number"]),
        (
            b'{"agent_input": 1, "agent_output": 2, "id": "x",'
            b' "assertions": [{"id": "a", "instruction": "i", "criterion": ["c"]}]}',
            [
                "in.json: assertions[0]: unknown key 'criterion' (did you mean 'criteria'?)",
                "in.json: unknown key 'id'",
            ],
        ),
    ],
)
def test_wrong_shapes_are_named_in_json_words_and_keys_at_their_level(
    raw: bytes, problems: list[str]
) -> None:
    with pytest.raises(EvaluateError) as raised:
        parse_evaluation(raw, "in.json")
    assert raised.value.problems == problems


@pytest.mark.e2e
def test_invalid_json_on_stdin_names_stdin_and_line(tmp_path: Path) -> None:
    result = verifier(
        tmp_path, "-", *JUDGE, stdin='{"agent_input": "a",\n  "agent_output": }', process=True
    )
    assert result.code == 2
    assert result.stderr.startswith("error: stdin: line 2: invalid JSON: ")
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "name a judge: --provider and --model, or --config FILE"),
        (("--provider", "anthropic"), "name a judge"),
        (("--judge", "strict"), "--judge picks a judge of --config FILE"),
        (("--config", str(HERE / "judges.yaml"), "--model", MODEL), "--config names the judge"),
        (
            ("--config", str(HERE / "judges.yaml")),
            "declares judges per_claim, strict; pick one with --judge",
        ),
        (
            ("--config", str(HERE / "judges.yaml"), "--judge", "lenient"),
            "no judge 'lenient' (judges: per_claim, strict)",
        ),
        (
            ("--provider", "anthropic", "--model", "claude-haiku-4-5"),
            "pin the snapshot 'claude-haiku-4-5-20251001'",
        ),
    ],
)
def test_judge_usage_errors_exit_2(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    result = verifier(tmp_path, str(PRD_EXAMPLE), *args)
    assert result.code == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr and message in result.stderr


def test_config_judge_is_used_and_groups_by_case(tmp_path: Path, server: MessagesServer) -> None:
    config = ("--config", str(HERE / "judges.yaml"), "--judge", "strict")
    report = evaluated(verifier(tmp_path, str(PRD_FOUR), *config, server=server))
    assert report["passed"] == 4
    calls = server.model_calls()
    assert len(calls) == 1 and calls[0].body["max_tokens"] == 512
    cli = evaluated(verifier(tmp_path, str(PRD_FOUR), *JUDGE, server=server))
    # Different sampling, different triple.
    assert (
        cli["results"][0]["judge"]["sampling_sha"] != report["results"][0]["judge"]["sampling_sha"]
    )


def test_config_judge_keeps_an_explicit_group_claim(tmp_path: Path, server: MessagesServer) -> None:
    config = ("--config", str(HERE / "judges.yaml"), "--judge", "per_claim")
    evaluated(verifier(tmp_path, str(PRD_FOUR), *config, server=server))
    assert len(server.model_calls()) == 4


def test_invalid_config_reports_every_problem_with_position(tmp_path: Path) -> None:
    result = verifier(tmp_path, str(PRD_EXAMPLE), "--config", str(HERE / "judges-bad.yaml"))
    assert result.code == 2 and "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert any(
        ":4:12: judge 'strict': model 'claude-3-5-haiku-latest' is a moving alias" in line
        for line in lines
    )
    assert any(
        ":5:33: judge 'strict': sampling: unknown key 'temprature'" in line for line in lines
    )


@pytest.mark.e2e
def test_config_nested_thousands_deep_is_one_line_error(tmp_path: Path) -> None:
    config = tmp_path / "deep.yaml"
    config.write_bytes(b"judges: " + b"[" * 3000 + b"\n")
    result = verifier(tmp_path, str(PRD_EXAMPLE), "--config", str(config), process=True)
    assert result.code == 2
    assert result.stderr == f"error: {config}:1:73: document nests deeper than 64 levels\n"


def test_replay_without_recordings_gives_error_results_and_exit_1(tmp_path: Path) -> None:
    result = verifier(tmp_path, str(PRD_EXAMPLE), *JUDGE, "--judges", "replay")
    report = evaluated(result)
    assert result.code == 1
    assert_prd_shape(report, ["cite_sources", "acknowledge_gaps"])
    assert (report["score"], report["passed"], report["failed"], report["errors"]) == (0.0, 0, 0, 2)
    for entry in report["results"]:
        assert entry["status"] == "error" and entry["pass"] is False
        assert "replay" in entry["reasoning"] and entry["id"] in entry["reasoning"]
        assert entry["judge"]["model_id"] == ""


def test_recorded_verdicts_replay_without_a_key_or_a_call(
    tmp_path: Path, server: MessagesServer
) -> None:
    recordings = tmp_path / "verdicts.jsonl"
    first = evaluated(
        verifier(
            tmp_path,
            str(PRD_EXAMPLE),
            *JUDGE,
            "--judges",
            "record",
            "--recordings",
            str(recordings),
            server=server,
        )
    )
    (tmp_path / "gaps.db").unlink()
    result = verifier(
        tmp_path, str(PRD_EXAMPLE), *JUDGE, "--recordings", str(recordings), key=False
    )
    again = evaluated(result)
    assert result.code == 0 and "replay" in result.stderr
    assert len(server.model_calls()) == 1
    assert [r["judge"] for r in again["results"]] == [r["judge"] for r in first["results"]]


def test_the_keyless_note_says_what_calls_the_judge_and_following_it_does(
    tmp_path: Path, server: MessagesServer
) -> None:
    keyless = verifier(tmp_path, str(PRD_EXAMPLE), *JUDGE, key=False)
    assert keyless.code == 1
    assert keyless.stderr.splitlines()[0] == (
        "note: ANTHROPIC_API_KEY is not set, so judges replay recorded verdicts (set it to "
        "call the judge: evaluations are then live; --recordings FILE replays the verdicts "
        "saved by --judges record --recordings FILE)"
    )
    # Done as it says: the key set and nothing else, the judge is called.
    live = verifier(tmp_path, str(PRD_EXAMPLE), *JUDGE, server=server)
    assert evaluated(live)["errors"] == 0 and len(server.model_calls()) == 1
    assert "note:" not in live.stderr


def test_gap_rows_are_stored_and_pass_audit(tmp_path: Path, server: MessagesServer) -> None:
    evaluated(verifier(tmp_path, str(PRD_FOUR), *JUDGE, server=server))
    db = sqlite3.connect(tmp_path / "gaps.db")
    bodies = [json.loads(row[0]) for row in db.execute("SELECT body FROM rows")]
    db.close()
    assert [(r["case_id"], r["claim_id"], r["kind"]) for r in bodies] == [
        ("evaluation", claim_id, "judge")
        for claim_id in ("cite_sources", "acknowledge_gaps", "formal_tone", "length_constraint")
    ]
    assert all(r["evidence"]["judge"]["model_id"] == MODEL for r in bodies)
    audit = cli("audit", "--store", str(tmp_path / "gaps.db"))
    assert audit.exit_code == 0, audit.output

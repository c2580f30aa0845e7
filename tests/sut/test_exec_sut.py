"""A command as the system under test, run for real as a subprocess per case."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.sut._support import SCRIPT, results, run_report, stored_rows, write_cases
from verifier.contract.sut_models import SutSpec
from verifier.sut import masked_description
from verifier.sut._types import SecretMask

CONTRACT = """\
contract: exec-sut
version: 1
llm_fields: [output]
sut:
  exec:
    command: [PYTHON, SCRIPT]
    env: {GREETING: "hello from the contract", SUT_TOKEN: "${SUT_TEST_TOKEN}"}
  timeout: 2
claims:
  - id: cites
    rubric: regex
    field: output
    pattern: '\\[source: [A-Za-z]+\\]'
  - id: short
    rubric: length
    field: output
    max_words: 40
"""
SECRET = "sk-live-very-secret-token-987654"
GREETS = "  - {id: greets, rubric: contains, field: output, values: [hello from the contract]}"


def contract(tmp_path: Path, text: str = CONTRACT) -> Path:
    path = tmp_path / "exec.yaml"
    path.write_text(
        text.replace("PYTHON", sys.executable).replace("SCRIPT", str(SCRIPT)), encoding="utf-8"
    )
    return path


@pytest.mark.e2e
def test_exec_outputs_are_checked_and_failures_become_error_rows_for_their_case_only(
    tmp_path: Path,
) -> None:
    cases = write_cases(
        tmp_path / "cases.jsonl",
        {"id": "ok", "input": "What is the refund window?"},
        {"id": "crash", "input": "crash"},
        {"id": "hang", "input": "sleep"},
        {"id": "no-input", "question": "where is my input"},
        {"id": "ok-2", "input": "How do I reset my password?"},
    )
    result, report = run_report(tmp_path, contract(tmp_path), cases, env={"SUT_TEST_TOKEN": SECRET})
    assert result.returncode == 1
    by_case = results(report)
    assert by_case["ok"]["cites"]["status"] == "pass"
    assert by_case["ok-2"]["short"]["status"] == "pass"
    crash = by_case["crash"]["cites"]
    assert crash["status"] == "error"
    assert (
        "exited 3" in crash["reasoning"] and "something broke inside the bot" in crash["reasoning"]
    )
    assert "timed out after 2 s" in by_case["hang"]["short"]["reasoning"]
    assert "case has no 'input'" in by_case["no-input"]["cites"]["reasoning"]
    rows = {(r["case_id"], r["claim_id"]): r for r in stored_rows(tmp_path / "gaps.db")}
    sut = rows[("ok", "cites")]["evidence"]["sut"]
    assert sut["kind"] == "exec" and sut["command"] == [sys.executable, str(SCRIPT)]
    assert sut["calls"][0]["exit_code"] == 0
    assert rows[("crash", "cites")]["evidence"]["sut"]["calls"][0]["exit_code"] == 3
    assert rows[("hang", "cites")]["evidence"]["sut"]["calls"][0]["timed_out"] is True
    # The JSON report shows the same provenance as the stored rows.
    assert by_case["ok"]["cites"]["evidence"]["sut"] == sut


@pytest.mark.e2e
def test_exec_environment_reaches_the_command_but_secrets_never_reach_rows(tmp_path: Path) -> None:
    cases = write_cases(
        tmp_path / "cases.jsonl",
        {"id": "env", "input": "env"},
        {"id": "leak", "input": "leak"},
    )
    result, report = run_report(
        tmp_path,
        contract(tmp_path, CONTRACT.replace("claims:", "claims:\n" + GREETS)),
        cases,
        env={"SUT_TEST_TOKEN": SECRET},
    )
    by_case = results(report)
    assert by_case["env"]["greets"]["status"] == "pass"
    leak = by_case["leak"]["cites"]
    assert leak["status"] == "error" and "auth failed with token ***" in leak["reasoning"]
    stored = (tmp_path / "gaps.db").read_bytes() + (tmp_path / "report.json").read_bytes()
    wal = tmp_path / "gaps.db-wal"
    if wal.exists():
        stored += wal.read_bytes()
    assert SECRET.encode() not in stored
    assert SECRET not in result.stderr
    env_names = stored_rows(tmp_path / "gaps.db")[0]["evidence"]["sut"]["env"]
    assert env_names == ["GREETING", "SUT_TOKEN"]


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("pass_env", "unset"),
    [
        (None, set()),  # the default: the whole environment, provider keys included
        ("[PATH, VISIBLE]", {"key"}),
        ("[]", {"key", "visible"}),
    ],
)
def test_pass_env_keeps_provider_keys_from_the_command(
    tmp_path: Path, pass_env: str | None, unset: set[str]
) -> None:
    text = CONTRACT.replace("  timeout: 2", "  timeout: 20")
    if pass_env is not None:
        text = text.replace("    env: {", f"    pass_env: {pass_env}\n    env: {{")
    # The script says "set" or "unset"; an anchored literal would be equality in disguise.
    said = "  - {id: unset, rubric: contains, field: output, values: [unset]}"
    text = text.replace("claims:", "claims:\n" + said)
    cases = write_cases(
        tmp_path / "cases.jsonl",
        {"id": "key", "input": "has:ANTHROPIC_API_KEY"},
        {"id": "visible", "input": "has:VISIBLE"},
        {"id": "added", "input": "has:GREETING"},  # `env` is added whatever pass_env says
    )
    _, report = run_report(
        tmp_path, contract(tmp_path, text), cases, env={"SUT_TEST_TOKEN": SECRET, "VISIBLE": "1"}
    )
    status = {case: claims["unset"]["status"] for case, claims in results(report).items()}
    assert status == {c: "pass" if c in unset else "fail" for c in ("key", "visible", "added")}
    sut = stored_rows(tmp_path / "gaps.db")[0]["evidence"]["sut"]
    assert sut.get("pass_env") == (None if pass_env is None else sorted(yaml_list(pass_env)))


def yaml_list(text: str) -> list[str]:
    return [name.strip() for name in text.strip("[]").split(",") if name.strip()]


@pytest.mark.e2e
def test_no_process_a_command_started_outlives_its_call_even_one_that_left_its_group(
    tmp_path: Path,
) -> None:
    pidfiles = {name: tmp_path / f"{name}.pid" for name in ("escape", "escape-hang", "daemon")}
    cases = write_cases(
        tmp_path / "cases.jsonl",
        *({"id": name, "input": f"{name}:{pidfile}"} for name, pidfile in pidfiles.items()),
    )
    said = "  - {id: said, rubric: regex, field: output, pattern: '^(escaped|daemonized)$'}"
    text = CONTRACT.replace("claims:", "claims:\n" + said)
    try:
        started = time.monotonic()
        _, report = run_report(
            tmp_path, contract(tmp_path, text), cases, env={"SUT_TEST_TOKEN": "x"}
        )
        took = time.monotonic() - started
        status = {case: claims["said"]["status"] for case, claims in results(report).items()}
        # A leftover holding the command's stdout no longer holds its call to the timeout.
        assert status == {"escape": "pass", "escape-hang": "error", "daemon": "pass"}
        # Held by the leftover, the run would last its 300 s; the bound leaves room for a
        # busy machine.
        assert took < 60
        pids = {name: int(path.read_text()) for name, path in pidfiles.items()}
        assert {name: alive(pid) for name, pid in pids.items()} == dict.fromkeys(pids, False)
    finally:
        for path in pidfiles.values():
            if path.exists() and alive(int(path.read_text())):
                os.kill(int(path.read_text()), signal.SIGKILL)


@pytest.mark.e2e
def test_an_interrupted_run_leaves_no_process_of_its_command_behind(tmp_path: Path) -> None:
    pidfile = tmp_path / "left.pid"
    cases = write_cases(tmp_path / "cases.jsonl", {"id": "a", "input": f"escape-hang:{pidfile}"})
    path = contract(tmp_path, CONTRACT.replace("  timeout: 2", "  timeout: 60"))
    env = {**os.environ, "SUT_TEST_TOKEN": "x"}
    args = ["run", str(path), "--cases", str(cases), "--store", str(tmp_path / "gaps.db")]
    run = subprocess.Popen(
        [sys.executable, "-m", "verifier", *args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60  # a busy machine starts Python slowly
        while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = int(pidfile.read_text())
        assert alive(left, wait=0)
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=60)
        assert "Traceback" not in err
        assert not alive(left)
    finally:
        run.kill()
        run.wait()
        if pidfile.exists() and pidfile.read_text() and alive(int(pidfile.read_text()), wait=0):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)


def alive(pid: int, wait: float = 2) -> bool:
    """Whether ``pid`` still runs after ``wait`` seconds (a zombie counts as gone)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            return False
        if state == "Z":
            return False
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.05)


@pytest.mark.e2e
def test_json_output_is_parsed_and_unparsable_output_is_an_error_for_that_case(
    tmp_path: Path,
) -> None:
    text = CONTRACT.replace("  timeout: 2\n", "  timeout: 5\n  format: json\n").split("claims:")[0]
    text += (
        "claims:\n"
        "  - {id: answered, rubric: regex, field: output.answer, pattern: 'REFUND'}\n"
        "  - {id: counted, rubric: range, field: output.words, min: 1, max: 5}\n"
    )
    cases = write_cases(
        tmp_path / "cases.jsonl",
        {"id": "obj", "input": {"question": "refund?"}},
        {"id": "bad", "input": "bad-json"},
    )
    _, report = run_report(tmp_path, contract(tmp_path, text), cases, env={"SUT_TEST_TOKEN": "x"})
    by_case = results(report)
    assert by_case["obj"]["answered"]["status"] == "pass"
    assert by_case["obj"]["counted"]["status"] == "pass"
    assert by_case["bad"]["answered"]["status"] == "error"
    assert "output is not JSON" in by_case["bad"]["answered"]["reasoning"]


@pytest.mark.e2e
def test_an_empty_output_in_json_format_is_named_as_empty(tmp_path: Path) -> None:
    text = CONTRACT.replace("  timeout: 2\n", "  timeout: 5\n  format: json\n")
    cases = write_cases(tmp_path / "cases.jsonl", {"id": "silent", "input": "silent"})
    _, report = run_report(tmp_path, contract(tmp_path, text), cases, env={"SUT_TEST_TOKEN": "x"})
    row = results(report)["silent"]["cites"]
    assert row["status"] == "error" and "failed: printed nothing, not JSON" in row["reasoning"]


NEGATIVE_CLAIMS = """\
contract: quiet
version: 1
claims:
  - {id: no_apology, rubric: not_contains, field: output, values: [sorry]}
  - {id: short, rubric: length, field: output, max_chars: 200}
"""


@pytest.mark.e2e
def test_a_command_that_prints_nothing_is_an_error_not_a_pass_of_negative_claims(
    tmp_path: Path,
) -> None:
    path = tmp_path / "quiet.yaml"
    path.write_text(NEGATIVE_CLAIMS, encoding="utf-8")
    cases = write_cases(
        tmp_path / "cases.jsonl",
        {"id": "silent", "input": "silent"},
        {"id": "blank", "input": "blank"},
        {"id": "spoke", "input": "hi"},
    )
    command = f"exec:{sys.executable} {SCRIPT}"
    result, report = run_report(tmp_path, path, cases, "--sut", command)
    assert result.returncode == 1
    by_case = results(report)
    for case, what in (("silent", "printed nothing"), ("blank", "printed only whitespace")):
        for claim in ("no_apology", "short"):
            row = by_case[case][claim]
            assert row["status"] == "error", row
            assert f"failed: {what} (set `allow_empty: true`" in row["reasoning"]
    assert by_case["spoke"]["no_apology"]["status"] == "pass"


@pytest.mark.e2e
def test_allow_empty_lets_an_empty_output_be_checked_like_any_other(tmp_path: Path) -> None:
    path = tmp_path / "quiet.yaml"
    path.write_text(NEGATIVE_CLAIMS, encoding="utf-8")
    cases = write_cases(tmp_path / "cases.jsonl", {"id": "silent", "input": "silent"})
    command = f"{{exec: {{command: [{sys.executable}, {SCRIPT}]}}, allow_empty: true}}"
    result, report = run_report(tmp_path, path, cases, "--sut", command)
    assert result.returncode == 0, report
    assert results(report)["silent"]["short"]["status"] == "pass"


@pytest.mark.e2e
def test_sut_option_runs_a_command_for_a_contract_without_sut(tmp_path: Path) -> None:
    path = tmp_path / "plain.yaml"
    path.write_text(
        "contract: plain\nversion: 1\nclaims:\n"
        "  - {id: cites, rubric: regex, field: output, pattern: 'source: Handbook'}\n",
        encoding="utf-8",
    )
    cases = write_cases(tmp_path / "cases.jsonl", {"id": "a", "input": "hi", "output": "stale"})
    result, report = run_report(tmp_path, path, cases, "--sut", f"exec:{sys.executable} {SCRIPT}")
    assert result.returncode == 0
    assert results(report)["a"]["cites"]["status"] == "pass"


# Each process marks its arrival, then waits for four marks: it answers "together" only
# if all four processes ran at once, and "alone" after waiting 20 s in vain.
MEETING = """\
import os, sys, time
from pathlib import Path

here = Path(sys.argv[1])
(here / str(os.getpid())).touch()
deadline = time.monotonic() + 20
while len(list(here.iterdir())) < 4 and time.monotonic() < deadline:
    time.sleep(0.01)
print("together" if len(list(here.iterdir())) >= 4 else "alone", sys.stdin.read())
"""


@pytest.mark.e2e
def test_calls_overlap_within_the_concurrency_limit(tmp_path: Path) -> None:
    meeting = tmp_path / "meet.py"
    meeting.write_text(MEETING, encoding="utf-8")
    arrivals = tmp_path / "arrivals"
    arrivals.mkdir()
    path = tmp_path / "plain.yaml"
    path.write_text(
        "contract: plain\nversion: 1\nclaims:\n"
        "  - {id: said, rubric: regex, field: output, pattern: '^together x'}\n",
        encoding="utf-8",
    )
    cases = write_cases(tmp_path / "cases.jsonl", *({"id": str(i), "input": "x"} for i in range(4)))
    command = f"exec:{sys.executable} {meeting} {arrivals}"
    result, report = run_report(tmp_path, path, cases, "--sut", command, "--concurrency", "4")
    assert result.returncode == 0 and report["passed_cases"] == 4, report
    assert len(list(arrivals.iterdir())) == 4


@pytest.mark.e2e
def test_a_command_flooding_stdout_is_stopped_and_an_error_for_its_case(tmp_path: Path) -> None:
    cases = write_cases(
        tmp_path / "cases.jsonl",
        {"id": "flood", "input": "flood"},
        {"id": "ok", "input": "What is the refund window?"},
    )
    result, report = run_report(tmp_path, contract(tmp_path), cases, env={"SUT_TEST_TOKEN": SECRET})
    assert result.returncode == 1, result.stderr
    by_case = results(report)
    flood = by_case["flood"]["cites"]
    assert flood["status"] == "error"
    assert "wrote more than 16777216 bytes on stdout (killed)" in flood["reasoning"]
    assert by_case["ok"]["cites"]["status"] == "pass"


def _secret_on_the_command_line(tmp_path: Path) -> tuple[str, str, dict[str, Any]]:
    """Runs a failing command given ``--token SECRET``; returns the secret, the
    process's output and the report."""
    secret = "sk-abcdef123456"
    plain = (
        "contract: p\nversion: 1\nclaims:\n  - {id: x, rubric: regex, field: output, pattern: x}\n"
    )
    path = tmp_path / "plain.yaml"
    path.write_text(plain, encoding="utf-8")
    cases = write_cases(tmp_path / "cases.jsonl", {"id": "crash", "input": "crash"})
    command = f"exec:{sys.executable} {SCRIPT} --token {secret}"
    result, report = run_report(
        tmp_path, path, cases, "--sut", command, env={"MY_API_TOKEN": secret}
    )
    return secret, result.stdout + result.stderr, report


@pytest.mark.e2e
def test_a_secret_on_the_command_line_never_reaches_rows_reports_or_messages(
    tmp_path: Path,
) -> None:
    """The shell expands ``--token $MY_API_TOKEN`` before verifier sees it: the value is
    in the command, hence in the failure reason and the provenance, unless masked."""
    secret, output, report = _secret_on_the_command_line(tmp_path)
    crash = results(report)["crash"]["x"]
    assert crash["status"] == "error" and "--token ***" in crash["reasoning"]
    assert crash["evidence"]["sut"]["command"][-2:] == ["--token", "***"]
    rows = stored_rows(tmp_path / "gaps.db")
    assert rows and secret not in json.dumps(rows)
    assert secret not in (tmp_path / "report.json").read_text(encoding="utf-8")
    assert secret not in output


@pytest.mark.e2e
def test_a_secret_on_the_command_line_never_reaches_the_store(tmp_path: Path) -> None:
    secret, _, _ = _secret_on_the_command_line(tmp_path)
    stored = (tmp_path / "gaps.db").read_bytes()
    wal = tmp_path / "gaps.db-wal"
    if wal.exists():
        stored += wal.read_bytes()
    assert secret.encode() not in stored


@pytest.mark.parametrize(
    ("name", "masked"),
    [
        ("MY_API_TOKEN", True),
        ("DB_PASS", True),
        ("MYSQL_PWD", True),
        ("SENTRY_DSN", True),
        ("SESSION_COOKIE", True),
        ("FLASK_SESSION", True),
        ("GOOGLE_APPLICATION_CREDENTIALS", True),
        ("PWD", False),
        ("OLDPWD", False),
        ("XDG_SESSION_ID", False),
        ("HOME", False),
    ],
)
def test_variables_named_like_secrets_are_masked(name: str, masked: bool) -> None:
    mask = SecretMask({name: "value-0123456789"})
    assert (mask("got value-0123456789") == "got ***") is masked


def test_short_values_are_not_masked() -> None:
    """Masking every 'abc' in a message would garble it; real secrets are longer."""
    assert SecretMask({"DB_PASS": "abc12"})("abc12 and abc123") == "abc12 and abc123"
    assert SecretMask({"DB_PASS": "abc123"})("abc12 and abc123") == "abc12 and ***"


def test_the_recorded_description_of_a_system_is_masked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MY_API_TOKEN", "sk-abcdef123456")
    spec = SutSpec.model_validate({"exec": {"command": "bot --token sk-abcdef123456"}})
    assert "sk-abcdef123456" in spec.describe()
    assert masked_description(spec) == "exec:bot --token ***"
    assert masked_description(SutSpec.model_validate({"python": "m:f"})) == "python:m:f"


@pytest.mark.e2e
def test_a_failing_command_quoting_a_redacted_input_leaves_no_trace_of_it(
    tmp_path: Path,
) -> None:
    text = CONTRACT.replace("claims:", "record:\n  redact: [input]\nclaims:")
    private = "complain: the account of Ann Smith, 7731-QX"
    cases = write_cases(tmp_path / "cases.jsonl", {"id": "p", "input": private})
    result, report = run_report(
        tmp_path, contract(tmp_path, text), cases, env={"SUT_TEST_TOKEN": SECRET}
    )
    reason = results(report)["p"]["cites"]["reasoning"]
    assert "exited 2" in reason and "cannot answer '[redacted]'" in reason
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("gaps.db*"))
    for data in (stored, json.dumps(report).encode(), result.stderr.encode()):
        assert b"Ann Smith" not in data and b"7731-QX" not in data

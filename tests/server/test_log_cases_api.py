"""`POST /v1/runs` with log lines as cases: the contract's mapping reads them, and
derives the id of a line that has none as the command-line reader does."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests._cli import run_written
from tests.server._support import poll_run, running
from verifier._internal.case_mapping import derived_id
from verifier.server import ServerSettings

CONTRACT = """\
contract: posted-log
version: 1
llm_fields: [output]
cases:
  map: {id: id, output: response.choices.-1.text}
  time: ts
  since: '2026-11-16'
claims:
  - {id: short, rubric: length, field: output, max_words: 3}
"""


def line(case_id: str, ts: str, text: str) -> dict[str, object]:
    return {"id": case_id, "ts": ts, "response": {"choices": [{"text": "draft"}, {"text": text}]}}


def test_log_lines_posted_as_cases_are_read_through_the_contracts_mapping(
    tmp_path: Path,
) -> None:
    posted = [
        line("old", "2026-11-01T00:00:00Z", "a line before the cutoff"),
        line("kept", "2026-11-20T00:00:00Z", "Short answer."),
        line("long", "2026-11-21T00:00:00Z", "An answer of more than three words."),
        {"id": "cut", "ts": "2026-11-22T00:00:00Z", "response": {}},
    ]
    settings = ServerSettings(port=0, store=str(tmp_path / "gaps.db"), contracts_dir=None)
    with running(settings) as url, httpx.Client(base_url=url, timeout=60) as client:
        accepted = client.post("/v1/runs", json={"contract": CONTRACT, "cases": posted}).json()
        report = poll_run(client, accepted["run_id"])["report"]
    by_id = {case["id"]: case for case in report["cases"]}
    assert {k: c["pass"] for k, c in by_id.items()} == {"kept": True, "long": False, "cut": False}
    [result] = by_id["cut"]["results"]
    assert result["reasoning"] == (
        "case 4: map.output: path response.choices.-1.text matched nothing in the log line"
    )


NO_ID = """\
contract: posted-log-no-id
version: 1
llm_fields: [output]
cases:
  map: {input: request.prompt, output: response.text}
claims:
  - {id: short, rubric: length, field: output, max_words: 3}
"""


def _log(prompt: str, text: str) -> dict[str, object]:
    return {"request": {"prompt": prompt}, "response": {"text": text}}


def test_log_lines_without_an_id_get_one_derived_from_their_input_as_the_cli_reader_does(
    tmp_path: Path,
) -> None:
    posted = [_log("What is 2+2?", "Four."), _log("Name a colour.", "Blue, I think, maybe.")]
    # The same input again, answered otherwise: a case of its own, numbered after it.
    posted.append(_log("What is 2+2?", "4"))
    settings = ServerSettings(port=0, store=str(tmp_path / "gaps.db"), contracts_dir=None)
    with running(settings) as url, httpx.Client(base_url=url, timeout=60) as client:
        first = client.post("/v1/runs", json={"contract": NO_ID, "cases": posted})
        assert first.status_code == 202, first.text
        report = poll_run(client, first.json()["run_id"])["report"]
        again = client.post("/v1/runs", json={"contract": NO_ID, "cases": posted[:1]}).json()
        again_report = poll_run(client, again["run_id"])["report"]
    two = derived_id({"input": "What is 2+2?"})
    colour = derived_id({"input": "Name a colour."})
    assert two.startswith("log-") and len(two) == len("log-") + 16
    by_id = {case["id"]: case["pass"] for case in report["cases"]}
    assert by_id == {two: True, colour: False, f"{two}~2": True}
    # Posted again, the same line gets the same id.
    assert [case["id"] for case in again_report["cases"]] == [two]
    # The command-line reader gives the same ids to the same lines in a file.
    result, cli = run_written(tmp_path, NO_ID, posted, store="cli.db")
    assert result.returncode == 1, result.stderr
    assert [case["id"] for case in cli["cases"]] == [case["id"] for case in report["cases"]]


def test_a_contract_reading_no_log_still_refuses_a_case_without_an_id(tmp_path: Path) -> None:
    contract = NO_ID.replace("cases:\n  map: {input: request.prompt, output: response.text}\n", "")
    settings = ServerSettings(port=0, store=str(tmp_path / "gaps.db"), contracts_dir=None)
    with running(settings) as url, httpx.Client(base_url=url, timeout=60) as client:
        response = client.post("/v1/runs", json={"contract": contract, "cases": [{"output": "x"}]})
    assert response.status_code == 422
    [problem] = response.json()["detail"]
    assert problem["loc"] == ["body", "cases", 0]
    assert 'cases[0] has no "id"' in problem["msg"]

"""Contract and file names no file system can look up (a component over 255 bytes) are
the usual 422 of POST /v1/runs, never a 500; a contract whose long name leaves no room
for its recordings' name still runs."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.server._support import MODEL, poll_run, running
from verifier.server import ServerSettings

RUBRIC = "contract: c\nversion: 1\nclaims: [{id: a, rubric: present, field: output}]\n"
LONG = "x" * 300


@pytest.mark.parametrize(
    ("contract", "message"),
    [
        (f"{LONG}.yaml", f"{LONG}.yaml: no such contract in the contracts directory"),
        (f"sub/{LONG}/c.yaml", f"sub/{LONG}/c.yaml: no such contract"),
        (
            RUBRIC.replace(
                "present, field: output", f"json_schema, field: output, schema_file: {LONG}"
            ),
            f"inline.yaml:3:10: claim 'a': schema_file '{LONG}' does not exist",
        ),
        (
            f"contract: c\nversion: 1\njudges: {{j: {{provider: anthropic, model: {MODEL}, "
            f"prompt: {LONG}}}}}\nclaims: [{{id: a, judge: j, instruction: Be short}}]\n",
            f"inline.yaml:3:77: judge 'j': prompt file '{LONG}' does not exist",
        ),
    ],
)
def test_a_name_too_long_for_the_file_system_is_422(
    tmp_path: Path, judge_env: None, contract: str, message: str
) -> None:
    settings = ServerSettings(port=0, store=str(tmp_path / "gaps.db"), contracts_dir=tmp_path)
    with running(settings) as url:
        response = httpx.post(f"{url}/v1/runs", json={"contract": contract, "cases": [{"id": 1}]})
    assert response.status_code == 422, response.text
    diagnostics = response.json()["diagnostics"]
    assert any(d.startswith(message) for d in diagnostics), diagnostics


def test_a_contract_whose_name_leaves_no_room_for_its_recordings_runs(
    tmp_path: Path, judge_env: None
) -> None:
    name = "c" * 250 + ".yaml"  # a valid name; beside it, "<stem>.recordings.jsonl" is not
    (tmp_path / name).write_text(RUBRIC, encoding="utf-8")
    settings = ServerSettings(port=0, store=str(tmp_path / "gaps.db"), contracts_dir=tmp_path)
    with running(settings) as url, httpx.Client(base_url=url) as client:
        started = client.post(
            "/v1/runs", json={"contract": name, "cases": [{"id": 1, "output": "x"}]}
        )
        assert started.status_code == 202, started.text
        state = poll_run(client, started.json()["run_id"])
    assert state["status"] == "finished" and state["report"]["passed_cases"] == 1

"""`POST /v1/runs` with log lines as cases: the contract's mapping reads them."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.server._support import poll_run, running
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

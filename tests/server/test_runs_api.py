"""`POST /v1/runs` and `GET /v1/runs/{id}` over real HTTP."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import EXAMPLES, FIXTURES
from tests.judge.messages_server import Gate, MessagesServer
from tests.server._support import MODEL, poll_run, running
from verifier.server import ServerSettings

BRIEFS = FIXTURES / "judge_run" / "briefs.yaml"
BRIEF_CASES = [
    json.loads(line)
    for line in (FIXTURES / "judge_run" / "briefs.cases.jsonl").read_text("utf-8").splitlines()
    if line.strip()
]
RUBRIC_ONLY = """\
contract: short-answers
version: 3
llm_fields: [output]
claims:
  - id: cites_sources
    rubric: regex
    field: output
    pattern: '\\[source: [A-Za-z ]+\\]'
  - id: short
    rubric: length
    field: output
    max_words: 12
"""


@pytest.fixture
def contracts(tmp_path: Path) -> Path:
    folder = tmp_path / "contracts"
    folder.mkdir()
    shutil.copy(BRIEFS, folder / "briefs.yaml")
    for name in ("account-research.yaml", "account-research.recordings.jsonl"):
        shutil.copy(EXAMPLES / name, folder / name)
    return folder


def settings(tmp_path: Path, contracts: Path | None, **overrides: Any) -> ServerSettings:
    values: dict[str, Any] = {
        "port": 0,
        "store": str(tmp_path / "gaps.db"),
        "contracts_dir": contracts,
    }
    return ServerSettings(**(values | overrides))


def assert_report_shape(report: dict[str, Any], contract_id: str, cases: int) -> None:
    assert set(report) >= {
        "run_id",
        "contract",
        "total_cases",
        "passed_cases",
        "failed_cases",
        "average_score",
        "assertion_breakdown",
        "head",
        "cases",
    }
    assert report["contract"]["id"] == contract_id and len(report["contract"]["sha256"]) == 64
    assert report["total_cases"] == cases == len(report["cases"])
    assert report["passed_cases"] + report["failed_cases"] == cases
    for case in report["cases"]:
        # As `verifier run --format json` writes it: a case that did not pass carries
        # its content as the store keeps it.
        assert "content" not in case or not case["pass"]
        assert set(case) - {"content"} == {
            "id",
            "pass",
            "score",
            "passed",
            "failed",
            "errors",
            "total",
            "results",
        }
        for result in case["results"]:
            assert set(result) == {"id", "status", "pass", "score", "reasoning", "evidence"}


def test_run_lifecycle_202_then_report_with_judge_triples(
    tmp_path: Path, contracts: Path, messages: MessagesServer
) -> None:
    with (
        running(settings(tmp_path, contracts)) as url,
        httpx.Client(base_url=url, timeout=60) as client,
    ):
        response = client.post("/v1/runs", json={"contract": "briefs.yaml", "cases": BRIEF_CASES})
        assert response.status_code == 202, response.text
        accepted = response.json()
        assert accepted["status"] == "running" and set(accepted) == {"run_id", "status"}
        state = poll_run(client, accepted["run_id"])
    assert state["status"] == "finished" and state["error"] is None
    assert state["contract"]["id"] == "briefs" and state["finished_at"]
    report = state["report"]
    assert report["run_id"] == accepted["run_id"]
    assert_report_shape(report, "briefs", len(BRIEF_CASES))
    assert set(report["assertion_breakdown"]) == {
        "cites_sources",
        "acknowledge_gaps",
        "no_speculation",
        "formal_tone",
    }
    judged = [r for c in report["cases"] for r in c["results"] if r["id"] == "no_speculation"]
    assert all(r["evidence"]["judge"]["model_id"] == MODEL for r in judged)
    assert report["usage"]["calls"] == len(messages.model_calls()) > 0


def test_a_stored_contract_replays_the_verdicts_beside_it(
    tmp_path: Path, contracts: Path, judge_env: None
) -> None:
    cases = [
        json.loads(line)
        for line in (EXAMPLES / "account-research.cases.jsonl").read_text("utf-8").splitlines()
    ][:3]
    with (
        running(settings(tmp_path, contracts, judge_mode="replay")) as url,
        httpx.Client(base_url=url, timeout=60) as client,
    ):
        accepted = client.post(
            "/v1/runs", json={"contract": "account-research.yaml", "cases": cases}
        ).json()
        report = poll_run(client, accepted["run_id"])["report"]
    assert_report_shape(report, "account-research", 3)
    judge_rows = [r for c in report["cases"] for r in c["results"] if "judge" in r["evidence"]]
    assert judge_rows and all(r["status"] != "error" for r in judge_rows)


def test_inline_contract_runs_and_stores_its_rows(tmp_path: Path, judge_env: None) -> None:
    cases = [
        {"id": "a", "output": "Renewed 240 seats [source: Salesforce]."},
        {"id": 2, "output": "Renewed many seats, and a lot more words than twelve in this answer."},
    ]
    with (
        running(settings(tmp_path, None)) as url,
        httpx.Client(base_url=url, timeout=60) as client,
    ):
        accepted = client.post("/v1/runs", json={"contract": RUBRIC_ONLY, "cases": cases}).json()
        report = poll_run(client, accepted["run_id"])["report"]
    assert_report_shape(report, "short-answers", 2)
    assert [c["pass"] for c in report["cases"]] == [True, False]
    assert "usage" not in report or report["usage"] is None
    import sqlite3

    db = sqlite3.connect(tmp_path / "gaps.db")
    stored = db.execute("SELECT count(*) FROM rows WHERE run_id = ?", (accepted["run_id"],))
    assert stored.fetchone()[0] == 4
    db.close()


def test_unknown_run_is_404(tmp_path: Path, judge_env: None) -> None:
    with running(settings(tmp_path, None)) as url:
        response = httpx.get(f"{url}/v1/runs/20260101T000000Z-abcdef")
    assert response.status_code == 404
    assert "no run" in response.json()["detail"]


def test_bad_inline_contract_is_422_with_every_diagnostic(tmp_path: Path, judge_env: None) -> None:
    bad = RUBRIC_ONLY.replace("rubric: regex", "rubric: regexx").replace("version: 3", "version: 0")
    with running(settings(tmp_path, None)) as url:
        response = httpx.post(f"{url}/v1/runs", json={"contract": bad, "cases": [{"id": 1}]})
    assert response.status_code == 422
    body = response.json()
    assert body["detail"] == "the contract cannot be used"
    assert any(
        d.startswith("inline.yaml:6:13: claim 'cites_sources': unknown predicate 'regexx'")
        for d in body["diagnostics"]
    ), body
    assert any(d.startswith("inline.yaml:2:") and "version" in d for d in body["diagnostics"])
    assert not (tmp_path / "gaps.db").exists()


@pytest.mark.parametrize(
    ("contract", "message"),
    [
        ("missing.yaml", "missing.yaml: no such contract in the contracts directory"),
        ("../outside.yaml", "../outside.yaml: no such contract"),
        ("linked.yaml", "linked.yaml: no such contract"),
        ("/etc/passwd", "no such contract"),
        ("{contract: x, version: 1, claims: [", "inline.yaml:1:"),
        ("contract: x\x00\nversion: 1\n", "inline.yaml:1:12: invalid YAML: control character"),
        (
            RUBRIC_ONLY.replace(
                "claims:",
                "judges:\n  j: {provider: anthropic, model: "
                f"{MODEL}, base_url: 'http://elsewhere.example'}}\nclaims:",
            ),
            "inline.yaml:5:62: judge 'j': base_url is not accepted in an inline contract",
        ),
        (
            RUBRIC_ONLY.replace(
                "max_words: 12",
                "max_words: 12\n  - id: shaped\n"
                "    rubric: json_schema\n    schema_file: ../../../etc/hosts",
            ),
            "schema_file '../../../etc/hosts': an inline contract cannot name a file outside",
        ),
        (
            RUBRIC_ONLY.replace("claims:", "sut:\n  exec: {command: [touch, pwned]}\nclaims:"),
            "inline.yaml:4:1: sut: the HTTP API checks the outputs sent with the cases and "
            "never runs a system under test",
        ),
    ],
)
def test_contracts_the_server_refuses_are_422(
    tmp_path: Path, contracts: Path, judge_env: None, contract: str, message: str
) -> None:
    shutil.copy(BRIEFS, tmp_path / "outside.yaml")
    (contracts / "linked.yaml").symlink_to(tmp_path / "outside.yaml")
    with running(settings(tmp_path, contracts)) as url:
        response = httpx.post(f"{url}/v1/runs", json={"contract": contract, "cases": [{"id": 1}]})
    assert response.status_code == 422
    diagnostics = response.json()["diagnostics"]
    assert any(message in d for d in diagnostics), diagnostics
    assert all(str(tmp_path) not in d for d in diagnostics)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b'{"contract": "briefs.yaml", "cases": [', "json_invalid"),
        (b'{"contract": "briefs.yaml", "cases": []}', "too_short"),
        (b'{"contract": "briefs.yaml", "cases": [{"input": "x"}]}', 'cases[0] has no \\"id\\"'),
        (b'{"contract": "briefs.yaml", "cases": [{"id": 1}, {"id": "1"}]}', "duplicate case id"),
        (b'{"contract": "briefs.yaml", "cases": [{"id": 1}], "extra": 1}', "extra_forbidden"),
    ],
)
def test_malformed_run_requests_are_422(
    tmp_path: Path, contracts: Path, judge_env: None, body: bytes, reason: str
) -> None:
    with running(settings(tmp_path, contracts)) as url:
        response = httpx.post(
            f"{url}/v1/runs", content=body, headers={"content-type": "application/json"}
        )
    assert response.status_code == 422
    assert reason in response.text


def test_runs_beyond_the_limit_are_429(tmp_path: Path, contracts: Path, judge_env: None) -> None:
    # The first run's judge calls are held until the 429 is seen: it is still running
    # then however long the machine took between the two requests.
    gate = Gate()
    with (
        MessagesServer(default=gate) as held,
        pytest.MonkeyPatch.context() as patch,
    ):
        patch.setenv("ANTHROPIC_BASE_URL", held.base_url)
        with (
            running(settings(tmp_path, contracts, max_runs=1)) as url,
            httpx.Client(base_url=url, timeout=60) as client,
        ):
            try:
                request = {"contract": "briefs.yaml", "cases": BRIEF_CASES[:1]}
                first = client.post("/v1/runs", json=request)
                second = client.post("/v1/runs", json=request)
                assert (first.status_code, second.status_code) == (202, 429)
                assert second.headers["retry-after"]
            finally:
                gate.open()
            poll_run(client, first.json()["run_id"])
            assert client.post("/v1/runs", json=request).status_code == 202


def test_a_run_whose_store_is_unusable_fails_without_internals(
    tmp_path: Path, judge_env: None
) -> None:
    not_a_store = tmp_path / "notes.db"
    not_a_store.write_text("these are notes, not a SQLite database\n" * 100, encoding="utf-8")
    with (
        running(settings(tmp_path, None, store=str(not_a_store))) as url,
        httpx.Client(base_url=url, timeout=60) as client,
    ):
        accepted = client.post("/v1/runs", json={"contract": RUBRIC_ONLY, "cases": [{"id": 1}]})
        assert accepted.status_code == 202
        state = poll_run(client, accepted.json()["run_id"])
    assert state["status"] == "failed" and state["report"] is None
    assert "store" in state["error"] and str(tmp_path) not in state["error"]


def test_an_inline_contracts_record_block_decides_what_the_store_keeps(
    tmp_path: Path, judge_env: None
) -> None:
    contract = RUBRIC_ONLY.replace(
        "claims:", "record: {content: hashes, redact: [output]}\nclaims:"
    )
    secret = "Renewed 240 seats for Ann Smith [source: Salesforce]."
    with (
        running(settings(tmp_path, None)) as url,
        httpx.Client(base_url=url, timeout=60) as client,
    ):
        body = {"contract": contract, "cases": [{"id": "a", "output": secret}]}
        accepted = client.post("/v1/runs", json=body).json()
        state = poll_run(client, accepted["run_id"])
    report = state["report"]
    assert [c["pass"] for c in report["cases"]] == [True]
    assert "Ann Smith" not in json.dumps(state)
    from verifier.gaps.store import open_store

    with open_store(str(tmp_path / "gaps.db")) as store:
        rows = [json.loads(r.body) for r in store.iter_rows(accepted["run_id"])]
        assert list(store.iter_contents()) == []
    assert len(rows) == 2 and all(len(r["content_sha256"]) == 64 for r in rows)
    assert all(r["evidence"] == {"redacted": ["output"]} for r in rows)
    assert all(b"Ann Smith" not in p.read_bytes() for p in tmp_path.glob("gaps.db*"))


def test_integers_beyond_64_bits_in_a_request_stay_exact(tmp_path: Path, judge_env: None) -> None:
    big = 2**64 + 1  # orjson alone reads 18446744073709551617 as a float
    contract = f"""\
contract: big-numbers
version: 1
claims:
  - {{id: account_is_big, rubric: equals, field: account, value: {big}}}
"""
    body = f'{{"contract": {json.dumps(contract)}, "cases": [{{"id": "c1", "account": {big}}}]}}'
    with (
        running(settings(tmp_path, None)) as url,
        httpx.Client(base_url=url, timeout=60) as client,
    ):
        accepted = client.post(
            "/v1/runs", content=body, headers={"content-type": "application/json"}
        ).json()
        report = poll_run(client, accepted["run_id"])["report"]
    assert [c["pass"] for c in report["cases"]] == [True]


def test_a_claim_that_applied_to_no_case_is_a_warning_of_the_report(
    tmp_path: Path, judge_env: None
) -> None:
    contract = RUBRIC_ONLY.replace("    max_words: 12\n", "    max_words: 12\n    when: ouput\n")
    with (
        running(settings(tmp_path, None)) as url,
        httpx.Client(base_url=url, timeout=60) as client,
    ):
        body = {"contract": contract, "cases": [{"id": "a", "output": "x [source: Crm]"}]}
        accepted = client.post("/v1/runs", json=body).json()
        report = poll_run(client, accepted["run_id"])["report"]
    assert report["warnings"] == [
        "claim short applied to no case: its when: path ouput matched nothing (closest: output)"
    ]

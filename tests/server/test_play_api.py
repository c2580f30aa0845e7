"""The playground's requests: checked as ``verifier check`` checks, tried as ``verifier
run`` runs, saved only as a new file or a new version, behind the server's guard, and
refused unless JSON from the page itself."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests._cli import cli
from tests.judge.messages_server import Gate, MessagesServer
from tests.server._support import MODEL, TOKEN, running
from verifier.gaps.store import open_store
from verifier.server.settings import ServerSettings

EXAMPLES = Path(__file__).resolve().parents[2] / "contracts" / "examples"
CONTRACT = "examples/account-research.yaml"
TEXT = (EXAMPLES / "account-research.yaml").read_text()
PATTERN = r"pattern: '\[source: [A-Za-z ]+\]'"


def _folder(base: Path) -> Path:
    folder = base / "contracts"
    (folder / "examples").mkdir(parents=True)
    for name in ("account-research.yaml", "account-research.recordings.jsonl"):
        shutil.copy(EXAMPLES / name, folder / "examples" / name)
    return folder


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return _folder(tmp_path)


@pytest.fixture
def client(folder: Path) -> Iterator[httpx.Client]:
    settings = ServerSettings(
        port=0, store=str(folder.parent / "gaps.db"), contracts_dir=folder, judge_mode="replay"
    )
    with running(settings) as base, httpx.Client(base_url=base, timeout=60) as opened:
        yield opened


def _case(case_id: str) -> dict[str, object]:
    for line in (EXAMPLES / "account-research.cases.jsonl").read_text().splitlines():
        case: dict[str, object] = json.loads(line)
        if case["id"] == case_id:
            return case
    raise AssertionError(case_id)


def test_the_page_loads_its_own_script_under_a_policy_without_inline_script(
    client: httpx.Client,
) -> None:
    page = client.get("/play/")
    assert page.status_code == 200
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "connect-src 'self'" in policy
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
    scripts = re.findall(r"<script[^>]*>", page.text)
    assert scripts == ['<script src="/play/static/play.js" defer>']
    assert f'value="file:{CONTRACT}"' in page.text
    script = client.get("/play/static/play.js")
    assert script.headers["content-type"].startswith("text/javascript")
    assert client.get("/play/static/../app.py").status_code == 404


def test_check_finds_what_verifier_check_finds(client: httpx.Client, folder: Path) -> None:
    text = TEXT.replace(PATTERN, r"pattern: '\[source: (x'").replace(
        "rubric: length", "rubric: length\n    max_wrods: 3"
    )
    answer = client.post("/play/check", json={"name": CONTRACT, "text": text}).json()
    assert answer["ok"] is False
    shown = {(p["line"], p["col"], p["message"]) for p in answer["problems"]}
    written = folder / "examples" / "broken.yaml"
    written.write_text(text)
    printed = cli("check", str(written)).stdout.splitlines()
    found = set()
    for line in printed:
        match = re.fullmatch(rf"{re.escape(str(written))}:(\d+):(\d+): (.*)", line)
        if match:
            message = match[3].removeprefix("warning: ")
            found.add((int(match[1]), int(match[2]), message))
    assert found and shown == found
    assert any("invalid regex" in m and line == 27 for line, _, m in shown)


def test_invalid_yaml_is_one_problem_at_its_line(client: httpx.Client) -> None:
    text = TEXT.replace(PATTERN, "  pattern: 'x'")
    answer = client.post("/play/check", json={"name": CONTRACT, "text": text}).json()
    assert [(p["line"], p["severity"]) for p in answer["problems"]] == [(27, "error")]
    assert answer["problems"][0]["message"].startswith("invalid YAML")


@pytest.mark.parametrize(
    ("change", "line", "words"),
    [
        ("    group: case", 20, "base_url is not accepted"),
        ("    prompt: ../../outside.md", 20, "cannot name a file outside"),
        ("sut: {exec: {command: [echo, hi]}}", 14, "never runs a system under test"),
    ],
)
def test_text_from_the_page_is_held_to_the_inline_rules(
    client: httpx.Client, change: str, line: int, words: str
) -> None:
    if "group" in change:
        text = TEXT.replace(change, change + "\n    base_url: https://elsewhere.example")
    elif "prompt" in change:
        text = TEXT.replace("    group: case", change)
    else:
        text = TEXT.replace("threshold: 0.85", "threshold: 0.85\n" + change)
    answer = client.post("/play/check", json={"name": CONTRACT, "text": text}).json()
    assert answer["ok"] is False
    assert any(words in p["message"] and p["line"] >= line for p in answer["problems"])


def test_a_try_gives_the_verdicts_of_verifier_run_and_stores_nothing(
    client: httpx.Client, folder: Path, tmp_path: Path
) -> None:
    text = TEXT.replace(PATTERN, "pattern: 'Salesforce'\n    negate: true")
    case = _case("acct-001")
    answer = client.post("/play/run", json={"name": CONTRACT, "text": text, "case": case})
    assert answer.status_code == 200, answer.text
    tried = {v["claim"]: v["status"] for v in answer.json()["verdicts"]}
    assert tried["cites_sources"] == "fail" and answer.json()["passed"] is False
    assert "<mark>Salesforce</mark>" in answer.json()["html"]

    contract = folder / "examples" / "edited.yaml"
    contract.write_text(text)
    shutil.copy(
        EXAMPLES / "account-research.recordings.jsonl",
        folder / "examples" / "edited.recordings.jsonl",
    )
    (tmp_path / "one.jsonl").write_text(json.dumps(case) + "\n")
    done = cli(
        "run", str(contract), "--cases", str(tmp_path / "one.jsonl"), "--judges", "replay",
        "--store", str(tmp_path / "cli.db"), "--format", "json",
    )  # fmt: skip
    (reported,) = json.loads(done.stdout)["cases"]
    assert {r["id"]: r["status"] for r in reported["results"]} == tried
    with open_store(str(folder.parent / "gaps.db")) as store:
        assert list(store.recent_runs()) == []


def test_a_pasted_case_gets_the_playground_id_and_a_problem_stops_the_try(
    client: httpx.Client,
) -> None:
    case = {"input": "Brief me.", "output": "Acme is gonna grow, lol."}
    answer = client.post("/play/run", json={"name": CONTRACT, "text": TEXT, "case": case})
    assert "case <code>playground</code>" in answer.json()["html"]
    hostile = {"input": "x", "output": "<img src=x onerror=alert(1)> gonna", "id": "<b>id</b>"}
    shown = client.post("/play/run", json={"name": CONTRACT, "text": TEXT, "case": hostile})
    html = shown.json()["html"]
    assert "<img" not in html and "<b>" not in html
    assert "&lt;img src=x onerror=alert(1)&gt; <mark>gonna</mark>" in html
    broken = TEXT.replace(PATTERN, "  pattern: 'x'")
    refused = client.post("/play/run", json={"name": CONTRACT, "text": broken, "case": case})
    assert refused.status_code == 422 and refused.json()["problems"][0]["line"] == 27


def test_save_writes_a_new_file_and_replaces_one_only_with_a_higher_version(
    client: httpx.Client, folder: Path
) -> None:
    new = client.post("/play/save", json={"name": "examples/mine.yaml", "text": TEXT})
    assert new.json() == {"name": "examples/mine.yaml", "replaced": None}
    assert (folder / "examples" / "mine.yaml").read_text() == TEXT
    edited = TEXT.replace(PATTERN, "pattern: 'x'")
    same = client.post("/play/save", json={"name": CONTRACT, "text": edited})
    assert same.status_code == 409
    assert same.json()["detail"] == (
        f"{CONTRACT} exists at version 2: raise `version:` above 2 to replace it, "
        "or save under another name"
    )
    assert (folder / CONTRACT).read_text() == TEXT
    bumped = edited.replace("version: 2", "version: 3")
    replaced = client.post("/play/save", json={"name": CONTRACT, "text": bumped})
    assert replaced.json() == {"name": CONTRACT, "replaced": 2}
    assert (folder / CONTRACT).read_text() == bumped
    assert sorted(p.name for p in (folder / "examples").iterdir()) == [
        "account-research.recordings.jsonl",
        "account-research.yaml",
        "mine.yaml",
    ]  # no temporary file left behind


@pytest.mark.parametrize(
    ("name", "status"),
    [
        ("../outside.yaml", 422),
        ("examples/nul\u0000.yaml", 422),
        ("/tmp/outside.yaml", 422),
        (".hidden/x.yaml", 400),
        ("examples/x.txt", 400),
        ("missing/x.yaml", 404),
        ("outside-link.yaml", 422),
        ("inside-link.yaml", 409),
    ],
)
def test_save_refuses_places_outside_the_folder_and_what_is_not_a_contract_file(
    client: httpx.Client, folder: Path, tmp_path: Path, name: str, status: int
) -> None:
    target = tmp_path / "target.yaml"
    target.write_text("kept")
    os.symlink(target, folder / "outside-link.yaml")
    os.symlink(folder / CONTRACT, folder / "inside-link.yaml")
    answer = client.post("/play/save", json={"name": name, "text": TEXT})
    assert answer.status_code == status, answer.text
    assert target.read_text() == "kept" and (folder / CONTRACT).read_text() == TEXT
    assert not (tmp_path / "outside.yaml").exists()


def test_a_contract_with_problems_is_not_saved(client: httpx.Client, folder: Path) -> None:
    broken = TEXT.replace(PATTERN, "  pattern: 'x'")
    answer = client.post("/play/save", json={"name": "examples/new.yaml", "text": broken})
    assert answer.status_code == 422 and answer.json()["problems"][0]["line"] == 27
    assert not (folder / "examples" / "new.yaml").exists()


def test_without_a_folder_there_are_starters_and_no_save(tmp_path: Path) -> None:
    settings = ServerSettings(port=0, store=str(tmp_path / "gaps.db"))
    with running(settings) as base, httpx.Client(base_url=base) as client:
        starter = client.get("/play/contract", params={"starter": "starter"}).json()
        assert starter["name"] == "support-answers.yaml"
        assert "contract: support-answers" in starter["text"]
        assert client.get("/play/contract", params={"starter": "nope"}).status_code == 404
        assert client.get("/play/contract", params={"name": CONTRACT}).status_code == 404
        refused = client.post("/play/save", json={"name": "x.yaml", "text": TEXT})
        assert refused.status_code == 409


@pytest.mark.parametrize(
    "headers",
    [
        {"content-type": "text/plain"},
        {"content-type": "application/x-www-form-urlencoded"},
        {"content-type": "application/json", "origin": "http://evil.example"},
        {"content-type": "application/json", "sec-fetch-site": "cross-site"},
        {"content-type": "application/json", "sec-fetch-site": "same-site"},
    ],
)
def test_requests_that_change_something_are_json_from_the_page_itself(
    client: httpx.Client, folder: Path, headers: dict[str, str]
) -> None:
    body = json.dumps({"name": "examples/forged.yaml", "text": TEXT})
    answer = client.post("/play/save", content=body, headers=headers)
    assert answer.status_code in (403, 415)
    assert not (folder / "examples" / "forged.yaml").exists()
    origin = str(client.base_url).rstrip("/")
    same = {"content-type": "application/json", "origin": origin, "sec-fetch-site": "same-origin"}
    assert client.post("/play/check", content=body, headers=same).status_code == 200


def test_with_a_token_every_playground_request_needs_it_in_the_header(
    folder: Path,
) -> None:
    settings = ServerSettings(
        port=0, token=TOKEN, store=str(folder.parent / "gaps.db"), contracts_dir=folder
    )
    body = {"name": "examples/mine.yaml", "text": TEXT}
    with running(settings) as base, httpx.Client(base_url=base) as client:
        assert client.get("/play/").status_code == 401
        assert client.get("/play/static/play.js").status_code == 401
        assert client.post("/play/save", json=body).status_code == 401
        cookie = {"cookie": f"token={TOKEN}; authorization=Bearer {TOKEN}"}
        assert client.post("/play/save", json=body, headers=cookie).status_code == 401
        assert not (folder / "examples" / "mine.yaml").exists()
        bearer = {"authorization": f"Bearer {TOKEN}"}
        assert client.get("/play/", headers=bearer).status_code == 200
        assert client.post("/play/save", json=body, headers=bearer).status_code == 200


def test_stored_cases_of_a_run(client: httpx.Client, folder: Path, tmp_path: Path) -> None:
    done = cli(
        "run", str(folder / CONTRACT), "--cases", str(EXAMPLES / "account-research.cases.jsonl"),
        "--judges", "replay", "--store", str(folder.parent / "gaps.db"),
    )  # fmt: skip
    assert done.exit_code == 1
    (run,) = client.get("/play/runs", params={"contract": "account-research"}).json()["runs"]
    assert run["cases"] == 5
    cases = client.get("/play/cases", params={"run": "last"}).json()
    assert cases == {"run_id": run["run_id"], "cases": [f"acct-00{i}" for i in range(1, 6)]}
    case = client.get("/play/case", params={"run": "last", "id": "acct-002"}).json()
    assert case["case"] == _case("acct-002")
    assert client.get("/play/case", params={"run": "last", "id": "nope"}).status_code == 404
    assert client.get("/play/cases", params={"run": "nope"}).status_code == 404


LIVE = f"""contract: live-try
version: 1
judges:
  strict:
    provider: anthropic
    model: {MODEL}
    sampling: {{max_tokens: 256}}
claims:
  - id: no_guessing
    judge: strict
    instruction: The answer states facts and does not guess
"""


def test_judge_claims_are_asked_in_the_servers_judge_mode(
    tmp_path: Path, messages: MessagesServer
) -> None:
    settings = ServerSettings(port=0, store=str(tmp_path / "gaps.db"), judge_mode="live")
    with running(settings) as base, httpx.Client(base_url=base, timeout=60) as client:
        verdicts = {}
        for output in ("Revenue is $2M.", "Revenue is a guess."):
            case = {"input": "Revenue?", "output": output}
            answer = client.post("/play/run", json={"text": LIVE, "case": case})
            assert answer.status_code == 200, answer.text
            verdicts[output] = answer.json()["verdicts"][0]["status"]
            assert f"judge <code>{MODEL}</code>" in answer.json()["html"]
    assert verdicts == {"Revenue is $2M.": "pass", "Revenue is a guess.": "fail"}
    assert len(messages.model_calls()) == 2


def test_tries_beyond_the_servers_runs_are_429(tmp_path: Path, judge_env: None) -> None:
    # The first try's judge call is held at the gate until the 429 is seen.
    gate = Gate()
    case = {"input": "Revenue?", "output": "Revenue is $2M."}
    with MessagesServer(default=gate) as held, pytest.MonkeyPatch.context() as patch:
        patch.setenv("ANTHROPIC_BASE_URL", held.base_url)
        settings = ServerSettings(
            port=0, store=str(tmp_path / "gaps.db"), judge_mode="live", max_runs=1
        )
        with running(settings) as base, httpx.Client(base_url=base, timeout=60) as client:
            with ThreadPoolExecutor(1) as pool:
                first = pool.submit(client.post, "/play/run", json={"text": LIVE, "case": case})
                try:
                    deadline = time.monotonic() + 30
                    while not held.model_calls() and time.monotonic() < deadline:
                        time.sleep(0.01)
                    second = client.post("/play/run", json={"text": LIVE, "case": case})
                    assert second.status_code == 429, second.text
                finally:
                    gate.open()
                assert first.result().status_code == 200
            again = client.post("/play/run", json={"text": LIVE, "case": case})
            assert again.status_code == 200

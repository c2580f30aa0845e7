"""A judge-cache entry is served only while it matches its seal: flipped verdicts are
asked again, never replayed "from cache" under the original triple.

Runs the real CLI with the real anthropic SDK against the local Messages-API server,
on a SQLite file and on a PostgreSQL schema (``store_backend``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._cli import verifier
from tests.gaps._backends import Backend
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from tests.judge.test_judge_phase import KEY, write_cases, write_contract


@pytest.fixture
def judge_server() -> Iterator[MessagesServer]:
    with MessagesServer(default=brain) as running:
        yield running


def verdicts(backend: Backend) -> list[dict[tuple[str, str], str]]:
    """Each run's statuses by case and claim, runs in the order they were stored."""
    runs: dict[str, dict[tuple[str, str], str]] = {}
    rows = backend.query("SELECT run_id, case_id, claim_id, status FROM rows ORDER BY seq")
    for run_id, case, claim, status in rows:
        runs.setdefault(run_id, {})[(case, claim)] = status
    return list(runs.values())


def test_a_flipped_verdict_in_the_judge_cache_is_asked_again_not_served(
    store_backend: Backend, tmp_path: Path, judge_server: MessagesServer
) -> None:
    contract = write_contract(tmp_path, claims=2)
    cases = write_cases(tmp_path, ["Acme renewed 240 seats.", "I guess they churned."])
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": judge_server.base_url}
    args = ("run", str(contract), "--cases", str(cases), "--store", store_backend.target)
    first = verifier(*args, "--judges", "live", cwd=tmp_path, env=env)
    assert first.returncode == 1, first.stderr
    asked = len(judge_server.model_calls())
    assert asked == 4
    # The intruder flips every cached verdict (the entry is canonical JSON text).
    entries = store_backend.query("SELECT key, entry FROM judge_cache")
    flipped = []
    for key, text in entries:
        entry = json.loads(text)
        for result in entry["reply"]["tool_input"]["results"]:
            result["pass"] = not result["pass"]
            for criterion in result["criteria"]:
                criterion["met"] = not criterion["met"]
        flipped.append(("UPDATE judge_cache SET entry = ? WHERE key = ?", (json.dumps(entry), key)))
    store_backend.tamper(*flipped)
    again = verifier(*args, "--judges", "live", cwd=tmp_path, env=env)
    assert again.returncode == 1, again.stderr
    assert len(judge_server.model_calls()) == asked + 4  # every flipped entry asked again
    first_run, second_run = verdicts(store_backend)
    assert second_run == first_run and "fail" in first_run.values()
    # The answers asked again are cached and sealed: a third run is served from cache.
    third = verifier(*args, "--judges", "live", cwd=tmp_path, env=env)
    assert third.returncode == 1, third.stderr
    assert len(judge_server.model_calls()) == asked + 4
    assert verdicts(store_backend)[2] == first_run
    audit = verifier("audit", "--store", store_backend.target, cwd=tmp_path)
    assert audit.returncode == 0, audit.stdout


def test_a_replayed_run_says_which_cache_entries_were_edited_instead_of_serving_them(
    store_backend: Backend, tmp_path: Path, judge_server: MessagesServer
) -> None:
    contract = write_contract(tmp_path, claims=1)
    cases = write_cases(tmp_path, ["Acme renewed 240 seats."])
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": judge_server.base_url}
    args = ("run", str(contract), "--cases", str(cases), "--store", store_backend.target)
    assert verifier(*args, "--judges", "live", cwd=tmp_path, env=env).returncode in (0, 1)
    (key, text), *_ = store_backend.query("SELECT key, entry FROM judge_cache")
    store_backend.tamper(
        ("UPDATE judge_cache SET entry = ? WHERE key = ?", (text.replace("true", "false"), key))
    )
    replayed = verifier(*args, "--judges", "replay", "--format", "json", cwd=tmp_path, env=env)
    assert replayed.returncode == 1, replayed.stderr
    (result,) = json.loads(replayed.stdout)["cases"][0]["results"]
    assert result["status"] == "error"
    assert (
        "judge cache entry for this request was edited after it was sealed" in result["reasoning"]
    )

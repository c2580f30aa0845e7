"""An interrupted trial keeps what the candidate answered, sealed, and ``--resume``
asks only the drawn verdicts it did not answer, ending where a trial never stopped
ends; a trial answered from recordings needs no key and calls no one."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests._cli import CLEARED, cli
from tests.judge.messages_server import MessagesServer
from tests.trial._support import CONTRACT, KEY, NEW_MODEL, OLD_MODEL, per_model, write_contract
from verifier.gaps.trials import TrialStore
from verifier.run.api import run_contract
from verifier.run.assembly import Judges

pytestmark = pytest.mark.e2e


def slowly(request: dict[str, Any]) -> Any:
    """The candidate's answers, each a while in coming, so a trial can be stopped."""
    return dataclasses.replace(per_model(request), delay=0.2)


def trial_json(store: str, server: MessagesServer, *extra: str) -> dict[str, Any]:
    done = cli(
        "judge", "trial", "strict", "--store", store, "--base-url", server.base_url,
        "--format", "json", "--min-kappa", "-1", "--max-shift", "1", *extra,
        env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": None},
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    return dict(json.loads(done.stdout))


def stop_midway(
    store: str, server: MessagesServer, cwd: Path, sig: signal.Signals
) -> subprocess.CompletedProcess[str]:
    """``verifier judge trial`` in a process of its own, sent ``sig`` once the candidate
    has answered a few verdicts."""
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env["ANTHROPIC_API_KEY"] = KEY
    args = [sys.executable, "-m", "verifier", "judge", "trial", "strict", "--to", NEW_MODEL]
    args += ["--store", store, "--base-url", server.base_url, "--min-kappa", "-1"]
    args += ["--max-shift", "1"]
    process = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + 60
    while len(server.model_calls()) < 6:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the candidate was never asked"
        time.sleep(0.02)
    process.send_signal(sig)
    out, err = process.communicate(timeout=60)
    return subprocess.CompletedProcess(args, process.returncode, out, err)


@pytest.mark.parametrize(
    ("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["sigint", "sigterm"]
)
def test_a_stopped_trial_is_kept_and_resumed_to_the_figures_of_one_never_stopped(
    store: str, tmp_path: Path, sig: signal.Signals, code: int
) -> None:
    with MessagesServer(default=slowly) as server:
        stopped = stop_midway(store, server, tmp_path, sig)
        assert stopped.returncode == code, stopped.stderr
        with TrialStore(store, read_only=True) as trials:
            (kept,) = trials.all()
        assert kept.outcome == "interrupted"
        answered = len(kept.verdicts)
        assert 0 < answered < 24
        assert stopped.stderr.strip().splitlines()[-1] == (
            f"interrupted: stopped after {answered} of 24 drawn verdicts; resume it: "
            f"verifier judge trial strict --resume {kept.trial_id}"
        )
        refused = cli("judge", "switch", "strict", "--trial", kept.trial_id, "--store", store)
        assert refused.exit_code == 2
        assert "was interrupted before it asked every drawn verdict" in refused.stderr

        server.requests.clear()
        resumed = trial_json(store, server, "--resume", "last")
        # Only what the stopped trial had not answered is asked.
        assert len(server.model_calls()) == 24 - answered
        assert {c.body["model"] for c in server.model_calls()} == {NEW_MODEL}
        assert resumed["resumed_from"] == kept.trial_id

        server.requests.clear()
        whole = trial_json(store, server, "--to", NEW_MODEL)
        assert len(server.model_calls()) == 24
    for part in ("overall", "claims", "outcome", "flipped"):
        assert resumed[part] == whole[part], part
    again = cli("judge", "trial", "strict", "--store", store, "--resume", resumed["trial_id"])
    assert again.exit_code == 2
    assert again.stderr.strip() == (
        f"error: trial {resumed['trial_id']} was not interrupted ({resumed['outcome']})"
    )
    assert cli("audit", "--store", store).exit_code == 0


def test_a_trial_replayed_from_recordings_needs_no_key_and_calls_no_one(
    store: str, server: MessagesServer, tmp_path: Path
) -> None:
    # The candidate's answers, recorded by a run of the contract pinned to it.
    recordings = tmp_path / "candidate.recordings.jsonl"
    moved = tmp_path / "moved"
    moved.mkdir()
    contract, cases = write_contract(moved, CONTRACT.replace(OLD_MODEL, NEW_MODEL))
    judges = Judges(mode="record", recordings=recordings, base_url=server.base_url)
    run_contract(contract, cases, store=str(moved / "gaps.db"), judges=judges)
    live = trial_json(store, server, "--to", NEW_MODEL)
    server.requests.clear()

    replayed = cli(
        "judge", "trial", "strict", "--to", NEW_MODEL, "--store", store,
        "--recordings", str(recordings), "--format", "json", "--min-kappa", "-1",
        "--max-shift", "1", env={"ANTHROPIC_API_KEY": None, "ANTHROPIC_BASE_URL": None},
    )  # fmt: skip
    assert replayed.exit_code == 0, replayed.output
    assert server.requests == []
    document = json.loads(replayed.stdout)
    for part in ("overall", "claims", "outcome", "flipped"):
        assert document[part] == live[part], part

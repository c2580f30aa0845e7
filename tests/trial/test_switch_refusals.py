"""What ``verifier judge switch`` refuses, each in one line with exit 2 and nothing
recorded or written: a trial that did not pass (unless ``--accept-failed`` says why),
an unknown, edited or other judge's trial, a second switch of one trial, and a
contract whose judge is not the one the trial re-asked."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import Result

from tests._cli import cli
from tests.judge.messages_server import MessagesServer
from tests.trial._support import KEY, NEW_MODEL, OLD_MODEL
from verifier.gaps.successions import SuccessionStore


def failed_trial(store: str, server: MessagesServer) -> str:
    """A trial under the default rule, which the flipping candidate fails: its id."""
    done = cli(
        "judge", "trial", "strict", "--to", NEW_MODEL, "--store", store,
        "--base-url", server.base_url, "--format", "json",
        env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": None},
    )  # fmt: skip
    assert done.exit_code == 1, done.output
    return str(json.loads(done.stdout)["trial_id"])


def switch(store: str, *extra: str, judge: str = "strict") -> Result:
    return cli("judge", "switch", judge, "--store", store, *extra)


def refused(result: Result) -> str:
    """The one line a refusal prints, after checking it is one."""
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    return line


def recorded(store: str) -> int:
    with SuccessionStore(store, read_only=True) as successions:
        return len(successions.all())


def test_a_failed_trial_is_refused_unless_a_reason_is_recorded_and_only_once(
    store: str, server: MessagesServer
) -> None:
    trial_id = failed_trial(store, server)
    line = refused(switch(store, "--trial", trial_id))
    assert line.startswith(f"error: trial {trial_id}'s outcome is fail: kappa's lower bound")
    assert line.endswith('give --accept-failed "REASON" (the reason is recorded)')
    assert recorded(store) == 0
    assert refused(switch(store, "--trial", trial_id, "--accept-failed", " ")) == (
        "error: --accept-failed needs a reason: why the trial is accepted"
    )
    done = switch(store, "--trial", trial_id, "--accept-failed", "the old model retires Monday")
    assert done.exit_code == 0, done.output
    with SuccessionStore(store, read_only=True) as successions:
        (row,) = successions.all()
    assert row.outcome == "fail" and row.accepted_failed == "the old model retires Monday"
    assert row.summary().endswith("; accepted: the old model retires Monday)")
    assert done.stdout == f"recorded {row.summary()}\n"
    again = refused(switch(store, "--trial", trial_id, "--accept-failed", "twice"))
    assert again == (
        f"error: trial {trial_id} is already recorded as succession {row.succession_id}: "
        "a trial measures one succession"
    )
    assert recorded(store) == 1


def test_an_unknown_edited_or_other_judges_trial_is_refused(
    store: str, server: MessagesServer
) -> None:
    assert refused(switch(store, "--trial", "nope")) == (
        f"error: no trial nope in {store}: `verifier judge trial` records one"
    )
    trial_id = failed_trial(store, server)
    assert refused(switch(store, "--trial", trial_id, judge="lenient")) == (
        f"error: trial {trial_id} is of judge strict, not lenient"
    )
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE trials SET outcome = 'pass'")
    assert refused(switch(store, "--trial", trial_id)) == (
        f"error: trial {trial_id} is not what its seal recorded (edited, or added behind "
        "the store's back): `verifier audit` says more"
    )
    assert recorded(store) == 0


def test_write_refuses_a_contract_whose_judge_the_trial_did_not_reask(
    store: str, server: MessagesServer, tmp_path: Path
) -> None:
    trial_id = failed_trial(store, server)
    contract = tmp_path / "trialled.yaml"
    moved = contract.read_text(encoding="utf-8").replace(OLD_MODEL, "claude-opus-4-5-20251101")
    contract.write_text(moved, encoding="utf-8")
    line = refused(
        switch(store, "--trial", trial_id, "--accept-failed", "why", "--write", str(contract))
    )
    assert line == (
        f"error: --write {contract}: judge strict there asks claude-opus-4-5-20251101, "
        f"but trial {trial_id} re-asked verdicts of {OLD_MODEL}"
    )
    assert contract.read_text(encoding="utf-8") == moved
    assert recorded(store) == 0


def test_write_refuses_a_trial_asked_with_another_template(
    store: str, server: MessagesServer, tmp_path_factory: pytest.TempPathFactory
) -> None:
    import verifier.judge

    builtin = Path(verifier.judge.__file__).parent / "templates" / "assertions.md"
    template = tmp_path_factory.mktemp("elsewhere") / "successor.md"
    text = builtin.read_text(encoding="utf-8")
    template.write_text(text.replace("You are an evaluation judge.", "You are the successor."))
    done = cli(
        "judge", "trial", "strict", "--to", NEW_MODEL, "--prompt", str(template),
        "--store", store, "--base-url", server.base_url, "--sample", "4", "--format", "json",
        env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": None},
    )  # fmt: skip
    trial_id = json.loads(done.stdout)["trial_id"]
    contract = Path(store).parent / "trialled.yaml"
    before = contract.read_bytes()
    line = refused(
        switch(store, "--trial", trial_id, "--accept-failed", "why", "--write", str(contract))
    )
    assert line == (
        f"error: --write {contract}: trial {trial_id} asked with another template than the "
        "judge's, and a trial does not record the file: set the judge's prompt and model by "
        "hand, or switch without --write"
    )
    assert contract.read_bytes() == before
    assert recorded(store) == 0

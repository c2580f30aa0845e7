"""``verifier judge switch``, end to end against the Messages API stand-in, on SQLite and
PostgreSQL: a trial, the switch recorded (and the contract's model written), a run
with the new model, and an audit that names the succession instead of judge drift;
without the succession the same change is drift, and an edited succession or trial
fails the audit."""

from __future__ import annotations

import json
from typing import Any

from click.testing import Result

from tests._cli import cli
from tests.trial._support import KEY, NEW_MODEL, OLD_MODEL
from tests.trial.conftest import Switching
from verifier.gaps.successions import Lineage, SuccessionStore


def trial(switching: Switching, *extra: str) -> str:
    """A trial of judge ``strict`` with the candidate that passes a lax rule: its id."""
    done = cli(
        "judge", "trial", "strict", "--to", NEW_MODEL, "--store", switching.target,
        "--base-url", switching.server.base_url, "--min-kappa", "-1", "--max-shift", "1",
        "--format", "json", *extra,
        env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": None},
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    return str(json.loads(done.stdout)["trial_id"])


def switch(target: str, *extra: str, judge: str = "strict") -> Result:
    return cli("judge", "switch", judge, "--store", target, *extra)


def audit(target: str) -> tuple[Result, dict[str, Any]]:
    text = cli("audit", "--store", target)
    document = json.loads(cli("audit", "--store", target, "--format", "json").stdout)
    return text, document


def test_a_switch_writes_the_model_and_the_next_run_audits_as_a_succession(
    switching: Switching,
) -> None:
    trial_id = trial(switching)
    before = switching.contract.read_bytes()
    assert before.count(OLD_MODEL.encode()) == 1
    done = switch(switching.target, "--trial", trial_id, "--write", str(switching.contract))
    assert done.exit_code == 0, done.output
    (row,) = Lineage.read(switching.target).rows
    assert switching.contract.read_bytes() == before.replace(OLD_MODEL.encode(), NEW_MODEL.encode())
    assert done.stdout.splitlines() == [
        f"recorded {row.summary()}",
        f"wrote {switching.contract}: judge strict's model {OLD_MODEL} -> {NEW_MODEL} "
        "(line 7; nothing else changed)",
    ]
    assert row.trial_id == trial_id and row.judge == "strict" and row.outcome == "pass"
    assert [t[0] for t in row.old_triples] == [OLD_MODEL]
    assert [t[0] for t in row.new_triples] == [NEW_MODEL]
    # The same template and sampling: only the model moved.
    assert row.old_triples[0][1:] == row.new_triples[0][1:]
    assert row.figures["agreement"] == 0.75 and row.figures["n"] == 24
    assert row.written == str(switching.contract) and row.accepted_failed == ""
    assert row.summary().startswith(
        f"succession {row.succession_id} of judge strict: {OLD_MODEL} -> {NEW_MODEL} "
        f"(trial {trial_id}, pass: agreement 0.750, kappa "
    )
    switching.run()
    text, document = audit(switching.target)
    assert text.exit_code == 0, text.output
    assert "judge drift: none" in text.stdout
    assert "judge successions (recorded, not drift): 3 change(s)" in text.stdout
    assert "judge trialled/strict (binary verdicts) at run " in text.stdout
    assert f"(claims careful, factual): {row.summary()}" in text.stdout
    assert document["drift"] == []
    markdown = cli("audit", "--store", switching.target, "--format", "markdown").stdout
    assert "### judge drift: none" in markdown
    assert "### judge successions (recorded, not drift): 3 change(s)" in markdown
    assert "(claims `careful`, `factual`) at run " in markdown and row.summary() in markdown
    judged = [c for c in document["successions"] if c["scope"] == "judge"]
    assert [c["succession"] for c in judged] == [row.summary()]
    assert judged[0]["before"]["model_id"] == OLD_MODEL
    assert judged[0]["after"]["model_id"] == NEW_MODEL
    assert {c["subject"] for c in document["successions"] if c["scope"] == "claim"} == {
        "careful",
        "factual",
    }
    judges = cli("judges", "--store", switching.target, "--format", "json")
    successors = {j["model"]: j["successor"] for j in json.loads(judges.stdout)}
    old_triple, new_triple = row.old_triples[0], row.new_triples[0]
    assert successors == {
        OLD_MODEL: {
            "succession_id": row.succession_id,
            "model": NEW_MODEL,
            "prompt_sha": new_triple[1],
            "sampling_sha": new_triple[2],
            "trial_id": trial_id,
            "outcome": "pass",
        },
        NEW_MODEL: None,
    }
    assert old_triple[0] == OLD_MODEL
    table = cli("judges", "--store", switching.target).stdout.splitlines()
    assert table[0].split()[-1] == "SUCCESSOR"
    assert table[1].endswith(f"{NEW_MODEL} ({row.succession_id[:8]})")
    assert table[2].endswith(" -")


def test_without_the_succession_the_change_is_drift_and_an_edited_record_fails_the_audit(
    switching: Switching,
) -> None:
    trial_id = trial(switching)
    text = switching.contract.read_text(encoding="utf-8")
    switching.contract.write_text(text.replace(OLD_MODEL, NEW_MODEL), encoding="utf-8")
    switching.run()
    drifted, document = audit(switching.target)
    assert drifted.exit_code == 0, drifted.output
    assert "judge drift: 3 change(s)" in drifted.stdout
    assert f"served model {OLD_MODEL} -> {NEW_MODEL}" in drifted.stdout
    assert "judge successions" not in drifted.stdout
    assert len(document["drift"]) == 3 and document["successions"] == []

    recorded = switch(switching.target, "--trial", trial_id, "--format", "json")
    assert recorded.exit_code == 0, recorded.output
    (row,) = Lineage.read(switching.target).rows
    assert row.written == ""
    printed = json.loads(recorded.stdout)
    assert printed["summary"] == row.summary() and printed["written"] is None
    assert printed["succession"]["succession_id"] == row.succession_id
    assert printed["succession"]["old_triples"] == row.old_triples
    explained, document = audit(switching.target)
    assert explained.exit_code == 0, explained.output
    assert "judge drift: none" in explained.stdout and row.summary() in explained.stdout
    assert document["drift"] == [] and len(document["successions"]) == 3

    # An edited trial fails the audit; the succession stands on its own seal.
    switching.backend.tamper(("UPDATE trials SET outcome = 'fail'", ()))
    edited, _ = audit(switching.target)
    assert edited.exit_code == 1, edited.output
    assert "trials: 1 row(s) no seal vouches for" in edited.stdout
    assert row.summary() in edited.stdout
    # An edited succession explains nothing: the change is drift again, and the audit fails.
    switching.backend.tamper(("UPDATE successions SET outcome = 'undecided'", ()))
    edited, document = audit(switching.target)
    assert edited.exit_code == 1, edited.output
    assert f"successions: 1 row(s) no seal vouches for (e.g. succession {row.succession_id}" in (
        edited.stdout
    )
    assert "judge drift: 3 change(s)" in edited.stdout
    assert document["successions"] == [] and len(document["drift"]) == 3


def test_a_change_past_the_successor_stays_drift(switching: Switching) -> None:
    trial_id = trial(switching)
    assert (
        switch(switching.target, "--trial", trial_id, "--write", str(switching.contract)).exit_code
        == 0
    )
    switching.run()
    later = "claude-opus-4-5-20251101"
    text = switching.contract.read_text(encoding="utf-8")
    switching.contract.write_text(text.replace(NEW_MODEL, later), encoding="utf-8")
    switching.run()
    _, document = audit(switching.target)
    assert {(c["before"]["model_id"], c["after"]["model_id"]) for c in document["drift"]} == {
        (NEW_MODEL, later)
    }
    assert {(c["before"]["model_id"], c["after"]["model_id"]) for c in document["successions"]} == {
        (OLD_MODEL, NEW_MODEL)
    }
    with SuccessionStore(switching.target, read_only=True) as successions:
        assert len(successions.all()) == 1

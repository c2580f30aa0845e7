"""``verifier check`` beside a store's judge successions: a judge switched to the pinned
model whose claim is calibrated on the model it succeeded is told to re-calibrate, the
trial quoted as the reason and never credited as a calibration; a judge still pinning a
model the store records a succession off (one that retires) is named with it. In SQLite
and PostgreSQL."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from tests._cli import cli
from tests.compare.test_calibration_store import (
    BINARY_PROMPT,
    CONTRACT,
    SAMPLING,
    SCALE_PROMPT,
    SERVED,
    calibration,
    save,
)
from tests.gaps.conftest import postgres_server, postgres_url  # noqa: F401 (fixtures)
from tests.gaps.test_successions import SWITCH
from verifier.gaps.successions import SuccessionStore

OLD_MODEL = "claude-sonnet-4-5-20250929"
"""The model the fixture's judge succeeded (it retires on 2026-11-30)."""

SUCCESSION = dataclasses.replace(
    SWITCH,
    contract_id="support-replies",
    old_triples=[[OLD_MODEL, BINARY_PROMPT, SAMPLING], [OLD_MODEL, SCALE_PROMPT, SAMPLING]],
    new_triples=[[SERVED, BINARY_PROMPT, SAMPLING], [SERVED, SCALE_PROMPT, SAMPLING]],
)
SUMMARY = (
    f"succession s1 of judge strict: {OLD_MODEL} -> {SERVED} (trial t1, pass: agreement "
    "0.950, kappa 0.900 [0.800, 1.000], pass-rate shift +0.010 [-0.020, +0.040])"
)
NO_CALIBRATION = (
    "has no calibration against human labels and no measured test-retest agreement, yet "
    "decides pass/fail; run `verifier calibrate --labels FILE` on a run of this contract, "
    "or `verifier audit --resample N --run RUN`"
)


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store on each backend holding a sealed calibration of claim no_guessing by the
    old model (under its old triple)."""
    found = (
        str(tmp_path / "gaps.db")
        if request.param == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    old = calibration("no_guessing", n=40, kappa=0.85, model=OLD_MODEL, requested=OLD_MODEL)
    save(found, old, run_id="run-old")
    return found


def _warnings(contract: Path, target: str) -> list[str]:
    result = cli("check", str(contract), "--store", target)
    assert result.exit_code == 0, result.output
    return [line for line in result.output.splitlines() if ": warning: " in line]


def test_without_a_succession_the_old_models_calibration_is_not_found(target: str) -> None:
    assert _warnings(CONTRACT, target) == [
        f"{CONTRACT}:15:5: warning: claim 'no_guessing': judge 'strict' ({SERVED}, prompt "
        f"{BINARY_PROMPT[:12]}) {NO_CALIBRATION}",
        f"{CONTRACT}:19:5: warning: claim 'formal_tone': judge 'strict' ({SERVED}, prompt "
        f"{SCALE_PROMPT[:12]}) {NO_CALIBRATION}",
    ]


def test_a_succeeded_judge_is_told_to_recalibrate_with_the_trial_as_the_reason(
    target: str,
) -> None:
    with SuccessionStore(target) as successions:
        successions.save(SUCCESSION)
    assert _warnings(CONTRACT, target) == [
        f"{CONTRACT}:15:5: warning: claim 'no_guessing': judge 'strict' ({SERVED}, prompt "
        f"{BINARY_PROMPT[:12]}) succeeded {OLD_MODEL} (succession s1, trial t1: agreement "
        f"0.950, kappa 0.900 [0.800, 1.000]); its calibration (run run-old) is of {OLD_MODEL}: "
        f"re-calibrate (`verifier calibrate --labels FILE --trial t1`, or on a run {SERVED} "
        "judged); the trial's agreement is a reason to re-calibrate, not a calibration",
        # No calibration of formal_tone by either model: said as without a succession.
        f"{CONTRACT}:19:5: warning: claim 'formal_tone': judge 'strict' ({SERVED}, prompt "
        f"{SCALE_PROMPT[:12]}) {NO_CALIBRATION}",
    ]
    # Once the new model is calibrated, the claim is, and nothing is said of the old.
    save(target, calibration("no_guessing", n=40, kappa=0.85), run_id="run-new")
    assert [w for w in _warnings(CONTRACT, target) if "no_guessing" in w] == []


@pytest.mark.parametrize(
    "other",
    [{"judge": "lenient"}, {"contract_id": "another"}, {"new_triples": [["x", "p", "s"]]}],
    ids=["another judge", "another contract", "to another model"],
)
def test_a_succession_of_another_judge_or_model_changes_nothing(
    tmp_path: Path, other: dict[str, Any]
) -> None:
    target = str(tmp_path / "gaps.db")
    old = calibration("no_guessing", n=40, kappa=0.85, model=OLD_MODEL, requested=OLD_MODEL)
    save(tmp_path / "gaps.db", old)
    with SuccessionStore(target) as successions:
        successions.save(dataclasses.replace(SUCCESSION, **other))
    found = _warnings(CONTRACT, target)
    assert len(found) == 2 and all(w.endswith(NO_CALIBRATION) for w in found)


def test_a_judge_still_pinning_a_retiring_model_is_named_its_successor(tmp_path: Path) -> None:
    contract = tmp_path / "replies.yaml"
    text = CONTRACT.read_text(encoding="utf-8")
    contract.write_text(text.replace(f"model: {SERVED}", f"model: {OLD_MODEL}"), encoding="utf-8")
    target = str(tmp_path / "gaps.db")
    with SuccessionStore(target) as successions:
        successions.save(SUCCESSION)
    found = _warnings(contract, target)
    assert found[1] == (
        f"{contract}:8:12: warning: judge 'strict': model '{OLD_MODEL}' retires on 2026-11-30 "
        f"and has a recorded successor: {SUMMARY}; pin {SERVED} in this contract to judge "
        "as the store's lineage does"
    )
    # Beside the provider's own retirement warning, at the same place.
    assert found[0].startswith(
        f"{contract}:8:12: warning: judge 'strict': model '{OLD_MODEL}' is deprecated and "
        "retires on 2026-11-30"
    )

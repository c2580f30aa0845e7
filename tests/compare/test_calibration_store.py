"""Calibrations stored under the judge's triple, and `verifier check`'s warnings about them."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from verifier.compare.calibrate import Confusion
from verifier.compare.calibration_check import CalibrationCheck
from verifier.compare.calibration_claim import claim_wording
from verifier.compare.calibration_report import CalibrationReport, ClaimCalibration
from verifier.compare.calibration_store import CalibrationStore
from verifier.contract.judge_template import builtin_template_bytes, parse_template
from verifier.contract.load import load_contract
from verifier.contract.models import JudgeClaim
from verifier.gaps.side_tables import sqlite_path
from verifier.judge.prompt import judge_prompt_sha

CONTRACT = FIXTURES / "calibrate" / "replies.yaml"
SERVED = "claude-haiku-4-5-20251001"
# The triple parts of the fixture's judge, computed here from their definitions: the
# built-in templates' bytes, and canonical JSON of what an anthropic call sends.
# A judge's prompt_sha: its template with the verdict tool and rendering (ADR 0032).
BINARY_PROMPT = judge_prompt_sha(
    parse_template(builtin_template_bytes("binary"), source="b", kind="binary"), "binary"
)
SCALE_PROMPT = judge_prompt_sha(
    parse_template(builtin_template_bytes("scale"), source="s", kind="scale"), "scale"
)
SAMPLING = hashlib.sha256(b'{"max_tokens":512}').hexdigest()
# What each judge claim of the fixture asks its judge, as a calibration records it.
WORDING = {
    claim.id: claim_wording(claim).text
    for claim in load_contract(CONTRACT).contract.claims
    if isinstance(claim, JudgeClaim)
}


def calibration(
    claim_id: str,
    *,
    n: int,
    kappa: float | None,
    model: str = SERVED,
    requested: str = SERVED,
    prompt_sha: str = BINARY_PROMPT,
    sampling_sha: str = SAMPLING,
    wording: str | None = "",
) -> ClaimCalibration:
    return ClaimCalibration(
        contract_id="support-replies",
        claim_id=claim_id,
        model_id=model,
        requested_model=requested,
        prompt_sha=prompt_sha,
        sampling_sha=sampling_sha,
        n=n,
        confusion=Confusion(both_pass=n),
        agreement=1.0,
        kappa=kappa,
        band=None,
        scored=0,
        spearman=None,
        pearson=None,
        raters=("ann",),
        alpha={},
        ties=(),
        unlabelled=0,
        disagreements=(),
        claim_wording=WORDING.get(claim_id) if wording == "" else wording,
    )


def save(path: Path | str, *claims: ClaimCalibration, run_id: str = "run-1") -> None:
    report = CalibrationReport(run_id, "labels.jsonl", "d" * 64, 40, claims, ())
    with CalibrationStore(path) as store:
        assert store.save(report) == len(claims)


def warnings(path: Path | str) -> tuple[list[str], list[str]]:
    notes: list[str] = []
    check = CalibrationCheck(str(path), note=notes.append)
    found = [str(w) for w in check.warnings(load_contract(CONTRACT))]
    return found, notes


def test_a_calibration_is_stored_under_its_triple(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    save(path, calibration("no_guessing", n=24, kappa=0.75))
    with sqlite3.connect(path) as conn:
        (stored,) = conn.execute(
            "SELECT model_id, prompt_sha, sampling_sha, claim_id, n, kappa, agreement, run_id,"
            " labels_sha256, created_at FROM calibrations"
        ).fetchall()
    assert stored[:9] == (
        SERVED,
        BINARY_PROMPT,
        SAMPLING,
        "no_guessing",
        24,
        0.75,
        1.0,
        "run-1",
        "d" * 64,
    )
    assert stored[9].endswith("Z")
    with CalibrationStore(path) as store:
        found = store.latest(
            contract_id="support-replies",
            claim_id="no_guessing",
            model=SERVED,
            prompt_sha=BINARY_PROMPT,
            sampling_sha=SAMPLING,
        )
        assert found is not None and found.statistics["confusion"]["human_pass_judge_pass"] == 24
        other = store.latest(
            contract_id="support-replies",
            claim_id="no_guessing",
            model=SERVED,
            prompt_sha=BINARY_PROMPT,
            sampling_sha="e" * 64,
        )
        assert other is None


def test_check_warns_once_when_there_is_no_store(tmp_path: Path) -> None:
    notes: list[str] = []
    check = CalibrationCheck(str(tmp_path / "none.db"), note=notes.append)
    loaded = load_contract(CONTRACT)
    assert check.warnings(loaded) == [] and check.warnings(loaded) == []
    assert len(notes) == 1 and notes[0].startswith("no calibration store found")
    assert not (tmp_path / "none.db").exists()


def test_check_warns_about_every_judge_claim_without_calibration(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    sqlite3.connect(path).close()  # a store file without a calibrations table
    found, notes = warnings(path)
    assert notes == []
    assert len(found) == 2
    assert found[0].startswith(f"{CONTRACT}:15:5: warning: claim 'no_guessing'")
    assert found[1].startswith(f"{CONTRACT}:19:5: warning: claim 'formal_tone'")
    assert all("has no calibration against human labels" in w for w in found)


def test_check_warns_about_fewer_than_twenty_labelled_cases(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    save(
        path,
        calibration("no_guessing", n=19, kappa=0.9),
        calibration("formal_tone", n=30, kappa=0.8, prompt_sha=SCALE_PROMPT),
    )
    (found,), _ = warnings(path)
    assert "claim 'no_guessing'" in found
    assert "calibrated on 19 labelled cases only (run run-1); at least 20 are needed" in found


def test_check_warns_about_a_kappa_under_0_6(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    save(
        path,
        calibration("no_guessing", n=40, kappa=0.59),
        calibration("formal_tone", n=40, kappa=None, prompt_sha=SCALE_PROMPT),
    )
    found, _ = warnings(path)
    assert "kappa 0.59 (moderate)" in found[0] and "under 0.6" in found[0]
    assert "undefined kappa" in found[1]


def test_check_is_silent_with_twenty_cases_and_kappa_0_6(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    save(
        path,
        calibration("no_guessing", n=20, kappa=0.6),
        calibration("formal_tone", n=25, kappa=0.91, prompt_sha=SCALE_PROMPT),
    )
    assert warnings(path) == ([], [])


def test_the_newest_calibration_of_a_triple_decides(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    save(path, calibration("no_guessing", n=40, kappa=0.9), run_id="run-1")
    save(path, calibration("no_guessing", n=40, kappa=0.3), run_id="run-2")
    found, _ = warnings(path)
    assert any("kappa 0.30 (fair)" in w and "run-2" in w for w in found)


def test_a_calibration_served_by_another_model_is_named_not_credited(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    save(
        path,
        # Served under another name than the contract requests: found by the request,
        # and named, since those verdicts are not the pinned model's.
        calibration("no_guessing", n=40, kappa=0.9, model="claude-haiku-4-5-x", requested=SERVED),
        # Another judge model entirely: no match.
        calibration(
            "formal_tone",
            n=40,
            kappa=0.9,
            model="claude-sonnet-4-5",
            requested="claude-sonnet-4-5",
            prompt_sha=SCALE_PROMPT,
        ),
    )
    found, _ = warnings(path)
    assert len(found) == 2
    assert "claim 'no_guessing'" in found[0]
    assert (
        f"is calibrated only on verdicts served by claude-haiku-4-5-x (run run-1), not by {SERVED}"
        in found[0]
    )
    assert "claim 'formal_tone'" in found[1] and "has no calibration" in found[1]
    # Once the pinned model's own verdicts are calibrated, they are the ones found.
    save(path, calibration("no_guessing", n=40, kappa=0.9, model=SERVED, requested=SERVED))
    save(path, calibration("no_guessing", n=40, kappa=0.9, model="other", requested=SERVED))
    found, _ = warnings(path)
    assert len(found) == 1 and "claim 'formal_tone'" in found[0]


def test_a_changed_sampling_or_template_needs_a_new_calibration(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    save(
        path,
        calibration("no_guessing", n=40, kappa=0.9, sampling_sha="e" * 64),
        calibration("formal_tone", n=40, kappa=0.9, prompt_sha=BINARY_PROMPT),
    )
    found, _ = warnings(path)
    assert len(found) == 2 and all("has no calibration" in w for w in found)


@pytest.mark.parametrize(
    ("target", "path"),
    [
        (".verifier/gaps.db", ".verifier/gaps.db"),
        ("sqlite:///rel/gaps.db", "rel/gaps.db"),
        ("sqlite:////abs/gaps.db", "/abs/gaps.db"),
        ("postgresql://u@h/db", None),
    ],
)
def test_sqlite_path_of_store_targets(target: str, path: str | None) -> None:
    assert sqlite_path(target) == path


def test_an_unreachable_postgres_store_is_noted_not_checked() -> None:
    found, notes = warnings("postgresql://user@nohost.invalid/db")
    assert found == [] and len(notes) == 1
    assert notes[0].startswith("calibrations in postgresql://user@nohost.invalid/db: ")
    assert notes[0].endswith("; judge calibrations not checked")

"""``verifier calibrate --trial``: a trial's re-asked verdicts scored against human
labels, the calibration stored sealed under the candidate's triple, and found by
``verifier check`` once the contract names the candidate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._cli import cli
from tests.judge.messages_server import MessagesServer
from tests.trial._support import KEY, NEW_MODEL, OLD_MODEL, write_contract
from verifier.compare.calibration_store import CalibrationStore
from verifier.run.api import run_contract
from verifier.run.assembly import Judges

# 24 cases: odd ones pass (the judge), even ones guess and fail; the candidate turns
# c01's factual verdict to fail and c02's to pass.
OUTPUTS = {
    f"c{n:02d}": ("All is known." if n % 2 else "I guess so.")
    + (" flip-factual" if n in (1, 2) else "")
    for n in range(1, 25)
}


@pytest.fixture
def judged(tmp_path: Path, server: MessagesServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The contract, a store of one live run of its 24 cases, and people's labels
    that agree with the stored verdicts of ``factual`` (and score two tones)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    contract, cases = write_contract(tmp_path)
    lines = [json.dumps({"id": k, "input": "Brief.", "output": v}) for k, v in OUTPUTS.items()]
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    judges = Judges(mode="live", base_url=server.base_url, recordings_beside_contract=False)
    run_contract(contract, cases, store=str(tmp_path / "gaps.db"), judges=judges)
    labels: list[dict[str, object]] = [
        {"case_id": k, "claim_id": "factual", "label": "fail" if "guess" in v else "pass"}
        for k, v in OUTPUTS.items()
    ]
    labels += [{"case_id": c, "claim_id": "tone", "label": 5} for c in ("c01", "c03")]
    (tmp_path / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels))
    # The contract as it reads after the switch: judge strict on the candidate.
    text = contract.read_text().replace(f"model: {OLD_MODEL}", f"model: {NEW_MODEL}", 1)
    (tmp_path / "switched.yaml").write_text(text, encoding="utf-8")
    server.requests.clear()
    return tmp_path


def warnings_of(folder: Path) -> dict[str, str]:
    check = cli("check", str(folder / "switched.yaml"), "--store", str(folder / "gaps.db"))
    assert check.exit_code == 0, check.output
    found = [line for line in check.output.splitlines() if "warning: claim '" in line]
    return {w.split("claim '")[1].split("'")[0]: w for w in found}


def test_a_trials_candidate_is_calibrated_and_check_finds_it_after_the_switch(
    judged: Path, server: MessagesServer
) -> None:
    store = str(judged / "gaps.db")
    assert "has no calibration" in warnings_of(judged)["factual"]
    trial = cli(
        "judge", "trial", "strict", "--to", NEW_MODEL, "--store", store,
        "--base-url", server.base_url, "--format", "json",
        env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": None},
    )  # fmt: skip
    trial_id = json.loads(trial.stdout)["trial_id"]
    assert len(server.model_calls()) == 48  # 24 cases, two claims of judge strict
    done = cli(
        "calibrate", "--labels", str(judged / "labels.jsonl"), "--trial", trial_id,
        "--store", store, "--format", "json",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["trial_id"] == trial_id and report["run_id"] == f"trial-{trial_id}"
    (factual,) = report["claims"]
    assert factual["claim_id"] == "factual" and factual["judge"]["model_id"] == NEW_MODEL
    # People against the candidate: 11 both pass, c01 people pass / candidate fail,
    # c02 the other way, 11 both fail. p_o = 22/24, p_e = 1/2: kappa = 5/6.
    assert factual["confusion"] == {
        "human_pass_judge_pass": 11, "human_pass_judge_fail": 1,
        "human_fail_judge_pass": 1, "human_fail_judge_fail": 11,
    }  # fmt: skip
    assert factual["n"] == 24 and factual["kappa"] == pytest.approx(5 / 6)
    assert [u["claim_id"] for u in report["unmatched"]] == ["tone", "tone"]
    assert all(f"trial {trial_id} did not re-ask" in u["reason"] for u in report["unmatched"])
    assert (
        f"24 of 26 labelled cases were in trial {trial_id}; re-run the trial with "
        "--sample 48" in done.stderr
    )
    with CalibrationStore(store, read_only=True) as calibrations:
        (kept,) = calibrations.all()
    assert kept.sealed and kept.model_id == NEW_MODEL and kept.requested_model == NEW_MODEL
    assert kept.kappa == pytest.approx(5 / 6) and kept.n == 24
    assert kept.statistics["trial_id"] == trial_id and kept.claim_sha is not None
    # After the switch, check credits the calibration: 24 labels at kappa 0.83.
    warned = warnings_of(judged)
    assert "factual" not in warned
    assert "has no calibration" in warned["careful"]
    assert cli("audit", "--store", store).exit_code == 0


def test_a_trial_not_in_the_store_or_with_a_run_is_refused(judged: Path) -> None:
    store = str(judged / "gaps.db")
    labels = str(judged / "labels.jsonl")
    missing = cli("calibrate", "--labels", labels, "--trial", "nosuchtrial", "--store", store)
    assert missing.exit_code == 2
    assert missing.stderr.strip() == (
        f"error: no trial nosuchtrial in {store}: `verifier judge trial` records one"
    )
    both = cli("calibrate", "--labels", labels, "--trial", "x", "--run", "last", "--store", store)
    assert both.exit_code == 2 and "give one" in both.stderr


def test_a_trials_scores_are_calibrated_on_the_scale(judged: Path) -> None:
    from verifier.compare.calibration_trial import calibrate_trial
    from verifier.compare.labels import read_labels
    from verifier.gaps.store import open_store
    from verifier.gaps.trials import TrialRow

    def kept(case: str, new: int) -> dict[str, object]:
        return {
            "case_id": case, "claim_id": "tone", "contract_id": "trialled",
            "new": "pass" if new >= 4 else "fail", "new_score": new, "new_reason": "scored",
            "scale": {"min": 1, "max": 5, "pass_at": 4},
            "new_triple": {"model_id": NEW_MODEL, "prompt_sha": "p", "sampling_sha": "s"},
        }  # fmt: skip

    trial = TrialRow(
        "2026-11-28T00:00:00Z", "t1", "scorer", NEW_MODEL, "", "", 0, 4, {}, "fail",
        {"eligible": 24}, [kept("c01", 5), kept("c02", 4), kept("c03", 2), kept("c04", 1)],
    )  # fmt: skip
    people = {"c01": 5, "c02": 3, "c03": 2, "c04": 2}
    path = judged / "scores.jsonl"
    path.write_text("".join(json.dumps({"case_id": c, "claim_id": "tone", "label": s}) + "\n"
                            for c, s in people.items()))  # fmt: skip
    with open_store(str(judged / "gaps.db")) as gap_store:
        calibrated = calibrate_trial(gap_store, trial, read_labels(path))
    (tone,) = calibrated.report.claims
    assert calibrated.coverage() is None and tone.model_id == NEW_MODEL
    # People 5, 3, 2, 2 against the candidate's 5, 4, 2, 1: pass at 4 on both sides,
    # one disagreement (c02: people fail, candidate pass).
    assert tone.confusion.human_fail_judge_pass == 1 and tone.n == 4
    h, j = [5, 3, 2, 2], [5, 4, 2, 1]
    observed = sum((a - b) ** 2 for a, b in zip(h, j, strict=True)) / 4
    expected = sum((a - b) ** 2 for a in h for b in j) / 16
    assert tone.weighted_kappa == pytest.approx(1 - observed / expected)

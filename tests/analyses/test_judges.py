"""`store_judges`: every judge triple a store holds verdicts from, read in one pass."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tests.analyses._history import day, judge_evidence, plant_run, result
from tests.analyses._judged_store import RETIRING, judged_store
from tests.gaps._backends import Backend
from tests.gaps._support import TRIPLE, begin
from verifier.analyses.judges import (
    JudgeCalibration,
    ResampleAgreement,
    StoredJudge,
    VerdictCounts,
    store_judges,
)
from verifier.compare.calibration_store import CalibrationStore
from verifier.gaps.resamples import ResampleRow, ResampleStore
from verifier.gaps.store import open_store
from verifier.llm.providers._sdk_tables import retirement_dates
from verifier.llm.providers.retirement import parse_retirement

TODAY = dt.date(2026, 11, 1)
GRADED = {"tone": judge_evidence()}


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return judged_store(tmp_path_factory.mktemp("judges"))


def judges_of(target: Path | str, contract_id: str | None = None) -> list[StoredJudge]:
    with (
        open_store(str(target)) as store,
        CalibrationStore(target, read_only=True) as calibrations,
        ResampleStore(str(target), read_only=True) as resamples,
    ):
        return store_judges(
            store,
            contract_id=contract_id,
            calibrations=calibrations,
            resamples=resamples,
            today=TODAY,
        )


def test_each_judge_and_triple_of_two_contracts_is_listed_with_its_claims_and_counts(
    judged: Path,
) -> None:
    found = judges_of(judged)
    assert [(j.contract, j.judge, j.model, j.claims) for j in found] == [
        ("account-research", "strict", "example/hand-written", ("executive_tone",)),
        ("account-research", "strict", "example/hand-written", ("gaps_acknowledged",)),
        ("support-replies", "strict", RETIRING, ("formal_tone",)),
        ("support-replies", "strict", RETIRING, ("no_guessing",)),
    ]
    tone, gaps, scale, binary = found
    # The example replays five cases per run, twice; the fixture judges 24 of 25 cases.
    assert tone.verdicts == VerdictCounts(passed=6, failed=4, errors=0, scored=10)
    assert gaps.verdicts == VerdictCounts(passed=6, failed=0, errors=0, scored=0)
    assert (scale.verdicts.passed + scale.verdicts.failed, scale.verdicts.scored) == (24, 24)
    assert binary.verdicts.scored == 0 and binary.verdicts.errors == 0
    assert tone.asked_model == "claude-haiku-4-5-20251001"
    assert binary.asked_model == RETIRING
    # Binary and scale claims are asked with their own templates, so their own triples.
    assert tone.prompt_sha != gaps.prompt_sha and tone.sampling_sha == gaps.sampling_sha
    assert all(len(j.prompt_sha) == 64 and len(j.sampling_sha) == 64 for j in found)


def test_first_and_last_use_are_the_start_times_of_the_runs_it_judged_in(judged: Path) -> None:
    with open_store(str(judged)) as store:
        starts = {r.contract_id: [] for r in store.runs()}
        for run in sorted(store.runs(), key=lambda r: r.started_at):
            starts[run.contract_id].append(run.started_at)
    example, replies = starts["account-research"], starts["support-replies"]
    assert len(example) == 2 and example[0] < example[1]
    for judge in judges_of(judged):
        expected = example if judge.contract == "account-research" else replies
        assert (judge.first_used, judge.last_used) == (expected[0], expected[-1])


def test_a_calibration_is_shown_for_the_triple_it_was_stored_under(judged: Path) -> None:
    with CalibrationStore(judged, read_only=True) as store:
        stored = {c.claim_id: c for c in store.all()}
    assert set(stored) == {"no_guessing", "formal_tone"}
    found = {j.claims: j for j in judges_of(judged)}
    for claim_id, calibration in stored.items():
        assert found[(claim_id,)].calibration == JudgeCalibration(calibration.kappa, calibration.n)
    assert found[("no_guessing",)].calibration is not None
    assert found[("no_guessing",)].calibration.labels == 24
    assert found[("executive_tone",)].calibration is None


def test_a_judge_pinned_to_a_retiring_model_shows_the_sdks_retirement_date(judged: Path) -> None:
    listed = retirement_dates().get(RETIRING)
    assert listed is not None, "the installed anthropic SDK no longer lists the model"
    retires = parse_retirement(listed)
    assert retires is not None
    for judge in judges_of(judged):
        if judge.model == RETIRING:
            assert judge.retires_on == retires
            assert judge.days_left == (retires - TODAY).days
            assert judge.as_dict()["retires_on"] == retires.isoformat()
        else:
            assert (judge.retires_on, judge.days_left) == (None, None)


def test_only_the_contract_asked_about_is_listed(judged: Path) -> None:
    found = judges_of(judged, contract_id="support-replies")
    assert {j.contract for j in found} == {"support-replies"} and len(found) == 2
    assert judges_of(judged, contract_id="no-such-contract") == []


def test_statuses_errors_and_runs_are_counted_per_triple(tmp_path: Path) -> None:
    other = judge_evidence(judge_name="second", model_id="claude-opus-4-1-20250805")
    with open_store(str(tmp_path / "gaps.db")) as store:
        plant_run(store, "r1", started_at=day(1), passes={"tone": (2, 3)}, evidence=GRADED)
        plant_run(
            store, "r2", started_at=day(3), passes={"tone": (1, 1), "cites": (4, 4)},
            evidence={"tone": other},
        )  # fmt: skip
        begin(store, "r3", started_at=day(2))
        store.append(
            [
                result("r3", 1, "tone", "error", evidence=judge_evidence()),
                result("r3", 2, "polite", "pass", evidence=judge_evidence()),
                # No full triple: nothing tells who judged, so no judge is listed for it.
                result("r3", 3, "tone", "pass", evidence=judge_evidence(model_id="")),
            ]
        )
        found = store_judges(store, today=TODAY)
    assert [(j.judge, j.model, j.claims, j.verdicts) for j in found] == [
        ("grader", TRIPLE["model_id"], ("polite", "tone"), VerdictCounts(3, 1, 1)),
        ("second", "claude-opus-4-1-20250805", ("tone",), VerdictCounts(1, 0, 0)),
    ]
    grader, second = found
    assert (grader.first_used, grader.last_used) == (day(1), day(2))
    assert (second.first_used, second.last_used) == (day(3), day(3))
    assert grader.calibration is None and grader.resample_agreement is None
    assert grader.as_dict()["successor"] is None


def test_resamples_of_a_triples_claims_give_its_agreement(store_backend: Backend) -> None:
    target = store_backend.target
    with store_backend.open() as store:
        plant_run(store, "r1", started_at=day(1), passes={"tone": (2, 2)}, evidence=GRADED)
    rows = [
        ResampleRow(
            day(2), "rs1", "r1", 7, "demo", f"case-{n}", claim, model, "claude-haiku-4-5",
            TRIPLE["prompt_sha"], TRIPLE["sampling_sha"], "pass", "pass", agreed,
        )
        for n, claim, model, agreed in [
            (1, "tone", TRIPLE["model_id"], True),
            (2, "tone", TRIPLE["model_id"], False),
            (3, "tone", TRIPLE["model_id"], True),
            (4, "other", TRIPLE["model_id"], False),  # not a claim this judge answered
            (5, "tone", "another-model", False),  # another triple
        ]
    ]  # fmt: skip
    with ResampleStore(target) as resamples:
        resamples.save(rows)
    (judge,) = judges_of(target)
    assert judge.resample_agreement == ResampleAgreement(asked=3, agreed=2)
    assert judge.as_dict()["resample_agreement"] == {
        "agreement": round(2 / 3, 6),
        "asked": 3,
        "agreed": 2,
    }
    # A retest edited behind verifier's back no longer matches its seal: none is credited.
    store_backend.tamper("UPDATE resamples SET agreed = 1 WHERE case_id = 'case-2'")
    (judge,) = judges_of(target)
    assert judge.resample_agreement is None


def test_a_store_without_judge_verdicts_lists_none(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "gaps.db")) as store:
        assert store_judges(store) == []
        plant_run(store, "r1", started_at=day(1), passes={"cites": (3, 4)})
        assert store_judges(store) == []


def test_scale_verdicts_with_a_reference_or_without_are_counted_as_scored(tmp_path: Path) -> None:
    scale = {**judge_evidence(prompt_sha="c" * 64), "verdict_kind": "scale"}
    guided = {**judge_evidence(prompt_sha="d" * 64), "verdict_kind": "scale", "reference": "x"}
    binary = {**judge_evidence(), "verdict_kind": "binary"}
    with open_store(str(tmp_path / "gaps.db")) as store:
        evidence = {"tone": scale, "facts": guided, "polite": binary}
        passes = {"tone": (1, 2), "facts": (2, 3), "polite": (1, 1)}
        plant_run(store, "r1", started_at=day(1), passes=passes, evidence=evidence)
        found = {j.claims: j.verdicts for j in store_judges(store)}
    assert found == {
        ("tone",): VerdictCounts(1, 1, 0, scored=2),
        ("facts",): VerdictCounts(2, 1, 0, scored=3),
        ("polite",): VerdictCounts(1, 0, 0, scored=0),
    }

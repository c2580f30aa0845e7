"""Pass-rate trends per claim per run and per day, and the degradation rule."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from tests.analyses._history import day, judge_evidence, plant_run
from tests.gaps._backends import Backend
from verifier.analyses.history import HistoryAudit, audit_history
from verifier.analyses.trends import (
    ZERO_VARIANCE_TOLERANCE,
    ClaimTrend,
    RunRate,
    degradation_alerts,
)
from verifier.gaps.sqlite.store import SqliteStore
from verifier.results import ClaimTally

# Five steady runs: mean 0.902, sample sd 0.014832, so the alert line is 0.872336.
STEADY = [0.90, 0.92, 0.88, 0.91, 0.90]


def trend(*rates: float, claim: str = "cites") -> ClaimTrend:
    """A claim whose run n passed ``rate`` of 100 cases."""
    runs = []
    for n, rate in enumerate(rates, start=1):
        passed = round(rate * 100)
        runs.append(RunRate(f"run-{n}", day(n), ClaimTally(passed=passed, failed=100 - passed)))
    return ClaimTrend("demo", claim, tuple(runs), ())


def audited(path: Path, *, run_id: str | None = None, window: int = 5) -> HistoryAudit:
    with SqliteStore(path) as store:
        return audit_history(store, run_id, window=window)


def test_the_hand_computed_steady_history() -> None:
    assert statistics.fmean(STEADY) == pytest.approx(0.902)
    assert statistics.stdev(STEADY) == pytest.approx(0.0148324, abs=1e-6)


def test_a_drop_far_below_the_window_alerts() -> None:
    (alert,) = degradation_alerts(trend(*STEADY, 0.60))
    assert (alert.run_id, alert.pass_rate) == ("run-6", 0.60)
    assert alert.mean == pytest.approx(0.902)
    assert alert.stdev == pytest.approx(0.0148324, abs=1e-6)
    assert alert.threshold == pytest.approx(0.872335, abs=1e-6)
    assert alert.deviations == pytest.approx(20.36, abs=0.01)
    assert alert.prior_runs == ("run-1", "run-2", "run-3", "run-4", "run-5")
    assert "demo/cites at run run-6" in alert.describe()
    assert "20.4 sd below the mean 0.902" in alert.describe()


def test_a_drop_within_two_deviations_does_not_alert() -> None:
    assert degradation_alerts(trend(*STEADY, 0.88)) == []  # 1.48 sd below


def test_a_drop_just_past_two_deviations_alerts() -> None:
    (alert,) = degradation_alerts(trend(*STEADY, 0.87))  # 2.16 sd below 0.902
    assert alert.deviations == pytest.approx(2.157, abs=0.001)


def test_a_rise_never_alerts() -> None:
    assert degradation_alerts(trend(*STEADY, 1.0)) == []


def test_after_an_unvarying_history_any_drop_alerts() -> None:
    (alert,) = degradation_alerts(trend(1.0, 1.0, 1.0, 0.99))
    assert alert.stdev == 0 and alert.deviations is None
    assert alert.threshold == pytest.approx(1.0 - ZERO_VARIANCE_TOLERANCE)
    assert "pass rate 0.990 is below 1.000, the pass rate of each of the previous 3 runs (" in (
        alert.describe()
    )
    assert degradation_alerts(trend(1.0, 1.0, 1.0, 1.0)) == []


def test_fewer_than_three_earlier_runs_never_alert() -> None:
    assert degradation_alerts(trend(0.9, 0.9, 0.0)) == []
    assert len(degradation_alerts(trend(0.9, 0.9, 0.9, 0.0))) == 1


def test_the_window_limits_the_history_compared_with() -> None:
    rates = (0.5, 0.5, 0.9, 0.9, 0.9, 0.85)
    # Window 5: mean 0.74, sd 0.219; 0.85 is above the mean.
    assert degradation_alerts(trend(*rates), window=5) == []
    # Window 3: the last three runs were all 0.9.
    (alert,) = degradation_alerts(trend(*rates), window=3)
    assert alert.prior_runs == ("run-3", "run-4", "run-5")


def test_a_window_below_three_runs_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 3"):
        degradation_alerts(trend(*STEADY), window=2)


def test_each_run_is_judged_against_the_runs_before_it() -> None:
    alerts = degradation_alerts(trend(*STEADY, 0.60, 0.90, 0.10))
    # run-7 (0.90) is above the mean of 0.88 0.91 0.90 0.60 0.90; run-8 falls again.
    assert [a.run_id for a in alerts] == ["run-6", "run-8"]


def test_pass_rates_per_run_and_day_come_from_the_stored_rows(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        plant_run(store, "r1", started_at=day(1), passes={"cites": (9, 10), "tone": (5, 10)})
        plant_run(store, "r2", started_at=day(1, 15), passes={"cites": (7, 10)})
        plant_run(store, "r3", started_at=day(2), passes={"cites": (10, 10), "tone": (1, 4)})
    report = audited(path)
    by_name = {t.name: t for t in report.trends.claims}
    assert list(by_name) == ["demo/cites", "demo/tone"]
    cites = by_name["demo/cites"]
    assert [(r.run_id, r.tally.pass_rate) for r in cites.runs] == [
        ("r1", 0.9),
        ("r2", 0.7),
        ("r3", 1.0),
    ]
    assert [(d.day, d.tally.passed, d.tally.total) for d in cites.days] == [
        ("2026-11-01", 16, 20),
        ("2026-11-02", 10, 10),
    ]
    tone = by_name["demo/tone"]
    assert [r.run_id for r in tone.runs] == ["r1", "r3"]  # r2 did not check it
    assert [d.tally.pass_rate for d in tone.days] == [0.5, 0.25]
    assert report.trends.days == 2


def test_errors_count_against_the_pass_rate_and_skips_are_left_out(tmp_path: Path) -> None:
    from tests.analyses._history import result
    from tests.gaps._support import begin

    with SqliteStore(tmp_path / "gaps.db") as store:
        begin(store, "r1")
        store.append(
            [
                result("r1", 1, "cites", "pass"),
                result("r1", 2, "cites", "error"),
                result("r1", 3, "cites", "skipped"),
                result("r1", 4, "cites", "fail"),
            ]
        )
    (cites,) = audited(tmp_path / "gaps.db").trends.claims
    tally = cites.runs[0].tally
    assert (tally.passed, tally.failed, tally.errors, tally.skipped) == (1, 1, 1, 1)
    assert cites.runs[0].pass_rate == pytest.approx(1 / 3)


def test_runs_are_ordered_by_their_start_not_by_their_place_in_the_chain(
    tmp_path: Path,
) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        plant_run(store, "late", started_at=day(5), passes={"cites": (1, 10)})
        for n, rate in enumerate(STEADY, start=1):
            plant_run(store, f"r{n}", started_at=day(n), passes={"cites": (round(rate * 100), 100)})
    report = audited(path)
    assert [r.run_id for r in report.trends.runs] == ["r1", "r2", "r3", "r4", "late", "r5"]
    (alert,) = report.alerts
    assert alert.run_id == "late" and alert.prior_runs == ("r1", "r2", "r3", "r4")


def test_claims_of_different_contracts_are_kept_apart(tmp_path: Path) -> None:
    from tests.gaps._support import CONTRACT_SHA, CONTRACT_SOURCE

    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        plant_run(store, "r1", started_at=day(1), passes={"cites": (1, 2)})
        store.begin_run(
            "other",
            contract_id="other",
            contract_version=1,
            contract_sha256=CONTRACT_SHA,
            contract_path="contracts/other.yaml",
            contract_source=CONTRACT_SOURCE,
            started_at=day(2),
            options={},
        )
        from tests.analyses._history import result

        row = result("other", 1, "cites", "pass")
        row["contract_id"] = "other"
        store.append([row])
    names = [t.name for t in audited(path).trends.claims]
    assert names == ["demo/cites", "other/cites"]


def test_alerts_are_limited_to_the_run_asked_about(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        for n, rate in enumerate([*STEADY, 0.6, 0.9], start=1):
            plant_run(store, f"r{n}", started_at=day(n), passes={"cites": (round(rate * 100), 100)})
    assert [a.run_id for a in audited(path).alerts] == ["r6"]
    assert [a.run_id for a in audited(path, run_id="r6").alerts] == ["r6"]
    assert audited(path, run_id="r7").alerts == ()
    assert len(audited(path, run_id="r7").trends.claims[0].runs) == 7  # trends stay whole


def test_history_on_either_backend(store_backend: Backend) -> None:
    with store_backend.open() as store:
        for n, rate in enumerate([*STEADY, 0.6], start=1):
            served = "claude-haiku-4-5-20251001" if n < 4 else "claude-haiku-4-5-20260301"
            plant_run(
                store,
                f"r{n}",
                started_at=day(n),
                passes={"cites": (round(rate * 100), 100), "tone": (1, 1)},
                evidence={"tone": judge_evidence(model_id=served)},
            )
        report = audit_history(store)
    assert report.integrity.ok
    assert [(a.run_id, a.claim_id) for a in report.alerts] == [("r6", "cites")]
    assert [(c.scope, c.run_id) for c in report.drift] == [("judge", "r4"), ("claim", "r4")]


def test_variants_of_one_contract_are_separate_histories(tmp_path: Path) -> None:
    # Nightly --variant runs: the current system passes 9 of 10, the candidate 5 of 10.
    # Read as one history, every candidate run would be a drop against the current's.
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        for night in range(1, 6):
            for hour, (variant, passed) in enumerate((("current", 9), ("brief", 5))):
                plant_run(
                    store,
                    f"n{night}-{variant}",
                    started_at=day(night, 10 + hour),
                    passes={"short": (passed, 10)},
                    options={"variant": variant},
                )
    with SqliteStore(path) as store:
        report = audit_history(store)
    assert report.alerts == ()
    series = {t.name: [r.tally.passed for r in t.runs] for t in report.trends.claims}
    assert series == {"demo@brief/short": [5] * 5, "demo@current/short": [9] * 5}

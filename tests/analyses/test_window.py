"""Rolling windows of degradation alerts: a count of runs, or a span of time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._cli import cli
from tests.analyses._history import day, plant_history
from verifier.analyses.history import audit_history
from verifier.analyses.trends import ClaimTrend, RunRate, degradation_alerts
from verifier.analyses.window import parse_window
from verifier.gaps.sqlite.store import SqliteStore
from verifier.results import ClaimTally

STEADY = [0.90, 0.92, 0.88, 0.91, 0.90]


def trend(*points: tuple[int, float]) -> ClaimTrend:
    """A claim whose run on day ``d`` passed ``rate`` of 100 cases."""
    runs = []
    for d, rate in points:
        passed = round(rate * 100)
        runs.append(RunRate(f"d{d}", day(d), ClaimTally(passed=passed, failed=100 - passed)))
    return ClaimTrend("demo", "cites", tuple(runs), ())


@pytest.mark.parametrize(
    ("text", "kind", "size"),
    [("5", "runs", 5), (" 12 ", "runs", 12), ("12h", "time", 43_200), ("28d", "time", 2_419_200)],
)
def test_a_window_is_a_count_of_runs_or_a_span(text: str, kind: str, size: int) -> None:
    window = parse_window(text)
    assert (window.kind, window.size) == (kind, size)
    assert parse_window(window.text) == window


def test_four_weeks_is_twenty_eight_days_said_as_written() -> None:
    weeks = parse_window("4W")
    assert weeks.size == parse_window("28d").size
    assert (weeks.text, weeks.describe()) == ("4w", "4 weeks")
    assert weeks.as_dict() == {"window": "4w", "window_kind": "time", "window_seconds": 2_419_200}
    assert parse_window(5).as_dict() == {"window": 5, "window_kind": "runs"}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2", "a window needs at least 3 runs"),
        ("0d", "neither a count of runs (5) nor a span"),
        ("4 weeks", "neither a count of runs (5) nor a span"),
        ("-4w", "neither a count of runs (5) nor a span"),
        ("999999w", "longer than ten years"),
        (True, "is not a count of runs"),
    ],
)
def test_what_is_not_a_window_says_why_in_one_line(value: str | bool, message: str) -> None:
    with pytest.raises(ValueError, match=None) as caught:
        parse_window(value)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_time_window_holds_the_runs_started_within_the_span() -> None:
    # Three old runs, a gap of two weeks, then four runs a day apart: the drop on day 23
    # is compared with days 20-22 by a week's window, with all six earlier runs by 6 runs.
    points = [(1, 0.5), (2, 0.6), (3, 0.55), (20, 0.9), (21, 0.91), (22, 0.9), (23, 0.8)]
    (alert,) = degradation_alerts(trend(*points), "1w")
    assert alert.prior_runs == ("d20", "d21", "d22")
    assert alert.run_id == "d23" and alert.window.kind == "time"
    assert "of the previous 3 runs (within 1 week)" in alert.describe()
    # Counted in runs, the old low runs widen the spread: no alert.
    assert degradation_alerts(trend(*points), 6) == []


def test_the_span_ends_at_the_run_and_includes_its_edge() -> None:
    # Day 8 10:00 minus one week is day 1 10:00: the run started then is in the window.
    points = [(1, 0.9), (4, 0.9), (6, 0.9), (8, 0.5)]
    (alert,) = degradation_alerts(trend(*points), "7d")
    assert alert.prior_runs == ("d1", "d4", "d6")
    assert degradation_alerts(trend(*points), "167h") == []  # day 1 falls out: 2 runs


def test_too_few_runs_in_the_span_is_no_alert_and_is_said(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        plant_history(store, *STEADY, 0.60)  # run n on day n
        wide = audit_history(store, window="4d")
        narrow = audit_history(store, window="2d")
        young = audit_history(store, "r2", window=3)  # a count: a young history is not said
    assert [(a.run_id, a.prior_runs) for a in wide.alerts] == [("r6", ("r2", "r3", "r4", "r5"))]
    assert narrow.alerts == ()
    reasons = {s.claim_id: s.describe() for s in narrow.shortfalls}
    assert reasons["cites"] == (
        "demo/cites at run r6 (2026-11-06T10:00:00Z): not judged, 2 earlier run(s) "
        "started within 2 days before it (3 needed)"
    )
    document = narrow.as_dict()
    assert (document["window"], document["window_kind"]) == ("2d", "time")
    assert {d["claim_id"]: d["prior_runs"] for d in document["not_judged"]} == {
        "cites": 2,
        "tone": 2,
    }
    assert wide.shortfalls == () and young.shortfalls == () and young.alerts == ()
    assert "not_judged" in young.as_dict() and young.as_dict()["not_judged"] == []


def test_the_audit_command_reads_a_time_window(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        plant_history(store, *STEADY, 0.60)
    weeks = cli("audit", "--store", str(path), "--window", "4w", "--fail-on-alert")
    assert weeks.exit_code == 1, weeks.output
    assert "degradation alerts (window 4 weeks): 1" in weeks.stdout
    assert "ALERT demo/cites at run r6" in weeks.stdout
    short = cli("audit", "--store", str(path), "--window", "36h", "--format", "json")
    assert short.exit_code == 0, short.output
    document = json.loads(short.stdout)
    assert (document["window"], document["window_kind"], document["alerts"]) == ("36h", "time", [])
    assert [d["prior_runs"] for d in document["not_judged"]] == [1, 1]
    markdown = cli("audit", "--store", str(path), "--window", "36h", "--format", "markdown")
    assert "- not judged: `demo/cites at run r6" in markdown.stdout


@pytest.mark.parametrize("command", [["audit"], ["report", "--trend", "--html", "t.html"]])
def test_a_bad_window_is_one_line_and_exit_2(tmp_path: Path, command: list[str]) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        plant_history(store, *STEADY)
    result = cli(*command, "--store", str(path), "--window", "4 weeks")
    assert result.exit_code == 2
    assert "is neither a count of runs (5) nor a span of hours, days or weeks" in result.output
    assert "Traceback" not in result.output


def test_the_trend_report_takes_a_time_window(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        plant_history(store, *STEADY, 0.60)
    page = tmp_path / "trend.html"
    result = cli("report", "--trend", "--store", str(path), "--html", str(page), "--window", "4w")
    assert result.exit_code == 0, result.output
    assert "1 alert(s)" in result.stderr
    narrow = cli("report", "--trend", "--store", str(path), "--html", str(page), "--window", "1d")
    assert "0 alert(s)" in narrow.stderr

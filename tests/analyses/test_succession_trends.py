"""Judge successions in the trends: a mark on the run axis where a claim is first judged
by the successor, and degradation alerts whose window spans one name it, in text and in
JSON, on either backend and through ``verifier audit``."""

from __future__ import annotations

import json

from tests._cli import cli
from tests.analyses._successions import (
    NEW,
    NEW_MODEL,
    OLD,
    OLD_MODEL,
    plant_switch,
    record,
    succession,
)
from tests.gaps._backends import Backend
from verifier.analyses.history import HistoryAudit, audit_history
from verifier.gaps.successions import Lineage

NEWER_MODEL = "claude-haiku-4-5-20260901"
NEWER = [NEWER_MODEL, *NEW[1:]]
TONE_ALERT = (
    "demo/tone at run r6 (2026-11-06T10:00:00Z): pass rate 0.500 is below 0.900, the pass "
    "rate of each of the previous {n} runs (alert below 0.900)"
)
SPANS = (
    f"; spans judge succession s1 of grader ({OLD_MODEL} -> {NEW_MODEL}, agreement 0.950, "
    "shift -0.020)"
)


def audited(backend: Backend, *, window: int = 5) -> HistoryAudit:
    with backend.open() as store:
        return audit_history(store, window=window, lineage=Lineage.read(backend.target))


def alert_of(report: HistoryAudit, claim: str) -> str:
    (line,) = [a.describe() for a in report.alerts if a.claim_id == claim]
    return line


def test_a_succession_marks_the_axis_and_the_alerts_across_it(store_backend: Backend) -> None:
    with store_backend.open() as store:
        plant_switch(store, switch_at=5)
    unexplained = audited(store_backend)
    assert unexplained.trends.marks == ()
    assert [a.successions for a in unexplained.alerts] == [(), ()]
    assert alert_of(unexplained, "tone") == TONE_ALERT.format(n=5)
    assert unexplained.as_dict()["trends"]["successions"] == []

    record(store_backend.target, succession())
    report = audited(store_backend)
    (mark,) = report.trends.marks
    assert (mark.run_id, mark.before_run_id, mark.judge, mark.claims) == (
        "r5",
        "r4",
        "grader",
        ("tone",),
    )
    assert mark.label == f"judge grader: {OLD_MODEL} -> {NEW_MODEL}, agreement 0.950"
    assert mark.title.startswith(f"succession s1 of judge grader: {OLD_MODEL} -> {NEW_MODEL}")
    assert mark.title.endswith("; first run under the new judge: r5")
    # The judge changed under tone, not under cites: only tone's alert names it.
    assert alert_of(report, "tone") == TONE_ALERT.format(n=5) + SPANS
    assert "spans" not in alert_of(report, "cites")
    as_json = report.as_dict()
    (tone,) = [a for a in as_json["alerts"] if a["claim_id"] == "tone"]
    (named,) = tone["successions"]
    assert {k: named[k] for k in ("succession_id", "judge", "old_model", "new_model")} == {
        "succession_id": "s1",
        "judge": "grader",
        "old_model": OLD_MODEL,
        "new_model": NEW_MODEL,
    }
    assert (named["agreement"], named["kappa"], named["shift"]) == (0.95, 0.82, -0.02)
    assert [a["successions"] for a in as_json["alerts"] if a["claim_id"] == "cites"] == [[]]
    (marked,) = as_json["trends"]["successions"]
    assert (marked["run_id"], marked["claims"]) == ("r5", ["tone"])
    assert report.integrity.ok  # it stays an alert, and the store is sound


def test_only_a_window_that_spans_the_succession_names_it(store_backend: Backend) -> None:
    with store_backend.open() as store:
        plant_switch(store, switch_at=2)
    record(store_backend.target, succession())
    # Window 3: run 6 is compared with runs 3 to 5, all judged by the successor.
    narrow = audited(store_backend, window=3)
    assert alert_of(narrow, "tone") == TONE_ALERT.format(n=3)
    assert [m.run_id for m in narrow.trends.marks] == ["r2"]
    # Window 5: runs 1 to 5, the first judged by the predecessor.
    assert alert_of(audited(store_backend), "tone") == TONE_ALERT.format(n=5) + SPANS


def test_a_change_no_succession_leads_to_is_drift_without_a_mark(store_backend: Backend) -> None:
    with store_backend.open() as store:
        plant_switch(store, switch_at=5)
    elsewhere = [NEW_MODEL, "c" * 64, NEW[2]]  # the successor under another template
    record(
        store_backend.target,
        succession(succession_id="s0", judge="strict"),  # another judge
        succession(succession_id="s1", new=elsewhere),
    )
    report = audited(store_backend)
    assert [(c.scope, c.run_id) for c in report.drift] == [("judge", "r5"), ("claim", "r5")]
    assert report.trends.marks == ()
    assert all(a.successions == () for a in report.alerts)


def test_a_chain_of_successions_is_one_mark_naming_each(store_backend: Backend) -> None:
    with store_backend.open() as store:
        plant_switch(store, switch_at=5, models=(OLD_MODEL, NEWER_MODEL))
    record(
        store_backend.target,
        succession(old=OLD, new=NEW),
        succession(succession_id="s2", old=NEW, new=NEWER),
    )
    (mark,) = audited(store_backend).trends.marks
    assert [row.succession_id for row in mark.successions] == ["s1", "s2"]
    assert mark.label == (
        f"judge grader: {OLD_MODEL} -> {NEW_MODEL}, agreement 0.950; "
        f"{NEW_MODEL} -> {NEWER_MODEL}, agreement 0.950"
    )
    (alert,) = [a for a in audited(store_backend).alerts if a.claim_id == "tone"]
    assert [row.succession_id for row in alert.successions] == ["s1", "s2"]


def test_verifier_audit_says_which_alert_spans_a_succession(store_backend: Backend) -> None:
    with store_backend.open() as store:
        plant_switch(store, switch_at=5)
    target = store_backend.target
    before = cli("audit", "--store", target, "--format", "json")
    assert [a["successions"] for a in json.loads(before.stdout)["alerts"]] == [[], []]
    record(target, succession())
    console = cli("audit", "--store", target)
    assert console.exit_code == 0, console.output
    assert f"  ALERT {TONE_ALERT.format(n=5)}{SPANS}\n" in console.stdout
    assert (
        f"  SUCCESSION before run r5 (claims tone): judge grader: {OLD_MODEL} -> {NEW_MODEL}, "
        "agreement 0.950\n"
    ) in console.stdout
    report = json.loads(cli("audit", "--store", target, "--format", "json").stdout)
    (tone,) = [a for a in report["alerts"] if a["claim_id"] == "tone"]
    assert [s["succession_id"] for s in tone["successions"]] == ["s1"]
    assert [m["run_id"] for m in report["trends"]["successions"]] == ["r5"]
    markdown = cli("audit", "--store", target, "--format", "markdown").stdout
    assert "- `demo/tone` at `r6` spans `judge succession s1 of grader (" in markdown
    assert "Judge successions on the run axis:" in markdown

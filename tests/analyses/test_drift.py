"""Judge drift: a judge or claim judged under a changed triple is reported with when."""

from __future__ import annotations

from pathlib import Path

from tests.analyses._history import REQUESTED, day, judge_evidence, plant_run, result
from tests.gaps._support import begin
from verifier.analyses._history_render import render_console, render_markdown
from verifier.analyses.history import HistoryAudit, audit_history
from verifier.gaps.sqlite.store import SqliteStore

SERVED_OLD = "claude-haiku-4-5-20251001"
SERVED_NEW = "claude-haiku-4-5-20260301"
PROMPT_NEW = "c" * 64


def audited(path: Path, run_id: str | None = None) -> HistoryAudit:
    with SqliteStore(path) as store:
        return audit_history(store, run_id)


def plant(path: Path, *runs: dict[str, dict[str, object]]) -> None:
    """Run n (started on day n) judges each claim with the evidence given for it."""
    with SqliteStore(path) as store:
        for n, evidence in enumerate(runs, start=1):
            passes = {claim: (3, 4) for claim in evidence}
            plant_run(store, f"r{n}", started_at=day(n), passes=passes, evidence=evidence)


def test_a_steady_judge_shows_no_drift(tmp_path: Path) -> None:
    steady = {"tone": judge_evidence()}
    plant(tmp_path / "gaps.db", steady, steady, steady)
    report = audited(tmp_path / "gaps.db")
    assert report.drift == () and report.integrity.ok


def test_a_new_served_model_is_reported_at_the_run_where_it_changed(tmp_path: Path) -> None:
    old, new = judge_evidence(), judge_evidence(model_id=SERVED_NEW)
    plant(tmp_path / "gaps.db", {"tone": old}, {"tone": old}, {"tone": new}, {"tone": new})
    report = audited(tmp_path / "gaps.db")
    assert [(c.scope, c.subject) for c in report.drift] == [("judge", "grader"), ("claim", "tone")]
    change = report.drift[0]
    assert (change.run_id, change.before_run_id) == ("r3", "r2")
    assert change.recorded_at == day(3) and change.seq == 9  # the first row of run r3
    assert change.changed == ("model_id",)
    assert (change.before.model_id, change.after.model_id) == (SERVED_OLD, SERVED_NEW)
    assert change.describe() == (
        f"served model {SERVED_OLD} -> {SERVED_NEW}; requested model {REQUESTED} unchanged"
    )
    assert not change.within_run
    assert report.integrity.ok  # drift is a finding, not damage


def test_a_changed_prompt_template_is_reported(tmp_path: Path) -> None:
    old, new = judge_evidence(), judge_evidence(prompt_sha=PROMPT_NEW)
    plant(tmp_path / "gaps.db", {"tone": old}, {"tone": new})
    change = audited(tmp_path / "gaps.db").drift[0]
    assert change.changed == ("prompt_sha",)
    assert change.describe() == f"prompt_sha {'a' * 12} -> {'c' * 12}"


def test_every_change_is_reported_including_a_change_back(tmp_path: Path) -> None:
    a, b = judge_evidence(), judge_evidence(model_id=SERVED_NEW)
    plant(tmp_path / "gaps.db", {"tone": a}, {"tone": b}, {"tone": a})
    judges = [c for c in audited(tmp_path / "gaps.db").drift if c.scope == "judge"]
    assert [(c.run_id, c.after.model_id) for c in judges] == [
        ("r2", SERVED_NEW),
        ("r3", SERVED_OLD),
    ]


def test_one_run_judged_under_two_triples_is_reported_within_the_run(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        begin(store, "r1", started_at=day(1))
        store.append(
            [
                result("r1", 1, "tone", "pass", evidence=judge_evidence(), recorded_at=day(1)),
                result("r1", 2, "tone", "pass", evidence=judge_evidence(model_id=SERVED_NEW)),
                result("r1", 3, "tone", "pass", evidence=judge_evidence()),
            ]
        )
    (judge, _claim) = audited(path).drift
    assert judge.within_run and judge.run_id == "r1" and judge.seq == 2


def test_a_claim_moved_to_another_judge_with_the_same_triple_has_not_drifted(
    tmp_path: Path,
) -> None:
    plant(
        tmp_path / "gaps.db",
        {"tone": judge_evidence(judge_name="grader")},
        {"tone": judge_evidence(judge_name="strict")},
    )
    assert audited(tmp_path / "gaps.db").drift == ()


def test_a_claim_moved_to_a_judge_with_another_model_drifts_on_its_own(tmp_path: Path) -> None:
    plant(
        tmp_path / "gaps.db",
        {"tone": judge_evidence(judge_name="grader")},
        {"tone": judge_evidence(judge_name="strict", model_id="gpt-5-2025-08-07")},
    )
    report = audited(tmp_path / "gaps.db")
    (change,) = report.drift
    assert change.scope == "claim" and change.subject == "tone"
    assert (change.before.judge_name, change.after.judge_name) == ("grader", "strict")
    assert "claim demo/tone at run r2" in render_console(report)


def test_one_judge_change_lists_the_claims_it_moved_on_one_line(tmp_path: Path) -> None:
    old, new = judge_evidence(), judge_evidence(model_id=SERVED_NEW)
    plant(tmp_path / "gaps.db", {"tone": old, "polite": old}, {"tone": new, "polite": new})
    report = audited(tmp_path / "gaps.db")
    assert len(report.drift) == 3  # the judge, and each of its claims (in JSON)
    text = render_console(report)
    assert "judge drift: 3 change(s)" in text
    drift_lines = [line for line in text.splitlines() if "at run r2" in line]
    assert len(drift_lines) == 1
    assert drift_lines[0].startswith("  judge demo/grader at run r2 (row 9, 2026-11-02T10:00:00Z)")
    assert drift_lines[0].endswith("(claims polite, tone)")
    markdown = render_markdown(report)
    assert "| judge `demo/grader` (claims `polite`, `tone`) | `r2` |" in markdown


def test_rows_without_the_full_triple_say_nothing_about_drift(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    broken = judge_evidence(model_id="")
    with SqliteStore(path) as store:
        begin(store, "r1", started_at=day(1))
        store.append(
            [
                result("r1", 1, "tone", "pass", evidence=judge_evidence()),
                result("r1", 2, "tone", "error", evidence=broken),
                result("r1", 3, "tone", "pass", evidence=judge_evidence()),
            ]
        )
    assert audited(path).drift == ()


def test_drift_is_limited_to_the_run_asked_about(tmp_path: Path) -> None:
    old, new = judge_evidence(), judge_evidence(sampling_sha="d" * 64)
    plant(tmp_path / "gaps.db", {"tone": old}, {"tone": new}, {"tone": new})
    assert {c.run_id for c in audited(tmp_path / "gaps.db", "r2").drift} == {"r2"}
    assert audited(tmp_path / "gaps.db", "r3").drift == ()


def test_drift_is_in_the_json_report(tmp_path: Path) -> None:
    plant(tmp_path / "gaps.db", {"tone": judge_evidence()}, {"tone": judge_evidence(model_id="x")})
    data = audited(tmp_path / "gaps.db").as_dict()
    judge = data["drift"][0]
    assert judge["scope"] == "judge" and judge["run_id"] == "r2"
    assert judge["changed"] == ["model_id"]
    assert judge["before"]["model_id"] == SERVED_OLD and judge["after"]["model_id"] == "x"
    assert judge["after"]["requested_model"] == REQUESTED


PROMPT_SCALE = "e" * 64


def test_one_judge_giving_binary_and_scale_verdicts_has_not_drifted(tmp_path: Path) -> None:
    # The two kinds are asked with different templates, hence different prompt shas.
    binary = {**judge_evidence(), "verdict_kind": "binary"}
    scale = {**judge_evidence(prompt_sha=PROMPT_SCALE), "verdict_kind": "scale"}
    plant(tmp_path / "gaps.db", {"tone": binary, "depth": scale}, {"tone": binary, "depth": scale})
    assert audited(tmp_path / "gaps.db").drift == ()


def test_rows_from_before_verdict_kind_was_recorded_are_told_apart_by_shape(
    tmp_path: Path,
) -> None:
    binary = {**judge_evidence(), "verdict": {"pass": True, "reasoning": "ok", "criteria": []}}
    scale = {
        **judge_evidence(prompt_sha=PROMPT_SCALE),
        "verdict": {"score": 4, "reasoning": "ok"},
    }
    recorded = {**binary, "verdict_kind": "binary"}
    plant(
        tmp_path / "gaps.db", {"tone": binary, "depth": scale}, {"tone": recorded, "depth": scale}
    )
    assert audited(tmp_path / "gaps.db").drift == ()


def test_a_changed_model_names_the_verdict_kind_of_each_judge_change(tmp_path: Path) -> None:
    def kinds(model_id: str) -> dict[str, dict[str, object]]:
        return {
            "tone": {**judge_evidence(model_id=model_id), "verdict_kind": "binary"},
            "depth": {
                **judge_evidence(model_id=model_id, prompt_sha=PROMPT_SCALE),
                "verdict_kind": "scale",
            },
        }

    plant(tmp_path / "gaps.db", kinds(SERVED_OLD), kinds(SERVED_NEW))
    report = audited(tmp_path / "gaps.db")
    judges = sorted(c.verdict_kind or "" for c in report.drift if c.scope == "judge")
    assert judges == ["binary", "scale"]
    text = render_console(report)
    assert "judge demo/grader (binary verdicts) at run r2" in text
    assert "judge demo/grader (scale verdicts) at run r2" in text
    assert report.as_dict()["drift"][0]["verdict_kind"] in ("binary", "scale")


def test_the_example_run_twice_shows_no_drift(tmp_path: Path) -> None:
    # Its judge gives binary and scale verdicts; replayed verdicts keep one triple each.
    from tests._cli import verifier
    from tests.conftest import EXAMPLES

    contract = EXAMPLES / "account-research.yaml"
    cases = EXAMPLES / "account-research.cases.jsonl"
    store = str(tmp_path / "gaps.db")
    for _ in range(2):
        run = verifier("run", str(contract), "--cases", str(cases), "--store", store, cwd=tmp_path)
        assert run.returncode == 1, run.stderr
    report = audited(tmp_path / "gaps.db")
    assert report.drift == () and report.integrity.ok
    with SqliteStore(tmp_path / "gaps.db") as opened:
        kinds = {row.kind for row in opened.iter_rows()}
    assert "judge" in kinds

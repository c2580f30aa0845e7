"""Joining human labels with a run's judge rows: what is compared, what is reported unmatched."""

from __future__ import annotations

import hashlib
import statistics
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from verifier._internal.canonical import sha256_hex
from verifier.compare.calibration import CalibrationError, calibrate_run
from verifier.compare.calibration_report import ClaimCalibration
from verifier.compare.labels import LabelsError, read_labels
from verifier.gaps.sqlite.store import SqliteStore

TRIPLE = {"model_id": "claude-haiku-4-5-20251001", "prompt_sha": "a" * 64, "sampling_sha": "b" * 64}
OTHER_TRIPLE = {**TRIPLE, "model_id": "claude-haiku-4-5-20251101"}
SCALE = {"min": 1, "max": 5, "pass_at": 4}
SOURCE = "contract: demo\n"
SOURCE_SHA = sha256_hex(SOURCE)
LABELS = FIXTURES / "calibrate" / "labels.jsonl"


def row(
    case: str,
    claim: str,
    status: str,
    *,
    kind: str = "judge",
    score: float | None = None,
    triple: dict[str, str] | None = TRIPLE,
    scale: dict[str, int] | None = None,
    reason: str = "by rule",
) -> dict[str, Any]:
    evidence: dict[str, Any] = {}
    if kind == "judge" and triple is not None:
        evidence = {"judge": dict(triple), "requested_model": "claude-haiku-4-5-20251001"}
        if scale is not None:
            evidence["verdict"] = {"verdict": {"score": 0}, "scale": scale}
    if score is None and status in ("pass", "fail"):
        score = 1.0 if status == "pass" else 0.0
    return {
        "schema": "verifier.gap-row.v1",
        "row_id": f"run-1:{case}:{claim}",
        "run_id": "run-1",
        "recorded_at": "2026-11-25T10:00:00Z",
        "contract_id": "demo",
        "contract_version": 1,
        "contract_sha256": SOURCE_SHA,
        "case_id": case,
        "claim_id": claim,
        "kind": kind,
        "status": status,
        "score": score,
        "reason": reason,
        "evidence": evidence,
    }


def store_with(path: Path, rows: list[dict[str, Any]], run_id: str = "run-1") -> SqliteStore:
    store = SqliteStore(path)
    store.begin_run(
        run_id,
        contract_id="demo",
        contract_version=1,
        contract_sha256=SOURCE_SHA,
        contract_path="demo.yaml",
        contract_source=SOURCE,
        started_at="2026-11-25T10:00:00Z",
        options={},
    )
    store.append([{**r, "run_id": run_id, "row_id": f"{run_id}:{r['row_id']}"} for r in rows])
    return store


def labels_file(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def label(case: str, claim: str, value: Any, rater: str | None = None) -> str:
    import json

    data: dict[str, Any] = {"case_id": case, "claim_id": claim, "label": value}
    if rater:
        data["rater"] = rater
    return json.dumps(data)


def test_labels_meet_judge_rows_by_case_and_claim(tmp_path: Path) -> None:
    rows = [
        row("a", "tone", "pass"),
        row("b", "tone", "fail", reason="It guesses."),
        row("c", "tone", "pass"),
        row("d", "tone", "fail"),
    ]
    labels = labels_file(
        tmp_path,
        label("a", "tone", "pass"),
        label("b", "tone", "pass"),
        label("c", "tone", "pass"),
        label("d", "tone", "fail"),
    )
    with store_with(tmp_path / "gaps.db", rows) as store:
        report = calibrate_run(store, read_labels(labels))
    (claim,) = report.claims
    assert (claim.claim_id, claim.model_id, claim.prompt_sha) == (
        "tone",
        TRIPLE["model_id"],
        "a" * 64,
    )
    assert claim.n == 4 and claim.agreement == pytest.approx(0.75)
    assert claim.confusion.rows() == ((2, 1), (0, 1))
    # p_o = 3/4; human pass 3/4, judge pass 2/4; p_e = 3/8 + 1/8 = 1/2; kappa = 1/2.
    assert claim.kappa == pytest.approx(0.5) and claim.band == "moderate"
    (disagreement,) = claim.disagreements
    assert disagreement.as_dict() == {
        "case_id": "b",
        "claim_id": "tone",
        "human": "pass",
        "judge": "fail",
        "judge_reasoning": "It guesses.",
    }
    assert report.unmatched == ()


def test_error_and_skipped_rows_are_excluded_and_reported(tmp_path: Path) -> None:
    rows = [
        row("a", "tone", "pass"),
        row("b", "tone", "error", reason="judge call failed: HTTP 500"),
        row("c", "tone", "skipped", triple=None, reason="skipped: waits for cites (fail) to pass"),
    ]
    labels = labels_file(
        tmp_path, label("a", "tone", "pass"), label("b", "tone", "fail"), label("c", "tone", "fail")
    )
    with store_with(tmp_path / "gaps.db", rows) as store:
        report = calibrate_run(store, read_labels(labels))
    assert report.claims[0].n == 1
    reasons = {u.case_id: (u.line, u.reason) for u in report.unmatched}
    assert reasons["b"] == (2, "the judge row is error: judge call failed: HTTP 500")
    assert reasons["c"] == (3, "the judge row is skipped: waits for cites (fail) to pass")


def test_labels_for_unknown_cases_claims_and_rubric_claims_are_unmatched(tmp_path: Path) -> None:
    rows = [row("a", "tone", "pass"), row("a", "cites", "pass", kind="rubric")]
    labels = labels_file(
        tmp_path,
        label("a", "tone", "pass"),
        label("zz", "tone", "pass"),
        label("a", "nope", "pass"),
        label("a", "cites", "fail"),
    )
    with store_with(tmp_path / "gaps.db", rows) as store:
        report = calibrate_run(store, read_labels(labels))
    assert [u.reason for u in report.unmatched] == [
        "case 'zz' is not in run run-1",
        "claim 'nope' has no rows in run run-1",
        "claim 'cites' is a rubric claim, not a judge claim",
    ]
    assert report.as_dict()["unmatched"][0] == {
        "line": 2,
        "case_id": "zz",
        "claim_id": "tone",
        "rater": None,
        "reason": "case 'zz' is not in run run-1",
    }


def test_judge_rows_without_labels_are_counted_not_compared(tmp_path: Path) -> None:
    rows = [row(c, "tone", "pass") for c in "abcde"]
    labels = labels_file(tmp_path, label("a", "tone", "pass"), label("b", "tone", "pass"))
    with store_with(tmp_path / "gaps.db", rows) as store:
        report = calibrate_run(store, read_labels(labels))
    assert report.claims[0].n == 2 and report.claims[0].unlabelled == 3
    assert report.claims[0].kappa is None  # both sides said pass throughout
    assert "undefined" in report.render_text()


def test_a_row_missing_its_triple_is_not_compared(tmp_path: Path) -> None:
    broken = row("a", "tone", "pass", triple={**TRIPLE, "model_id": ""})
    labels = labels_file(tmp_path, label("a", "tone", "pass"))
    with store_with(tmp_path / "gaps.db", [broken]) as store:
        report = calibrate_run(store, read_labels(labels))
    assert report.claims == ()
    assert report.unmatched[0].reason == "the judge row lacks the stability triple's model_id"


def test_each_triple_of_a_claim_is_calibrated_apart(tmp_path: Path) -> None:
    rows = [
        row("a", "tone", "pass"),
        row("b", "tone", "fail"),
        row("c", "tone", "pass", triple=OTHER_TRIPLE),
    ]
    labels = labels_file(
        tmp_path, label("a", "tone", "pass"), label("b", "tone", "fail"), label("c", "tone", "fail")
    )
    with store_with(tmp_path / "gaps.db", rows) as store:
        report = calibrate_run(store, read_labels(labels))
    by_model = {c.model_id: c for c in report.claims}
    assert by_model[TRIPLE["model_id"]].n == 2 and by_model[TRIPLE["model_id"]].agreement == 1.0
    assert by_model[OTHER_TRIPLE["model_id"]].n == 1
    assert by_model[OTHER_TRIPLE["model_id"]].agreement == 0.0


def test_the_last_run_is_the_default_and_a_named_run_is_used(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    store_with(path, [row("a", "tone", "pass")], run_id="run-1").close()
    store_with(path, [row("a", "tone", "fail")], run_id="run-2").close()
    labels = read_labels(labels_file(tmp_path, label("a", "tone", "pass")))
    with SqliteStore(path) as store:
        assert calibrate_run(store, labels).run_id == "run-2"
        assert calibrate_run(store, labels).claims[0].agreement == 0.0
        assert calibrate_run(store, labels, "run-1").claims[0].agreement == 1.0
        with pytest.raises(CalibrationError, match="run-9 is not in"):
            calibrate_run(store, labels, "run-9")


def tone_claim(tmp_path: Path, **options: Any) -> ClaimCalibration:
    """Two raters' scores against a judge's on a 1-5 scale, calibrated."""
    # Judge scores on the 1-5 scale: a 5, b 5, c 5, d 2, e 2 (row score (s - 1) / 4).
    judged = {"a": 5, "b": 5, "c": 5, "d": 2, "e": 2}
    rows = [
        row(c, "tone", "pass" if s >= 4 else "fail", score=(s - 1) / 4, scale=SCALE)
        for c, s in judged.items()
    ]
    ann = {"a": 5, "b": 3, "c": 4, "d": 2, "e": 4}
    bob = {"a": 4, "b": 4, "c": 5, "d": 1}
    labels = labels_file(
        tmp_path,
        *(label(c, "tone", s, "ann") for c, s in ann.items()),
        *(label(c, "tone", s, "bob") for c, s in bob.items()),
    )
    with store_with(tmp_path / "gaps.db", rows) as store:
        return calibrate_run(store, read_labels(labels), **options).claims[0]


def test_several_raters_vote_and_score_labels_use_the_claims_pass_at(tmp_path: Path) -> None:
    claim = tone_claim(tmp_path)
    # Pass at 4: a pass/pass, b fail/pass (a tie), c pass/pass, d fail/fail, e pass (ann only).
    assert claim.ties == ("b",)
    assert claim.confusion.rows() == ((2, 1), (0, 1))
    assert [(d.case_id, d.human, d.judge) for d in claim.disagreements] == [("e", "4", "fail (2)")]
    # Mean human scores against the judge's, Pearson by the standard library's formula.
    human = [4.5, 3.5, 4.5, 1.5, 4.0]
    judge = [5.0, 5.0, 5.0, 2.0, 2.0]
    assert claim.scored == 5
    assert claim.pearson is not None
    assert claim.pearson.r == pytest.approx(statistics.correlation(human, judge))
    # Two raters: nominal alpha over the 4 units both labelled (a, b, c, d), coded
    # ann 1 0 1 0, bob 1 1 1 0: n = 8, n_1 = 5, n_0 = 3, one disagreeing unit, so by
    # Krippendorff's binary formula alpha = 1 - (n - 1) * o_01 / (n_0 * n_1) = 1 - 7/15.
    assert claim.raters == ("ann", "bob")
    assert claim.alpha["nominal"] == pytest.approx(1 - 7 / 15)
    assert set(claim.alpha) == {"nominal", "nominal_with_judge", "interval", "interval_with_judge"}


def test_score_labels_give_a_quadratic_weighted_kappa(tmp_path: Path) -> None:
    claim = tone_claim(tmp_path, kappa_margin=0.2)
    # Mean human scores 4.5, 3.5, 4.5, 1.5, 4 against the judge's 5, 5, 5, 2, 2. Hand:
    # observed mean squared distance (0.25 + 2.25 + 0.25 + 0.25 + 4) / 5 = 1.4;
    # expected over random pairings: var 1.24 + var 2.16 + (3.6 - 3.8)**2 = 3.44;
    # kappa_w = 1 - 1.4 / 3.44 = 51/86.
    assert claim.weighted_kappa == pytest.approx(51 / 86)
    assert claim.kappa_margin == 0.2
    assert claim.statistics()["weighted_kappa"] == {
        "weights": "quadratic",
        "value": claim.weighted_kappa,
    }
    assert claim.statistics()["labels_needed"]["margin"] == 0.2


def test_the_fixture_labels_give_the_hand_computed_kappas(tmp_path: Path) -> None:
    # The fixture's run, as the deterministic judge brain answers it: c01-c12 pass
    # no_guessing and score 5 on formal_tone; c13-c24 fail and score 2; c25 has no output.
    rows: list[dict[str, Any]] = []
    for i in range(1, 26):
        case = f"c{i:02d}"
        if i == 25:
            rows.append(row(case, "has_text", "fail", kind="rubric"))
            rows.append(row(case, "no_guessing", "skipped", triple=None, reason="skipped: gate"))
            rows.append(
                row(case, "formal_tone", "error", triple=None, reason="field output is missing")
            )
            continue
        good = i <= 12
        rows.append(row(case, "has_text", "pass", kind="rubric"))
        rows.append(row(case, "no_guessing", "pass" if good else "fail"))
        rows.append(
            row(
                case,
                "formal_tone",
                "pass" if good else "fail",
                score=1.0 if good else 0.25,
                scale=SCALE,
            )
        )
    with store_with(tmp_path / "gaps.db", rows) as store:
        report = calibrate_run(store, read_labels(LABELS))
    claims = {c.claim_id: c for c in report.claims}
    # no_guessing: 11 both pass, 2 human pass / judge fail (c15, c16), 1 human fail /
    # judge pass (c05), 10 both fail: kappa 0.75 (see test_calibrate).
    assert claims["no_guessing"].n == 24
    assert claims["no_guessing"].kappa == pytest.approx(0.75)
    # formal_tone: 3 both pass, 1 human pass / judge fail (c16), 3 both fail, c03 a tie.
    # p_o = 6/7; p_e = 4/7 * 3/7 + 3/7 * 4/7 = 24/49; kappa = (18/49) / (25/49) = 0.72.
    assert claims["formal_tone"].n == 7 and claims["formal_tone"].ties == ("c03",)
    assert claims["formal_tone"].kappa == pytest.approx(0.72)
    assert [u.case_id for u in report.unmatched] == ["c25", "c99", "c01", "c25"]


def test_bad_label_lines_are_each_named_by_file_and_line() -> None:
    bad = FIXTURES / "calibrate" / "bad-labels.jsonl"
    with pytest.raises(LabelsError) as caught:
        read_labels(bad)
    problems = caught.value.problems
    # The column of the file's line 3, not orjson's "line 1" of the one line it parsed.
    assert problems.pop(1) == f"{bad}:3: not JSON (invalid literal, expected 'null', column 1)"
    assert problems == [
        f'{bad}:2: label must be "pass", "fail" or a number (got \'PASS\')',
        f"{bad}:4: missing claim_id",
        f'{bad}:5: label must be "pass", "fail" or a number (got true)',
        f"{bad}:6: unknown key 'rator'; a label has case_id, claim_id, label, rater, note",
        f"{bad}:8: case 'c01' claim 'no_guessing' is labelled again by a label without rater "
        "(first on line 1); give each rater's name in `rater`",
        f"{bad}:9: a label must be a JSON object",
    ]
    assert all("\n" not in p for p in problems)


def test_an_empty_or_missing_labels_file_is_an_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(LabelsError, match="no labels found"):
        read_labels(empty)
    with pytest.raises(LabelsError, match="cannot read labels"):
        read_labels(tmp_path / "missing.jsonl")


def test_a_labels_file_saved_with_a_byte_order_mark_reads_as_without(tmp_path: Path) -> None:
    plain = labels_file(tmp_path, label("c1", "tone", "pass"), label("c2", "tone", "fail"))
    marked = tmp_path / "marked.jsonl"
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    assert read_labels(marked).labels == read_labels(plain).labels
    assert read_labels(marked).sha256 == hashlib.sha256(marked.read_bytes()).hexdigest()

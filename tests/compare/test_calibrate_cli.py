"""`verifier calibrate` and `verifier check` end to end, with judge rows from a real run."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests._cli import verifier as run_verifier
from tests.conftest import FIXTURES
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from verifier.compare.calibration_store import CalibrationStore

CONTRACT = FIXTURES / "calibrate" / "replies.yaml"
CASES = FIXTURES / "calibrate" / "replies.cases.jsonl"
LABELS = FIXTURES / "calibrate" / "labels.jsonl"
KEY = "sk-ant-api03-calibrate-test-key-0123456789"


def verifier(
    tmp_path: Path, *args: str, base_url: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {"ANTHROPIC_API_KEY": KEY}
    if base_url:
        env["ANTHROPIC_BASE_URL"] = base_url
    return run_verifier(
        *args, cwd=tmp_path, env=env, clear_prefixes=("ANTHROPIC_", "CI"), timeout=120
    )


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding one run of the fixture contract, judged by the rule-based brain."""
    where = tmp_path_factory.mktemp("calibrate")
    with MessagesServer(default=brain) as server:
        result = verifier(
            where,
            "run",
            str(CONTRACT),
            "--cases",
            str(CASES),
            "--store",
            str(where / "gaps.db"),
            base_url=server.base_url,
        )
    assert result.returncode == 1, result.stderr  # c13-c24 guess, c25 has no output
    return where / "gaps.db"


def copy_of(store: Path, tmp_path: Path) -> Path:
    target = tmp_path / "gaps.db"
    source = sqlite3.connect(store)
    dest = sqlite3.connect(target)
    source.backup(dest)
    source.close()
    dest.close()
    return target


def test_check_warns_about_both_judge_claims_before_calibration(
    judged: Path, tmp_path: Path
) -> None:
    store = copy_of(judged, tmp_path)
    result = verifier(tmp_path, "check", str(CONTRACT), "--store", str(store))
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stdout.splitlines() if "warning:" in line]
    assert len(warnings) == 2 and all("has no calibration" in w for w in warnings)


def test_calibrate_reports_and_stores_each_claim_then_check_warns_only_when_due(
    judged: Path, tmp_path: Path
) -> None:
    store = copy_of(judged, tmp_path)
    result = verifier(
        tmp_path, "calibrate", "--labels", str(LABELS), "--store", str(store), "--format", "json"
    )
    assert result.returncode == 0, result.stderr
    assert "stored 2 calibrations" in result.stderr
    report = json.loads(result.stdout)
    claims = {c["claim_id"]: c for c in report["claims"]}
    guessing = claims["no_guessing"]
    assert guessing["n"] == 24 and guessing["kappa"] == pytest.approx(0.75)
    assert guessing["kappa_band"] == "substantial"
    assert guessing["confusion"] == {
        "human_pass_judge_pass": 11,
        "human_pass_judge_fail": 2,
        "human_fail_judge_pass": 1,
        "human_fail_judge_fail": 10,
    }
    assert [d["case_id"] for d in guessing["disagreements"]] == ["c05", "c15", "c16"]
    assert guessing["disagreements"][1]["judge_reasoning"] == "The output guesses."
    assert guessing["judge"]["model_id"] == "claude-haiku-4-5-20251001"
    tone = claims["formal_tone"]
    assert tone["n"] == 7 and tone["kappa"] == pytest.approx(0.72) and tone["ties"] == ["c03"]
    assert tone["scored"] == 8 and tone["spearman"] is not None
    assert tone["raters"] == ["ann", "bob"] and "interval" in tone["krippendorff_alpha"]
    unmatched = {(u["case_id"], u["claim_id"]): u["reason"] for u in report["unmatched"]}
    assert unmatched[("c25", "no_guessing")].startswith("the judge row is skipped")
    assert unmatched[("c25", "formal_tone")].startswith("the judge row is error")
    assert unmatched[("c99", "no_guessing")] == f"case 'c99' is not in run {report['run_id']}"
    assert "rubric claim" in unmatched[("c01", "has_text")]

    check = verifier(tmp_path, "check", str(CONTRACT), "--store", str(store))
    assert check.returncode == 0, check.stderr
    warnings = [line for line in check.stdout.splitlines() if "warning:" in line]
    # no_guessing: 24 cases at kappa 0.75 is enough; formal_tone has only 7 cases.
    assert len(warnings) == 1
    assert "claim 'formal_tone'" in warnings[0] and "7 labelled cases only" in warnings[0]


def test_calibrate_console_report_shows_the_table_and_disagreements(
    judged: Path, tmp_path: Path
) -> None:
    store = copy_of(judged, tmp_path)
    result = verifier(tmp_path, "calibrate", "--labels", str(LABELS), "--store", str(store))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "labelled cases 24, agreement 87.5%, Cohen's kappa 0.750 (substantial)" in out
    assert "c16: human pass, judge fail: The output guesses." in out
    assert "c16: human 4, judge fail (2)" in out
    assert f"{LABELS}:25: case c25 claim no_guessing: the judge row is skipped" in out


def test_calibrate_reports_and_stores_kappa_precision_and_fail_detection(
    judged: Path, tmp_path: Path
) -> None:
    # The figures are those of tests/compare/test_agreement.py, worked by hand for the
    # no_guessing table (11, 2, 1, 10).
    store = copy_of(judged, tmp_path)
    args = ("calibrate", "--labels", str(LABELS), "--store", str(store))
    result = verifier(tmp_path, *args, "--format", "json", "--kappa-margin", "0.05")
    assert result.returncode == 0, result.stderr
    claims = {c["claim_id"]: c for c in json.loads(result.stdout)["claims"]}
    guessing = claims["no_guessing"]
    low, high = guessing["kappa_ci95"]
    assert low == pytest.approx(0.486295, abs=1e-6) and high == 1.0
    assert guessing["labels_needed"] == {"margin": 0.05, "labels": 668}
    assert guessing["fails"] == pytest.approx(
        {"precision": 10 / 12, "recall": 10 / 11, "f1": 20 / 23}
    )
    assert guessing["weighted_kappa"] is None  # verdict labels only
    tone = claims["formal_tone"]
    assert tone["weighted_kappa"]["weights"] == "quadratic"
    assert -1.0 <= tone["weighted_kappa"]["value"] <= 1.0

    with CalibrationStore(store, read_only=True) as calibrations:
        stored = {c.claim_id: c.statistics for c in calibrations.all()}
    assert stored["no_guessing"]["labels_needed"] == {"margin": 0.05, "labels": 668}
    assert stored["no_guessing"]["fails"]["recall"] == pytest.approx(10 / 11)
    assert stored["no_guessing"]["kappa_ci95"][0] == pytest.approx(low)
    assert stored["formal_tone"]["weighted_kappa"] == tone["weighted_kappa"]

    console = verifier(tmp_path, *args)
    assert "kappa 95% CI [0.486, 1.000]; labels for a 95% CI of ±0.1: 167" in console.stdout
    assert (
        "judge fails against human fails: precision 0.833, recall 0.909, F1 0.870" in console.stdout
    )
    assert "weighted kappa (quadratic) " in console.stdout

    markdown = verifier(tmp_path, *args, "--format", "markdown")
    assert markdown.returncode == 0, markdown.stderr
    assert "| labels for ±0.1 | fail precision | fail recall | fail F1 |" in markdown.stdout
    assert (
        "| `no_guessing` | `claude-haiku-4-5-20251001` | 24 | 87.5% | "
        "0.750 [0.486, 1.000] (substantial) | 167 | 0.833 | 0.909 | 0.870 | n/a |"
    ) in markdown.stdout
    assert "| human pass | 11 | 2 |" in markdown.stdout


def test_a_kappa_margin_outside_zero_one_is_a_usage_error(judged: Path, tmp_path: Path) -> None:
    result = verifier(
        tmp_path,
        "calibrate",
        "--labels",
        str(LABELS),
        "--store",
        str(judged),
        "--kappa-margin",
        "0",
    )
    assert result.returncode == 2 and "--kappa-margin" in result.stderr
    assert "Traceback" not in result.stderr


def test_check_without_a_store_notes_it_once(tmp_path: Path) -> None:
    result = verifier(tmp_path, "check", str(CONTRACT), str(CONTRACT))
    assert result.returncode == 0
    assert result.stderr.count("no calibration store found") == 1
    assert "warning:" not in result.stdout


def test_bad_labels_exit_two_with_one_line_per_problem(judged: Path, tmp_path: Path) -> None:
    bad = FIXTURES / "calibrate" / "bad-labels.jsonl"
    result = verifier(tmp_path, "calibrate", "--labels", str(bad), "--store", str(judged))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 7 and all(line.startswith(f"error: {bad}:") for line in lines)
    assert "Traceback" not in result.stderr


def test_calibrate_usage_errors_exit_two(judged: Path, tmp_path: Path) -> None:
    missing = verifier(tmp_path, "calibrate", "--labels", str(LABELS))
    assert missing.returncode == 2 and "no store found" in missing.stderr
    postgres = verifier(
        tmp_path,
        "calibrate",
        "--labels",
        str(LABELS),
        "--store",
        "postgresql://u@nohost.invalid/db",
    )
    assert postgres.returncode == 2 and "postgresql://u@nohost.invalid/db" in postgres.stderr
    assert len(postgres.stderr.strip().splitlines()) == 1
    run = verifier(
        tmp_path, "calibrate", "--labels", str(LABELS), "--store", str(judged), "--run", "nope"
    )
    assert run.returncode == 2 and "run nope is not in" in run.stderr
    other = tmp_path / "other.jsonl"
    other.write_text('{"case_id": "x", "claim_id": "y", "label": "pass"}\n', encoding="utf-8")
    nothing = verifier(tmp_path, "calibrate", "--labels", str(other), "--store", str(judged))
    assert nothing.returncode == 2 and "no label matched" in nothing.stderr
    assert "Traceback" not in missing.stderr + postgres.stderr + run.stderr + nothing.stderr


def test_an_interval_missing_for_a_judge_that_never_fails_says_why(tmp_path: Path) -> None:
    # The shipped example: gaps_acknowledged's judge passes all three labelled cases,
    # one of which the human failed, so there is a disagreement but no interval.
    examples = Path(__file__).resolve().parents[2] / "contracts" / "examples"
    run = verifier(
        tmp_path, "run", str(examples / "account-research.yaml"),
        "--cases", str(examples / "account-research.cases.jsonl"), "--judges", "replay",
    )  # fmt: skip
    assert run.returncode in (0, 1), run.stderr
    labels = examples / "account-research.labels.jsonl"
    out = verifier(tmp_path, "calibrate", "--labels", str(labels)).stdout
    section = out.split("claim gaps_acknowledged:")[1]
    assert (
        "kappa 95% CI n/a (one side gave the same verdict on every labelled case: the "
        "large-sample interval needs both verdicts from each)"
    ) in section
    assert "no disagreement" not in section and "disagreements (1):" in section

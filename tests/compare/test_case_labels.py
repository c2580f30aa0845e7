"""Labels of whole cases (thumbs or a score) set against a run's case scores: the
labels file, and `verifier calibrate` end to end through the shipped example."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from tests._cli import verifier
from verifier.compare.case_calibration_store import CaseCalibrationStore
from verifier.compare.labels import LabelsError, read_labels

EXAMPLES = Path(__file__).resolve().parents[2] / "contracts" / "examples"
CONTRACT = EXAMPLES / "account-research.yaml"
Z95 = 1.959963984540054


def _calibrate(labels: Path, store: str, cwd: Path, *args: str) -> Any:
    return verifier("calibrate", "--labels", str(labels), "--store", store, *args, cwd=cwd)


def _labels(tmp_path: Path, *lines: dict[str, Any]) -> Path:
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_case_label_gives_thumbs_in_any_documented_form_or_a_score(tmp_path: Path) -> None:
    path = _labels(
        tmp_path,
        {"case_id": "c1", "thumbs": "up"},
        {"case_id": "c2", "thumbs": "down", "rater": "ann"},
        {"case_id": "c3", "thumbs": True},
        {"case_id": "c4", "thumbs": False},
        {"case_id": "c5", "thumbs": 1},
        {"case_id": "c6", "thumbs": 0},
        {"case_id": "c1", "score": 4.5, "note": "good"},
        {"case_id": "c1", "claim_id": "tone", "label": "pass"},
    )
    labels = read_labels(path)
    assert [(c.case_id, c.up, c.score) for c in labels.cases] == [
        ("c1", True, None), ("c2", False, None), ("c3", True, None), ("c4", False, None),
        ("c5", True, None), ("c6", False, None), ("c1", None, 4.5),
    ]  # fmt: skip
    assert [(c.kind, c.rater, c.line) for c in labels.cases][:2] == [
        ("thumbs", "", 1),
        ("thumbs", "ann", 2),
    ]
    assert [(h.case_id, h.claim_id, h.verdict) for h in labels.labels] == [("c1", "tone", "pass")]


def test_bad_case_labels_are_each_named_by_file_and_line(tmp_path: Path) -> None:
    path = _labels(
        tmp_path,
        {"case_id": "c1", "thumbs": "yes"},
        {"case_id": "c1", "thumbs": 2},
        {"case_id": "c1", "thumbs": "up", "score": 3},
        {"case_id": "c1", "score": "high"},
        {"case_id": "c1", "claim_id": "tone", "thumbs": "up"},
        {"thumbs": "up"},
        {"case_id": "c1", "thumbs": "up", "rater": "ann"},
        {"case_id": "c1", "thumbs": "down", "rater": "ann"},
        {"case_id": "c1", "thumbs": "up", "label": "pass"},
    )
    with pytest.raises(LabelsError) as caught:
        read_labels(path)
    assert caught.value.problems == [
        f'{path}:1: thumbs must be "up" or "down" (or true/false, 1/0) (got "yes")',
        f'{path}:2: thumbs must be "up" or "down" (or true/false, 1/0) (got 2)',
        f"{path}:3: give thumbs or score, not both (one label a line)",
        f'{path}:4: score must be a number (got "high")',
        f"{path}:5: thumbs labels a whole case: leave out claim_id and label",
        f"{path}:6: missing case_id",
        f"{path}:8: case 'c1' (thumbs) is labelled again by rater 'ann' (first on line 7); "
        "give each rater's name in `rater`",
        f"{path}:9: unknown key 'label'; a label of a whole case has case_id, thumbs or "
        "score, rater, note",
    ]


@pytest.fixture(scope="module")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, float]]:
    """A store holding the example run with a sixth case whose judge has no recording
    (an error), and each case's score as the run's JSON report gives it."""
    where = tmp_path_factory.mktemp("case-labels")
    lines = (EXAMPLES / "account-research.cases.jsonl").read_text(encoding="utf-8").splitlines()
    extra = lines[-1].replace("acct-005", "acct-006").replace("Stackwise", "Stackwize")
    (where / "cases.jsonl").write_text("\n".join([*lines, extra]) + "\n", encoding="utf-8")
    run = verifier(
        "run", str(CONTRACT), "--cases", "cases.jsonl", "--judges", "replay",
        "--store", "gaps.db", "--format", "json", cwd=where, env={"ANTHROPIC_API_KEY": ""},
    )  # fmt: skip
    assert run.returncode == 1, run.stderr
    cases = json.loads(run.stdout)["cases"]
    assert [c["errors"] for c in cases] == [0, 0, 0, 0, 0, 1]
    return where, {c["id"]: c["score"] for c in cases}


def test_calibrate_sets_thumbs_and_scores_against_the_case_scores_and_stores_them(
    example_run: tuple[Path, dict[str, float]], tmp_path: Path
) -> None:
    where, scores = example_run
    claim_labels = (EXAMPLES / "account-research.labels.jsonl").read_text(encoding="utf-8")
    thumbs = {"acct-001": "up", "acct-002": "up", "acct-003": "down", "acct-004": "down"}
    thumbs |= {"acct-005": "down", "acct-006": "up", "acct-404": "up"}
    path = _labels(
        tmp_path,
        *({"case_id": case, "thumbs": t} for case, t in thumbs.items()),
        *(
            {"case_id": c, "score": s}
            for c, s in zip(sorted(scores)[:5], [5, 4, 2, 4, 1], strict=True)
        ),
    )
    path.write_text(claim_labels + path.read_text(encoding="utf-8"), encoding="utf-8")
    store = str(where / "gaps.db")
    done = _calibrate(path, store, tmp_path, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert "stored 2 calibrations in" in done.stderr
    assert "stored 2 case calibrations in" in done.stderr
    report = json.loads(done.stdout)
    assert len(report["claims"]) == 2  # the claim labels are calibrated as before
    cases = report["case_labels"]
    assert cases["case_score"] == "pass share" and cases["labels"] == 12

    # The run's own case scores: 1, 1, 5/11, 1, 2/11 (acct-006 errs, acct-404 is not in it).
    assert [scores[c] for c in sorted(scores)[:5]] == pytest.approx(
        [1, 1, 5 / 11, 1, 2 / 11], abs=1e-6
    )
    got = cases["thumbs"]
    assert (got["n"], got["up"], got["down"], got["ties"]) == (5, 2, 3, [])
    assert got["auc"]["value"] == pytest.approx(5 / 6, abs=1e-6)
    assert got["auc"]["ci95"] == pytest.approx([5 / 6 - Z95 / 6, 1.0], abs=1e-6)
    assert got["auc"]["interval"] == "DeLong"
    stats = pytest.importorskip("scipy.stats")
    run_scores = [scores[c] for c in sorted(scores)[:5]]
    r = stats.pointbiserialr([1, 1, 0, 0, 0], run_scores).statistic
    assert got["point_biserial"]["value"] == pytest.approx(r, abs=1e-5)
    half = Z95 / math.sqrt(2)
    expected = [math.tanh(math.atanh(r) - half), math.tanh(math.atanh(r) + half)]
    assert got["point_biserial"]["ci95"] == pytest.approx(expected, abs=1e-5)
    rho = stats.spearmanr([5, 4, 2, 4, 1], run_scores).statistic
    assert cases["score"]["spearman"]["value"] == pytest.approx(rho, abs=1e-9)

    left_out = {(u["case_id"], u["kind"]): u["reason"] for u in cases["left_out"]}
    assert left_out[("acct-006", "thumbs")] == (
        "the case has 1 error result(s): it has no score (an error is not a 0)"
    )
    assert left_out[("acct-404", "thumbs")].startswith("case 'acct-404' is not in run ")
    assert len(left_out) == 2

    with CaseCalibrationStore(store, read_only=True) as stored:
        found = stored.all()
    assert [(c.kind, c.n, c.case_score, c.sealed) for c in found] == [
        ("thumbs", 5, "pass share", True),
        ("score", 5, "pass share", True),
    ]
    assert found[0].statistics == got
    text = _calibrate(path, store, tmp_path).stdout
    assert "(8 claim labels, 12 case labels, sha256 " in text.splitlines()[0]
    assert "case labels (12) against each case's pass share:" in text
    assert "thumbs on 5 cases (2 up, 3 down): point-biserial " in text
    assert "AUC 0.833 [0.507, 1.000]" in text
    assert ":14: case acct-006 (thumbs): the case has 1 error result(s)" in text
    audit = verifier("audit", "--store", store, cwd=tmp_path)
    assert audit.returncode == 0, audit.stdout + audit.stderr


def test_a_file_of_case_labels_only_needs_no_judge_label(
    example_run: tuple[Path, dict[str, float]], tmp_path: Path
) -> None:
    where, _ = example_run
    path = _labels(tmp_path, {"case_id": "acct-001", "thumbs": "up"})
    store = str(where / "gaps.db")
    one = _calibrate(path, store, tmp_path, "--format", "markdown")
    assert one.returncode == 0, one.stderr
    assert "### Case labels (1) against each case's pass share" in one.stdout
    assert "(0 claim labels, 1 case labels, sha256 " in one.stdout
    assert "| claim | judge |" not in one.stdout  # no judge calibrated: no empty table
    assert "- thumbs on 1 case (1 up, 0 down): point-biserial n/a, AUC n/a" in one.stdout
    assert "stored 1 case calibration in" in one.stderr and "stored 0" not in one.stderr

    nowhere = _labels(tmp_path, {"case_id": "acct-404", "thumbs": "up"})
    none = _calibrate(nowhere, store, tmp_path)
    assert none.returncode == 2
    assert "error: no case label met a scored case of run " in none.stderr
    assert "Traceback" not in none.stderr

"""The python-code-review suite run in three versions, its findings averaged per run and
a gate "precision better by at least 10 points" decided between them, all by the CLI.

tests/fixtures/findings/review.v*.jsonl hold the same eight cases (four findings
expected in each) with the outputs of three versions of a reviewer: each finds the four
expected findings; v1 adds four findings nobody expected (precision 4/8 a case), v2
none (4/4), v3 three (4/7, 7.1 points better than v1 in every case).
"""

from __future__ import annotations

import json
import shlex
import shutil
from html import unescape
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests._cli import assert_no_traceback, verifier
from tests.conftest import FIXTURES
from tests.server._support import running
from verifier.server.settings import ServerSettings
from verifier.server.view import create_view_app

FINDINGS = FIXTURES / "findings"
GATES_PAGE = Path(__file__).parents[2] / "docs" / "guides" / "gates.md"


def _documented_lock() -> list[str]:
    """The arguments of the `gate lock` command docs/guides/gates.md shows for a
    findings gate (the block this module checks), without `verifier`."""
    text = GATES_PAGE.read_text(encoding="utf-8")
    block = text.split("<!-- checked by: tests/cli/test_findings_gate.py -->", 1)[1]
    command = block.split("```sh\n", 1)[1].split("\nverifier run", 1)[0]
    words = shlex.split(command.replace("\\\n", " "))
    assert words[:3] == ["verifier", "gate", "lock"], words
    return words[1:]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict[str, Any]]]:
    """The folder, and each version's JSON report of its run into one store."""
    folder = tmp_path_factory.mktemp("review")
    shutil.copy(FINDINGS / "code-review.yaml", folder / "review.yaml")
    for version in ("v1", "v2", "v3"):
        shutil.copy(FINDINGS / f"review.{version}.jsonl", folder / f"review.{version}.jsonl")
    lock = verifier(*_documented_lock(), "--store", "gaps.db", cwd=folder)
    assert lock.returncode == 0, lock.stderr
    assert "(precision, better by at least 10 points, alpha 0.05)" in lock.stderr
    reports = {}
    for version in ("v1", "v2", "v3"):
        result = verifier(
            "run", "review.yaml", "--cases", f"review.{version}.jsonl", "--store", "gaps.db",
            "--format", "json", "--out", f"{version}.json", cwd=folder,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        reports[version] = json.loads((folder / f"{version}.json").read_text(encoding="utf-8"))
    return folder, reports


def test_each_run_reports_its_micro_and_macro_figures(
    runs: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    folder, reports = runs
    v3 = reports["v3"]["findings"]["findings"]
    # 32 expected, 32 matched, 56 given: micro precision 32/56 = 4/7, as each case's.
    assert v3["micro"] == {"recall": 1.0, "precision": pytest.approx(4 / 7, abs=1e-6),
                           "f1": pytest.approx(8 / 11, abs=1e-6)}  # fmt: skip
    assert v3["macro"] == v3["micro"]
    assert (v3["cases"], v3["errors"], v3["matched"], v3["actual"]) == (8, 0, 32, 56)
    text = verifier(
        "run", "review.yaml", "--cases", "review.v1.jsonl", "--store", "gaps.db",
        "--format", "markdown", cwd=folder,
    ).stdout  # fmt: skip
    assert (
        "findings findings: micro recall 100.0%, precision 50.0%, F1 66.7%; "
        "macro recall 100.0%, precision 50.0%, F1 66.7% (8 cases)"
    ) in text


def _compare(folder: Path, a: str, b: str, *extra: str) -> Any:
    ids = [json.loads((folder / f"{v}.json").read_text(encoding="utf-8"))["run_id"] for v in (a, b)]
    return verifier("compare", *ids, "--store", "gaps.db", *extra, cwd=folder)


def test_the_gate_passes_a_pair_better_by_more_than_ten_points(
    runs: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    folder, _ = runs
    result = _compare(folder, "v1", "v2", "--gate", "review.gate.yaml")
    assert result.returncode == 0, result.stderr
    line = result.stdout.splitlines()[-1]
    assert line.startswith(
        "gate: PASS on primary claim findings (precision, better by at least 10 points, "
        "alpha 0.05): micro precision 50.0% -> 100.0% (+50.0 points); over 8 paired cases"
    )
    # Eight differences of 0.5 - 0.1, all above 0: the exact one-sided p is 1/2**8.
    assert "one-sided Wilcoxon signed-rank p 0.003906 (exact) <= alpha 0.05" in line
    assert "findings (candidate) findings: micro recall 100.0%, precision 100.0%" in (result.stdout)


def test_the_gate_fails_a_pair_better_by_less_than_ten_points(
    runs: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    folder, _ = runs
    result = _compare(folder, "v1", "v3", "--gate", "review.gate.yaml", "--format", "json")
    assert_no_traceback(result)
    assert result.returncode == 1
    gate = json.loads(result.stdout)["gate"]
    assert gate["verdict"] == "FAIL"
    assert gate["metric"] == "precision"
    # Better in every case, by 4/7 - 1/2 = 7.1 points: below the margin in each.
    assert gate["evidence"].startswith(
        "micro precision 50.0% -> 57.1% (+7.1 points); over 8 paired cases"
    )
    assert (
        "p 0.9961 (exact) > alpha 0.05: not significantly better by more than 10 points"
        in (gate["evidence"])
    )
    assert json.loads(result.stdout)["findings"]["candidate"]["findings"]["actual"] == 56


def test_without_a_margin_the_same_pair_is_better(
    runs: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    folder, _ = runs
    lock = verifier(
        "gate", "lock", "review.yaml", "--cases", "review.v1.jsonl", "--primary", "findings",
        "--metric", "precision", "--direction", "better", "--store", "gaps.db",
        "--out", "any.gate.yaml", cwd=folder,
    )  # fmt: skip
    assert lock.returncode == 0, lock.stderr
    result = _compare(folder, "v1", "v3", "--gate", "any.gate.yaml")
    assert result.returncode == 0, result.stdout
    assert "(precision, better, alpha 0.05)" in result.stdout


def test_a_single_run_is_held_by_its_micro_figure(
    runs: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    folder, _ = runs
    for version, code, said in (("v2", 0, "100.0% > threshold 75.0%"),
                                ("v3", 1, "57.1% <= threshold 75.0%")):  # fmt: skip
        result = verifier(
            "run", "review.yaml", "--cases", f"review.{version}.jsonl", "--store", "gaps.db",
            "--gate", "review.gate.yaml", cwd=folder,
        )  # fmt: skip
        assert result.returncode == code, result.stderr
        assert f"micro precision {said}" in result.stderr


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--metric", "pass_rate", "--margin", "0.1"),
         "--margin is for --metric precision, recall or f1 (a findings claim's)"),
        (("--metric", "precision", "--margin", "10"), "10.0 is not in the range 0<=x<1"),
    ],
)  # fmt: skip
def test_a_margin_without_a_findings_metric_is_refused(
    tmp_path: Path, options: tuple[str, ...], message: str
) -> None:
    shutil.copy(FINDINGS / "code-review.yaml", tmp_path / "review.yaml")
    shutil.copy(FINDINGS / "review.v1.jsonl", tmp_path / "review.cases.jsonl")
    result = verifier(
        "gate", "lock", "review.yaml", "--primary", "findings", *options, cwd=tmp_path
    )
    assert_no_traceback(result)
    assert result.returncode == 2
    assert message in result.stderr


V1_LINE = (
    "findings findings: micro recall 100.0%, precision 50.0%, F1 66.7%; "
    "macro recall 100.0%, precision 50.0%, F1 66.7% (8 cases)"
)


def test_the_html_report_and_the_viewer_show_the_figures_the_run_reported(
    runs: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    folder, reports = runs
    run_id = reports["v1"]["run_id"]
    made = verifier("report", run_id, "--html", "v1.html", "--store", "gaps.db", cwd=folder)
    assert made.returncode == 0, made.stderr
    page = unescape((folder / "v1.html").read_text(encoding="utf-8"))
    assert f'<dd class="findings">{V1_LINE.removeprefix("findings ")}</dd>' in page
    settings = ServerSettings(port=0, store=str(folder / "gaps.db"))
    with running(settings, app=create_view_app(settings)) as base:
        viewed = httpx.get(f"{base}/view/runs/{run_id}")
    assert viewed.status_code == 200
    assert f"<li>{V1_LINE}</li>" in unescape(viewed.text)

"""``verifier audit`` with history, ``verifier export`` and ``verifier import``: output
and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._cli import cli
from tests.analyses._history import planted_store
from tests.gaps._support import tamper

STEADY = [0.90, 0.92, 0.88, 0.91, 0.90]


history = planted_store


@pytest.fixture
def degraded(tmp_path: Path) -> Path:
    return history(tmp_path / "gaps.db", *STEADY, 0.60)


@pytest.fixture
def steady(tmp_path: Path) -> Path:
    return history(tmp_path / "gaps.db", *STEADY, 0.88)


def test_an_alert_fails_the_audit_only_when_asked(degraded: Path) -> None:
    plain = cli("audit", "--store", str(degraded))
    assert plain.exit_code == 0, plain.output
    assert "degradation alerts (window 5 runs): 1" in plain.stdout
    assert "ALERT demo/cites at run r6" in plain.stdout
    strict = cli("audit", "--store", str(degraded), "--fail-on-alert")
    assert strict.exit_code == 1


def test_an_alert_after_equal_rates_reads_as_a_sentence(tmp_path: Path) -> None:
    path = history(tmp_path / "gaps.db", 0.8, 0.8, 0.8, 0.8, 0.8, 0.6)
    result = cli("audit", "--store", str(path))
    (alert,) = [line for line in result.stdout.splitlines() if "ALERT" in line]
    assert alert.endswith(
        ": pass rate 0.600 is below 0.800, the pass rate of each of the previous 5 runs "
        "(alert below 0.800)"
    )
    assert "sd below" not in alert and "all equal" not in alert


def test_no_alert_passes_even_when_failing_on_alerts(steady: Path) -> None:
    result = cli("audit", "--store", str(steady), "--fail-on-alert")
    assert result.exit_code == 0, result.output
    assert "degradation alerts (window 5 runs): none" in result.stdout


def test_integrity_damage_fails_with_or_without_alerts(steady: Path) -> None:
    tamper(steady, "DELETE FROM rows WHERE seq = 17")
    assert cli("audit", "--store", str(steady)).exit_code == 1
    assert cli("audit", "--store", str(steady), "--fail-on-alert").exit_code == 1


def test_the_window_option_changes_the_history(tmp_path: Path) -> None:
    path = history(tmp_path / "gaps.db", 0.5, 0.5, 0.9, 0.9, 0.9, 0.85)
    assert cli("audit", "--store", str(path), "--fail-on-alert").exit_code == 0
    narrow = cli("audit", "--store", str(path), "--fail-on-alert", "--window", "3")
    assert narrow.exit_code == 1 and "window 3 runs" in narrow.stdout


def test_a_window_below_three_is_a_usage_error(steady: Path) -> None:
    assert cli("audit", "--store", str(steady), "--window", "2").exit_code == 2


def test_json_keeps_the_integrity_keys_and_adds_the_history(degraded: Path) -> None:
    result = cli("audit", "--store", str(degraded), "--format", "json", "--run", "r6")
    data = json.loads(result.stdout)
    assert data["ok"] is True and data["first_broken_link"] is None and data["run_id"] == "r6"
    assert [a["run_id"] for a in data["alerts"]] == ["r6"]
    assert data["alerts"][0]["prior_runs"] == ["r1", "r2", "r3", "r4", "r5"]
    assert data["drift"] == []  # the judge moved at r3, not r6
    cites = next(c for c in data["trends"]["claims"] if c["claim_id"] == "cites")
    assert [r["pass_rate"] for r in cites["runs"]] == [*STEADY, 0.6]
    assert cites["days"][0] == {
        "day": "2026-11-01",
        "pass_rate": 0.9,
        "passed": 90,
        "failed": 10,
        "errors": 0,
        "skipped": 0,
    }


def test_markdown_shows_verdict_alerts_drift_and_trends(degraded: Path) -> None:
    result = cli("audit", "--store", str(degraded), "--format", "markdown")
    text = result.stdout
    assert text.startswith("## ⚠️ verifier audit: no integrity problems\n")
    assert "### degradation alerts (window 5 runs): 1" in text
    assert (
        "| `demo/cites` | `r6` | `2026-11-06T10:00:00Z` | 60.0% | 90.2% ± 1.5% (5 runs) | 87.2% |"
        in text
    )
    assert "### judge drift: 2 change(s)" in text
    assert "| judge `demo/grader` (claims `tone`) | `r3` |" in text
    assert "| `demo/cites` | 6 | 60.0% | 90.2% | 90% 92% 88% 91% 90% 60% |" in text


def test_markdown_lists_integrity_problems(steady: Path) -> None:
    tamper(steady, "DELETE FROM rows WHERE seq = 17")
    text = cli("audit", "--store", str(steady), "--format", "markdown").stdout
    assert text.startswith("## ❌ verifier audit: integrity problems\n")
    assert "First broken link: `row 17 missing: seq jumps from 16 to 18`" in text


def test_export_then_import_through_the_command_line(steady: Path, tmp_path: Path) -> None:
    export = tmp_path / "rows.jsonl"
    out = cli("export", "--store", str(steady), "--out", str(export))
    assert out.exit_code == 0, out.output
    assert "exported 612 rows of 6 run(s)" in out.stderr
    target = tmp_path / "copy.db"
    done = cli("import", str(export), "--store", str(target))
    assert done.exit_code == 0, done.output
    assert "imported 612 rows of 6 run(s)" in done.stdout
    assert cli("audit", "--store", str(target)).exit_code == 0


def test_importing_a_run_twice_is_bad_input_in_one_line(steady: Path, tmp_path: Path) -> None:
    export = tmp_path / "rows.jsonl"
    cli("export", "--store", str(steady), "--out", str(export))
    target = tmp_path / "copy.db"
    assert cli("import", str(export), "--store", str(target)).exit_code == 0
    again = cli("import", str(export), "--store", str(target))
    assert again.exit_code == 2
    (line,) = again.stderr.splitlines()
    assert line.startswith(f"error: {export}:")
    assert line.endswith(
        f": refused, nothing imported: run r1 is already in {target}; importing it twice "
        "would hold its rows twice"
    )
    assert cli("audit", "--store", str(target)).exit_code == 0


def test_export_to_standard_output(steady: Path) -> None:
    result = cli("export", "--store", str(steady), "--run", "r2")
    lines = result.stdout.splitlines()
    kinds = [json.loads(line)["schema"] for line in lines]
    assert json.loads(lines[0])["scope"] == "run"
    assert kinds.count("verifier.gap-row.v1") == 102
    assert kinds[-3:] == [
        "verifier.gap-export.contract.v1",
        "verifier.gap-export.run.v1",
        "verifier.gap-export.end.v1",
    ]
    assert set(kinds[103:-3]) == {"verifier.gap-export.seal.v1"}  # the store's seal chain


def test_a_tampered_export_is_refused_with_its_line(steady: Path, tmp_path: Path) -> None:
    export = tmp_path / "rows.jsonl"
    cli("export", "--store", str(steady), "--out", str(export))
    lines = export.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[99] = lines[99].replace('"status":"fail"', '"status":"pass"')
    export.write_text("".join(lines), encoding="utf-8")
    result = cli("import", str(export), "--store", str(tmp_path / "copy.db"))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {export}:100: refused, nothing imported: row 99")


def test_parquet_needs_a_file(steady: Path) -> None:
    result = cli("export", "--store", str(steady), "--format", "parquet")
    assert result.exit_code == 2 and "needs --out" in result.stderr


def test_parquet_export_through_the_command_line(steady: Path, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "rows.parquet"
    result = cli("export", "--store", str(steady), "--format", "parquet", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert pq.read_table(out).num_rows == 612
    assert not (tmp_path / "rows.parquet.partial").exists()


def test_export_of_a_missing_store_is_a_usage_error(tmp_path: Path) -> None:
    result = cli("export", "--store", str(tmp_path / "nowhere.db"))
    assert result.exit_code == 2 and "no store found" in result.stderr

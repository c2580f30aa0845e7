"""Pre-registered gates: ``verifier gate lock``, ``run --gate`` and ``compare --gate``.

One contract of two claims, one cases file and three systems under test (Python
functions beside the contract), run for real into a SQLite store: ``plain`` fails the
primary claim ``polite`` on every case, ``polite`` passes both claims, ``wordy`` passes
``polite`` and fails ``short`` on every case.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests._cli import verifier as run_verifier
from verifier._internal.canonical import sha256_hex
from verifier._internal.contract_files import is_contract
from verifier.compare.gate_file import GateError, read_gate

pytestmark = pytest.mark.e2e

CONTRACT = """\
contract: gated
version: 1
claims:
  - id: polite
    rubric: contains
    field: output
    values: [please]
  - id: short
    rubric: length
    field: output
    max_words: 5
"""

BOTS = """\
def plain(question: str) -> str:
    return "hello"


def polite(question: str) -> str:
    return "hello please"


def wordy(question: str) -> str:
    return "please " + "word " * 10
"""

CASES = "".join(json.dumps({"id": f"c{i}", "input": f"question {i}"}) + "\n" for i in range(12))


def verifier(*args: str, cwd: Path) -> Any:
    return run_verifier(*args, cwd=cwd, timeout=120)


def lock(where: Path, out: str, *options: str) -> None:
    result = verifier(
        "gate", "lock", "gated.yaml", "--primary", "polite", "--out", out, "--store", "gaps.db",
        *options, cwd=where,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr


def run(where: Path, bot: str, *options: str) -> Any:
    # In a process of its own: a Python system under test keeps the report on stdout
    # by moving the descriptor, which the in-process runner cannot capture.
    return run_verifier(
        "run", "gated.yaml", "--sut", f"python:gate_bots:{bot}", "--store", "gaps.db", *options,
        cwd=where, own_process=True, timeout=120,
    )  # fmt: skip


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The files, three gates, and one run of each system (run id by system)."""
    where = tmp_path_factory.mktemp("gate")
    (where / "gated.yaml").write_text(CONTRACT)
    (where / "gated.cases.jsonl").write_text(CASES)
    (where / "gate_bots.py").write_text(BOTS)
    lock(where, "better.yaml", "--direction", "better", "--threshold", "0.9")
    lock(where, "not-worse.json", "--direction", "not-worse")
    lock(where, "scores.yaml", "--direction", "better", "--metric", "mean_score")
    runs = {}
    for bot in ("plain", "polite", "wordy"):
        result = run(where, bot, "--format", "json")
        assert result.returncode in (0, 1), result.stderr
        runs[bot] = json.loads(result.stdout)["run_id"]
    return where, runs


def test_lock_pins_the_contract_and_cases_by_sha(project: tuple[Path, dict[str, str]]) -> None:
    where, _ = project
    gate = read_gate(where / "better.yaml")
    assert gate.contract_sha256 == sha256_hex(CONTRACT)
    assert gate.cases_sha256 == sha256_hex(CASES.encode())
    assert gate.case_identity_sha256 is not None and gate.secondary_policy == "block"
    assert (gate.primary_claim, gate.metric, gate.direction) == ("polite", "pass_rate", "better")
    assert (gate.threshold, gate.alpha, gate.contract_id) == (0.9, 0.05, "gated")
    # JSON when the file is named so, and never taken for a contract by `verifier check`.
    assert json.loads((where / "not-worse.json").read_text())["direction"] == "not-worse"
    assert read_gate(where / "not-worse.json").threshold is None
    assert not is_contract(where / "better.yaml")


def test_lock_never_replaces_a_gate_and_needs_a_claim_of_the_contract(
    project: tuple[Path, dict[str, str]],
) -> None:
    where, _ = project
    before = (where / "better.yaml").read_text()
    result = verifier("gate", "lock", "gated.yaml", "--primary", "polite", "--out", "better.yaml", cwd=where)  # fmt: skip
    assert result.returncode == 2
    assert "better.yaml exists: a locked gate is not replaced" in result.stderr
    assert (where / "better.yaml").read_text() == before
    result = verifier("gate", "lock", "gated.yaml", "--primary", "nope", "--out", "x.yaml", cwd=where)  # fmt: skip
    assert result.returncode == 2
    assert "gated.yaml: no claim 'nope' to be primary; its claims: polite, short" in result.stderr


def test_run_gate_decides_on_the_primary_claim_against_the_threshold(
    project: tuple[Path, dict[str, str]],
) -> None:
    where, _ = project
    passed = run(where, "polite", "--gate", "better.yaml", "--format", "markdown")
    assert passed.returncode == 0, passed.stderr
    line = (
        "gate: PASS on primary claim polite (pass_rate, better, alpha 0.05): pass rate 100.0% "
        "(12 passed of 12 checked; 0 skipped, 0 errors) > threshold 90.0%; secondary (not "
        "deciding): short: pass rate 100.0% (12 of 12 checked)"
    )
    assert line in passed.stderr
    assert "**gate: PASS** on primary claim polite" in passed.stdout
    # Every case fails `short`, which does not decide: the gate passes where the
    # plain run would exit 1.
    wordy = run(where, "wordy", "--gate", "better.yaml")
    assert wordy.returncode == 0, wordy.stderr
    assert "secondary (not deciding): short: pass rate 0.0% (0 of 12 checked)" in wordy.stderr
    failed = run(where, "plain", "--gate", "better.yaml")
    assert failed.returncode == 1, failed.stderr
    assert (
        "gate: FAIL on primary claim polite (pass_rate, better, alpha 0.05): pass rate 0.0% "
        "(0 passed of 12 checked; 0 skipped, 0 errors) <= threshold 90.0%" in failed.stderr
    )


def test_run_gate_json_report_carries_the_decision(
    project: tuple[Path, dict[str, str]],
) -> None:
    where, runs = project
    result = run(where, "wordy", "--gate", "better.yaml", "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert list(report)[-2:] == ["gate", "cases"] and len(report["cases"]) == 12
    gate = report["gate"]
    assert set(gate) == set(passing_gate(where, runs["plain"], runs["polite"], "better.yaml"))
    assert (gate["verdict"], gate["primary_claim"], gate["metric"]) == (
        "PASS",
        "polite",
        "pass_rate",
    )
    assert (gate["threshold"], gate["direction"], gate["p_value"]) == (0.9, "better", None)
    assert gate["evidence"] == (
        "pass rate 100.0% (12 passed of 12 checked; 0 skipped, 0 errors) > threshold 90.0%"
    )
    assert gate["secondary"] == [
        {
            "claim": "short",
            "not_deciding": True,
            "blocking": False,
            "figures": "pass rate 0.0% (0 of 12 checked)",
        }
    ]
    assert gate["line"] in result.stderr  # still said on stderr too
    failed = run(where, "plain", "--gate", "better.yaml", "--format", "json")
    assert failed.returncode == 1
    assert json.loads(failed.stdout)["gate"]["verdict"] == "FAIL"


def test_run_gate_refuses_another_contract_or_cases(
    project: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    where, _ = project
    for name in ("gated.yaml", "gated.cases.jsonl", "gate_bots.py", "better.yaml", "gaps.db"):
        shutil.copy(where / name, tmp_path / name)
    runs_before = stored_runs(tmp_path / "gaps.db")
    edited = CONTRACT.replace("max_words: 5", "max_words: 6")
    (tmp_path / "gated.yaml").write_text(edited)
    result = run(tmp_path, "polite", "--gate", "better.yaml")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"error: contract changed since the gate was locked (sha {sha256_hex(edited)}, "
        f"gate has {sha256_hex(CONTRACT)})"
    )
    (tmp_path / "gated.yaml").write_text(CONTRACT)
    (tmp_path / "gated.cases.jsonl").write_text(CASES + '{"id": "extra", "input": "q"}\n')
    result = run(tmp_path, "polite", "--gate", "better.yaml")
    assert result.returncode == 2
    assert "error: cases changed since the gate was locked: an id, an input" in result.stderr
    assert stored_runs(tmp_path / "gaps.db") == runs_before  # refused before anything ran
    # A gate without a threshold cannot hold a single run.
    result = run(where, "polite", "--gate", "not-worse.json")
    assert result.returncode == 2
    assert "the gate has no threshold" in result.stderr


def stored_runs(store: Path) -> int:
    conn = sqlite3.connect(store)
    try:
        (count,) = conn.execute("SELECT COUNT(*) FROM runs").fetchone()
    finally:
        conn.close()
    return int(count)


def compare(where: Path, a: str, b: str, gate: str, fmt: str = "json") -> Any:
    return verifier("compare", a, b, "--store", "gaps.db", "--gate", gate, "--format", fmt, cwd=where)  # fmt: skip


def passing_gate(where: Path, a: str, b: str, gate: str) -> dict[str, Any]:
    """The ``gate`` object of ``compare A B --gate GATE --format json``, which exits 0."""
    result = compare(where, a, b, gate)
    assert result.returncode == 0, result.stderr
    decision: dict[str, Any] = json.loads(result.stdout)["gate"]
    return decision


def test_compare_gate_decides_on_the_paired_test_of_the_primary_claim(
    project: tuple[Path, dict[str, str]],
) -> None:
    where, runs = project
    gate = passing_gate(where, runs["plain"], runs["polite"], "better.yaml")
    assert gate["verdict"] == "PASS"
    # 12 of 12 discordant pairs favour the candidate: one-sided p = 1/2**12.
    assert gate["p_value"] == pytest.approx(2**-12)
    assert gate["line"].startswith(
        "gate: PASS on primary claim polite (pass_rate, better, alpha 0.05): in the 12 paired "
        "cases, passes 0 -> 12 (0.0% -> 100.0%), 0 worse and 12 better; one-sided exact "
        "McNemar p "
    )
    assert [s["claim"] for s in gate["secondary"]] == ["short", "all claims"]
    # Secondary claims decide only by a significant regression, which none has here.
    assert [(s["not_deciding"], s["blocking"]) for s in gate["secondary"]] == [(False, False)] * 2
    backwards = compare(where, runs["polite"], runs["plain"], "better.yaml", "markdown")
    assert backwards.returncode == 1, backwards.stderr
    assert (
        "**gate: FAIL** on primary claim polite (pass_rate, better, alpha 0.05)" in backwards.stdout
    )
    assert "not significantly better" in backwards.stdout


def test_compare_gate_secondary_regressions_block(
    project: tuple[Path, dict[str, str]],
) -> None:
    where, runs = project
    plain = verifier("compare", runs["polite"], runs["wordy"], "--store", "gaps.db", cwd=where)
    assert plain.returncode == 1  # `short` is significantly worse
    gated = compare(where, runs["polite"], runs["wordy"], "not-worse.json", "console")
    assert gated.returncode == 1, gated.stderr
    assert "gate: FAIL on primary claim polite (pass_rate, not-worse, alpha 0.05)" in gated.stdout
    assert "not significantly worse" in gated.stdout
    assert "secondary regression blocks: short" in gated.stdout
    assert "short: -100.0 pp over 12 pairs, worse (two-sided, Holm-adjusted)" in gated.stdout
    worse = compare(where, runs["polite"], runs["plain"], "not-worse.json")
    assert worse.returncode == 1
    evidence = json.loads(worse.stdout)["gate"]["evidence"]
    assert ": significantly worse; baseline pass rate 100.0% (12 passed of 12 checked" in evidence


def test_compare_gate_locked_report_only_leaves_secondary_regressions_to_the_reader(
    project: tuple[Path, dict[str, str]],
) -> None:
    where, runs = project
    lock(where, "report-only.yaml", "--secondary", "report-only")
    gated = compare(where, runs["polite"], runs["wordy"], "report-only.yaml")
    assert gated.returncode == 0, gated.stderr
    gate = json.loads(gated.stdout)["gate"]
    assert (gate["verdict"], gate["secondary_policy"]) == ("PASS", "report-only")
    assert "secondary (not deciding): short: -100.0 pp over 12 pairs, worse" in gate["line"]
    assert [(s["claim"], s["not_deciding"], s["blocking"]) for s in gate["secondary"]] == [
        ("short", True, False),
        ("all claims", True, False),
    ]


def test_compare_gate_on_mean_scores_uses_the_signed_rank_test(
    project: tuple[Path, dict[str, str]],
) -> None:
    where, runs = project
    gate = passing_gate(where, runs["plain"], runs["polite"], "scores.yaml")
    assert "one-sided Wilcoxon signed-rank p" in gate["evidence"]
    # Twelve tied differences of +1: exact one-sided p = 1/2**12.
    assert gate["p_value"] == pytest.approx(2**-12)


def test_compare_gate_refuses_a_run_of_other_cases(
    project: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    where, runs = project
    other = where / "other.cases.jsonl"
    other.write_text(CASES.replace("question 0", "question zero"))
    result = run(where, "polite", "--cases", str(other), "--format", "json")
    assert result.returncode == 0, result.stderr
    changed = json.loads(result.stdout)["run_id"]
    refused = compare(where, runs["plain"], changed, "better.yaml")
    assert refused.returncode == 2
    assert refused.stdout == ""
    locked = read_gate(where / "better.yaml").case_identity_sha256
    assert refused.stderr.startswith(
        f"error: cases of run {changed} changed since the gate was locked (sha "
    )
    assert refused.stderr.strip().endswith(f", gate has {locked})")


GOOD = (
    "gate: 1\ncontract_id: gated\ncontract_sha256: " + "a" * 64 + "\ncases_sha256: " + "b" * 64
    + "\nprimary_claim: polite\nmetric: pass_rate\ndirection: better\nthreshold: null\n"
    "alpha: 0.05\nverifier_version: 0.1.0\ncreated_at: '2026-11-26T00:00:00+00:00'\n"
)  # fmt: skip


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (GOOD + "hypothesis: x\n", "12:1: unknown key 'hypothesis' in a gate file"),
        (
            GOOD.replace("alpha: 0.05", "alpha: 0.7"),
            "9:8: alpha must be a number above 0, below 0.5",
        ),
        (GOOD.replace("better", "worse"), "7:12: direction must be one of: not-worse, better"),
        (GOOD + "margin: 1.5\n", "12:9: margin must be a number from 0 to below 1, or null"),
        (
            GOOD.replace("pass_rate", "precison"),
            "6:9: metric must be one of: pass_rate, mean_score, precision, recall, f1",
        ),
        (
            GOOD.replace("a" * 64, "abc"),
            "3:18: contract_sha256 must be 64 lowercase hexadecimal digits",
        ),
        (GOOD.replace("metric: pass_rate\n", ""), "1:1: missing key(s): metric"),
        ("- gate\n", "1:1: a gate file is a mapping of keys"),
        ("gate: [1\n", "2:1: invalid YAML"),
    ],
)
def test_a_bad_gate_file_is_one_located_line(
    tmp_path: Path, text: str, problem: str, project: tuple[Path, dict[str, str]]
) -> None:
    gate = tmp_path / "gate.yaml"
    gate.write_text(text)
    with pytest.raises(GateError) as raised:
        read_gate(gate)
    assert str(raised.value).startswith(f"{gate}:{problem}")
    where, runs = project
    result = compare(where, runs["plain"], runs["polite"], str(gate))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"error: {gate}:{problem}")
    assert read_gate(where / "better.yaml")  # the good ones still read

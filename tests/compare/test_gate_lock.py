"""A gate pins the hypothesis, not the outputs, and is sealed in the store when locked.

Runs of recorded outputs (the default way to run): the cases files of baseline and
candidate hold the same ids and inputs and different outputs. ``run --gate`` and
``compare --gate`` decide on them; another input or id is refused; a gate file edited
after its lock is refused naming what differs; a lock edited in the store is reported
by ``verifier audit``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests._cli import verifier as run_verifier
from tests.gaps._support import tamper
from verifier.compare.gate_file import read_gate

CONTRACT = """\
contract: support
version: 1
llm_fields: [answer]
claims:
  - id: polite
    rubric: contains
    field: output
    values: [please]
"""


def cases(polite: set[int], *, n: int = 12, answer: bool = False, **changed: str) -> str:
    """JSONL of ``n`` cases, polite where the index is in ``polite``; ``changed`` maps
    ``c3`` to a new input for that case."""
    lines = []
    for i in range(n):
        case: dict[str, Any] = {
            "id": f"c{i}",
            "input": changed.get(f"c{i}", f"question {i}"),
            "reference": f"answer {i}",
            "output": "hello please" if i in polite else "hello",
        }
        if answer:
            case["answer"] = f"written by the system {i}"
        lines.append(json.dumps(case) + "\n")
    return "".join(lines)


def verifier(where: Path, *args: str) -> Any:
    return run_verifier(*args, cwd=where, timeout=120)


def lock(where: Path, *options: str) -> Any:
    return verifier(
        where, "gate", "lock", "support.yaml", "--cases", "baseline.jsonl", "--primary",
        "polite", "--store", "gaps.db", *options,
    )  # fmt: skip


def run(where: Path, cases_file: str, *options: str) -> Any:
    return verifier(
        where, "run", "support.yaml", "--cases", cases_file, "--store", "gaps.db", *options
    )


def run_id(result: Any) -> str:
    found = re.search(r"^run (\S+):", result.stderr, re.MULTILINE)
    assert found, result.stderr
    return found.group(1)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "support.yaml").write_text(CONTRACT)
    (tmp_path / "baseline.jsonl").write_text(cases(set(range(8))))
    locked = lock(tmp_path, "--threshold", "0.9", "--direction", "better")
    assert locked.returncode == 0, locked.stderr
    return tmp_path


def test_a_gate_decides_on_cases_whose_recorded_outputs_differ(project: Path) -> None:
    # Same ids, inputs and references; other outputs, and an LLM-written field the
    # contract declares: what the candidate is compared on.
    (project / "candidate.jsonl").write_text(cases(set(range(12)), answer=True))
    baseline = run(project, "baseline.jsonl", "--gate", "support.gate.yaml")
    assert baseline.returncode == 1, baseline.stderr  # 8/12 < 0.9: decided, not refused
    assert "gate: FAIL on primary claim polite" in baseline.stderr
    candidate = run(project, "candidate.jsonl", "--gate", "support.gate.yaml")
    assert candidate.returncode == 0, candidate.stderr
    assert "gate: PASS on primary claim polite" in candidate.stderr
    compared = verifier(
        project, "compare", run_id(baseline), run_id(candidate), "--store", "gaps.db",
        "--gate", "support.gate.yaml", "--format", "json",
    )  # fmt: skip
    assert compared.returncode in (0, 1), compared.stderr
    assert json.loads(compared.stdout)["gate"]["verdict"] in ("PASS", "FAIL")


@pytest.mark.parametrize(
    ("what", "text"),
    [
        ("an input", cases(set(range(12)), c3="another question")),
        ("an id", cases(set(range(12))).replace('"c5"', '"c5b"')),
        ("a reference", cases(set(range(12))).replace("answer 7", "answer seven")),
        ("a case more", cases(set(range(12)), n=13)),
    ],
)
def test_a_gate_refuses_cases_with_another_identity(project: Path, what: str, text: str) -> None:
    (project / "other.jsonl").write_text(text)
    refused = run(project, "other.jsonl", "--gate", "support.gate.yaml")
    assert refused.returncode == 2, (what, refused.stderr)
    assert refused.stderr.startswith(
        "error: cases changed since the gate was locked: an id, an input or another field "
        "that is not an output differs"
    )
    assert refused.stderr.count("\n") == 1
    # Run without the gate, the run records the identity and compare --gate refuses it.
    ran = run(project, "other.jsonl")
    baseline = run(project, "baseline.jsonl")
    compared = verifier(
        project, "compare", run_id(baseline), run_id(ran), "--store", "gaps.db", "--gate",
        "support.gate.yaml",
    )  # fmt: skip
    assert compared.returncode == 2
    assert f"error: cases of run {run_id(ran)} changed since the gate was locked" in (
        compared.stderr
    )


def test_a_gate_file_edited_after_its_lock_is_refused_naming_the_difference(
    project: Path,
) -> None:
    baseline = run(project, "baseline.jsonl")
    gate_file = project / "support.gate.yaml"
    gate_file.write_text(gate_file.read_text().replace("threshold: 0.9", "threshold: 0.5"))
    refused = run(project, "baseline.jsonl", "--gate", "support.gate.yaml")
    assert refused.returncode == 2
    assert refused.stderr.startswith(
        "error: support.gate.yaml differs from its sealed lock (seal 1 in gaps.db): "
        "threshold is 0.5 in the file, 0.9 sealed; a locked gate is not edited: lock a new "
        "one (verifier gate lock support.yaml --primary polite --store gaps.db)"
    )
    compared = verifier(
        project, "compare", run_id(baseline), run_id(baseline), "--store", "gaps.db",
        "--gate", "support.gate.yaml",
    )  # fmt: skip
    assert compared.returncode == 2
    assert "threshold is 0.5 in the file, 0.9 sealed" in compared.stderr
    assert compared.stdout == ""


def test_a_gate_with_no_lock_in_the_store_is_refused_saying_how_to_lock_it(
    project: Path,
) -> None:
    result = verifier(
        project, "run", "support.yaml", "--cases", "baseline.jsonl", "--store", "other.db",
        "--gate", "support.gate.yaml",
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "error: support.gate.yaml has no sealed lock in other.db: no store is there yet; "
        "lock the gate there (verifier gate lock support.yaml --primary polite --store other.db)"
    )
    assert not (project / "other.db").exists()
    # A gate locked before gates were sealed (format 1) is refused, saying to re-lock.
    old = project / "old.gate.yaml"
    text = (project / "support.gate.yaml").read_text()
    old.write_text(text.replace("gate: 2", "gate: 1").split("case_identity_sha256")[0])
    refused = run(project, "baseline.jsonl", "--gate", "old.gate.yaml")
    assert refused.returncode == 2
    assert "old.gate.yaml was locked before gates were sealed in a store" in refused.stderr
    assert "remove it and lock it again (verifier gate lock" in refused.stderr


def test_a_lock_edited_in_the_store_fails_the_audit_and_the_gate(project: Path) -> None:
    assert verifier(project, "audit", "--store", "gaps.db").returncode == 0
    tamper(
        project / "gaps.db",
        "UPDATE seals SET body = replace(body, '\"threshold\":0.9', '\"threshold\":0.5')"
        " WHERE kind = 'gate'",
    )
    audited = verifier(project, "audit", "--store", "gaps.db")
    assert audited.returncode == 1, audited.stdout
    assert "seal 1 was edited: its hash does not match it" in audited.stdout + audited.stderr
    gate_file = project / "support.gate.yaml"
    gate_file.write_text(gate_file.read_text().replace("threshold: 0.9", "threshold: 0.5"))
    refused = run(project, "baseline.jsonl", "--gate", "support.gate.yaml")
    assert refused.returncode == 2
    assert "the lock of support.gate.yaml in gaps.db (seal 1) was edited" in refused.stderr


def test_lock_prints_its_seal_and_plans_the_cases_needed(tmp_path: Path) -> None:
    (tmp_path / "support.yaml").write_text(CONTRACT)
    (tmp_path / "baseline.jsonl").write_text(cases(set(range(8))))
    locked = lock(tmp_path, "--effect", "0.10", "--power", "0.8", "--secondary", "report-only")
    assert locked.returncode == 0, locked.stderr
    head = verifier(tmp_path, "audit", "--store", "gaps.db")
    sealed = re.search(r"sealed in gaps.db \(seal 1, hash ([0-9a-f]{64})\)", locked.stderr)
    assert sealed and sealed.group(1) in head.stdout  # the head right after the lock
    assert (
        "cases needed: at least 66 to detect a regression of 10 points in polite's pass rate "
        "with 80% power (one-sided exact McNemar at alpha 0.05; a floor"
    ) in locked.stderr
    assert (
        "warning: baseline.jsonl holds 12 cases, fewer than the at least 66 needed" in locked.stderr
    )
    gate = read_gate(tmp_path / "support.gate.yaml")
    assert (gate.effect, gate.power, gate.cases_needed, gate.discordant) == (0.1, 0.8, 66, None)
    assert gate.secondary_policy == "report-only"
    assert "secondary: " + '"report-only"' in (tmp_path / "support.gate.yaml").read_text()
    # A stated discordance plans more cases, and is recorded.
    planned = lock(
        tmp_path, "--effect", "0.1", "--discordant", "0.3", "--direction", "better",
        "--out", "planned.gate.json",
    )  # fmt: skip
    assert planned.returncode == 0, planned.stderr
    assert "cases needed: 199 to detect an improvement of 10 points" in planned.stderr
    assert json.loads((tmp_path / "planned.gate.json").read_text())["cases_needed"] == 199


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--power", "0.9"), "--power and --discordant plan the cases for an --effect"),
        (("--effect", "0.1", "--metric", "mean_score"), "a mean_score gate's signed-rank test is not planned"),
        (("--effect", "0.2", "--discordant", "0.1"), "--discordant 0.1 is below --effect 0.2"),
    ],
)  # fmt: skip
def test_a_plan_that_cannot_be_made_is_refused(
    tmp_path: Path, options: tuple[str, ...], message: str
) -> None:
    (tmp_path / "support.yaml").write_text(CONTRACT)
    (tmp_path / "baseline.jsonl").write_text(cases(set()))
    refused = lock(tmp_path, *options)
    assert refused.returncode == 2
    assert message in refused.stderr
    assert not (tmp_path / "support.gate.yaml").exists()


def test_a_bad_plan_in_a_gate_file_is_one_located_line(project: Path) -> None:
    gate_file = project / "support.gate.yaml"
    text = gate_file.read_text()
    for old, new, problem in (
        ("cases_needed: null", "cases_needed: 0", "cases_needed must be a whole number above 0"),
        ('secondary: "block"', "secondary: warn", "secondary must be one of: block, report-only"),
        ("effect: null", "effect: 1.5", "effect must be a number above 0, at most 1"),
    ):
        gate_file.write_text(text.replace(old, new))
        refused = run(project, "baseline.jsonl", "--gate", "support.gate.yaml")
        assert refused.returncode == 2
        assert refused.stderr.startswith("error: support.gate.yaml:")
        assert problem in refused.stderr and refused.stderr.count("\n") == 1

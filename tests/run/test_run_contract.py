"""Everything ``verifier run`` does to a run, as one call from Python: a resumed, a
sampled, a sharded (PostgreSQL), a gated run, a baseline and two variants, through
:func:`verifier.run_contract`, asserting what the store holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests._cli import verifier as run_verifier
from tests.sut._support import stored_rows
from verifier import (
    Resume,
    Sample,
    ShardPart,
    Sut,
    Variants,
    finish_sharded_run,
    run_contract,
)
from verifier.cases import read_cases, sample_cases
from verifier.contract.sut_models import SutSpec
from verifier.errors import VerifierError
from verifier.files import FileScope
from verifier.gaps.sqlite.store import SqliteStore
from verifier.results import CaseResult, RunSummary

CONTRACT = """\
contract: shop
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

SIMILAR = """\
contract: similar
version: 1
claims:
  - id: polite
    rubric: contains
    field: output
    values: [please]
  - id: close
    compare: similarity
    min_ratio: 60
"""


def write_project(where: Path, count: int = 12) -> tuple[Path, Path]:
    """The contract and ``count`` cases, every third one impolite."""
    contract = where / "shop.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    cases = where / "shop.cases.jsonl"
    with cases.open("w", encoding="utf-8") as handle:
        for i in range(count):
            output = "hello" if i % 3 == 0 else "hello please"
            handle.write(json.dumps({"id": f"c{i:03d}", "output": output}) + "\n")
    return contract, cases


def stored(db: Path, run_id: str) -> list[tuple[str, str, str]]:
    """The run's rows as (case, claim, status), in the order stored."""
    rows = stored_rows(db, run_id)
    return [(r["case_id"], r["claim_id"], r["status"]) for r in rows]


class StopAfter:
    """A report sink that stops the run as Ctrl-C would, after ``count`` cases."""

    def __init__(self, count: int) -> None:
        self.count = count

    def add_case(self, case: CaseResult) -> None:
        self.count -= 1
        if self.count == 0:
            raise KeyboardInterrupt

    def finish(self, summary: RunSummary) -> None:
        return None


def test_a_run_stopped_by_an_interrupt_is_resumed_from_python(tmp_path: Path) -> None:
    contract, cases = write_project(tmp_path, 12)
    db = tmp_path / "gaps.db"
    with pytest.raises(KeyboardInterrupt) as stopped:
        run_contract(contract, cases, store=db, run_id="first", chunk_size=2, sinks=[StopAfter(4)])
    assert stopped.value.__notes__ == [
        "run first keeps the rows already stored; --resume first checks the rest"
    ]
    kept = {case for case, _, _ in stored(db, "first")}
    assert 0 < len(kept) < 12
    resumed = run_contract(contract, cases, store=db, resume=Resume("last"))
    assert resumed.run_id == "first"
    assert resumed.summary.total_cases == 12 and resumed.summary.failed_cases == 4
    rows = stored(db, "first")
    assert len(rows) == 24 and len(set(rows)) == 24  # every case once, per claim
    with pytest.raises(VerifierError, match="run first already finished"):
        run_contract(contract, cases, store=db, resume=Resume("first"))


def test_a_sampled_run_checks_the_cases_its_seed_picks(tmp_path: Path) -> None:
    contract, cases = write_project(tmp_path, 60)
    db = tmp_path / "gaps.db"
    result = run_contract(contract, cases, store=db, sample=Sample(0.3, seed=7))
    picked = {line.case_id for line in sample_cases(read_cases(cases), 0.3, 7)}
    assert result.sample == Sample(0.3, seed=7)
    assert {case for case, _, _ in stored(db, result.run_id)} == picked
    assert {c.case_id for c in result.cases} == picked
    chosen = run_contract(contract, cases, store=db, sample=Sample(0.3))
    assert chosen.sample is not None and chosen.sample.seed is not None
    store = SqliteStore(db)
    try:
        record = store.run(chosen.run_id)
    finally:
        store.close()
    assert record is not None and record.options["seed"] == chosen.sample.seed


def test_a_sample_is_refused_outside_zero_to_one() -> None:
    with pytest.raises(VerifierError, match="--sample must be in"):
        Sample(1.5)


def test_a_sharded_run_is_two_calls_and_the_last_ends_it(tmp_path: Path, postgres_url: str) -> None:
    contract, cases = write_project(tmp_path, 30)
    first = run_contract(contract, cases, store=postgres_url, shard=ShardPart(1, 2, "R"))
    assert first.shard is not None and first.shard.waits == ("shard 2/2 never began",)
    second = run_contract(contract, cases, store=postgres_url, shard=ShardPart(2, 2, "R"))
    assert second.shard is not None and second.shard.whole is not None
    assert first.summary.total_cases + second.summary.total_cases == 30
    whole = second.shard.whole
    assert (whole.total_cases, whole.failed_cases) == (30, 10)
    finished = finish_sharded_run("R", store=postgres_url)
    assert (finished.total_cases, finished.head) == (30, whole.head)
    with pytest.raises(VerifierError, match="--shard needs a PostgreSQL store"):
        run_contract(contract, cases, store=tmp_path / "x.db", shard=ShardPart(1, 2, "S"))


def test_a_gated_run_returns_the_gates_decision(tmp_path: Path) -> None:
    contract, cases = write_project(tmp_path, 12)
    locked = run_verifier(
        "gate", "lock", "shop.yaml", "--primary", "polite", "--threshold", "0.5",
        "--out", "gate.yaml", "--store", "gaps.db", cwd=tmp_path,
    )  # fmt: skip
    assert locked.returncode == 0, locked.stderr
    result = run_contract(contract, cases, store=tmp_path / "gaps.db", gate=tmp_path / "gate.yaml")
    assert result.gate is not None and result.gate.exit_code == 0 and result.passed
    assert result.summary.failed_cases == 4  # the gate decides, not every case
    assert result.gate.line().startswith("gate: PASS on primary claim polite")
    with pytest.raises(VerifierError, match="--claims leaves out the gate's primary claim"):
        run_contract(
            contract, cases, store=tmp_path / "gaps.db", gate=tmp_path / "gate.yaml",
            claims=["short"],
        )  # fmt: skip


def test_a_baseline_is_joined_by_id_and_its_matches_counted(tmp_path: Path) -> None:
    contract = tmp_path / "similar.yaml"
    contract.write_text(SIMILAR, encoding="utf-8")
    cases = [{"id": f"c{i}", "output": "hello please"} for i in range(3)]
    baseline = tmp_path / "baseline.jsonl"
    baseline.write_text(
        "".join(json.dumps({"id": f"c{i}", "output": "hello please"}) + "\n" for i in (0, 1))
    )
    result = run_contract(contract, cases, store=tmp_path / "gaps.db", baseline=baseline)
    close = {c.case_id: r.status for c in result.cases for r in c.results if r.claim_id == "close"}
    assert close == {"c0": "pass", "c1": "pass", "c2": "error"}
    assert result.baseline_line() == (
        "baseline: 2 of 3 case ids matched; 1 case has no baseline: c2"
    )


BOTS = """\
def polite(question):
    return "hello please"


def curt(question):
    return "hello"
"""


def test_two_variants_are_stored_as_two_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bots.py").write_text(BOTS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    contract = tmp_path / "similar.yaml"
    contract.write_text(SIMILAR, encoding="utf-8")
    cases = [{"id": f"q{i}", "input": f"question {i}"} for i in range(4)]
    here = FileScope.anywhere(tmp_path)

    def system(name: str, function: str) -> Sut:
        return Sut(SutSpec.model_validate({"python": f"bots:{function}"}), here, variant=name)

    variants = Variants(system("old", "polite"), system("new", "curt"))
    db = tmp_path / "gaps.db"
    result = run_contract(contract, cases, store=db, run_id="V", variants=variants)
    assert result.baseline_summary is not None
    assert (result.baseline_summary.run_id, result.run_id) == ("V-old", "V-new")
    assert {status for _, claim, status in stored(db, "V-old")} == {"pass"}
    candidate = stored(db, "V-new")
    assert {s for _, c, s in candidate if c == "polite"} == {"fail"}
    assert len(candidate) == 8 and not result.passed


def test_options_that_exclude_each_other_are_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    contract, cases = write_project(tmp_path, 3)
    db = tmp_path / "gaps.db"
    refused: list[tuple[dict[str, Any], str]] = [
        ({"resume": Resume("x"), "run_id": "y"}, "--resume names the run already"),
        ({"shard": ShardPart(1, 2)}, "--shard writes into a run every shard names"),
        ({"shard": ShardPart(1, 2, "R"), "sample": Sample(0.5)}, "--sample cannot be combined"),
        ({"repeat": 2}, "--repeat needs a system under test"),
    ]
    for options, message in refused:
        with pytest.raises(VerifierError, match=message):
            run_contract(contract, cases, store=db, **options)
    assert not db.exists()

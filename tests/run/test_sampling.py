"""Sampling a case stream: ``verifier run --sample FRACTION --seed N``."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier
from tests.conftest import EXAMPLES
from verifier.cases import CaseLine, read_cases, sample_cases
from verifier.contract.load import load_contract
from verifier.gaps.sqlite.store import SqliteStore

EXTRACTION = EXAMPLES / "data-extraction.yaml"


def lines(count: int, *, prefix: str = "case") -> Iterator[CaseLine]:
    for number in range(1, count + 1):
        yield CaseLine(number, f"{prefix}-{number}", {"id": f"{prefix}-{number}"})


def kept(stream: Iterator[CaseLine], fraction: float, seed: int) -> set[str]:
    return {line.case_id for line in sample_cases(stream, fraction, seed)}


def test_same_seed_keeps_the_same_cases_whatever_their_order() -> None:
    shuffled = list(lines(5000))
    random.Random(3).shuffle(shuffled)
    assert kept(lines(5000), 0.1, 42) == kept(iter(shuffled), 0.1, 42)


def test_another_seed_keeps_other_cases() -> None:
    first, second = kept(lines(5000), 0.1, 1), kept(lines(5000), 0.1, 2)
    assert first != second
    # Independent samples of 10% overlap in about 1% of the cases, not 10%.
    assert len(first & second) < 0.03 * 5000


@pytest.mark.parametrize("fraction", [0.01, 0.1, 0.5])
def test_sample_size_is_close_to_the_fraction(fraction: float) -> None:
    count = 20_000
    size = len(kept(lines(count), fraction, 7))
    expected = fraction * count
    # Binomial standard deviation; five of them is far outside chance.
    spread = 5 * (count * fraction * (1 - fraction)) ** 0.5
    assert abs(size - expected) < spread


def test_a_larger_fraction_keeps_every_case_a_smaller_one_kept() -> None:
    small, large = kept(lines(5000), 0.05, 9), kept(lines(5000), 0.2, 9)
    assert small < large


def test_fraction_one_keeps_everything_and_out_of_range_is_refused() -> None:
    assert len(kept(lines(100), 1.0, 0)) == 100
    for bad in (0.0, -0.5, 1.5):
        with pytest.raises(ValueError, match="sample fraction"):
            list(sample_cases(lines(3), bad, 0))


def test_unusable_lines_are_sampled_by_their_line(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join("not json\n" for _ in range(4000)), encoding="utf-8")
    sampled = list(sample_cases(read_cases(path), 0.25, 5))
    assert 800 < len(sampled) < 1200
    assert all(line.error and line.case_id == f"line-{line.line}" for line in sampled)


def many_cases(path: Path, count: int) -> Path:
    template = json.loads(
        (EXAMPLES / "data-extraction.cases.jsonl").read_text(encoding="utf-8").splitlines()[0]
    )
    with path.open("w", encoding="utf-8") as handle:
        for number in range(count):
            handle.write(json.dumps({**template, "id": f"traffic-{number:04d}"}) + "\n")
    return path


def report_ids(path: Path) -> list[str]:
    return [case["id"] for case in json.loads(path.read_text(encoding="utf-8"))["cases"]]


def sampled_run(tmp_path: Path, cases: Path, name: str, *flags: str) -> tuple[list[str], str]:
    out = tmp_path / f"{name}.json"
    result = verifier(
        "run", str(EXTRACTION), "--cases", str(cases), "--store", str(tmp_path / f"{name}.db"),
        "--format", "json", "--out", str(out), *flags, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    return report_ids(out), result.stderr


def test_run_with_a_seed_checks_the_same_sample_twice(tmp_path: Path) -> None:
    cases = many_cases(tmp_path / "traffic.jsonl", 400)
    first, message = sampled_run(tmp_path, cases, "a", "--sample", "0.1", "--seed", "11")
    again, _ = sampled_run(tmp_path, cases, "b", "--sample", "0.1", "--seed", "11")
    other, _ = sampled_run(tmp_path, cases, "c", "--sample", "0.1", "--seed", "12")
    assert first == again and first != other
    assert 15 <= len(first) <= 70 and "seed 11" in message
    store = SqliteStore(tmp_path / "a.db")
    try:
        (record,) = store.runs()
        assert record.options["sample"] == 0.1 and record.options["seed"] == 11
    finally:
        store.close()


def test_run_without_a_seed_prints_and_records_the_one_it_chose(tmp_path: Path) -> None:
    cases = many_cases(tmp_path / "traffic.jsonl", 300)
    chosen, message = sampled_run(tmp_path, cases, "a", "--sample", "0.2")
    store = SqliteStore(tmp_path / "a.db")
    try:
        seed = store.runs()[0].options["seed"]
    finally:
        store.close()
    assert f"--seed {seed}" in message
    repeated, _ = sampled_run(tmp_path, cases, "b", "--sample", "0.2", "--seed", str(seed))
    assert chosen == repeated


def test_seed_without_sample_and_bad_fractions_are_usage_errors(tmp_path: Path) -> None:
    cases = many_cases(tmp_path / "traffic.jsonl", 5)
    base = ("run", str(EXTRACTION), "--cases", str(cases), "--store", str(tmp_path / "s.db"))
    for flags, fragment in (
        (("--seed", "3"), "--seed chooses the sample"),
        (("--sample", "0"), "--sample"),
        (("--sample", "1.5"), "--sample"),
    ):
        result = verifier(*base, *flags, cwd=tmp_path)
        assert result.returncode == 2 and fragment in result.stderr, result.stderr
        assert_no_traceback(result)


def interrupted_run(
    db: Path,
    options: dict[str, object],
    contract: Path = EXTRACTION,
    run_id: str = "run-interrupted",
) -> str:
    """A run of ``contract`` begun with ``options`` in the store ``db``, never finished."""
    loaded = load_contract(contract)
    store = SqliteStore(db)
    try:
        store.begin_run(
            run_id,
            contract_id=loaded.contract.contract,
            contract_version=loaded.contract.version,
            contract_sha256=loaded.sha256,
            contract_path=str(contract),
            contract_source=loaded.source.decode("utf-8"),
            started_at="2026-11-26T09:00:00Z",
            options=options,
        )
    finally:
        store.close()
    return run_id


def test_a_resumed_run_goes_on_with_its_own_sample(tmp_path: Path) -> None:
    cases = many_cases(tmp_path / "traffic.jsonl", 300)
    expected, _ = sampled_run(tmp_path, cases, "fresh", "--sample", "0.15", "--seed", "4")
    run_id = interrupted_run(tmp_path / "resumed.db", {"sample": 0.15, "seed": 4})
    resumed, _ = sampled_run(tmp_path, cases, "resumed", "--resume", run_id)
    assert sorted(resumed) == sorted(expected)


def test_resuming_with_another_sample_is_refused(tmp_path: Path) -> None:
    cases = many_cases(tmp_path / "traffic.jsonl", 20)
    db = tmp_path / "s.db"
    run_id = interrupted_run(db, {"sample": 0.5, "seed": 4})
    base = ("run", str(EXTRACTION), "--cases", str(cases), "--store", str(db), "--resume", run_id)
    result = verifier(*base, "--sample", "0.5", "--seed", "5", cwd=tmp_path)
    assert result.returncode == 2 and "--sample 0.5 --seed 4" in result.stderr, result.stderr
    unsampled = interrupted_run(tmp_path / "t.db", {})
    result = verifier(
        "run", str(EXTRACTION), "--cases", str(cases), "--store", str(tmp_path / "t.db"),
        "--resume", unsampled, "--sample", "0.5", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 2 and "checked every case" in result.stderr, result.stderr

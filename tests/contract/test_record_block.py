"""A contract's `record:` block loads into the run's record policy, and each wrong
key is reported at its line and column like every other contract problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier.contract.load import check_contract
from verifier.gaps.content import RecordPolicy

CLAIMS = "claims:\n  - id: x\n    rubric: present\n    field: output\n"


def contract_with(record: str) -> str:
    return "contract: demo\nversion: 1\nrecord:\n" + record + CLAIMS


def test_a_record_block_loads_into_the_policy_a_run_applies(write_contract) -> None:
    path = write_contract(
        contract_with(
            "  content: hashes\n  redact: [input.email, 'runs.*.output']\n  max_bytes: 4096\n"
        )
    )
    loaded, diagnostics = check_contract(path)
    assert loaded is not None, [str(d) for d in diagnostics]
    assert loaded.contract.record.policy() == RecordPolicy(
        content="hashes", redact=("input.email", "runs.*.output"), max_bytes=4096
    )


def test_without_a_record_block_everything_is_recorded_whole(write_contract) -> None:
    path = write_contract("contract: demo\nversion: 1\n" + CLAIMS)
    loaded, _ = check_contract(path)
    assert loaded is not None
    assert loaded.contract.record.policy() == RecordPolicy(
        content="full", redact=(), max_bytes=None
    )


@pytest.mark.parametrize(
    ("record", "where", "message"),
    [
        (
            "  content: partial\n",
            "4:12",
            "record.content: input should be 'full', 'hashes' or 'none'",
        ),
        ("  redact: [output, 'a..b']\n", "4:20", "record.redact.1: invalid field path 'a..b'"),
        ("  redact: [output, 5]\n", "4:20", "record.redact.1: input should be a valid string"),
        ("  redact: output\n", "4:11", "record.redact: input should be a valid"),
        ("  max_bytes: 0\n", "4:14", "record.max_bytes: input should be greater than 0"),
        ("  max_bytes: -5\n", "4:14", "record.max_bytes: input should be greater than 0"),
        ("  max_bytes: '12'\n", "4:14", "record.max_bytes: input should be a valid integer"),
        ("  max_bytes: true\n", "4:14", "record.max_bytes: input should be a valid integer"),
        ("  max_bytes: 1.5\n", "4:14", "record.max_bytes: input should be a valid integer"),
        ("  colour: red\n", "4:3", "record: unknown key 'colour'"),
    ],
)
def test_each_bad_record_key_is_reported_at_its_line(
    write_contract, record: str, where: str, message: str
) -> None:
    path = write_contract(contract_with(record))
    loaded, diagnostics = check_contract(path)
    assert loaded is None
    found = [str(d) for d in diagnostics if d.severity == "error"]
    assert len(found) == 1, found
    assert found[0].startswith(f"{path}:{where}: {message}"), found[0]


def test_a_record_block_that_is_not_a_mapping_is_reported_at_its_line(write_contract) -> None:
    path: Path = write_contract("contract: demo\nversion: 1\nrecord: full\n" + CLAIMS)
    loaded, diagnostics = check_contract(path)
    assert loaded is None
    assert [str(d) for d in diagnostics] == [
        f"{path}:3:9: record: input should be a valid dictionary (got 'full')"
    ]

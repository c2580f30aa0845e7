"""A contract's `record:` block loads into the run's record policy, and each wrong
key is reported at its line and column like every other contract problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier
from verifier.contract.load import check_contract
from verifier.gaps.content import RecordPolicy

CLAIMS = "claims:\n  - id: x\n    rubric: present\n    field: output\n"


def contract_with(record: str) -> str:
    return "contract: demo\nversion: 1\nrecord:\n" + record + CLAIMS


def only_diagnostic(write_contract, record: str, *, rejected: bool) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """The one problem reported for a contract with this `record:` block, as
    ``(LINE:COL, message)``."""
    path = write_contract(contract_with(record))
    loaded, diagnostics = check_contract(path)
    assert (loaded is None) == rejected
    found = [str(d) for d in diagnostics]
    assert len(found) == 1, found
    prefix = f"{path}:"
    assert found[0].startswith(prefix), found[0]
    line, col, message = found[0][len(prefix) :].split(":", 2)
    return f"{line}:{col}", message.strip()


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
        ("  redact: [output, 5]\n", "4:20", "record.redact.1: should be text (a string) (got 5)"),
        ("  redact: output\n", "4:11", "record.redact: should be a list"),
        ("  max_bytes: 0\n", "4:14", "record.max_bytes: input should be greater than 0"),
        ("  max_bytes: -5\n", "4:14", "record.max_bytes: input should be greater than 0"),
        ("  max_bytes: '12'\n", "4:14", "record.max_bytes: should be a whole number"),
        ("  max_bytes: true\n", "4:14", "record.max_bytes: should be a whole number"),
        ("  max_bytes: 1.5\n", "4:14", "record.max_bytes: should be a whole number"),
        ("  colour: red\n", "4:3", "record: unknown key 'colour'"),
    ],
)
def test_each_bad_record_key_is_reported_at_its_line(
    write_contract, record: str, where: str, message: str
) -> None:
    found_at, found = only_diagnostic(write_contract, record, rejected=True)
    assert found_at == where and found.startswith(message), found


def test_a_record_block_that_is_not_a_mapping_is_reported_at_its_line(write_contract) -> None:
    path: Path = write_contract("contract: demo\nversion: 1\nrecord: full\n" + CLAIMS)
    loaded, diagnostics = check_contract(path)
    assert loaded is None
    assert [str(d) for d in diagnostics] == [
        f"{path}:3:9: record: should be a mapping (`key: value` lines) (got 'full')"
    ]


@pytest.mark.parametrize(
    ("record", "where", "message"),
    [
        (
            "  content: hashes\n  max_bytes: 10\n",
            "5:14",
            "record.max_bytes has no effect with content: hashes (no content is stored)",
        ),
        (
            "  redact: [output, id]\n",
            "4:20",
            "record.redact: 'id' covers the case id, which every row keeps as its case_id",
        ),
        ("  redact: ['*']\n", "4:12", "record.redact: '*' covers the case id"),
    ],
)
def test_a_record_setting_that_cannot_do_what_it_says_is_a_warning_at_its_line(
    write_contract, record: str, where: str, message: str
) -> None:
    # A warning is reported, and the contract still loads.
    found_at, found = only_diagnostic(write_contract, record, rejected=False)
    assert found_at == where and found.startswith("warning: " + message), found


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("output[", "brackets are not path syntax"),
        ("items[0].name", "brackets are not path syntax"),
        ("$.output", "a path starts at a key of the case, not at '$'"),
        ("fields.'name'", "quotes are not path syntax"),
    ],
)
def test_a_redact_path_in_another_path_language_is_refused_at_its_line(
    tmp_path: Path, path: str, why: str
) -> None:
    contract = tmp_path / "contract.yaml"
    quoted = path.replace('"', '\\"')
    contract.write_text(contract_with(f'  redact:\n    - "{quoted}"\n'), encoding="utf-8")
    (tmp_path / "cases.jsonl").write_text('{"id": "a", "output": "secret"}\n', encoding="utf-8")
    for command in (("check", str(contract)), ("run", str(contract), "--cases", "cases.jsonl")):
        result = verifier(*command, cwd=tmp_path)
        assert result.returncode == 2, result.stdout + result.stderr
        assert f"{contract}:5:7: record.redact: {path!r} is not a field path: {why}" in (
            result.stdout + result.stderr
        )
        assert "it would redact nothing" in result.stdout + result.stderr
        assert_no_traceback(result)
    assert not (tmp_path / ".verifier").exists()

"""Integers beyond 64 bits in cases stay exact: in claims, stored content and rows."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import orjson
import pytest

from tests._cli import assert_no_traceback, verifier
from verifier._internal.canonical import loads_exact, sha256_hex
from verifier.cases import read_cases

BIG = 2**64 + 1  # 18446744073709551617: orjson alone reads it as 1.8446744073709552e19
SMALL = -(2**63) - 1

CONTRACT = f"""\
contract: big-numbers
version: 1
claims:
  - {{id: account_is_big, rubric: equals, field: account, value: {BIG}}}
"""


def test_integers_beyond_64_bits_are_read_as_exact_ints(tmp_path: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        f'{{"id": "a", "n": {BIG}, "m": {SMALL}, "x": 1.5, "k": [{2**200}]}}\n'
        '{"id": "b", "n": 12, "digits": "1234567890123456789012"}\n',
        encoding="utf-8",
    )
    first, second = read_cases(cases)
    assert first.case == {"id": "a", "n": BIG, "m": SMALL, "x": 1.5, "k": [2**200]}
    assert type(first.case["n"]) is int and type(first.case["k"][0]) is int
    assert second.case == {"id": "b", "n": 12, "digits": "1234567890123456789012"}


def test_loads_exact_refuses_what_orjson_refuses() -> None:
    for bad in (b"[1e400, 12345678901234567890]", b'["\\ud800", 12345678901234567890]'):
        with pytest.raises(orjson.JSONDecodeError):
            loads_exact(bad)
    assert loads_exact(f'{{"n": {BIG}}}') == {"n": BIG}


def test_a_rubric_claim_and_the_stored_content_see_the_exact_value(tmp_path: Path) -> None:
    contract = tmp_path / "contract.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    cases.write_text(f'{{"id": "c1", "account": {BIG}}}\n', encoding="utf-8")
    db = tmp_path / "gaps.db"
    out = tmp_path / "report.json"
    result = verifier(
        "run", str(contract), "--cases", str(cases), "--store", str(db),
        "--format", "json", "--out", str(out), cwd=tmp_path,
    )  # fmt: skip
    assert_no_traceback(result)
    assert result.returncode == 0, result.stdout + result.stderr
    (case,) = json.loads(out.read_text(encoding="utf-8"))["cases"]
    assert case["results"][0]["status"] == "pass"
    conn = sqlite3.connect(db)
    try:
        ((body,),) = conn.execute("SELECT body FROM rows").fetchall()
        ((sha, content),) = conn.execute("SELECT sha256, body FROM contents").fetchall()
    finally:
        conn.close()
    assert f'"actual":{BIG}' in body  # the evidence quotes the value as read
    assert content == f'{{"case":{{"account":{BIG},"id":"c1"}}}}'
    assert sha256_hex(content) == sha
    audit = verifier("audit", "--store", str(db), cwd=tmp_path)
    assert audit.returncode == 0, audit.stdout + audit.stderr


def test_a_failing_case_s_recorded_content_in_the_report_keeps_the_exact_value(
    tmp_path: Path,
) -> None:
    contract = tmp_path / "contract.yaml"
    contract.write_text(CONTRACT + "record: {redact: [secret]}\n", encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    cases.write_text(f'{{"id": "c1", "account": {BIG + 1}, "secret": "s"}}\n', encoding="utf-8")
    out = tmp_path / "report.json"
    result = verifier(
        "run", str(contract), "--cases", str(cases), "--store", str(tmp_path / "gaps.db"),
        "--format", "json", "--out", str(out), cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    (case,) = json.loads(out.read_text(encoding="utf-8"))["cases"]
    assert case["content"]["account"] == BIG + 1 and case["content"]["secret"] != "s"

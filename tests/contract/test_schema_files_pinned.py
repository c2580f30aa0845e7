"""A schema file is part of what a contract checks: a run records its SHA-256, a gate
locks it, ``compare`` warns when two runs read different ones, and ``audit --recheck``
does not hold a stored verdict against a file edited since the run."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests._cli import verifier
from tests.recheck._support import recheck
from verifier._internal.canonical import sha256_hex

STRICT = '{"type": "object", "required": ["total"]}'
LOOSE = '{"type": "object"}'
CONTRACT = (
    "contract: shaped\nversion: 1\nclaims:\n"
    "  - id: shape\n    rubric: json_schema\n    field: output\n"
    "    schema_file: schema.json\n"
    "  - id: inner\n    rubric: not\n"
    "    of: [{rubric: json_schema, field: output, schema_file: other.json}]\n"
    "  - id: waits\n    rubric: present\n    field: output\n    after: [shape]\n"
    "  - id: free\n    rubric: present\n    field: output\n"
)


def _setup(folder: Path) -> None:
    (folder / "schema.json").write_text(STRICT)
    (folder / "other.json").write_text('{"type": "string"}')
    (folder / "c.yaml").write_text(CONTRACT)
    (folder / "cases.jsonl").write_text('{"id": "a", "output": {"name": "x"}}\n')


def _run(folder: Path, *args: str) -> int:
    done = verifier("run", "c.yaml", "--cases", "cases.jsonl", *args, cwd=folder)
    assert "Traceback" not in done.stderr
    return done.returncode


def test_a_run_records_the_schema_files_it_read(tmp_path: Path) -> None:
    _setup(tmp_path)
    assert _run(tmp_path) == 1  # the case has no total
    with sqlite3.connect(tmp_path / ".verifier" / "gaps.db") as db:
        ((options,),) = db.execute("SELECT options FROM runs").fetchall()
    assert json.loads(options)["schema_files"] == {
        "schema.json": sha256_hex(STRICT.encode()),
        "other.json": sha256_hex(b'{"type": "string"}'),
    }


def test_a_gate_refuses_a_schema_file_changed_since_it_was_locked(tmp_path: Path) -> None:
    _setup(tmp_path)
    lock = verifier("gate", "lock", "c.yaml", "--cases", "cases.jsonl", "--primary", "shape",
                    "--threshold", "0.9",
                    cwd=tmp_path)  # fmt: skip
    assert lock.returncode == 0, lock.stderr
    assert "schema_files:" in (tmp_path / "c.gate.yaml").read_text()
    assert _run(tmp_path, "--gate", "c.gate.yaml") == 1  # FAIL: the case has no total
    (tmp_path / "schema.json").write_text(LOOSE)  # would make it pass
    refused = verifier("run", "c.yaml", "--cases", "cases.jsonl", "--gate", "c.gate.yaml",
                       cwd=tmp_path)  # fmt: skip
    assert refused.returncode == 2
    assert "schema file schema.json changed since the gate was locked" in refused.stderr
    # compare --gate of the earlier run and a run after the edit refuses the later one.
    assert _run(tmp_path) == 0
    compared = verifier("compare", "last~1", "last", "--gate", "c.gate.yaml", cwd=tmp_path)
    assert compared.returncode == 2
    assert "schema file schema.json of run" in compared.stderr


def test_compare_warns_and_recheck_skips_after_a_schema_file_changed(tmp_path: Path) -> None:
    _setup(tmp_path)
    assert _run(tmp_path) == 1
    store = str(tmp_path / ".verifier" / "gaps.db")
    assert recheck(store, tmp_path)[1]["agree"] == 4
    (tmp_path / "schema.json").write_text(LOOSE)
    assert _run(tmp_path) == 0
    compared = verifier("compare", "last~1", "last", cwd=tmp_path)
    assert "the runs read different versions of schema file schema.json" in compared.stderr
    assert "other.json" not in compared.stderr
    code, report = recheck(store, tmp_path)
    # The first run's verdicts on shape (and waits, after it) were right for the file
    # it read: skipped with that reason, not reported as differences.
    assert code == 0 and report["differ"] == 0
    why = report["not_recheckable_by_reason"]["schema_file_changed"]
    assert why["rows"] == 2 and "'schema.json' of claim shape" in why["example"]
    assert report["agree"] == 6  # inner and free of the first run, all four of the second

"""A resumed run reads back what it stored as it reaches it, and reports every case once.

Stored cases are known by their line, so an id that equals another line's synthetic
``line-N`` cannot make a case disappear; nothing is read before the first case, so a
resume costs the same however much the run stored.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import tracemalloc
from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier, verifier_process
from tests.gaps._backends import Backend
from verifier.analyses.audit import audit_store
from verifier.cases import CaseLine, read_cases
from verifier.contract.load import load_contract
from verifier.engine.plan import build_plan
from verifier.engine.runner import Runner, RunOptions
from verifier.gaps.store import GapStore
from verifier.run.assembly import KeptCases

CONTRACT = """\
contract: resumed
version: 1
claims:
  - {id: says_ok, rubric: contains, field: output, values: [ok]}
  - {id: short, rubric: length, field: output, max_words: 5}
"""


def write_cases(path: Path, n: int) -> Path:
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            out.write(json.dumps({"id": f"c{i}", "output": "ok" if i % 3 else "no"}) + "\n")
    return path


def runner(
    contract: Path, store: GapStore, *, resume: bool, sink: KeptCases | None = None
) -> Runner:
    loaded = load_contract(contract)
    return Runner(
        loaded,
        store,
        plan=build_plan(loaded),
        sinks=[sink] if sink else [],
        options=RunOptions(run_id="run-1", resume=resume, chunk_size=50),
    )


def interrupted(contract: Path, store: GapStore, chunks: list[list[CaseLine]]) -> None:
    """A run that stored ``chunks`` and was then interrupted."""

    async def go() -> None:
        first = runner(contract, store, resume=False)
        summary = first.begin()
        for chunk in chunks:
            await first.check_chunk(chunk, summary)
        await first.end(summary, status="interrupted")

    asyncio.run(go())


def test_a_resume_reads_nothing_before_its_first_case(tmp_path: Path) -> None:
    contract = tmp_path / "contract.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    lines = list(read_cases(write_cases(tmp_path / "cases.jsonl", 3000)))
    with open_sqlite(tmp_path) as store:
        interrupted(contract, store, [lines[i : i + 500] for i in range(0, 2500, 500)])
        resumed = runner(contract, store, resume=True)
        tracemalloc.start()
        summary = resumed.begin()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        # Rebuilding the 2,500 stored cases up front took 8 MB; reading none takes
        # what a first begin takes anyway (half a megabyte, the first time only).
        assert peak < 2_000_000
        asyncio.run(resumed.end(summary, status="interrupted"))


def test_a_resumed_run_reports_every_case_once_on_both_stores(
    store_backend: Backend, tmp_path: Path
) -> None:
    contract = tmp_path / "contract.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    lines = list(read_cases(write_cases(tmp_path / "cases.jsonl", 300)))
    with store_backend.open() as store:
        # Stored cases that are not a prefix of the lines (120 to 149 are missing): the
        # rest is read into memory before the run writes again.
        interrupted(contract, store, [lines[:120], lines[150:200]])
        sink = KeptCases()
        summary = asyncio.run(runner(contract, store, resume=True, sink=sink).run(lines))
        assert [case.line for case in sink.cases] == [line.line for line in lines]
        assert summary.total_cases == 300 and summary.passed_cases == 200
        assert store.duplicate_row_ids() == []
        report = audit_store(store)
        assert report.ok, report.problems


@pytest.mark.e2e
def test_a_real_id_equal_to_a_synthetic_one_survives_a_resume(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text(
        "import os, signal\n"
        "def answer(text):\n"
        "    if text == 'crash' and os.environ.get('BOT_CRASHES'):\n"
        "        os.kill(os.getpid(), signal.SIGKILL)  # a crash, mid-run\n"
        "    return 'ok ' + text\n",
        encoding="utf-8",
    )
    contract = tmp_path / "contract.yaml"
    contract.write_text(
        CONTRACT.replace("claims:", "sut: {python: 'bot:answer'}\nclaims:"), encoding="utf-8"
    )
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        '{"id": "line-3", "input": "a"}\n{"id": "b", "input": "b"}\nnot json\n'
        '{"id": "d", "input": "crash"}\n{"input": "no id"}\n{"id": "f", "input": "f"}\n',
        encoding="utf-8",
    )

    def run(db: Path, *flags: str, env: dict[str, str] | None = None) -> dict[str, object]:
        out = tmp_path / f"{db.stem}.json"
        result = verifier(
            "run", str(contract), "--cases", str(cases), "--store", str(db), "--chunk-size", "1",
            "--format", "json", "--out", str(out), *flags, cwd=tmp_path, env=env,
        )  # fmt: skip
        assert_no_traceback(result)
        assert result.returncode == 1, result.stderr
        report: dict[str, object] = json.loads(out.read_text(encoding="utf-8"))
        return report

    whole = run(tmp_path / "whole.db")
    db = tmp_path / "resumed.db"
    crashed = verifier_process(
        "run", str(contract), "--cases", str(cases), "--store", str(db), "--chunk-size", "1",
        cwd=tmp_path, env={"BOT_CRASHES": "1"},
    )  # fmt: skip
    assert crashed.returncode == -9
    conn = sqlite3.connect(db)
    try:
        (run_id,), *_ = conn.execute("SELECT run_id FROM runs").fetchall()
        stored = conn.execute("SELECT DISTINCT case_id FROM rows").fetchall()
    finally:
        conn.close()
    # Line 3's error rows do not take line 1's id: they are line-3~2.
    assert sorted(stored) == [("b",), ("line-3",), ("line-3~2",)]
    resumed = run(db, "--resume", run_id)

    def outcome(report: dict[str, object]) -> list[object]:
        cases = report["cases"]
        assert isinstance(cases, list)
        return [
            (case["id"], [(r["id"], r["status"], r["reasoning"]) for r in case["results"]])
            for case in cases
        ]

    assert outcome(resumed) == outcome(whole)
    assert [case[0] for case in outcome(resumed)] == [
        "line-3", "b", "line-3~2", "d", "line-5", "f"
    ]  # fmt: skip
    audit = verifier("audit", "--store", str(db), cwd=tmp_path)
    assert audit.returncode == 0, audit.stdout + audit.stderr


def open_sqlite(tmp_path: Path) -> GapStore:
    from verifier.gaps.sqlite.store import SqliteStore

    return SqliteStore(tmp_path / "gaps.db")

"""A resumed run does its new work first: killed again and again, it progresses every time.

A run of many stored cases is killed with SIGKILL, then resumed and killed again as soon
as it stores anything, several times in a row; each resume must store new rows within a
budget of CPU time (not wall time: the machine may be busy) that reading back every
stored case first would exceed. The run finally resumed to its end has the rows and the
summary of the same run never interrupted.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from verifier.analyses.audit import audit_store
from verifier.gaps.sqlite.store import SqliteStore

pytestmark = pytest.mark.e2e

CONTRACT = """\
contract: resume-progress
version: 1
claims:
  - id: names
    rubric: contains
    field: output
    values: [account]
  - id: cites
    rubric: regex
    field: output
    pattern: 'source: CRM'
  - id: polite
    rubric: not_contains
    field: output
    values: [stupid]
  - id: short
    rubric: length
    field: output
    max_words: 30
"""
CLAIMS = 4
STORED = 24_000  # cases the first run stores, at least
CASES = STORED + 1_500
KILLS = 6
BUDGET = 2.5
"""CPU seconds a resume may take to store its first new row: about three times what it
takes (starting Python and the command is most of it); reading back 24,000 stored
cases first took more."""


def write_cases(path: Path) -> None:
    lines = []
    for i in range(CASES):
        text = f"The account {i} renews in March [source: CRM]. " * (1 + i % 5)
        lines.append(json.dumps({"id": f"case-{i}", "output": text}))
    lines[6] = "not json"  # an unusable line 7, stored as line-7, which takes that id...
    lines.append(
        json.dumps({"id": "line-7", "output": "The account so named [source: CRM]."})
    )  # ...so a later case with it is a duplicate
    lines.append(json.dumps({"id": "case-5", "output": "Again."}))  # a duplicate of a stored case
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def rows(db: Path) -> int:
    """The rows in the store (0 before it has a table of them)."""
    if not db.exists():
        return 0
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return int(conn.execute("SELECT COALESCE(MAX(seq), 0) FROM rows").fetchone()[0])
    except sqlite3.OperationalError:
        return 0  # the schema is being created
    finally:
        conn.close()


def cpu_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def command(folder: Path, db: Path, *flags: str) -> list[str]:
    return [
        sys.executable, "-m", "verifier", "run", str(folder / "contract.yaml"),
        "--cases", str(folder / "cases.jsonl"), "--store", str(db), *flags,
    ]  # fmt: skip


def killed_when(args: list[str], cwd: Path, stop: Any) -> tuple[bool, float]:
    """Runs ``args`` until ``stop(cpu)`` says so, then SIGKILLs it; returns whether it
    was stopped (rather than ended) and its CPU seconds then."""
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
    try:
        while process.poll() is None:
            cpu = cpu_of(process.pid)
            if stop(cpu):
                process.send_signal(signal.SIGKILL)
                process.wait(timeout=30)
                return True, cpu
            time.sleep(0.02)
        return False, 0.0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def stored_rows(db: Path, run_id: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(db)
    try:
        found = conn.execute(
            "SELECT row_id, case_id, claim_id, status, score, body FROM rows WHERE run_id = ?",
            (run_id,),
        ).fetchall()
    finally:
        conn.close()
    out = []
    for row_id, case_id, claim_id, status, score, body in found:
        parsed = json.loads(body)
        line = row_id.split(":")[1]
        out.append((line, case_id, claim_id, status, score, parsed["reason"],
                    json.dumps(parsed["evidence"], sort_keys=True)))  # fmt: skip
    return sorted(out)


def test_a_resume_killed_again_and_again_progresses_every_time(tmp_path: Path) -> None:
    (tmp_path / "contract.yaml").write_text(CONTRACT, encoding="utf-8")
    write_cases(tmp_path / "cases.jsonl")
    db = tmp_path / "gaps.db"
    first = command(tmp_path, db, "--run-id", "often-killed", "--chunk-size", "1000")
    stopped, _ = killed_when(first, tmp_path, lambda _: rows(db) >= STORED * CLAIMS)
    assert stopped
    resume = command(tmp_path, db, "--resume", "often-killed", "--chunk-size", "100")
    for life in range(KILLS):
        before = rows(db)
        assert before < CASES * CLAIMS
        stopped, cpu = killed_when(
            resume, tmp_path, lambda cpu, before=before: rows(db) > before or cpu > BUDGET
        )
        assert stopped and rows(db) > before, f"resume {life + 1} stored nothing in {cpu:.2f} s CPU"
    report = tmp_path / "resumed.json"
    ended = subprocess.run(
        [*resume, "--format", "json", "--out", str(report)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert ended.returncode == 1, ended.stderr  # the unusable line and the duplicate fail
    whole_db, whole = tmp_path / "whole.db", tmp_path / "whole.json"
    uninterrupted = subprocess.run(
        [*command(tmp_path, whole_db, "--run-id", "often-killed"), "--format", "json",
         "--out", str(whole)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert uninterrupted.returncode == 1, uninterrupted.stderr
    resumed_report = json.loads(report.read_text(encoding="utf-8"))
    whole_report = json.loads(whole.read_text(encoding="utf-8"))
    for key in ("total_cases", "passed_cases", "failed_cases", "average_score",
                "assertion_breakdown"):  # fmt: skip
        assert resumed_report[key] == whole_report[key], key
    assert [c["id"] for c in resumed_report["cases"]] == [c["id"] for c in whole_report["cases"]]
    assert resumed_report["total_cases"] == CASES + 2
    assert stored_rows(db, "often-killed") == stored_rows(whole_db, "often-killed")
    with SqliteStore(db) as store:
        assert audit_store(store).ok
        record = store.run("often-killed")
        assert record is not None and record.status == "finished"
    duplicate = [c for c in resumed_report["cases"] if c["id"] == "case-5@line-25502"]
    assert duplicate and not duplicate[0]["pass"]
    assert [c for c in resumed_report["cases"] if c["id"] == "line-7@line-25501"]


def interrupted_at(folder: Path, db: Path, stored: int) -> None:
    """A run of the folder's contract that stored the cases of its first ``stored``
    lines, then stopped, recorded as ``verifier run`` records its cases file."""
    from hashlib import file_digest

    from verifier.cases import read_cases
    from verifier.contract.load import load_contract
    from verifier.engine.plan import build_plan
    from verifier.engine.runner import Runner, RunOptions

    cases = folder / "cases.jsonl"
    with cases.open("rb") as handle:
        recorded = {"cases": str(cases), "cases_sha256": file_digest(handle, "sha256").hexdigest()}
    options = RunOptions(run_id="stopped", options_record=recorded, chunk_size=10)
    with SqliteStore(db) as store:
        loaded = load_contract(folder / "contract.yaml")
        runner = Runner(loaded, store, plan=build_plan(loaded), options=options)
        summary = runner.begin()

        async def store_first() -> None:
            lines = [line for line in read_cases(cases) if line.line <= stored]
            for start in range(0, len(lines), 10):
                await runner.check_chunk(lines[start : start + 10], summary)
            await runner.end(summary, status="interrupted")

        asyncio.run(store_first())


def small_cases(path: Path, n: int) -> list[str]:
    lines = [
        json.dumps({"id": f"c{i}", "output": f"The account {i} [source: CRM]." * (i % 3)})
        for i in range(n)
    ]
    lines[3] = "{not json"
    return lines


@pytest.mark.parametrize("file", ["unchanged", "grown"])
def test_a_resume_reports_every_case_as_an_uninterrupted_run_does(
    tmp_path: Path, file: str
) -> None:
    (tmp_path / "contract.yaml").write_text(CONTRACT, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    lines = small_cases(cases, 60)
    # Past the lines stored: a case named as the unusable line 4 is, and a second c7.
    later = [json.dumps({"id": "line-4", "output": "account [source: CRM]"}),
             json.dumps({"id": "c7", "output": "again"})]  # fmt: skip
    cases.write_text("\n".join(lines + later) + "\n", encoding="utf-8")
    if file == "grown":
        cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = tmp_path / "gaps.db"
    interrupted_at(tmp_path, db, stored=40)
    if file == "grown":  # the file the run started on had fewer cases: read from its start
        cases.write_text("\n".join(lines + later) + "\n", encoding="utf-8")
    resumed = subprocess.run(
        [*command(tmp_path, db, "--resume", "stopped", "--chunk-size", "7"),
         "--format", "json", "--out", str(tmp_path / "resumed.json")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert resumed.returncode == 1 and "Traceback" not in resumed.stderr, resumed.stderr
    whole = subprocess.run(
        [*command(tmp_path, tmp_path / "whole.db", "--run-id", "stopped"),
         "--format", "json", "--out", str(tmp_path / "whole.json")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert whole.returncode == 1, whole.stderr
    got = json.loads((tmp_path / "resumed.json").read_text(encoding="utf-8"))
    want = json.loads((tmp_path / "whole.json").read_text(encoding="utf-8"))
    assert got["total_cases"] == 62
    for key in ("total_cases", "passed_cases", "failed_cases", "average_score",
                "assertion_breakdown", "cases"):  # fmt: skip
        assert got[key] == want[key], key
    assert stored_rows(db, "stopped") == stored_rows(tmp_path / "whole.db", "stopped")
    # An unusable line's id is taken like any other: a later case with it is a duplicate.
    assert [c["id"] for c in got["cases"]][-2:] == ["line-4@line-61", "c7@line-62"]

"""Resuming a run against the results it already stored: time to the first new row.

For each N (default 10,000, 100,000 and 1,000,000; pass others as arguments) a SQLite
store holds an interrupted run of a four-claim rubric contract that stored N results
(N / 4 cases); its cases file has 1,000 more cases. ``verifier run --resume`` over that
file is started in a fresh process, and the store is watched from this one. Prints,
after the same for a fresh run of 1,000 cases (the command's start-up, the floor):

* first new row: wall and CPU seconds from starting the process to the first row of a case
  the interrupted run had not stored (what a resume killed sooner than that loses:
  a run killed every few seconds progresses only if this is well under that);
* whole: wall and CPU seconds of the resumed run to its end (the new cases checked,
  the stored ones read back for the summary and the JSON report, checked complete).

On a shared machine the CPU seconds vary much less than the wall times.

    python bench/resume.py [N ...]
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from hashlib import file_digest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from verifier.cases import read_cases  # noqa: E402
from verifier.contract.load import load_contract  # noqa: E402
from verifier.engine.plan import build_plan  # noqa: E402
from verifier.engine.runner import Runner, RunOptions  # noqa: E402
from verifier.gaps.sqlite.store import SqliteStore  # noqa: E402
from verifier.logs import route_to_standard_logging  # noqa: E402

CONTRACT = """\
contract: bench-resume
version: 1
llm_fields: [output]
claims:
  - {id: cites, rubric: regex, field: output, pattern: '\\[source: [A-Za-z]+\\]'}
  - {id: names, rubric: contains, field: output, values: [account], mode: any}
  - {id: short, rubric: length, field: output, max_words: 60}
  - {id: polite, rubric: not_contains, field: output, values: [stupid]}
"""
CLAIMS = 4
NEW_CASES = 1000
RUN_ID = "bench-resume"
POLL = 0.005  # seconds between two looks at the store


def write_cases(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            text = f"The account {i} renews in March [source: CRM]. " * (1 + i % 4)
            out.write(json.dumps({"id": f"case-{i}", "output": text}) + "\n")


async def interrupted(contract: Path, cases: Path, db: Path, stored: int) -> None:
    """Stores the first ``stored`` cases of ``cases`` in a run that is then interrupted."""
    with cases.open("rb") as handle:  # what ``verifier run`` records of its cases file
        recorded = {"cases": str(cases), "cases_sha256": file_digest(handle, "sha256").hexdigest()}
    with SqliteStore(db) as store:
        options = RunOptions(run_id=RUN_ID, options_record=recorded)
        loaded = load_contract(contract)
        runner = Runner(loaded, store, plan=build_plan(loaded), options=options)
        summary = runner.begin()
        chunk = []
        for line in read_cases(cases):
            if line.line > stored:
                break
            chunk.append(line)
            if len(chunk) == 2000:
                await runner.check_chunk(chunk, summary)
                chunk = []
        if chunk:
            await runner.check_chunk(chunk, summary)
        await runner.end(summary, status="interrupted")


def rows_stored(db: Path) -> int:
    """The highest ``seq`` in the store (rows are numbered from 1, none deleted)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        return int(conn.execute("SELECT COALESCE(MAX(seq), 0) FROM rows").fetchone()[0])
    except sqlite3.OperationalError:
        return 0  # a new store whose tables are being made
    finally:
        conn.close()


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cpu_of(pid: int) -> float:
    """CPU seconds process ``pid`` has used so far (Linux's ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_row(command: list[str], db: Path, report: Path) -> tuple[float, ...]:
    """Runs ``command`` (a run writing ``report`` into ``db``) in a fresh process: wall
    and CPU seconds to the first row it stores, then to its end."""
    stored = rows_stored(db) if db.exists() else 0  # a fresh run's store is new
    children = child_cpu()
    began = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=db.parent
    )
    first = first_cpu = None
    while first is None and process.poll() is None:
        if db.exists() and rows_stored(db) > stored:
            first, first_cpu = time.perf_counter() - began, cpu_of(process.pid)
        else:
            time.sleep(POLL)
    _, errors = process.communicate()
    whole = time.perf_counter() - began
    cpu = child_cpu() - children
    if first is None or first_cpu is None:
        first, first_cpu = whole, cpu  # the run ended between two looks
    if process.returncode not in (0, 1) or not report.exists():
        raise SystemExit(errors.decode())
    return first, first_cpu, whole, cpu


def run_command(contract: Path, cases: Path, db: Path, report: Path, *flags: str) -> list[str]:
    return [
        sys.executable, "-m", "verifier", "run", str(contract), "--cases", str(cases),
        "--store", str(db), *flags, "--format", "json", "--out", str(report),
    ]  # fmt: skip


def floor(folder: Path, contract: Path) -> None:
    """A fresh run's first row: what starting the command costs, before any resuming."""
    cases, db, report = folder / "fresh.jsonl", folder / "fresh.db", folder / "fresh.json"
    write_cases(cases, NEW_CASES)
    first, first_cpu, _, _ = first_row(run_command(contract, cases, db, report), db, report)
    print(f"{'no':>9} stored results: first row     {first:6.2f} s wall {first_cpu:6.2f} s CPU"
          " (a fresh run: the command's start-up)", flush=True)  # fmt: skip


def main(sizes: list[int]) -> None:
    route_to_standard_logging()  # the run stored here says nothing
    folder = Path(tempfile.mkdtemp(prefix="verifier-resume-bench-"))
    try:
        contract = folder / "contract.yaml"
        contract.write_text(CONTRACT, encoding="utf-8")
        floor(folder, contract)
        for n in sizes:
            stored = n // CLAIMS
            cases, db = folder / f"cases-{n}.jsonl", folder / f"gaps-{n}.db"
            report = folder / f"report-{n}.json"
            write_cases(cases, stored + NEW_CASES)
            asyncio.run(interrupted(contract, cases, db, stored))
            resume = run_command(contract, cases, db, report, "--resume", RUN_ID)
            first, first_cpu, whole, cpu = first_row(resume, db, report)
            summary = json.loads(report.read_text(encoding="utf-8"))
            assert summary["total_cases"] == stored + NEW_CASES, summary["total_cases"]
            assert rows_stored(db) == (stored + NEW_CASES) * CLAIMS
            print(
                f"{n:>9,} stored results: first new row {first:6.2f} s wall"
                f" {first_cpu:6.2f} s CPU; whole resumed run {whole:6.2f} s wall"
                f" {cpu:6.2f} s CPU",
                flush=True,
            )
            db.unlink()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10_000, 100_000, 1_000_000])

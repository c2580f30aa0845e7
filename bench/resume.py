"""Resuming a run against the cases it already stored: start-up and total cost.

For each N (default 10,000 and 100,000; pass others as arguments) a SQLite store holds
an interrupted run of a four-claim rubric contract that stored N cases; its cases
file has 1,000 more. Prints, for ``verifier run --resume`` over that file:

* start-up: the resumed runner's ``begin`` in this process (what it reads before the
  first new case can be checked), wall and CPU seconds;
* whole: the CLI's wall and CPU seconds for the resumed run (replaying the N stored
  cases into the JSON report and checking the 1,000 new ones), in a fresh process.

On a shared machine the CPU seconds vary much less than the wall times.

    python bench/resume.py [N ...]
"""

from __future__ import annotations

import asyncio
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from verifier.cases import read_cases  # noqa: E402
from verifier.contract.load import load_contract  # noqa: E402
from verifier.gaps.sqlite import SqliteStore  # noqa: E402
from verifier.runner import Runner, RunOptions  # noqa: E402

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
NEW_CASES = 1000
RUN_ID = "bench-resume"


def write_cases(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            text = f"The account {i} renews in March [source: CRM]. " * (1 + i % 4)
            out.write(json.dumps({"id": f"case-{i}", "output": text}) + "\n")


async def interrupted(contract: Path, cases: Path, db: Path, stored: int) -> None:
    """Stores the first ``stored`` cases of ``cases`` in a run that is then interrupted."""
    with SqliteStore(db) as store:
        runner = Runner(load_contract(contract), store, options=RunOptions(run_id=RUN_ID))
        summary = runner.begin()
        chunk = []
        for line in read_cases(cases):
            if line.line > stored:
                break
            chunk.append(line)
            if len(chunk) == 500:
                await runner.check_chunk(chunk, summary)
                chunk = []
        if chunk:
            await runner.check_chunk(chunk, summary)
        await runner.end(summary, status="interrupted")


def start_up(contract: Path, db: Path) -> tuple[float, float]:
    with SqliteStore(db) as store:
        runner = Runner(
            load_contract(contract), store, options=RunOptions(run_id=RUN_ID, resume=True)
        )
        wall, cpu = time.perf_counter(), time.process_time()
        summary = runner.begin()
        took = time.perf_counter() - wall, time.process_time() - cpu
        asyncio.run(runner.end(summary, status="interrupted"))
    return took


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(sizes: list[int]) -> None:
    folder = Path(tempfile.mkdtemp(prefix="verifier-resume-bench-"))
    try:
        contract = folder / "contract.yaml"
        contract.write_text(CONTRACT, encoding="utf-8")
        for n in sizes:
            cases, db = folder / f"cases-{n}.jsonl", folder / f"gaps-{n}.db"
            write_cases(cases, n + NEW_CASES)
            asyncio.run(interrupted(contract, cases, db, n))
            wall, cpu = start_up(contract, db)
            command = [
                sys.executable, "-m", "verifier", "run", str(contract), "--cases", str(cases),
                "--store", str(db), "--resume", RUN_ID, "--format", "json",
                "--out", str(folder / "report.json"),
            ]  # fmt: skip
            began, children = time.perf_counter(), child_cpu()
            done = subprocess.run(command, capture_output=True, text=True, cwd=folder)
            whole, whole_cpu = time.perf_counter() - began, child_cpu() - children
            if done.returncode not in (0, 1) or not (folder / "report.json").exists():
                raise SystemExit(done.stderr)
            report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
            assert report["total_cases"] == n + NEW_CASES, report["total_cases"]
            print(
                f"{n:>9,} stored cases: start-up {wall:7.3f} s wall {cpu:7.3f} s CPU;"
                f" whole resumed run {whole:7.2f} s wall {whole_cpu:7.2f} s CPU",
                flush=True,
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10_000, 100_000])

"""Re-checking stored verdicts at scale: ``verifier audit --recheck`` over a SQLite store.

Builds a store with ``verifier run`` over N generated rubric cases (the cases and the
8-claim contract of ``bench/rubric_throughput.py``, so N cases make 8N rows), then
re-checks every row in a fresh ``verifier audit --recheck`` process and prints rows
re-checked per second of wall time and per CPU second of the process (on a shared
machine the second varies much less), and its peak RSS, for N = 10,000 and 100,000
(pass other sizes as arguments): the same peak for ten times the rows shows that
memory stays flat. The load average is printed first. Target: >= 50,000 rows/s.

    python bench/recheck.py [N ...]
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rubric_throughput import CONTRACT, run_cli, write_cases


def recheck(store: Path) -> tuple[float, float, int, dict[str, object]]:
    """Wall seconds, CPU seconds, peak RSS (bytes) and report of one re-check."""
    command = [sys.executable, "-m", "verifier", "audit", "--store", str(store), "--recheck"]
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    started = time.perf_counter()
    process = subprocess.Popen(
        [*command, "--format", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    out = process.stdout.read() if process.stdout else b""
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        err = process.stderr.read().decode() if process.stderr else ""
        raise SystemExit(f"verifier audit --recheck failed: {err or out.decode()}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, json.loads(out)


def main(sizes: list[int]) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="verifier-bench-"))
    try:
        contract = workdir / "contract.yaml"
        contract.write_text(CONTRACT, encoding="utf-8")
        print(f"load average {os.getloadavg()[0]:.1f}")
        print(
            f"{'cases':>8} {'rows':>8} {'seconds':>8} {'rows/s':>9} {'cpu s':>7}"
            f" {'rows/cpu s':>11} {'peak RSS MB':>12}"
        )
        for n in sizes:
            cases = write_cases(workdir / f"cases-{n}.jsonl", n)
            store = workdir / f"gaps-{n}.db"
            run_cli(contract, cases, store, workdir / f"report-{n}.json")
            elapsed, cpu, rss, report = recheck(store)
            rows = int(str(report["rows"]))
            if report["rechecked"] != rows or report["agree"] != rows:
                raise SystemExit(f"not every row was rechecked and agreed: {report}")
            print(
                f"{n:>8} {rows:>8} {elapsed:>8.2f} {rows / elapsed:>9.0f} {cpu:>7.2f}"
                f" {rows / cpu:>11.0f} {rss / 1e6:>12.1f}"
            )
            store.unlink()
            cases.unlink()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10_000, 100_000])

"""Sharded runs: the same cases checked by 1, 2 and 4 shard processes into one run.

Writes ``--cases`` cases (default 100,000) of a contract of two rubric claims, then for
each shard count K runs K ``verifier run --shard k/K --run-id RUN`` processes side by
side against one PostgreSQL store, exactly as a CI matrix does, and times them from
the first start to the last exit (the last shard also ends the run: it re-reads every
row for the run's summary). Prints wall time and rows per second for each K, the time
``verifier run --finish`` takes to re-read a finished run (the finish's share of the
wall time), and a projection to N machines.

    python bench/shards.py [--cases 100000] [--postgres URL] [--append-rate 47871]

The projection assumes one shard per machine, each as fast as the single process
measured here: wall(N) = start + check / N + finish, where ``check`` is what one
process spends checking and storing its cases. Appends of every shard go through
the store's one chain lock, so the rows cannot go in faster than ``--append-rate``
(rows/s, ``bench/store.py``'s PostgreSQL figure by default): the projection never
goes below rows / append-rate + start + finish. On this machine, K shard processes
share its cores, so beyond the number of cores the measured wall time stops falling.

PostgreSQL: ``--postgres URL``, else ``VERIFIER_TEST_POSTGRES_URL``, else a throwaway
server started like the tests' (``tests/gaps/_postgres.py``); the runs go to a new
schema, dropped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.store import postgres_url  # noqa: E402
from tests.engine.test_interrupt import RUBRIC  # noqa: E402

CLAIMS = 2


def write_cases(path: Path, n_cases: int) -> None:
    with path.open("w") as handle:
        for i in range(n_cases):
            name = "abc" if i % 5 else "Not-Lower"
            handle.write(
                json.dumps({"id": f"case-{i:07d}", "fields": {"total": i % 130, "name": name}})
                + "\n"
            )


def verifier(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "verifier", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")},
    )


def run_shards(contract: Path, cases: Path, url: str, count: int) -> float:
    """Wall seconds of ``count`` shard processes writing one run, side by side."""
    run_id = f"bench-{count}-shards"
    started = time.perf_counter()
    command = ("run", str(contract), "--cases", str(cases), "--store", url, "--format", "json")
    shards = [
        verifier(*command, "--shard", f"{k}/{count}", "--run-id", run_id)
        for k in range(1, count + 1)
    ]
    for shard in shards:
        _, err = shard.communicate()
        if shard.returncode not in (0, 1):
            raise SystemExit(f"shard failed: {err.decode()}")
    wall = time.perf_counter() - started
    finish = verifier("run", "--finish", run_id, "--store", url, "--format", "json")
    _, err = finish.communicate()
    if b"cases passed" not in err:
        raise SystemExit(f"run {run_id} did not finish: {err.decode()}")
    return wall


def timed(*args: str) -> float:
    started = time.perf_counter()
    process = verifier(*args)
    process.communicate()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--postgres", default=None)
    parser.add_argument("--append-rate", type=float, default=47_871.0)
    args = parser.parse_args()
    rows = args.cases * CLAIMS
    with tempfile.TemporaryDirectory() as folder, postgres_url(args.postgres) as url:
        if url is None:
            raise SystemExit("no PostgreSQL server")
        contract, cases = Path(folder) / "bench.yaml", Path(folder) / "cases.jsonl"
        contract.write_text(RUBRIC)
        write_cases(cases, args.cases)
        print(
            f"{args.cases:,} cases x {CLAIMS} rubric claims = {rows:,} rows; {os.cpu_count()} cores"
        )
        start = timed("run", "--help")  # the interpreter and the command's imports
        walls = {}
        for count in (1, 2, 4):
            walls[count] = run_shards(contract, cases, url, count)
            print(f"{count} shard(s): {walls[count]:7.2f} s  {rows / walls[count]:9,.0f} rows/s")
        finish = timed("run", "--finish", "bench-1-shards", "--store", url, "--format", "json")
        check = max(walls[1] - start - finish, 0.0)
        floor = rows / args.append_rate
        print(
            f"process start {start:.2f} s, finish (re-reading {rows:,} rows) {finish:.2f} s, "
            f"checking and storing in one process {check:.2f} s"
        )
        projected = []
        for n in (1, 2, 4, 8, 16, 32):
            wall = start + max(check / n, floor) + finish
            projected.append(f"{n}: {wall:.1f} s")
        print(
            "projection to N machines (one shard each; appends capped at "
            f"{args.append_rate:,.0f} rows/s): " + ", ".join(projected)
        )


if __name__ == "__main__":
    main()

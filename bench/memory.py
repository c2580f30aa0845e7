"""Peak memory of `verifier run` at a million cases and more.

Writes N small cases (streamed to the file, so the bench itself stays small) and runs
a one-claim contract over them end to end with SQLite persistence and a JSON report,
printing the process's wall and CPU seconds (user + system) and its peak RSS. What
grows with the number of cases is what the run remembers across them (the ids it has
taken), so each case is small and the contract cheap. Still, a run's store takes
about 1.4 KB a case (rows and contents) plus a write-ahead log of at most a few
hundred megabytes, so ten million cases need about 15 GB of free disk.

``--reading`` instead streams the file through ``verifier.cases.read_cases`` alone
(parsing every line and checking its id for duplicates, what the run does before any
claim): the part of a run's memory that depends on the number of cases, at 10,000,000
cases in a couple of minutes and a gigabyte of disk.

    python bench/memory.py [--ref PATH] [--reading] [N ...]   # default 1,000,000

``--ref PATH`` runs a checkout of another verifier on the same file too, in turn.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from rubric_throughput import contenders, run_cli, timed

CONTRACT = """\
contract: bench-memory
version: 1
claims:
  - id: polite
    rubric: not_contains
    field: output
    values: [lol]
"""


def write_cases(path: Path, n: int) -> Path:
    """``n`` cases of about 120 bytes, written a block at a time."""
    with path.open("w", encoding="utf-8") as handle:
        block = 10_000
        for start in range(0, n, block):
            handle.write(
                "".join(
                    f'{{"id": "case-{i:09d}", "output": "Renewal of account {i} is on track '
                    f'for the quarter."}}\n'
                    for i in range(start, min(n, start + block))
                )
            )
    return path


def run(
    contract: Path, cases: Path, workdir: Path, env: dict[str, str]
) -> tuple[float, float, int]:
    for stale in workdir.glob("gaps.db*"):
        stale.unlink()
    store, report = workdir / "gaps.db", workdir / "report.json"
    wall, cpu, rss, _ = run_cli(contract, cases, store, report, env, workdir)
    return wall, cpu, rss


READ = (
    "import sys; from pathlib import Path; from verifier.cases import read_cases; "
    "print(sum(1 for line in read_cases(Path(sys.argv[1])) if line.error))"
)


def read(cases: Path, workdir: Path, env: dict[str, str]) -> tuple[float, float, int]:
    wall, cpu, rss, _ = timed([sys.executable, "-c", READ, str(cases)], env, workdir)
    return wall, cpu, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[1_000_000])
    parser.add_argument("--ref", type=Path, help="a checkout of another verifier to run as well")
    parser.add_argument("--reading", action="store_true", help="only read the cases")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="verifier-memory-"))
    try:
        contract = workdir / "contract.yaml"
        contract.write_text(CONTRACT, encoding="utf-8")
        print(f"{'cases':>10} {'who':>9} {'wall s':>8} {'cpu s':>8} {'peak RSS MB':>12}")
        for n in args.sizes:
            cases = write_cases(workdir / "cases.jsonl", n)
            for name, contender in contenders(args.ref).items():
                if args.reading:
                    wall, cpu, rss = read(cases, workdir, contender)
                else:
                    wall, cpu, rss = run(contract, cases, workdir, contender)
                print(f"{n:>10} {name:>9} {wall:>8.1f} {cpu:>8.1f} {rss / 1e6:>12.1f}", flush=True)
            cases.unlink()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()

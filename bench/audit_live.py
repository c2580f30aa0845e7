"""Audits a store again and again while another process writes it, and counts verdicts.

A writer process (``tests/gaps/_live_writer.py``) begins runs, appends their cases,
ends them, interrupts and resumes some; meanwhile ``verifier audit --format json``
runs ``--audits`` times, one after the other. Every write is honest, so every audit
must say ok; a run still being written must be reported in flight, never as damage.

    python bench/audit_live.py [--audits 30] [--postgres URL | --no-postgres]

PostgreSQL: ``--postgres URL``, else ``VERIFIER_TEST_POSTGRES_URL``, else a throwaway
server (see ``bench/store.py``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.store import postgres_url  # noqa: E402
from tests.gaps._live_writer import start  # noqa: E402


def audits_while_writing(target: str, audits: int, folder: Path) -> None:
    stop = folder / "stop"
    writer = start(target, stop)
    try:
        failed, in_flight, problems = 0, 0, Counter[str]()
        for _ in range(audits):
            done = subprocess.run(
                [sys.executable, "-m", "verifier", "audit", "--store", target, "--format", "json"],
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
            report = json.loads(done.stdout)
            failed += not report["ok"]
            in_flight += bool(report.get("in_flight"))
            problems.update(p["message"] for p in report["problems"])
    finally:
        stop.touch()
        wrote = writer.communicate(timeout=60)[0].strip()
    name = "postgres" if "://" in target else "sqlite"
    print(f"{name:<8} {audits - failed} of {audits} audits ok, {failed} failed; {wrote}")
    print(f"{name:<8} {in_flight} audits saw a run in flight")
    for message, count in problems.most_common(10):
        print(f"  {count} x {message}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--audits", type=int, default=30)
    parser.add_argument("--postgres", default=None, help="server URL (default: see above)")
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="verifier-live-") as folder:
        audits_while_writing(str(Path(folder) / "gaps.db"), args.audits, Path(folder))
    if args.no_postgres:
        return
    with postgres_url(args.postgres) as url, tempfile.TemporaryDirectory() as folder:
        if url is not None:
            audits_while_writing(url, args.audits, Path(folder))


if __name__ == "__main__":
    main()

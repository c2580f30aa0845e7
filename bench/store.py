"""Gap stores at scale: insert a million rows into SQLite and PostgreSQL, then audit them.

For each backend: appends ``--rows`` rows (default 1,000,000) in batches of
``--batch`` (default 500, the runner's chunk of cases times one claim) through the
store's ``append``, which seals every row into the hash chain and writes it in one
transaction per batch, with the content record of each row's case (one case of about
a kilobyte per three rows, stored once); prints rows per second of appending (building the drafts is
not timed), then the same appends without contents into a second new store (the
``record: content: none`` of a contract) and the two side by side. Then audits the whole store in a fresh process (``audit_store``: schema,
columns, judge triples, chain, duplicate ids, run records) and prints its wall time,
its resident memory once the store is open, its peak, and samples along the way, to
show that memory stays flat; then again with the history analyses that ``verifier
audit`` adds in the same pass (``audit_history``: judge drift, trends, alerts).

    python bench/store.py [--rows 1000000] [--batch 500] [--postgres URL | --no-postgres]

PostgreSQL: ``--postgres URL``, else ``VERIFIER_TEST_POSTGRES_URL``, else a throwaway
server started like the tests' (``tests/gaps/_postgres.py``). The rows go to a new
schema, dropped at the end. Targets: SQLite >= 100,000 rows/s, PostgreSQL >= 50,000
rows/s, the audit of 1M rows < 20 s with flat memory.

CPU seconds are printed beside wall times (this process's, and for a local
PostgreSQL the server backend's): on a shared machine they show what the work costs
when other processes hold the cores.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.gaps._support import begin, draft, finish  # noqa: E402
from verifier.gaps.content import build_content  # noqa: E402
from verifier.gaps.store import open_store  # noqa: E402


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def server_process(store: object) -> Any:
    """The PostgreSQL backend serving ``store``'s connection, if it runs on this machine."""
    import psutil

    conn = getattr(store, "_conn", None)
    if conn is None or not hasattr(conn, "pgconn"):
        return None
    try:
        backend = psutil.Process(conn.pgconn.backend_pid)
        return backend if backend.name().startswith("postgres") else None
    except psutil.Error:
        return None


def insert(
    target: str, rows: int, batch: int, contents: bool = True
) -> tuple[float, float, float | None]:
    """Appends ``rows`` rows to a new store (with their cases' contents unless not
    ``contents``).

    Returns:
        Seconds spent in ``append``, this process's CPU seconds in it, and the
        PostgreSQL backend's CPU seconds (``None`` for SQLite or a remote server).
    """
    spent = cpu = 0.0
    with open_store(target) as store:
        server = server_process(store)
        server_before = sum(server.cpu_times()[:2]) if server else 0.0
        begin(store, "bench")
        for start in range(0, rows, batch):
            drafts = [draft(n, "bench") for n in range(start + 1, min(rows, start + batch) + 1)]
            stored = with_contents(drafts) if contents else {}
            began, began_cpu = time.perf_counter(), cpu_seconds()
            store.append(drafts, stored)
            spent += time.perf_counter() - began
            cpu += cpu_seconds() - began_cpu
        server_cpu = sum(server.cpu_times()[:2]) - server_before if server else None
        finish(store, "bench")
    return spent, cpu, server_cpu


def with_contents(drafts: list[dict[str, Any]]) -> dict[str, bytes]:
    """Gives each draft its case's content record (a case of about a kilobyte, as
    the runner stores once per case) and returns the contents to store with them."""
    contents: dict[str, bytes] = {}
    for row in drafts:
        case_id = row["case_id"]
        made = build_content(
            {"id": case_id, "input": f"Brief on {case_id}. " * 8, "output": "An answer. " * 70}
        )
        assert made is not None
        row["content_sha256"], body = made
        contents[row["content_sha256"]] = body
    return contents


def audit_here(target: str, history: bool) -> None:
    """The child process: audits ``target`` and prints a JSON line of measurements."""
    import psutil

    from verifier.analyses.audit import audit_store
    from verifier.analyses.history import audit_history

    me = psutil.Process()
    samples: list[tuple[float, int]] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.25):
            samples.append((time.perf_counter(), me.memory_info().rss))

    with open_store(target) as store:
        opened_rss = me.memory_info().rss
        sampler = threading.Thread(target=sample, daemon=True)
        began, began_cpu = time.perf_counter(), cpu_seconds()
        sampler.start()
        report = audit_history(store).integrity if history else audit_store(store)
        seconds, cpu = time.perf_counter() - began, cpu_seconds() - began_cpu
        done.set()
    by_fraction = {}
    for fraction in (0.1, 0.5, 0.9):
        moment = began + seconds * fraction
        near = min(samples, key=lambda s: abs(s[0] - moment), default=(0.0, opened_rss))
        by_fraction[f"{int(fraction * 100)}%"] = near[1]
    print(
        json.dumps(
            {
                "ok": report.ok,
                "rows": report.chain_rows,
                "seconds": seconds,
                "cpu": cpu,
                "opened_rss": opened_rss,
                "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                "rss_along": by_fraction,
            }
        )
    )


def audit_elsewhere(target: str, history: bool) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, __file__, "--audit-only", target, *(["--history"] if history else [])],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def print_insert(
    name: str, label: str, rows: int, seconds: float, cpu: float, server_cpu: float | None
) -> None:
    server = "" if server_cpu is None else f", server {server_cpu:.1f} s"
    print(
        f"{name:<8} {label:<8} {rows:,} rows in {seconds:.1f} s = {rows / seconds:,.0f} rows/s"
        f" (CPU: verifier {cpu:.1f} s{server})"
    )


def mib(n: object) -> str:
    return f"{int(n) / 2**20:.0f} MiB"  # type: ignore[call-overload]


def bench(
    name: str, target: str, rows: int, batch: int, contents: bool = True, beside: str | None = None
) -> None:
    """Appends and audits ``target``; with ``beside`` (a second new store), appends the
    same rows without contents there too, then prints the two side by side."""
    seconds, cpu, server_cpu = insert(target, rows, batch, contents)
    print_insert(name, "insert:" if beside is None else "contents", rows, seconds, cpu, server_cpu)
    if beside is not None:
        bare = insert(beside, rows, batch, contents=False)
        print_insert(name, "none", rows, *bare)
        work = cpu + (server_cpu or 0.0)
        bare_work = bare[1] + (bare[2] or 0.0)
        print(
            f"{name:<8} contents / none: {seconds / bare[0]:.2f}x the time,"
            f" {work / bare_work:.2f}x the CPU (verifier plus server)"
        )
    for history in (False, True):
        audit = audit_elsewhere(target, history)
        along = ", ".join(f"{k} {mib(v)}" for k, v in audit["rss_along"].items())  # type: ignore[attr-defined]
        print(
            f"{name:<8} {'+history' if history else 'audit:  '} {audit['rows']:,} rows in"
            f" {audit['seconds']:.1f} s (CPU {audit['cpu']:.1f} s, ok={audit['ok']});"  # type: ignore[str-format]
            f" RSS once open {mib(audit['opened_rss'])}, along the audit {along},"
            f" peak {mib(audit['peak_rss'])}"
        )


@contextmanager
def postgres_url(given: str | None) -> Iterator[str | None]:
    """A server URL with a fresh schema for the bench, dropped afterwards."""
    import psycopg

    from tests.gaps._postgres import ServerUnavailable, start_server, stop_server

    server = given or os.environ.get("VERIFIER_TEST_POSTGRES_URL")
    directory = None
    if not server:
        directory = Path(tempfile.mkdtemp(prefix="verifier-pg-"))
        try:
            server = start_server(directory)
        except ServerUnavailable as exc:
            print(f"postgres skipped: {exc}")
            shutil.rmtree(directory, ignore_errors=True)
            yield None
            return
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    try:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")  # type: ignore[arg-type]
        separator = "&" if "?" in server else "?"
        yield f"{server}{separator}options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")  # type: ignore[arg-type]
        if directory is not None:
            stop_server(directory)
            shutil.rmtree(directory, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--postgres", default=None, help="server URL (default: see above)")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument(
        "--no-contents",
        action="store_true",
        help="append rows without their cases' contents only (the work of a store before "
        "the content record, to compare like with like)",
    )
    parser.add_argument("--audit-only", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--history", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.audit_only:
        audit_here(args.audit_only, args.history)
        return
    contents = not args.no_contents
    with tempfile.TemporaryDirectory(prefix="verifier-bench-") as folder:
        bare = str(Path(folder) / "bare.db") if contents else None
        bench("sqlite", str(Path(folder) / "gaps.db"), args.rows, args.batch, contents, bare)
    if args.no_postgres:
        return
    with postgres_url(args.postgres) as url:
        if url is None:
            return
        if not contents:
            bench("postgres", url, args.rows, args.batch, contents=False)
            return
        with postgres_url(args.postgres) as bare_url:
            bench("postgres", url, args.rows, args.batch, beside=bare_url)


if __name__ == "__main__":
    main()

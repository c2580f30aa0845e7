"""The HTTP API under load: requests/s and latency of ``verifier serve``, driven by wrk.

Starts ``verifier serve`` in its own process (this checkout's code) on a free port of
127.0.0.1 over a small real store: one run of a rubric contract over ``--cases`` cases
is posted to ``POST /v1/runs`` and finished before the clock starts, so its gap rows
are in the store and its report is kept on disk. Then wrk (a C load generator:
Debian's ``wrk`` package) sends, over keep-alive connections (wrk's way), each of:

- ``GET /health``: the cheapest route, the server's floor per request;
- ``GET /v1/runs/<unknown>``: a JSON 404 through the whole API (guard, routing, the
  run registry);
- ``GET /v1/runs/<the run>``: the finished run with its report, streamed from its file;

from 16 and 256 connections (``--connections``), each for ``--seconds`` (default 3),
``--runs`` times (default 3). It prints requests/s, p50 and p99 latency (wrk
``--latency``) and the server process's CPU time per request (user + system: on a
busy machine it varies much less than the wall times). A machine shared with other
work slows some runs, never speeds one up, so each figure is the best of the runs
(the highest rate, the lowest latency and CPU), and the errors are those of all runs:
socket errors, requests unanswered after wrk's ``--timeout`` (10 s; wrk leaves them
out of its latencies, so they are counted here) and answers of an unexpected status.

wrk runs beside the server: on a small machine they share its cores (wrk's two
threads take some of the CPU the server would have), so read the figures as the
server's throughput with a load generator beside it. An earlier version of this bench
drove the server from asyncio sockets in its own Python process; that client cost
about as much CPU per request as the server, so under 256 keep-alive connections its
figures were the client's (about a fifth of what wrk measures on the same server),
and it is gone.

    python bench/server.py [--seconds 3] [--runs 3] [--connections 16,256] [--cases 20]
        [--serve-arg=--read-timeout=30 ...]

wrk is not installed with the project; without it the bench says how to install it
(``apt-get install -y wrk`` on Debian and Ubuntu) and exits 2.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psutil

ROOT = Path(__file__).resolve().parent.parent
MISSING = "/v1/runs/20260101T000000Z-000000"
CONTRACT = """\
contract: bench-answers
version: 1
llm_fields: [output]
claims:
  - {id: names_a_source, rubric: regex, field: output, pattern: 'source: [A-Z]'}
  - {id: brief, rubric: length, field: output, max_words: 12}
"""
REPORT = """\
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "seconds": %f, "p50": %f, "p99": %f, "socket": %d, "timeout": %d, "status": %d}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1e6,
    latency:percentile(99) / 1e6, e.connect + e.read + e.write, e.timeout, e.status))
end
"""
"""wrk's script: its summary as one JSON line (seconds; ``status``: non-2xx/3xx answers)."""


@dataclass(frozen=True)
class Route:
    name: str
    path: str
    ok: bool
    """Whether the route answers 2xx (the missing run answers 404)."""


@dataclass(frozen=True)
class Figures:
    rate: float
    p50: float
    p99: float
    cpu_us: float
    errors: int


def wrk_or_exit() -> str:
    """wrk's path; without it, how to install it, and exit 2."""
    found = shutil.which("wrk")
    if found is None:
        print(
            "bench/server.py drives the server with wrk, which is not installed: "
            "apt-get install -y wrk (Debian, Ubuntu), brew install wrk (macOS)",
            file=sys.stderr,
        )
        sys.exit(2)
    return found


def start_server(folder: Path, extra: list[str]) -> tuple[subprocess.Popen[str], str]:
    """``verifier serve`` on a free port of 127.0.0.1; the process and its base URL."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VERIFIER_", "ANTHROPIC_"))}
    env["PYTHONPATH"] = str(ROOT)
    command = [sys.executable, "-m", "verifier", "serve", "--port", "0"]
    process = subprocess.Popen(
        [*command, "--store", f"{folder}/gaps.db", *extra],
        cwd=folder,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    for line in process.stderr:
        if line.startswith("serving the API on "):
            return process, line.split()[-1]
    raise SystemExit(f"the server did not start (exit {process.wait()})")


def finished_run(url: str, cases: int) -> str:
    """The id of a run of ``CONTRACT`` over ``cases`` cases, posted and finished."""
    outputs = ("Renewed 240 seats [source: Salesforce].", "Renewed, probably, many seats.")
    body = {
        "contract": CONTRACT,
        "cases": [{"id": f"c{i}", "output": outputs[i % 2]} for i in range(cases)],
    }
    with httpx.Client(base_url=url, timeout=60) as client:
        accepted = client.post("/v1/runs", json=body)
        accepted.raise_for_status()
        run_id: str = accepted.json()["run_id"]
        deadline = time.monotonic() + 120
        while (state := client.get(f"/v1/runs/{run_id}").json())["status"] == "running":
            if time.monotonic() > deadline:
                raise SystemExit(f"run {run_id} did not finish")
            time.sleep(0.1)
    if state["status"] != "finished":
        raise SystemExit(f"run {run_id} {state['status']}: {state['error']}")
    return run_id


def cpu_seconds(process: psutil.Process) -> float:
    """CPU time of the server and any processes it started."""
    total = 0.0
    for each in [process, *process.children(recursive=True)]:
        times = each.cpu_times()
        total += times.user + times.system
    return total


def load(wrk: str, script: Path, url: str, connections: int, seconds: int) -> dict[str, Any]:
    """One wrk run; its summary, as ``REPORT`` writes it."""
    shape = [f"-t{min(2, connections)}", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s"]
    done = subprocess.run(
        [wrk, *shape, "--latency", "-s", str(script), url],
        capture_output=True,
        text=True,
        check=True,
    )
    summary: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return summary


def measure(
    wrk: str,
    script: Path,
    server: psutil.Process,
    url: str,
    route: Route,
    connections: int,
    args: argparse.Namespace,
) -> Figures:
    """The best of ``args.runs`` wrk runs of ``route`` (the errors of all of them)."""
    runs: list[tuple[dict[str, Any], float]] = []
    for _ in range(args.runs):
        before = cpu_seconds(server)
        summary = load(wrk, script, url + route.path, connections, args.seconds)
        runs.append((summary, (cpu_seconds(server) - before) / max(summary["requests"], 1)))
    return Figures(
        rate=max(s["requests"] / s["seconds"] for s, _ in runs),
        p50=min(s["p50"] for s, _ in runs),
        p99=min(s["p99"] for s, _ in runs),
        cpu_us=min(cpu for _, cpu in runs) * 1e6,
        errors=sum(
            s["socket"]
            + s["timeout"]
            + (s["requests"] - s["status"] if not route.ok else s["status"])
            for s, _ in runs
        ),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=3, help="length of each wrk run")
    parser.add_argument("--runs", type=int, default=3, help="wrk runs per figure (the best kept)")
    parser.add_argument("--connections", default="16,256", help="comma-separated counts")
    parser.add_argument("--cases", type=int, default=20, help="cases of the stored run")
    parser.add_argument(
        "--serve-arg", action="append", default=[], help="an option for verifier serve"
    )
    args = parser.parse_args()
    wrk = wrk_or_exit()
    counts = [int(c) for c in args.connections.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "report.lua"
        script.write_text(REPORT, "utf-8")
        process, url = start_server(Path(folder), args.serve_arg)
        server = psutil.Process(process.pid)
        try:
            run_id = finished_run(url, args.cases)
            routes = [
                Route("GET /health", "/health", ok=True),
                Route("GET /v1/runs/<unknown> (404)", MISSING, ok=False),
                Route(
                    f"GET /v1/runs/<finished, {args.cases} cases>", f"/v1/runs/{run_id}", ok=True
                ),
            ]
            for route in routes:  # warm up: imports, caches, the first connections
                load(wrk, script, url + route.path, 4, 1)
            print(
                f"verifier serve{''.join(' ' + a for a in args.serve_arg)} on {url}; wrk, keep-alive; "
                f"each figure the best of {args.runs} runs of {args.seconds} s, errors "
                "those of all runs\n"
            )
            print(
                "| route | connections | req/s | p50 ms | p99 ms | server CPU µs/request | errors |"
            )
            print("|---|---:|---:|---:|---:|---:|---:|")
            for route in routes:
                for connections in counts:
                    f = measure(wrk, script, server, url, route, connections, args)
                    print(
                        f"| {route.name} | {connections} | {f.rate:,.0f} | {f.p50 * 1000:,.1f} "
                        f"| {f.p99 * 1000:,.1f} | {f.cpu_us:,.0f} | {f.errors} |",
                        flush=True,
                    )
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    main()

"""The HTTP API under load: requests/s and latency of ``verifier serve``.

Starts ``verifier serve`` in its own process (this checkout's code, a throwaway store)
and sends ``GET /v1/runs/<unknown>`` from 1, 16 and 256 concurrent clients, each for
``--seconds`` (default 3): with keep-alive (one connection per client, opened before
the clock starts) and without (a new connection for every request, its connect
counted in the latency). The request goes through the whole application (the guard,
routing, the run registry, a JSON 404) without touching the store, so the figures
are the server's own cost per request. Prints a table of requests, requests/s, p50
and p99 latency, the server process's CPU time per request (user + system: on a busy
machine it varies much less than the wall times) and errors (a failed or timed-out
request) for each row.

The clients are raw asyncio sockets in this process, far cheaper per request than
the server; on a small machine they still share its cores, so read the figures as
the server's throughput with a client beside it.

    python bench/server.py [--seconds 3] [--clients 1,16,256]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
PATH = "/v1/runs/20260101T000000Z-000000"
TIMEOUT = 30.0
"""Seconds after which a request counts as an error."""


def start_server(folder: Path) -> tuple[subprocess.Popen[str], str, int]:
    """``verifier serve`` on a free port of 127.0.0.1; the process, host and port."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VERIFIER_", "ANTHROPIC_"))}
    env["PYTHONPATH"] = str(ROOT)
    process = subprocess.Popen(
        [sys.executable, "-m", "verifier", "serve", "--port", "0", "--store", f"{folder}/gaps.db"],
        cwd=folder,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    for line in process.stderr:
        if line.startswith("serving the API on "):
            url = line.split()[-1]
            host, port = url.removeprefix("http://").rsplit(":", 1)
            return process, host, int(port)
    raise SystemExit(f"the server did not start (exit {process.wait()})")


class Client:
    """One client: a connection kept open, or a new one per request."""

    def __init__(self, host: str, port: int, keep_alive: bool) -> None:
        self.host, self.port, self.keep_alive = host, port, keep_alive
        header = "" if keep_alive else "Connection: close\r\n"
        self.request = f"GET {PATH} HTTP/1.1\r\nHost: {host}:{port}\r\n{header}\r\n".encode()
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self.streams is None:
            self.streams = await asyncio.open_connection(self.host, self.port)
        return self.streams

    async def get(self) -> None:
        reader, writer = await self.connect()
        writer.write(self.request)
        head = await reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 404"):
            raise RuntimeError(head.split(b"\r\n")[0].decode("latin-1"))
        length = next(
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        await reader.readexactly(length)
        if not self.keep_alive:
            await self.close()

    async def close(self) -> None:
        if self.streams is not None:
            writer = self.streams[1]
            self.streams = None
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


async def load(
    host: str, port: int, clients: int, keep_alive: bool, seconds: float
) -> tuple[int, float, list[float], int]:
    """Requests completed, wall seconds, their latencies and the errors."""
    pool = [Client(host, port, keep_alive) for _ in range(clients)]
    if keep_alive:
        await asyncio.gather(*(c.connect() for c in pool))
    latencies: list[float] = []
    errors = 0

    async def worker(client: Client) -> None:
        nonlocal errors
        while time.perf_counter() < end:
            sent = time.perf_counter()
            try:
                await asyncio.wait_for(client.get(), TIMEOUT)
            except (OSError, TimeoutError, asyncio.IncompleteReadError, RuntimeError):
                errors += 1
                await client.close()
                continue
            latencies.append(time.perf_counter() - sent)

    start = time.perf_counter()
    end = start + seconds
    await asyncio.gather(*(worker(c) for c in pool))
    wall = time.perf_counter() - start
    await asyncio.gather(*(c.close() for c in pool))
    return len(latencies), wall, latencies, errors


def cpu_seconds(process: psutil.Process) -> float:
    times = process.cpu_times()
    return float(times.user + times.system)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--clients", default="1,16,256", help="comma-separated client counts")
    args = parser.parse_args()
    counts = [int(c) for c in args.clients.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        process, host, port = start_server(Path(folder))
        server = psutil.Process(process.pid)
        try:
            asyncio.run(load(host, port, 4, True, 0.5))  # warm up
            print(f"GET {PATH} (404) on {host}:{port}, {args.seconds:g} s per row\n")
            print(
                "| clients | connection | requests | req/s | p50 ms | p99 ms "
                "| server CPU µs/request | errors |"
            )
            print("|---:|---|---:|---:|---:|---:|---:|---:|")
            for clients in counts:
                for keep_alive in (True, False):
                    cpu = cpu_seconds(server)
                    done, wall, latencies, errors = asyncio.run(
                        load(host, port, clients, keep_alive, args.seconds)
                    )
                    per_request = (cpu_seconds(server) - cpu) / max(done, 1) * 1e6
                    mode = "keep-alive" if keep_alive else "new per request"
                    print(
                        f"| {clients} | {mode} | {done:,} | {done / wall:,.0f} "
                        f"| {percentile(latencies, 0.5) * 1000:,.1f} "
                        f"| {percentile(latencies, 0.99) * 1000:,.1f} "
                        f"| {per_request:,.0f} | {errors} |",
                        flush=True,
                    )
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    main()

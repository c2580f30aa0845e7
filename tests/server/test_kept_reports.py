"""Finished runs' reports live on disk, not in the server's memory: the server's size
stays flat across large runs, reports stay retrievable, the oldest are dropped beyond
the kept limits, and the folder goes when the server stops."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server._support import poll_run, running, serve_process
from verifier.server import ServerSettings

CLAIMS = 8
WIDE = "contract: wide\nversion: 1\nclaims:\n" + "".join(
    # An enum that never matches: each result quotes the output, so reports are large.
    f"  - {{id: c{i}, rubric: enum, field: output, values: [v{i}]}}\n"
    for i in range(CLAIMS)
)


def large_cases(count: int) -> list[dict[str, Any]]:
    return [{"id": n, "output": f"case {n} " + "word " * 400} for n in range(count)]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text("utf-8").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@contextmanager
def cli_server(tmp_path: Path, *options: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`verifier serve` in its own process, its temporary files under ``tmp_path``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "VERIFIER_"))}
    env["TMPDIR"] = str(tmp_path)
    # One malloc arena: glibc gives each new worker thread an arena of its own, which
    # keeps a run's transient peak as resident size, a one-off step that would hide
    # what the server retains.
    env["MALLOC_ARENA_MAX"] = "1"
    arguments = ["--port", "0", "--store", str(tmp_path / "gaps.db"), *options]
    process = serve_process(tmp_path, env, *arguments)
    try:
        assert process.stderr is not None
        lines = [process.stderr.readline(), process.stderr.readline()]
        assert lines[1].startswith("serving the API on http://127.0.0.1:"), lines
        url = lines[1].split(" on ", 1)[1].strip()
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{url}/openapi.json")
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.05)
        yield process, url
    finally:
        process.terminate()
        _, err = process.communicate(timeout=30)
    assert "Traceback" not in err


@pytest.mark.e2e
def test_server_memory_stays_flat_across_large_runs_and_every_report_is_retrievable(
    tmp_path: Path,
) -> None:
    cases = large_cases(500)  # 4,000 results and about 2.8 MB of report per run
    request = {"contract": WIDE, "cases": cases}
    with (
        cli_server(tmp_path, "--max-body", "4000000", "--max-cases", "500") as (process, url),
        httpx.Client(base_url=url, timeout=60) as client,
    ):
        run_ids, sizes = [], []
        for _ in range(5):
            accepted = client.post("/v1/runs", json=request)
            assert accepted.status_code == 202, accepted.text
            run_ids.append(accepted.json()["run_id"])
            assert poll_run(client, run_ids[-1])["status"] == "finished"
            sizes.append(rss_mb(process.pid))
        for run_id in run_ids:
            state = client.get(f"/v1/runs/{run_id}").json()
            report = state["report"]
            assert (state["status"], report["run_id"]) == ("finished", run_id)
            assert report["total_cases"] == len(report["cases"]) == len(cases)
        after_reads = rss_mb(process.pid)
        # On disk, in the server's own folder under TMPDIR, one file per run.
        (folder,) = tmp_path.glob("verifier-serve-reports-*")
        assert sorted(p.stem for p in folder.iterdir()) == sorted(run_ids)
        refused = client.post("/v1/runs", json={"contract": WIDE, "cases": large_cases(501)})
    # Kept in memory, each report added about 10 MB; on disk, once the allocator has
    # settled in the first runs, next to nothing.
    assert max(sizes[-1], after_reads) - sizes[1] < 12, (sizes, after_reads)
    assert refused.status_code == 413 and "--max-cases" in refused.json()["detail"]
    assert not folder.exists()


def settings(tmp_path: Path, **overrides: Any) -> ServerSettings:
    return ServerSettings(**({"port": 0, "store": str(tmp_path / "gaps.db")} | overrides))


def finished_runs(client: httpx.Client, count: int) -> list[str]:
    run_ids = []
    for n in range(count):
        accepted = client.post("/v1/runs", json={"contract": WIDE, "cases": large_cases(n + 1)})
        run_ids.append(accepted.json()["run_id"])
        assert poll_run(client, run_ids[-1])["status"] == "finished"
    return run_ids


def test_runs_beyond_kept_runs_are_dropped_oldest_first(tmp_path: Path, judge_env: None) -> None:
    with (
        running(settings(tmp_path, kept_runs=2)) as url,
        httpx.Client(base_url=url, timeout=60) as client,
    ):
        first, second, third = finished_runs(client, 3)
        answers = [client.get(f"/v1/runs/{run_id}") for run_id in (first, second, third)]
    assert [a.status_code for a in answers] == [404, 200, 200]
    assert [a.json()["report"]["total_cases"] for a in answers[1:]] == [2, 3]


def test_reports_beyond_kept_bytes_are_dropped_but_the_newest_stays(
    tmp_path: Path, judge_env: None
) -> None:
    with (
        running(settings(tmp_path, kept_bytes=1)) as url,
        httpx.Client(base_url=url, timeout=60) as client,
    ):
        first, second = finished_runs(client, 2)
        answers = [client.get(f"/v1/runs/{run_id}") for run_id in (first, second)]
    assert [a.status_code for a in answers] == [404, 200]
    assert answers[1].json()["report"]["total_cases"] == 2


def test_small_and_large_reports_come_whole_with_their_length(
    tmp_path: Path, judge_env: None
) -> None:
    # A report of one chunk or less is read at once, a larger one streamed: both whole.
    settings = ServerSettings(port=0, store=str(tmp_path / "gaps.db"))
    bodies = {}
    with running(settings) as url, httpx.Client(base_url=url, timeout=60) as client:
        for count in (2, 60):
            run_id = client.post("/v1/runs", json={"contract": WIDE, "cases": large_cases(count)})
            poll_run(client, run_id.json()["run_id"])
            response = client.get(f"/v1/runs/{run_id.json()['run_id']}")
            assert int(response.headers["content-length"]) == len(response.content)
            bodies[count] = response
    assert len(bodies[2].content) < 256 * 1024 < len(bodies[60].content)
    for count, response in bodies.items():
        state = response.json()
        assert state["status"] == "finished"
        assert state["report"]["total_cases"] == count

"""Judge scheduling: wall time of the judge phase against the ideal, per concurrency.

Runs ``Runner`` with the judge phase against the local Messages API test server
(``tests/judge/messages_server.py``), which runs in a process of its own
(``bench/messages_process.py``: its CPU is not billed to the scheduler) and answers
every call after a fixed latency (300 ms by default). The suite is 50 cases with 4
judge claims each, one judge. Every measurement is a fresh child process. Prints:

- for each concurrency (1, 8 and 32 by default), with ``group: claim`` (200 calls):
  the wall time, the CPU seconds of the process running the judge phase, the ideal
  ``ceil(calls / concurrency) x latency`` and the ratio of wall to ideal;
- as a diagnostic, the same with the provider replaced by a stub that only sleeps the
  latency: the phase's own scheduling, without HTTP, the SDK or the server;
- the calls made with ``group: case`` (one per case and judge) versus ``group: claim``;
- the calls and wall time of a rerun with nothing changed (every verdict cached).

With ``--ref DIR`` (a checkout of other code, e.g. ``git worktree add DIR main``)
every measurement is made twice, alternately with DIR's code and this checkout's, so
both meet the same load on a shared machine; with ``--repeat N`` each is made N times
and the run of median wall time is shown.

    python bench/judge_scheduling.py [--latency 0.3] [--concurrency 1 8 32] [--ref DIR]
        [--repeat 1]

The Anthropic SDK is imported before any timing: a ``--ref`` from before ADR 0049 (when
the provider called through the SDK) imports it on its first call, a one-off cost of a
second or more that says nothing about scheduling.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# The code measured: this checkout, or the one a ``--ref`` child is told to load.
CODE = Path(os.environ.get("BENCH_CODE_ROOT") or ROOT)
sys.path.insert(0, str(CODE))
sys.path.insert(1, str(ROOT / "bench"))

import anthropic  # noqa: E402, F401  (warm import, see the module docstring)
from messages_process import ServerProcess  # noqa: E402

from tests.judge.judge_brain import brain  # noqa: E402
from verifier.cases import read_cases  # noqa: E402
from verifier.contract.load import load_contract  # noqa: E402
from verifier.engine.plan import build_plan  # noqa: E402
from verifier.engine.runner import Runner, RunOptions, new_run_id, run_sync  # noqa: E402
from verifier.gaps.sqlite.store import SqliteStore  # noqa: E402
from verifier.judge.setup import make_judge_phase  # noqa: E402
from verifier.llm.limits import CallLimits  # noqa: E402
from verifier.llm.providers._anthropic_wire import message_params  # noqa: E402
from verifier.llm.types import ModelReply, ModelRequest  # noqa: E402
from verifier.logs import configure_logging  # noqa: E402

CASES = 50
CLAIMS_PER_CASE = 4
HEADER = (
    f"{'code':>6} {'concurrency':>11} {'calls':>6} {'wall s':>8} {'cpu s':>6} {'ideal s':>8}"
    f" {'ratio':>6}"
)


def contract_text(group: str) -> str:
    lines = [
        "contract: bench-judge",
        "version: 1",
        "llm_fields: [output]",
        "judges:",
        "  strict:",
        "    provider: anthropic",
        "    model: claude-haiku-4-5-20251001",
        "    sampling: {max_tokens: 512}",
        f"    group: {group}",
        "claims:",
    ]
    for n in range(1, CLAIMS_PER_CASE + 1):
        lines += [
            f"  - id: judged_{n}",
            "    judge: strict",
            f"    instruction: The brief states facts, not guesses (aspect {n})",
            "    criteria:",
            "      - Does the output avoid speculative claims?",
        ]
    return "\n".join(lines) + "\n"


def write_suite(folder: Path, group: str) -> tuple[Path, Path]:
    contract = folder / f"bench-{group}.yaml"
    contract.write_text(contract_text(group), encoding="utf-8")
    cases = folder / "cases.jsonl"
    with cases.open("w", encoding="utf-8") as handle:
        for i in range(CASES):
            guess = " My guess is growth." if i % 5 == 0 else ""
            case = {
                "id": f"c{i}",
                "input": f"Brief on account {i}.",
                "output": f"Account {i} renewed {100 + i} seats.{guess}",
            }
            handle.write(json.dumps(case) + "\n")
    return contract, cases


class SleepingProvider:
    """Answers like the server's brain after ``latency``, with no HTTP and no SDK."""

    name = "anthropic"

    def __init__(self, latency: float) -> None:
        self.latency = latency

    async def complete(self, request: ModelRequest, *, timeout: float) -> ModelReply:
        await asyncio.sleep(self.latency)
        answer = brain(message_params(request))
        return ModelReply(request.model, "tool_use", answer.tool_input)

    async def aclose(self) -> None:
        pass


@dataclass(frozen=True)
class Timed:
    calls: int
    cached: int
    wall: float
    cpu: float


def run_once(
    contract: Path, cases: Path, db: Path, concurrency: int, *, stub: float | None
) -> Timed:
    """One run into a store at ``db`` (whose judge cache a later run may reuse), in
    this process; ``stub`` is the latency of a ``SleepingProvider`` to use instead of
    the server."""
    loaded = load_contract(contract)
    run_id = new_run_id()
    with SqliteStore(db) as store:
        plan = build_plan(loaded)
        phase = make_judge_phase(
            loaded,
            plan=plan,
            mode="live",
            store_path=str(db),
            recordings=None,
            limits=CallLimits(concurrency=concurrency, timeout=30),
            run_id=run_id,
        )
        if stub is not None:
            phase.providers = {"strict": SleepingProvider(stub)}
        runner = Runner(
            loaded, store, plan=plan, model_phase=phase, options=RunOptions(run_id=run_id)
        )
        started, cpu = time.perf_counter(), time.process_time()
        run_sync(runner, read_cases(cases))
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    return Timed(phase.stats.calls, phase.stats.cached, wall, cpu)


class Measure:
    """Runs ``run_once`` in a fresh child process with one tree's code."""

    def __init__(self, server: ServerProcess, folder: Path, trees: dict[str, Path]) -> None:
        self.server = server
        self.folder = folder
        self.trees = trees
        self.peak = 0

    def __call__(
        self, tree: str, contract: Path, db: str, concurrency: int, *, stub: float | None = None
    ) -> Timed:
        job = {
            "contract": str(contract),
            "cases": str(self.folder / "cases.jsonl"),
            "db": str(self.folder / f"{tree}-{db}.db"),
            "concurrency": concurrency,
            "stub": stub,
        }
        env = {**os.environ, "BENCH_CODE_ROOT": str(self.trees[tree])}
        env["ANTHROPIC_BASE_URL"] = self.server.base_url
        env["ANTHROPIC_API_KEY"] = "sk-ant-bench-not-a-real-key"
        before, _ = self.server.stats()
        out = subprocess.run(
            [sys.executable, __file__, "--child", json.dumps(job)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        timed = Timed(**json.loads(out))
        after, self.peak = self.server.stats()
        return (
            timed
            if stub is not None
            else Timed(after - before, timed.cached, timed.wall, timed.cpu)
        )


def child(job: dict[str, Any]) -> None:
    configure_logging(level="error")
    timed = run_once(
        Path(job["contract"]),
        Path(job["cases"]),
        Path(job["db"]),
        int(job["concurrency"]),
        stub=job["stub"],
    )
    print(json.dumps(asdict(timed)))


def median(runs: list[Timed]) -> Timed:
    """The run of median wall time (its own CPU seconds beside it)."""
    return sorted(runs, key=lambda timed: timed.wall)[len(runs) // 2]


def ratio_line(label: str, concurrency: int, timed: Timed, latency: float) -> str:
    ideal = math.ceil(timed.calls / concurrency) * latency
    return (
        f"{label:>6} {concurrency:>11} {timed.calls:>6} {timed.wall:>8.2f} {timed.cpu:>6.2f}"
        f" {ideal:>8.2f} {timed.wall / ideal:>6.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--ref", type=Path, help="a checkout of other code to compare with")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each, median shown")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(json.loads(args.child))
        return
    latency: float = args.latency
    trees = {"ref": args.ref.resolve()} if args.ref else {}
    trees["this"] = ROOT
    print(f"{CASES} cases x {CLAIMS_PER_CASE} judge claims, server latency {latency * 1000:.0f} ms")
    print(f"load average {os.getloadavg()[0]:.1f}; cpu s: the judging process's CPU seconds")
    with ServerProcess(latency) as server, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        claim_contract, _ = write_suite(folder, "claim")
        case_contract, _ = write_suite(folder, "case")
        measure = Measure(server, folder, trees)

        print(f"\ngroup: claim, fresh cache, through the test server (median of {args.repeat})")
        print(f"{HEADER} {'peak in flight':>15}")
        for concurrency in args.concurrency:
            runs: dict[str, list[Timed]] = {tree: [] for tree in trees}
            peaks: dict[str, int] = dict.fromkeys(trees, 0)
            for n in range(args.repeat):
                for tree in trees:
                    db = f"claim-{concurrency}-{n}"
                    runs[tree].append(measure(tree, claim_contract, db, concurrency))
                    peaks[tree] = max(peaks[tree], measure.peak)
            for tree in trees:
                timed = median(runs[tree])
                print(f"{ratio_line(tree, concurrency, timed, latency)} {peaks[tree]:>15}")

        print("\nthe same, provider stubbed (asyncio.sleep(latency); no HTTP, SDK or server)")
        print(HEADER)
        for concurrency in args.concurrency:
            runs = {tree: [] for tree in trees}
            for n in range(args.repeat):
                for tree in trees:
                    db = f"stub-{concurrency}-{n}"
                    runs[tree].append(measure(tree, claim_contract, db, concurrency, stub=latency))
            for tree in trees:
                print(ratio_line(tree, concurrency, median(runs[tree]), latency))

        concurrency = max(args.concurrency)
        print(f"\ncalls at concurrency {concurrency}")
        for tree in trees:
            for group, contract in (("case", case_contract), ("claim", claim_contract)):
                timed = measure(tree, contract, f"rerun-{group}", concurrency)
                print(
                    f"{tree:>6} group: {group:<6} {timed.calls:>4} calls "
                    f"({timed.calls / CASES:g} per case), wall {timed.wall:.2f} s"
                )

        print("\ncached rerun (group: claim, same store)")
        for tree in trees:
            rerun = measure(tree, claim_contract, "rerun-claim", concurrency)
            print(
                f"{tree:>6} calls {rerun.calls}, cached {rerun.cached}, wall {rerun.wall:.3f} s"
                f", cpu {rerun.cpu:.3f} s"
            )


if __name__ == "__main__":
    main()

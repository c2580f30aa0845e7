"""Judge scheduling: wall time of the judge phase against the ideal, per concurrency.

Runs ``Runner`` with the judge phase in-process against the local Messages API test
server (``tests/judge/messages_server.py``) answering every call after a fixed
latency (300 ms by default). The suite is 50 cases with 4 judge claims each, one
judge. Prints:

- for each concurrency (1, 8 and 32 by default), with ``group: claim`` (200 calls):
  the wall time, the ideal ``ceil(calls / concurrency) x latency`` and their ratio;
- as a diagnostic, the same with the provider replaced by a stub that only sleeps the
  latency: the phase's own scheduling, without HTTP, the SDK or the server;
- the calls made with ``group: case`` (one per case and judge) versus ``group: claim``;
- the calls and wall time of a rerun with nothing changed (every verdict cached).

    python bench/judge_scheduling.py [--latency 0.3] [--concurrency 1 8 32]

The Anthropic SDK is imported before any timing: the provider imports it on its first
call, a one-off cost of a second or more that says nothing about scheduling.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import anthropic  # noqa: E402, F401  (warm import, see the module docstring)

from tests.judge.judge_brain import brain  # noqa: E402
from tests.judge.messages_server import MessagesServer  # noqa: E402
from verifier.cases import read_cases  # noqa: E402
from verifier.contract.load import load_contract  # noqa: E402
from verifier.gaps.sqlite import SqliteStore  # noqa: E402
from verifier.judge.setup import make_judge_phase  # noqa: E402
from verifier.llm.limits import CallLimits  # noqa: E402
from verifier.llm.providers._anthropic_wire import message_params  # noqa: E402
from verifier.llm.types import ModelReply, ModelRequest  # noqa: E402
from verifier.logs import configure_logging  # noqa: E402
from verifier.runner import Runner, RunOptions, new_run_id, run_sync  # noqa: E402

CASES = 50
CLAIMS_PER_CASE = 4
HEADER = f"{'concurrency':>11} {'calls':>6} {'wall s':>8} {'ideal s':>8} {'ratio':>6}"


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


def run_once(
    server: MessagesServer,
    contract: Path,
    cases: Path,
    db: Path,
    concurrency: int,
    *,
    stub: SleepingProvider | None = None,
) -> Timed:
    """One run into a store at ``db`` (whose judge cache a later run may reuse)."""
    loaded = load_contract(contract)
    run_id = new_run_id()
    before = len(server.model_calls())
    with SqliteStore(db) as store:
        phase = make_judge_phase(
            loaded,
            mode="live",
            store_path=str(db),
            recordings=None,
            limits=CallLimits(concurrency=concurrency, timeout=30),
            run_id=run_id,
        )
        if stub is not None:
            phase.providers = {"strict": stub}
        runner = Runner(loaded, store, model_phase=phase, options=RunOptions(run_id=run_id))
        started = time.perf_counter()
        run_sync(runner, read_cases(cases))
        wall = time.perf_counter() - started
    calls = phase.stats.calls if stub is not None else len(server.model_calls()) - before
    return Timed(calls, phase.stats.cached, wall)


def ratio_line(concurrency: int, timed: Timed, latency: float) -> str:
    ideal = math.ceil(timed.calls / concurrency) * latency
    return (
        f"{concurrency:>11} {timed.calls:>6} {timed.wall:>8.2f} {ideal:>8.2f} "
        f"{timed.wall / ideal:>6.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    args = parser.parse_args()
    configure_logging(level="error")
    os.environ["ANTHROPIC_API_KEY"] = "sk-ant-bench-not-a-real-key"
    latency: float = args.latency
    print(f"{CASES} cases x {CLAIMS_PER_CASE} judge claims, server latency {latency * 1000:.0f} ms")
    with (
        MessagesServer(default=brain, latency=latency) as server,
        tempfile.TemporaryDirectory() as tmp,
    ):
        os.environ["ANTHROPIC_BASE_URL"] = server.base_url
        folder = Path(tmp)
        claim_contract, cases = write_suite(folder, "claim")
        case_contract, _ = write_suite(folder, "case")

        print("\ngroup: claim, fresh cache, through the test server")
        print(f"{HEADER} {'peak in flight':>15}")
        for concurrency in args.concurrency:
            server.max_in_flight = 0
            db = folder / f"claim-{concurrency}.db"
            timed = run_once(server, claim_contract, cases, db, concurrency)
            print(f"{ratio_line(concurrency, timed, latency)} {server.max_in_flight:>15}")

        print("\nthe same, provider stubbed (asyncio.sleep(latency); no HTTP, SDK or server)")
        print(HEADER)
        for concurrency in args.concurrency:
            db = folder / f"stub-{concurrency}.db"
            stub = SleepingProvider(latency)
            timed = run_once(server, claim_contract, cases, db, concurrency, stub=stub)
            print(ratio_line(concurrency, timed, latency))

        concurrency = max(args.concurrency)
        grouped = run_once(server, case_contract, cases, folder / "case.db", concurrency)
        per_claim = run_once(server, claim_contract, cases, folder / "rerun.db", concurrency)
        print(f"\ncalls at concurrency {concurrency}")
        for group, timed in (("case", grouped), ("claim", per_claim)):
            print(
                f"  group: {group:<6} {timed.calls:>4} calls "
                f"({timed.calls / CASES:g} per case), wall {timed.wall:.2f} s"
            )

        rerun = run_once(server, claim_contract, cases, folder / "rerun.db", concurrency)
        print("\ncached rerun (group: claim, same store)")
        print(f"  calls {rerun.calls}, cached {rerun.cached}, wall {rerun.wall:.3f} s")


if __name__ == "__main__":
    main()

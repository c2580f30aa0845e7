"""A writer that keeps a store busy while audits read it, as a process of its own.

    python -m tests.gaps._live_writer TARGET STOP_FILE [cache]

Until ``STOP_FILE`` exists it begins runs, appends their cases a few at a time (each
case's content with its rows), ends them with a summary that agrees with their rows,
and now and then interrupts a run and resumes it (the case ``verifier run --resume``
makes). Every write is an honest one, so any audit of the store must find it intact;
it prints ``ready`` once its first run has ended, and ``wrote N runs`` when it stops.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.gaps._support import CONTRACT_SHA, begin, draft
from verifier.gaps.content import build_content
from verifier.gaps.store import GapStore, open_store
from verifier.llm.cache import CachedReply
from verifier.llm.replies import store_cache_for

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = ("grounded", "short")
CACHE_KEY = "live-key"
CASES_PER_APPEND = 3
APPENDS_PER_PART = 3
# A pause after each append, as a run spends time checking its next cases: the store
# keeps changing without growing faster than an audit can read it.
PAUSE_S = 0.005


def case_rows(run_id: str, case: int) -> tuple[list[dict[str, Any]], str, bytes]:
    """The rows of one case (one per claim; every fifth case fails ``short``) and its
    content."""
    case_id = f"case-{case}"
    made = build_content({"id": case_id, "input": f"brief {case}", "output": "an answer"})
    assert made is not None
    sha, body = made
    rows = []
    for claim_id in CLAIMS:
        passed = claim_id != "short" or case % 5
        rows.append(
            draft(
                case,
                run_id,
                row_id=f"{run_id}-{case}-{claim_id}",
                case_id=case_id,
                claim_id=claim_id,
                kind="rubric",
                status="pass" if passed else "fail",
                score=1.0 if passed else 0.0,
                evidence={"span": [0, 1]},
                content_sha256=sha,
                contract_sha256=CONTRACT_SHA,
            )
        )
    return rows, sha, body


def write_part(store: GapStore, run_id: str, first_case: int) -> int:
    """Appends a few batches of cases to a running run; returns the next case number."""
    case = first_case
    for _ in range(APPENDS_PER_PART):
        rows: list[dict[str, Any]] = []
        contents: dict[str, bytes] = {}
        for _ in range(CASES_PER_APPEND):
            made, sha, body = case_rows(run_id, case)
            rows += made
            contents[sha] = body
            case += 1
        store.append(rows, contents)
        time.sleep(PAUSE_S)
    return case


def summary(cases: int) -> dict[str, Any]:
    """The summary a run of ``cases`` cases from ``case_rows`` ends with."""
    failed = sum(1 for case in range(cases) if case % 5 == 0)
    breakdown = {
        claim: {
            "passed": cases - (failed if claim == "short" else 0),
            "failed": failed if claim == "short" else 0,
            "errors": 0,
            "skipped": 0,
        }
        for claim in CLAIMS
    }
    return {
        "total_cases": cases,
        "passed_cases": cases - failed,
        "failed_cases": failed,
        "assertion_breakdown": breakdown,
    }


def write_run(store: GapStore, n: int) -> None:
    """One run; every third is interrupted after its first part and resumed."""
    run_id = f"live-{n}"
    begin(store, run_id, started_at=f"2026-11-25T10:{n // 60 % 60:02d}:{n % 60:02d}Z")
    cases = write_part(store, run_id, 0)
    if n % 3 == 0:
        store.finish_run(
            run_id,
            status="interrupted",
            finished_at="2026-11-25T11:00:00Z",
            summary=summary(cases),
        )
        begin(store, run_id)
        cases = write_part(store, run_id, cases)
    store.finish_run(
        run_id, status="finished", finished_at="2026-11-25T11:00:00Z", summary=summary(cases)
    )


def cache_entry(n: int) -> CachedReply:
    """The judge-cache entry ``CACHE_KEY`` holds after the ``n``-th answer."""
    reply = {"served_model": "m", "stop_reason": "tool_use", "tool_input": {"n": n}}
    return CachedReply.from_json(
        {
            "key": CACHE_KEY,
            "provider": "anthropic",
            "model": "m",
            "prompt_sha": "a" * 64,
            "sampling_sha": "b" * 64,
            "recorded_at": "2026-11-25T10:00:00Z",
            "recorded_run": f"live-{n}",
            "reply": reply,
        }
    )


def start(target: str, stop: Path, *, cache: bool = False) -> subprocess.Popen[str]:
    """Starts a writer process on ``target`` and returns once its first run has ended;
    it stops when ``stop`` exists (its stdout then says how many runs it wrote).

    Args:
        cache: Instead of runs, answer one judge-cache key again and again (as
            ``--judges record`` runs do), each answer replacing the last and sealed.
    """
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.gaps._live_writer",
            target,
            str(stop),
            *(["cache"] if cache else []),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    if process.stdout.readline().strip() != "ready":
        process.kill()
        raise RuntimeError("the writer process did not start writing")
    return process


def main(target: str, stop_file: str, what: str = "runs") -> None:
    stop = Path(stop_file)
    written = 0
    if what == "cache":
        cache = store_cache_for(target)
        while not stop.exists():
            cache.put(cache_entry(written))
            written += 1
            if written == 1:
                print("ready", flush=True)
        cache.close()
        print(f"wrote {written} cache entries", flush=True)
        return
    with open_store(target) as store:
        while not stop.exists():
            write_run(store, written)
            written += 1
            if written == 1:
                print("ready", flush=True)
    print(f"wrote {written} runs", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])

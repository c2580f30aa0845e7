"""Comparing two big runs: ``verifier compare`` and the viewer's diff page, time and memory.

Builds a SQLite store holding two runs of ``N`` results each (default 1,000,000):
``N / 8`` cases of eight claims, one of them graded (scores in tenths), written through
the store's own ``append`` in batches, as ``bench/view_first_page.py`` does. The
candidate differs from the baseline on about one result in fifty, both ways, and the
candidate's rows are written in another case order than the baseline's. The store is
kept in the temporary folder, named by its size, and reused (``--rebuild`` builds it
again).

Then, each in a fresh process (so its peak resident memory, ``ru_maxrss``, is its own):
``verifier compare A B --format json`` and the viewer's diff page (``diff_context``):
its first page from an empty cache (time, and the process's peak memory when it is
rendered), the next page by its keyset, the time until the summary (statistics and
flip counts, computed in the background) is on the page and the peak memory then, and
the page again from the cache. With
``--ref PATH`` (a checkout of another verifier) the same is run with that checkout's
code too, side by side.

    python bench/compare_big.py [--ref PATH] [N ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.gaps._support import begin, finish  # noqa: E402
from verifier.gaps.sqlite.store import SqliteStore  # noqa: E402

CLAIMS = 8
_BATCH = 5_000
_DIFF_PAGE = """
import resource, sys, time
from verifier.gaps.sqlite.store import SqliteStore
from verifier.viewer.diff import diff_context
try:
    from verifier.viewer._summaries import DiffSummaries
    from verifier.viewer._flips import FlipCursor
except ImportError:  # a version that reads both runs whole before its first page
    kwargs = {}
else:
    kwargs = {"summaries": DiffSummaries(sys.argv[1])}
def show(label, began, page):
    mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(label, time.perf_counter() - began, mb, page["flip_total"], len(page["flips"]))
with SqliteStore(sys.argv[1]) as store:
    began = time.perf_counter()
    page = diff_context(store, "base", "cand", **kwargs)
    show("first", began, page)
    if kwargs:
        last = page["flips"][-1].flip
        again = time.perf_counter()
        after = FlipCursor(last.case_id, last.claim_id)
        show("next", again, diff_context(store, "base", "cand", after=after, page=2, **kwargs))
    while page["flip_total"] is None:  # as the page's refresh asks again
        time.sleep(page["refresh"])
        page = diff_context(store, "base", "cand", **kwargs)
    show("summary", began, page)
    again = time.perf_counter()
    show("cached", again, diff_context(store, "base", "cand", **kwargs))
"""


def _row(run_id: str, case: int, claim: int, flipped: bool) -> dict[str, Any]:
    """One result: claim 0 graded in tenths, the others pass/fail, one in five failing."""
    passed = (case * 7 + claim) % 5 != 0
    if flipped:
        passed = not passed
    score = ((case + claim) % 10 + (1 if flipped else 0)) % 11 / 10 if claim == 0 else None
    return {
        "schema": "verifier.gap-row.v1",
        "row_id": f"{run_id}-{case}-{claim}",
        "run_id": run_id,
        "recorded_at": "2026-11-25T10:00:00.250000Z",
        "contract_id": "demo",
        "contract_version": 3,
        "contract_sha256": _contract_sha(),
        "case_id": f"case-{case:07d}",
        "content_sha256": None,
        "claim_id": f"claim-{claim}",
        "kind": "rubric",
        "status": "pass" if passed else "fail",
        "score": float(passed) if score is None else score,
        "reason": f"claim {claim} checked on case {case}",
        "evidence": {"span": [case, case + 4]},
    }


def _contract_sha() -> str:
    from tests.gaps._support import contract_sha

    return contract_sha()


def _write_run(store: SqliteStore, run_id: str, results: int, candidate: bool) -> None:
    cases = results // CLAIMS
    begin(
        store,
        run_id,
        started_at="2026-11-25T10:00:00Z" if not candidate else "2026-11-25T11:00:00Z",
    )
    # The candidate writes its cases in another order (odd ones first), as shards would.
    order = list(range(cases)) if not candidate else [*range(1, cases, 2), *range(0, cases, 2)]
    batch: list[dict[str, Any]] = []
    for case in order:
        for claim in range(CLAIMS):
            batch.append(_row(run_id, case, claim, candidate and (case * CLAIMS + claim) % 50 == 7))
        if len(batch) >= _BATCH:
            store.append(batch)
            batch = []
    if batch:
        store.append(batch)
    finish(store, run_id)


def prepared(results: int, rebuild: bool) -> Path:
    """The store of two runs of ``results`` results, built unless kept from before."""
    path = Path(tempfile.gettempdir()) / f"verifier-bench-compare-{results}" / "gaps.db"
    if path.exists() and not rebuild:
        return path
    began = time.perf_counter()
    building = path.parent.with_name(path.parent.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    with SqliteStore(building / path.name) as store:
        _write_run(store, "base", results, candidate=False)
        _write_run(store, "cand", results, candidate=True)
    shutil.rmtree(path.parent, ignore_errors=True)
    building.rename(path.parent)
    print(f"built {path} in {time.perf_counter() - began:.1f} s", flush=True)
    return path


def measured(command: list[str], code: Path) -> tuple[float, float, str]:
    """Wall seconds, peak RSS in MB and stdout of ``command`` run with ``code`` first."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTHONPATH"] = str(code)
    began = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        # In the checkout's folder: ``-m`` and ``-c`` put the working folder first on the path.
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.DEVNULL, env=env, cwd=code
        )
        _, _, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - began
        out.seek(0)
        text = out.read().decode()
    return wall, usage.ru_maxrss / 1024, text


def bench(results: int, versions: dict[str, Path], rebuild: bool) -> None:
    path = prepared(results, rebuild)
    compare = [sys.executable, "-m", "verifier", "compare", "base", "cand"]
    compare += ["--store", str(path), "--format", "json"]
    diff = [sys.executable, "-c", _DIFF_PAGE, str(path)]
    outputs: dict[str, str] = {}
    for name, code in versions.items():
        wall, rss, outputs[name] = measured(compare, code)
        print(f"{results:>10,} {name:>6}  compare     {wall:7.1f} s {rss:7.0f} MB")
        wall, rss, text = measured(diff, code)
        lines = {k: v.split() for k, v in (line.split(" ", 1) for line in text.splitlines())}
        first, summary, cached = lines["first"], lines["summary"], lines["cached"]
        print(
            f"{results:>10,} {name:>6}  diff page   {float(first[0]):7.2f} s"
            f" {float(first[1]):7.0f} MB  (first page, {first[3]} flips)"
        )
        if "next" in lines:
            following = lines["next"]
            print(f"{'':>10} {'':>6}  next page   {float(following[0]):7.2f} s  (by its keyset)")
        print(
            f"{'':>10} {'':>6}  summary     {float(summary[0]):7.1f} s {float(summary[1]):7.0f} MB"
            f"  (on the page; again: {float(cached[0]) * 1000:.0f} ms; {summary[2]} flips;"
            f" process {wall:.1f} s, {rss:.0f} MB)"
        )
    if len(set(outputs.values())) > 1:
        print("  the compare JSON differs between the versions")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[1_000_000])
    parser.add_argument("--ref", type=Path, help="a checkout of another verifier to run as well")
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    versions = {"this": ROOT, **({"ref": args.ref.resolve()} if args.ref else {})}
    print(f"{'results':>10} {'who':>6}  {'what':<10} {'wall':>9} {'peak RSS':>10}")
    for results in args.sizes:
        bench(results, versions, args.rebuild)


if __name__ == "__main__":
    main()

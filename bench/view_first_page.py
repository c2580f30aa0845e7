"""The viewer's first pages on a run of a million results (``verifier.analyses.browse``).

Builds a SQLite store holding 50 small runs and then one run of ``--rows`` results
(default 1,000,000), through the store's own ``append`` in batches of 500 with each
case's content record, as ``bench/store.py`` does: rubric claims and a judge claim,
one result in five failing. The store is kept in the temporary folder, named by its
size, and reused by the next run of this script (``--rebuild`` builds it again).

Then times, as the viewer asks them: the run list's first page, and the big run's
first page of results unfiltered, filtered by status, by claim, by claim and status
together, and by a text search that matches near the start and one that matches
nothing (the worst case: one window of ``browse.TEXT_SCAN_WINDOW`` rows scanned), the
failing results first, a count of the failing ones, and the first page of the run's
grid (``verifier.analyses.grid``) unfiltered and filtered. Prints
the median and the slowest of ``--tries`` tries of each, in milliseconds. The target
is a first page in under 300 ms.

    python bench/view_first_page.py [--rows 1000000] [--tries 7] [--rebuild]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.store import with_contents  # noqa: E402
from tests.gaps._support import begin, draft, finish  # noqa: E402
from verifier.analyses import browse, grid  # noqa: E402
from verifier.gaps.sqlite.store import SqliteStore  # noqa: E402

BIG_RUN = "bench-big"
_BATCH = 500
_SMALL_RUNS = 50


def store_path(rows: int) -> Path:
    """Where the store of ``rows`` results is kept between runs of this script."""
    return Path(tempfile.gettempdir()) / f"verifier-bench-view-{rows}" / "gaps.db"


def build(path: Path, rows: int) -> float:
    """Builds the store in a folder beside ``path``, then moves it into place.

    Returns:
        Seconds it took.
    """
    began = time.perf_counter()
    building = path.parent.with_name(path.parent.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    with SqliteStore(building / path.name) as store:
        for n in range(_SMALL_RUNS):
            run_id = f"bench-small-{n:03d}"
            begin(store, run_id, started_at=f"2026-11-25T09:{n // 60:02d}:{n % 60:02d}Z")
            store.append([draft(i, run_id) for i in range(1, 11)])
            finish(store, run_id)
        begin(store, BIG_RUN, started_at="2026-11-25T10:00:00Z")
        for start in range(0, rows, _BATCH):
            drafts = [draft(n, BIG_RUN) for n in range(start + 1, min(rows, start + _BATCH) + 1)]
            store.append(drafts, with_contents(drafts))
        finish(store, BIG_RUN)
    shutil.rmtree(path.parent, ignore_errors=True)
    building.rename(path.parent)
    return time.perf_counter() - began


def timed(call: Callable[[], Any], tries: int) -> tuple[float, float, Any]:
    """The median and the slowest wall time of ``tries`` calls, in ms, and the last result."""
    spent: list[float] = []
    result = None
    for _ in range(tries):
        began = time.perf_counter()
        result = call()
        spent.append((time.perf_counter() - began) * 1000)
    return statistics.median(spent), max(spent), result


def prepared_store(description: str) -> tuple[Path, argparse.Namespace]:
    """The bench store of ``--rows`` results, built unless cached, and the options."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--tries", type=int, default=7)
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    path = store_path(args.rows)
    if args.rebuild or not path.exists():
        print(f"building {path} ({args.rows:,} results)...", flush=True)
        print(f"built in {build(path, args.rows):.1f} s")
    else:
        print(f"reusing {path}")
    return path, args


def _gridded(page: grid.GridPage) -> browse.Page[Any]:
    """A grid page as a listing page of its cases, for the table below."""
    return browse.Page(page.cases, page.next is not None, None, None)


def _counted(count: int | None) -> browse.Page[Any]:
    """A count as a page of one item, for the table below."""
    return browse.Page([count], False, None, count)


def main() -> None:
    path, args = prepared_store(__doc__.splitlines()[0])
    began = time.perf_counter()
    store = SqliteStore(path)
    print(f"open: {(time.perf_counter() - began) * 1000:.1f} ms")
    asks: list[tuple[str, Callable[[], browse.Page[Any]]]] = [
        ("list_runs first page", lambda: browse.list_runs(store)),
        ("run_results first page", lambda: browse.run_results(store, BIG_RUN)),
        ("  status=fail", lambda: browse.run_results(store, BIG_RUN, status="fail")),
        ("  claim=tone", lambda: browse.run_results(store, BIG_RUN, claim="tone")),
        (
            "  claim=tone status=fail",
            lambda: browse.run_results(store, BIG_RUN, claim="tone", status="fail"),
        ),
        ("  text 'case 4242'", lambda: browse.run_results(store, BIG_RUN, text="case 4242")),
        ("  text matching nothing", lambda: browse.run_results(store, BIG_RUN, text="zebra")),
        ("  failing first", lambda: browse.run_results(store, BIG_RUN, failing=True)),
        (
            "count_results status=fail",
            lambda: _counted(browse.count_results(store, BIG_RUN, status="fail")),
        ),
        ("run_grid first page", lambda: _gridded(grid.run_grid(store, BIG_RUN))),
        ("  status=pass", lambda: _gridded(grid.run_grid(store, BIG_RUN, status="pass"))),
        ("  claim=tone", lambda: _gridded(grid.run_grid(store, BIG_RUN, claim="tone"))),
        ("  text 'case 4242'", lambda: _gridded(grid.run_grid(store, BIG_RUN, text="case 4242"))),
    ]
    with store:
        print(f"{'first page of':<28}{'median ms':>10}{'max ms':>9}  items  has_more")
        for name, ask in asks:
            median, slowest, page = timed(ask, args.tries)
            print(
                f"{name:<28}{median:>10.1f}{slowest:>9.1f}  {len(page.items):>5}  {page.has_more}"
            )


if __name__ == "__main__":
    main()

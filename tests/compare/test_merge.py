"""Pairing streams: both runs are read case by case, side by side, whatever order
their rows were written in, on both stores."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.compare.test_compare_runs import add_run, outcomes
from tests.gaps._backends import Backend, PostgresBackend, SqliteBackend
from tests.gaps.conftest import postgres_server, postgres_url  # noqa: F401 (fixtures)
from verifier.compare.runs import pair_runs
from verifier.gaps.records import StoredRow
from verifier.gaps.sqlite.store import SqliteStore
from verifier.gaps.store import GapStore


class _WatchedStore(SqliteStore):
    """A real SQLite store that notes each row its case-ordered reads hand out."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.handed: list[tuple[str, str]] = []

    def iter_rows_by_case(
        self, run_id: str, *, page: int = 2_000, start: str | None = None
    ) -> Iterator[StoredRow]:
        for row in super().iter_rows_by_case(run_id, page=page, start=start):
            self.handed.append((run_id, row.case_id))
            yield row


def test_both_runs_are_read_side_by_side_a_case_at_a_time(tmp_path: Path) -> None:
    claims = ("x", "y", "z")
    statuses = "pfpppfppfp" * 20
    with _WatchedStore(tmp_path / "gaps.db") as store:
        for run in ("a", "b"):
            rows = {}
            for claim in claims:
                rows.update(outcomes(claim, statuses if run == "a" else statuses[::-1]))
            add_run(store, run, rows)
        paired = pair_runs(store, "a", "b")
        assert paired.paired_cases == 200
        order = sorted({case for _, case in store.handed})
        place = {case: n for n, case in enumerate(order)}
        latest = {"a": -1, "b": -1}
        widest = 0
        for run, case in store.handed:
            latest[run] = place[case]
            widest = max(widest, abs(latest["a"] - latest["b"]))
    # Neither run is read more than two cases ahead of the other (the case at hand, and
    # the first row of the next, which ends it): what is held at once is a case or two
    # of each run (and a page the store reads ahead), not a run.
    assert len(store.handed) == 2 * 200 * len(claims)
    assert widest <= 2


_BASE = {
    **outcomes("x", "ppffpppfpppf"),
    **outcomes("y", "pfpfpfppppep"),
    ("Ä", "x"): "pass",
    ("a", "x"): "fail",
}
_CAND = {
    **outcomes("x", "pfpfppffpppp", start=2),
    **outcomes("y", "ppppsfpfpfpf", start=2),
    ("Ä", "x"): "fail",
    ("a", "x"): "pass",
}


def _scrambled_runs(store: GapStore) -> None:
    """Run a in case order; run b in reverse, with a pair repeated (its first row is
    the one used), cases only in one run, and case ids whose code-point order is not
    their natural one (case-10 before case-2, a after Ä in no locale but code points)."""
    add_run(store, "a", _BASE)
    add_run(
        store,
        "b",
        dict(reversed(_CAND.items())),
        extra=[(("case-3", "x"), "pass"), (("case-3", "x"), "fail")],
    )


def _by_hand(claim: str) -> tuple[tuple[int, int, int, int], int, int]:
    """The claim's paired table (both pass, a only, b only, both fail), errors and
    skips, counted from the outcomes themselves."""
    cells, errors, skipped = [0, 0, 0, 0], 0, 0
    for (case, name), base in _BASE.items():
        cand = _CAND.get((case, name))
        if name != claim or cand is None:
            continue
        if "error" in (base, cand):
            errors += 1
        elif "skipped" in (base, cand):
            skipped += 1
        else:
            cells[2 * (base == "fail") + (cand == "fail")] += 1
    return (cells[0], cells[1], cells[2], cells[3]), errors, skipped


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """An empty store on each backend."""
    if request.param == "sqlite":
        return SqliteBackend(tmp_path / "gaps.db")
    return PostgresBackend(request.getfixturevalue("postgres_url"))


def test_scrambled_runs_pair_as_counted_by_hand_on_both_stores(backend: Backend) -> None:
    with backend.open() as store:
        _scrambled_runs(store)
        paired = pair_runs(store, "a", "b")
    assert paired.paired_cases == 12  # case-2 .. case-11, a, Ä
    assert (paired.cases_only_in_baseline, paired.cases_only_in_candidate) == (2, 2)
    assert paired.duplicate_rows == {"baseline": 0, "candidate": 2}
    assert [c.name for c in paired.claims] == ["x", "y"]
    for claim in paired.claims:
        table = claim.table
        cells = (table.both_pass, table.baseline_only, table.candidate_only, table.both_fail)
        assert (cells, claim.errors, claim.skipped) == _by_hand(claim.name)
    assert paired.claims[1].errors == 1 and paired.claims[1].skipped == 1

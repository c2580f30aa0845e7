"""``iter_rows_by_case``: one run's rows in ``(case_id, seq)`` order, page by page."""

from __future__ import annotations

from tests.gaps._backends import Backend
from tests.gaps._support import begin, draft, finish

# Case ids whose code-point order differs from a natural or a locale's order.
_CASES = ("case-2", "case-10", "B", "a", "Ä", "b", "case-1")


def test_rows_come_by_case_id_in_code_point_order_then_seq(store_backend: Backend) -> None:
    with store_backend.open() as store:
        begin(store, "run-1")
        begin(store, "run-2")
        drafts = [
            draft(n + 1, run_id, case_id=_CASES[n % len(_CASES)])
            for n in range(30)
            for run_id in ("run-1", "run-2")
        ]
        store.append(drafts)
        finish(store, "run-1")
        expected = sorted(
            ((r.case_id, r.seq) for r in store.iter_rows("run-1")),
            key=lambda k: (k[0].encode(), k[1]),
        )
        for page in (1, 2, 4, 5, 2_000):
            got = [(r.case_id, r.seq) for r in store.iter_rows_by_case("run-1", page=page)]
            assert got == expected
        assert {r.run_id for r in store.iter_rows_by_case("run-1", page=3)} == {"run-1"}
        assert list(store.iter_rows_by_case("ghost")) == []


def test_rows_by_case_start_at_a_case_id(store_backend: Backend) -> None:
    with store_backend.open() as store:
        begin(store, "run-1")
        store.append([draft(n + 1, "run-1", case_id=_CASES[n % len(_CASES)]) for n in range(30)])
        finish(store, "run-1")
        every = [(r.case_id, r.seq) for r in store.iter_rows_by_case("run-1")]
        for start in (*_CASES, "", "C", "case-1x", "zz"):
            for page in (1, 3, 2_000):
                got = store.iter_rows_by_case("run-1", page=page, start=start)
                expected = [k for k in every if k[0].encode() >= start.encode()]
                assert [(r.case_id, r.seq) for r in got] == expected

"""A resumed run of a production log keeps the cutoff it started with."""

from __future__ import annotations

import datetime as dt

from verifier._internal.case_mapping import CaseMapping
from verifier.contract.cases_spec import CasesSpec
from verifier.gaps.records import RunRecord
from verifier.run.resume import resumed_mapping

SPEC = CasesSpec(map={"id": "trace_id", "output": "response.text"}, time="ts", since="7d")
STARTED = dt.datetime(2026, 11, 21, 6, 0, tzinfo=dt.UTC)


def record_of(mapping: CaseMapping) -> RunRecord:
    options = {"cases_mapping": mapping.record()}
    return RunRecord("r1", "c", 1, "0" * 64, STARTED.isoformat(), None, "running", options)


def test_a_window_is_not_moved_by_resuming_the_run_later() -> None:
    started = SPEC.mapping(STARTED)
    assert started.since == dt.datetime(2026, 11, 14, 6, 0, tzinfo=dt.UTC)
    later = SPEC.mapping(STARTED + dt.timedelta(days=3))
    assert resumed_mapping(later, record_of(started)) == started
    # A fresh run (nothing resumed) takes the window back from its own start.
    assert resumed_mapping(later, None) == later


def test_a_mapping_without_a_cutoff_is_read_as_it_is() -> None:
    plain = CasesSpec(map={"id": "trace_id"}).mapping(STARTED)
    assert resumed_mapping(plain, record_of(plain)) is plain
    assert resumed_mapping(None, None) is None

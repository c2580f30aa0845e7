"""A stored run re-scored from its rows (a sharded run's merge, ``replay_stored_run``)
has the overall the run itself reported, case by case."""

from __future__ import annotations

import io
import json
from pathlib import Path

from verifier.ci.from_store import replay_stored_run
from verifier.gaps.store import open_store
from verifier.report.json_report import JsonReportWriter
from verifier.run.api import run_contract
from verifier.run.assembly import Judges
from verifier.scaffold.files import plan_scaffold, write_scaffold


def test_the_overall_of_a_stored_run_is_the_one_it_reported(tmp_path: Path) -> None:
    scaffold = plan_scaffold(tmp_path / "evals", template="likert")
    write_scaffold(scaffold)
    target = str(tmp_path / "gaps.db")
    judges = Judges(mode="replay", recordings=scaffold.recordings)
    ran = run_contract(scaffold.contract, scaffold.cases, store=target, judges=judges)
    assert ran.summary.overall is not None
    reported = ran.summary.overall.as_dict()
    assert (reported["mean"], reported["revise_cases"]) == (3.733333, ["review-rewritten"])

    out = io.StringIO()
    with open_store(target) as store:
        summary = replay_stored_run(store, ran.summary.run_id, [JsonReportWriter(out)])
        record = store.run(ran.summary.run_id)
    assert summary.overall is not None
    assert summary.overall.as_dict() == reported
    assert record is not None
    assert record.summary["overall"] == reported  # as the run recorded it at its end
    cases = {case["id"]: case["overall"] for case in json.loads(out.getvalue())["cases"]}
    assert cases == {case.case_id: case.overall.as_dict() for case in ran.cases if case.overall}
    assert len(cases) == 3

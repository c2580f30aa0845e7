"""The runner: rubric claims per case, gates, scoring, thresholds, rows persisted."""

from __future__ import annotations

import io
import json
from pathlib import Path

from tests.conftest import EXAMPLES
from verifier.analyses.audit import audit_store
from verifier.cases import CaseLine, read_cases
from verifier.contract.load import load_contract
from verifier.engine.plan import build_plan
from verifier.engine.runner import Runner, RunOptions, run_sync
from verifier.gaps.sqlite.store import SqliteStore
from verifier.report import make_writer

CONTRACT = """\
contract: demo
version: 3
llm_fields: [output]
threshold: 0.6
claims:
  - id: has_word
    rubric: contains
    field: output
    values: [hello]
    weight: 2
  - id: short
    rubric: length
    field: output
    max_chars: 20
  - id: polite
    rubric: not_contains
    field: output
    values: [stupid]
    after: [has_word]
"""


def run(tmp_path: Path, write_contract, cases: list[dict], *, threshold: float | None = None):  # type: ignore[no-untyped-def]
    contract = load_contract(write_contract(CONTRACT))
    out = io.StringIO()
    with SqliteStore(tmp_path / "gaps.db") as store:
        runner = Runner(
            contract,
            store,
            plan=build_plan(contract),
            sinks=[make_writer("json", out)],
            options=RunOptions(threshold=threshold, chunk_size=2),
        )
        lines = [CaseLine(i + 1, str(c["id"]), c) for i, c in enumerate(cases)]
        summary = run_sync(runner, lines)
        rows = list(store.iter_rows())
    return summary, json.loads(out.getvalue()), rows


def test_weighted_score_and_threshold_decide_a_case(tmp_path: Path, write_contract) -> None:
    cases = [
        {"id": "ok", "output": "hello there"},  # 4/4
        {"id": "long", "output": "hello there, this is far too long"},  # 3/4 = 0.75
        {"id": "rude", "output": "stupid"},  # has_word fails, polite skipped: 1/4
    ]
    summary, report, _ = run(tmp_path, write_contract, cases)
    by_id = {c["id"]: c for c in report["cases"]}
    assert (by_id["ok"]["score"], by_id["ok"]["pass"]) == (1.0, True)
    assert (by_id["long"]["score"], by_id["long"]["pass"]) == (0.75, True)
    assert (by_id["rude"]["score"], by_id["rude"]["pass"]) == (0.25, False)
    assert (summary.total_cases, summary.passed_cases, summary.failed_cases) == (3, 2, 1)
    assert report["average_score"] == round((1.0 + 0.75 + 0.25) / 3, 6)


def test_gated_claim_is_skipped_when_its_gate_fails(tmp_path: Path, write_contract) -> None:
    _, report, _ = run(tmp_path, write_contract, [{"id": "rude", "output": "stupid"}])
    polite = next(r for r in report["cases"][0]["results"] if r["id"] == "polite")
    assert polite["status"] == "skipped" and "has_word (fail)" in polite["reasoning"]
    assert report["assertion_breakdown"]["polite"]["skipped"] == 1


def test_threshold_option_overrides_the_contract(tmp_path: Path, write_contract) -> None:
    summary, _, _ = run(
        tmp_path,
        write_contract,
        [{"id": "long", "output": "hello there, far too long"}],
        threshold=1.0,
    )
    assert summary.failed_cases == 1 and summary.threshold == 1.0


def test_every_result_is_a_chained_gap_row(tmp_path: Path, write_contract) -> None:
    cases = [{"id": f"c{i}", "output": "hello" if i % 2 else "bye"} for i in range(5)]
    summary, _, rows = run(tmp_path, write_contract, cases)
    assert len(rows) == 5 * 3
    assert [r.seq for r in rows] == list(range(1, 16))
    with SqliteStore(tmp_path / "gaps.db") as store:
        assert audit_store(store).ok
        run_record = store.run(summary.run_id)
    assert run_record is not None and run_record.status == "finished"


def test_row_ids_name_run_line_and_claim_and_are_unique(tmp_path: Path, write_contract) -> None:
    cases = [{"id": f"c{i}", "output": "hello"} for i in range(3)]
    summary, _, rows = run(tmp_path, write_contract, cases)
    again, _, _ = run(tmp_path, write_contract, cases)
    with SqliteStore(tmp_path / "gaps.db") as store:
        all_rows = list(store.iter_rows())
        assert store.duplicate_row_ids() == []
    assert rows[0].row_id == f"{summary.run_id}:1:has_word"
    assert {r.row_id for r in rows[:3]} == {
        f"{summary.run_id}:1:{claim}" for claim in ("has_word", "short", "polite")
    }
    assert len({r.row_id for r in all_rows}) == len(all_rows) == 2 * 3 * 3
    assert again.run_id != summary.run_id


def test_a_missing_field_fails_with_its_path_and_others_still_run(
    tmp_path: Path, write_contract
) -> None:
    _, report, _ = run(tmp_path, write_contract, [{"id": "empty"}])
    results = {r["id"]: r for r in report["cases"][0]["results"]}
    assert results["has_word"]["status"] == "fail" and "output" in results["has_word"]["reasoning"]
    assert results["short"]["status"] == "fail"


def test_bad_lines_become_error_rows_for_every_claim(tmp_path: Path, write_contract) -> None:
    cases_file = tmp_path / "cases.jsonl"
    cases_file.write_bytes(
        b'{"id": "a", "output": "hello"}\n{"id": "b", "output": \n{"id": "c", "output": "hello"}\n'
    )
    contract = load_contract(write_contract(CONTRACT))
    out = io.StringIO()
    with SqliteStore(tmp_path / "gaps.db") as store:
        runner = Runner(
            contract, store, plan=build_plan(contract), sinks=[make_writer("json", out)]
        )
        summary = run_sync(runner, read_cases(cases_file))
        rows = list(store.iter_rows())
    report = json.loads(out.getvalue())
    assert [c["id"] for c in report["cases"]] == ["a", "line-2", "c"]
    bad = report["cases"][1]
    assert bad["pass"] is False and bad["errors"] == 3
    assert all(
        r["status"] == "error" and r["reasoning"].startswith("line 2: invalid JSON")
        for r in bad["results"]
    )
    assert summary.passed_cases == 2 and len(rows) == 9


def test_example_contracts_show_passes_and_failures(tmp_path: Path) -> None:
    from verifier.judge.setup import judges_used, make_judge_phase
    from verifier.llm.limits import CallLimits
    from verifier.llm.replies import default_recordings

    for name in ("data-extraction", "account-research"):
        contract = load_contract(EXAMPLES / f"{name}.yaml")
        plan = build_plan(contract)
        phase = None
        if judges_used(contract):
            phase = make_judge_phase(
                contract,
                plan=plan,
                mode="replay",
                store_path=None,
                recordings=default_recordings(contract.path),
                limits=CallLimits(),
                run_id="example",
            )
        with SqliteStore(tmp_path / f"{name}.db") as store:
            runner = Runner(contract, store, plan=plan, model_phase=phase)
            summary = run_sync(runner, read_cases(EXAMPLES / f"{name}.cases.jsonl"))
        assert summary.passed_cases >= 2, name
        assert summary.failed_cases >= 2, name


def test_interrupted_run_keeps_rows_and_is_marked(tmp_path: Path, write_contract) -> None:
    contract = load_contract(write_contract(CONTRACT))

    def cases():  # type: ignore[no-untyped-def]
        for i in range(6):
            if i == 4:
                raise KeyboardInterrupt
            yield CaseLine(i + 1, f"c{i}", {"id": f"c{i}", "output": "hello"})

    with SqliteStore(tmp_path / "gaps.db") as store:
        runner = Runner(
            contract, store, plan=build_plan(contract), options=RunOptions(chunk_size=2)
        )
        try:
            run_sync(runner, cases())
        except KeyboardInterrupt:
            pass
        record = store.run(runner.run_id)
        rows = list(store.iter_rows())
        assert record is not None and record.status == "interrupted"
        assert len(rows) == 4 * 3
        assert audit_store(store).ok

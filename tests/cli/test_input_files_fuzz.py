"""Whatever bytes a file handed to verifier holds, reading it accepts it or reports it.

Each reader gets files built by ``tests._fuzz_files`` from a good file of its kind. The
property: the reader returns, or raises its documented error, whose every problem is
one line naming the file (and the line, where the problem has one). Any other
exception is a crash a user would see as a traceback.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests._fuzz_files import BOM, damaged_jsonl, edit_json, json_values
from tests.analyses._history import day, judge_evidence, plant_run
from tests.conftest import EXAMPLES
from verifier.cases import CaseLine, read_cases
from verifier.ci.baseline import BaselineError, load_baseline
from verifier.compare.labels import LabelsError, read_labels
from verifier.contract.judge_template import TemplateError, parse_template
from verifier.contract.load import check_contract_source, load_contract
from verifier.contract.prompt_template import PromptTemplate
from verifier.engine.plan import build_plan
from verifier.engine.runner import Runner, run_sync
from verifier.errors import CasesError, SutError
from verifier.evaluate import EvaluateError, parse_evaluation
from verifier.gaps.sqlite.store import SqliteStore
from verifier.integrations.promptfoo_artifact import MalformedPromptfooResult
from verifier.integrations.promptfoo_import import read_promptfoo_result
from verifier.judge.config import JudgeConfigError, judge_from_config
from verifier.llm.cache import CacheError, Recordings
from verifier.report import make_writer
from verifier.run.baseline import join_baseline, read_baseline
from verifier.transfer.export import export_jsonl
from verifier.transfer.importer import ExportRefused, import_jsonl

FIXTURES = Path(__file__).parents[1] / "fixtures"
# VERIFIER_FUZZ_EXAMPLES raises the count to hunt locally (thousands); CI keeps it small.
EXAMPLES_PER_TEST = int(os.environ.get("VERIFIER_FUZZ_EXAMPLES", "150"))
FUZZ = settings(
    max_examples=EXAMPLES_PER_TEST, deadline=None, suppress_health_check=list(HealthCheck)
)
# Checking a whole contract per example is slower: a quarter of the examples.
FUZZ_CONTRACT = settings(FUZZ, max_examples=max(EXAMPLES_PER_TEST // 4, 1))


def _lines(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _good_cases() -> list[Any]:
    return [line.case for line in read_cases(EXAMPLES / "data-extraction.cases.jsonl") if line.case]


CASES = _good_cases()
LABELS = _lines(EXAMPLES / "account-research.labels.jsonl")
RECORDINGS = _lines(EXAMPLES / "account-research.recordings.jsonl")[:3]


@contextmanager
def _file(data: bytes, name: str = "input.jsonl") -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        yield path


def _one_line(text: str) -> None:
    assert "\n" not in text and "\r" not in text, repr(text)
    assert text.strip(), repr(text)


def _located(problems: list[str], path: Path) -> None:
    assert problems
    for problem in problems:
        _one_line(problem)
        assert problem.startswith(f"{path}:"), problem


@FUZZ
@given(data=damaged_jsonl(CASES))
def test_any_cases_file_gives_case_lines_each_error_naming_its_line(data: bytes) -> None:
    with _file(data) as path:
        lines = list(read_cases(path))
        try:
            joined = list(join_baseline(iter(lines), read_baseline(path)))
        except CasesError as exc:  # a baseline is refused whole, naming its first bad line
            assert any(line.case is None for line in lines)
            _located([str(exc)], path)
            joined = lines
    assert len(joined) == len(lines)
    ids = [line.case_id for line in lines]
    assert len(set(ids)) == len(ids), ids  # one result per case: ids stay apart
    for line in lines:
        if line.error is None:
            assert isinstance(line.case, dict)
        else:
            assert line.case is None
            _one_line(line.error)
            assert line.error.startswith(f"line {line.line}: "), line.error


@FUZZ
@given(
    data=st.one_of(
        damaged_jsonl([json.loads((FIXTURES / "evaluate" / "prd-example.json").read_bytes())]),
        st.binary(max_size=60),
    )
)
def test_any_evaluation_input_is_read_or_reported_per_problem(data: bytes) -> None:
    try:
        parse_evaluation(data, "in.json")
    except EvaluateError as exc:
        for problem in exc.problems:
            _one_line(problem)
            assert problem.startswith("in.json: "), problem


@FUZZ
@given(data=damaged_jsonl(LABELS))
def test_any_labels_file_is_read_or_reported_per_line(data: bytes) -> None:
    with _file(data) as path:
        try:
            read_labels(path)
        except LabelsError as exc:
            _located(exc.problems, path)


@FUZZ
@given(data=damaged_jsonl(RECORDINGS))
def test_any_recordings_file_is_read_or_reported_with_its_line(data: bytes) -> None:
    with _file(data) as path:
        try:
            Recordings(path)
        except CacheError as exc:
            _located([str(exc)], path)


_yaml_changes = st.lists(
    st.tuples(st.integers(min_value=0), st.sampled_from(["replace", "delete", "add"]), json_values),
    min_size=1,
    max_size=3,
)


@st.composite
def _damaged_yaml(draw: st.DrawFn, document: Any) -> bytes:
    value = edit_json(document, draw(_yaml_changes))
    data = yaml.safe_dump(value, allow_unicode=True).encode("utf-8")
    data += draw(st.sampled_from([b"", b"x: " + b"[" * 3000, b"\xff", b"\t:", b"y: &a [*a]"]))
    if draw(st.booleans()):
        data = data.replace(b"\n", b"\r\n")
    if draw(st.booleans()):
        data = BOM + data
    return data


JUDGES = yaml.safe_load((FIXTURES / "evaluate" / "judges.yaml").read_text(encoding="utf-8"))


@FUZZ
@given(data=st.one_of(_damaged_yaml(JUDGES), st.binary(max_size=60)))
def test_any_judges_file_gives_a_judge_or_located_problems(data: bytes) -> None:
    with _file(data, "judges.yaml") as path:
        try:
            judge_from_config(path, "strict")
        except JudgeConfigError as exc:
            _located(exc.problems, path)


def _template_bytes() -> st.SearchStrategy[bytes]:
    good = (FIXTURES / "judge" / "templates" / "custom-assertions.md").read_bytes()
    return st.one_of(
        st.binary(max_size=80),
        st.builds(
            lambda cut, noise, end, bom: (
                (BOM if bom else b"") + (good[:cut] + noise + good[cut:]).replace(b"\n", end)
            ),
            st.integers(0, len(good)),
            st.one_of(st.binary(max_size=8), st.sampled_from([b"{{", b"}}", b"{{x}}", b"---"])),
            st.sampled_from([b"\n", b"\r\n", b"\r"]),
            st.booleans(),
        ),
    )


@FUZZ
@given(data=_template_bytes())
def test_any_judge_template_is_parsed_or_reported(data: bytes) -> None:
    try:
        parse_template(data, source="t.md", kind="binary")
    except TemplateError as exc:
        _one_line(str(exc))
        assert str(exc).startswith("judge template t.md: "), str(exc)


_SUT_PIECES = [b"{{input}}", b"{{input.a}}", b"{{input.*}}", b"{{", b"}}", b"\xef\xbb\xbf"]
_SUT_PIECES += [b"<!-- dynamic -->", b"\n", b"\r\n", b"\r", b"\xe2\x80\xa8", b"."]


@FUZZ
@given(
    data=st.lists(
        st.one_of(
            st.binary(max_size=20),
            st.text(max_size=20).map(str.encode),
            st.sampled_from(_SUT_PIECES),
        ),
        max_size=8,
    ).map(b"".join)
)
def test_any_sut_template_is_parsed_or_reported(data: bytes) -> None:
    try:
        PromptTemplate(data, source="p.md")
    except SutError as exc:
        _one_line(str(exc))
        assert str(exc).startswith("sut prompt p.md: "), str(exc)


SCHEMA = json.loads((FIXTURES / "schemas" / "answer.schema.json").read_bytes())


@FUZZ_CONTRACT
@given(
    data=st.one_of(damaged_jsonl([SCHEMA]), st.binary(max_size=60)),
    suffix=st.sampled_from([".json", ".yaml"]),
)
def test_any_schema_file_is_loaded_or_reported_at_its_claim(data: bytes, suffix: str) -> None:
    contract = (
        b"contract: c\nversion: 1\nclaims:\n  - id: shaped\n    rubric: json_schema\n"
        b"    field: output\n    schema_file: s" + suffix.encode() + b"\n"
    )
    with _file(data, "s" + suffix) as schema, _file(contract, "c.yaml") as path:
        schema.rename(path.parent / schema.name)
        _, diagnostics = check_contract_source(contract, path)
    for diagnostic in diagnostics:
        _one_line(str(diagnostic))
        assert str(diagnostic).startswith(f"{path}:"), str(diagnostic)


def _export() -> bytes:
    with tempfile.TemporaryDirectory() as folder, SqliteStore(Path(folder) / "g.db") as store:
        plant_run(
            store,
            "r1",
            started_at=day(1),
            passes={"cites": (1, 2), "tone": (1, 1)},
            evidence={"tone": judge_evidence()},
        )
        out = io.StringIO()
        export_jsonl(store, out, exported_at="2026-11-30T00:00:00Z")
    return out.getvalue().encode("utf-8")


EXPORT = [json.loads(line) for line in _export().splitlines()]


@FUZZ
@given(data=damaged_jsonl(EXPORT))
def test_any_export_is_imported_or_refused_at_a_line(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "export.jsonl"
        path.write_bytes(data)
        with SqliteStore(Path(folder) / "target.db") as store:
            try:
                import_jsonl(path, store)
            except ExportRefused as exc:
                _one_line(exc.reason)
                assert exc.line >= 1


PROMPTFOO = json.loads((FIXTURES / "promptfoo" / "reduced" / "equals-fail.v1.json").read_bytes())


@FUZZ
@given(data=st.one_of(damaged_jsonl([PROMPTFOO]), st.binary(max_size=60)))
def test_any_promptfoo_file_is_reduced_or_refused(data: bytes) -> None:
    with _file(data, "result.json") as path:
        try:
            read_promptfoo_result(path)
        except MalformedPromptfooResult as exc:
            _one_line(str(exc))


def _report() -> dict[str, Any]:
    loaded = load_contract(EXAMPLES / "data-extraction.yaml")
    lines = [CaseLine(i + 1, str(case["id"]), case) for i, case in enumerate(CASES)]
    out = io.StringIO()
    with tempfile.TemporaryDirectory() as folder, SqliteStore(Path(folder) / "g.db") as store:
        runner = Runner(loaded, store, plan=build_plan(loaded), sinks=[make_writer("json", out)])
        run_sync(runner, lines)
    report: dict[str, Any] = json.loads(out.getvalue())
    return report


REPORT = _report()


@FUZZ
@given(data=st.one_of(damaged_jsonl([REPORT]), st.binary(max_size=60)))
def test_any_against_report_is_read_or_refused_naming_the_file(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "report.json"
        path.write_bytes(data)
        with SqliteStore(Path(folder) / "g.db") as store:
            try:
                load_baseline(str(path), store)
            except BaselineError as exc:
                _located([str(exc)], path)

"""Case values nested as deep as JSON allows are failed with a reason, never crash a predicate."""

from __future__ import annotations

import io
import json
from pathlib import Path

import orjson

from verifier.cases import CaseLine
from verifier.contract.load import load_contract
from verifier.engine.plan import build_plan
from verifier.engine.runner import Runner, RunOptions, run_sync
from verifier.gaps.sqlite.store import SqliteStore
from verifier.report import make_writer

CONTRACT = """\
contract: deep
version: 1
llm_fields: [output]
claims:
  - id: known
    rubric: enum
    field: data
    values: [a, b]
  - id: same
    rubric: equals
    field: data
    value: x
  - id: shaped
    rubric: json_schema
    field: output
    schema: {type: array}
"""


def test_deep_values_are_described_shallowly_and_deep_json_text_is_refused(
    tmp_path: Path, write_contract
) -> None:  # type: ignore[no-untyped-def]
    deep = orjson.loads("[" * 1000 + "]" * 1000)  # as a cases file may hold; repr gives up
    case = {"id": "deep", "data": deep, "output": "[" * 100_000 + "]" * 100_000}
    out = io.StringIO()
    with SqliteStore(tmp_path / "gaps.db") as store:
        loaded = load_contract(write_contract(CONTRACT))
        runner = Runner(
            loaded, store, plan=build_plan(loaded), sinks=[make_writer("json", out)],
            options=RunOptions(),
        )  # fmt: skip
        run_sync(runner, [CaseLine(1, "deep", case)])
    results = {r["id"]: r for r in json.loads(out.getvalue())["cases"][0]["results"]}
    assert {k: r["status"] for k, r in results.items()} == {
        "known": "fail",
        "same": "fail",
        "shaped": "fail",
    }
    assert results["known"]["reasoning"] == "data is an array, not one of ['a', 'b']"
    assert results["known"]["evidence"]["value"] == "[[[[[[[[[...]]]]]]]]]"
    assert results["same"]["evidence"]["actual"] == "[[[[[[[[[...]]]]]]]]]"
    assert results["shaped"]["reasoning"] == "output is not valid JSON: it nests too deeply to read"

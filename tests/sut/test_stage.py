"""The stage inside the runner: concurrency, resumed runs, provenance on every row."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.sut._support import HERE
from verifier.cases import CaseLine
from verifier.contract.load import load_contract
from verifier.contract.sut_models import SutSpec
from verifier.engine.plan import build_plan
from verifier.engine.runner import Runner, RunOptions
from verifier.gaps.sqlite.store import SqliteStore
from verifier.sut._types import Produced, SecretMask
from verifier.sut.setup import ModelAccess, make_stage
from verifier.sut.stage import SutStage

CONTRACT = """\
contract: staged
version: 1
claims:
  - {id: said, rubric: regex, field: output, pattern: 'said '}
"""


class CountingCaller:
    """A real caller's contract, recording which inputs it was given."""

    def __init__(self) -> None:
        self.inputs: list[Any] = []
        self.mask = SecretMask({})

    def describe(self) -> dict[str, Any]:
        return {"kind": "python", "function": "counting"}

    async def call(self, value: Any, *, case_id: str, run: int) -> Produced:
        self.inputs.append(value)
        return Produced(value=f"said {value}", call={"duration_ms": 0.0})

    async def aclose(self) -> None:
        return None


def lines(n: int) -> list[CaseLine]:
    return [CaseLine(i + 1, f"c{i}", {"id": f"c{i}", "input": str(i)}) for i in range(n)]


def test_sync_functions_run_concurrently_in_threads() -> None:
    # Each call returns only once all four are inside the function at once; one after
    # the other, the first would give up waiting and answer "alone".
    spec = SutSpec.model_validate({"python": "sut_functions:meet"})
    stage = make_stage(spec, base_dir=HERE, access=ModelAccess())
    chunk = [CaseLine(i + 1, str(i), {"input": str(i)}) for i in range(4)]
    produced = asyncio.run(stage.produce(chunk))
    outputs = [line.case["output"] for line in produced if line.case]
    assert outputs == [f"together {i}" for i in range(4)]


def test_a_resumed_run_produces_only_the_cases_not_yet_stored(
    tmp_path: Path, write_contract
) -> None:  # type: ignore[no-untyped-def]
    loaded = load_contract(write_contract(CONTRACT))
    spec = SutSpec.model_validate({"python": "m:f"})
    first_caller, second_caller = CountingCaller(), CountingCaller()
    with SqliteStore(tmp_path / "gaps.db") as store:
        first = Runner(
            loaded,
            store,
            plan=build_plan(loaded),
            sut=SutStage(spec, first_caller),
            options=RunOptions(run_id="r1"),
        )

        async def interrupted() -> None:
            summary = first.begin()
            await first.check_chunk(lines(5)[:2], summary)
            await first.end(summary, status="interrupted")

        asyncio.run(interrupted())
        resumed = Runner(
            loaded,
            store,
            plan=build_plan(loaded),
            sut=SutStage(spec, second_caller),
            options=RunOptions(run_id="r1", resume=True),
        )
        summary = asyncio.run(resumed.run(lines(5)))
        rows = list(store.iter_rows("r1"))
    assert first_caller.inputs == ["0", "1"]
    assert sorted(second_caller.inputs) == ["2", "3", "4"]
    assert summary.total_cases == 5 and summary.passed_cases == 5
    assert len(rows) == 5
    bodies = [json.loads(row.body) for row in rows]
    assert all(body["evidence"]["sut"]["function"] == "counting" for body in bodies)


class BrokenCaller(CountingCaller):
    """A caller with a bug whose exception message carries a secret."""

    def __init__(self, secret: str) -> None:
        super().__init__()
        self.secret = secret
        self.mask = SecretMask({"SERVICE_TOKEN": secret})

    async def call(self, value: Any, *, case_id: str, run: int) -> Produced:
        raise RuntimeError(f"connect failed with {self.secret}")


def test_a_callers_internal_error_is_masked() -> None:
    stage = SutStage(SutSpec.model_validate({"python": "m:f"}), BrokenCaller("sk-abcdef123456"))
    (line,) = asyncio.run(stage.produce(lines(1)))
    assert line.case is None and line.error is not None
    assert "internal error: RuntimeError: connect failed with ***" in line.error
    assert "sk-abcdef123456" not in line.error


def test_each_call_of_a_function_gets_its_own_copy_of_the_input() -> None:
    spec = SutSpec.model_validate({"python": "sut_functions:counts_visits", "format": "json"})
    stage = make_stage(spec, base_dir=HERE, access=ModelAccess(), repeat=3)
    case = {"id": "a", "input": {"visits": []}}
    (line,) = asyncio.run(stage.produce([CaseLine(1, "a", case)]))
    assert line.case is not None and line.case["runs"] == [1, 1, 1]
    assert case["input"] == {"visits": []}  # the case as read is left as it was
    assert line.case["input"] == {"visits": []}

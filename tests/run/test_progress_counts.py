"""The progress bar of a run with judges counts each case as its verdicts come in, and
the judge verdicts settled out of all the run needs."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from tests.judge.behaviours import Behaviour
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from verifier.cases import read_cases
from verifier.contract.load import load_contract
from verifier.gaps.sqlite.store import SqliteStore
from verifier.report.progress import ProgressReporter
from verifier.run.assembly import Judges, assemble_run

CONTRACT = FIXTURES / "judge_run" / "briefs.yaml"
SLOW = "Brief on the slow account."
SLOW_SECONDS = 1.5


class CountingProgress(ProgressReporter):
    """The real bar (not drawn: no terminal), remembering when it advanced."""

    def __init__(self) -> None:
        super().__init__(enabled=False)
        self.steps: list[tuple[float, int]] = []

    def advance(self, n_cases: int = 1) -> None:
        self.steps.append((time.monotonic(), n_cases))
        super().advance(n_cases)


def slow_on_one_case(request: dict[str, Any]) -> Behaviour:
    answer = brain(request)
    if SLOW in json.dumps(request):
        return dataclasses.replace(answer, delay=SLOW_SECONDS)
    return answer


def write_cases(tmp_path: Path) -> Path:
    cases = tmp_path / "cases.jsonl"
    inputs = [SLOW, "Brief on Acme.", "Brief on Brightmart.", "Brief on Corvid."]
    lines = [
        json.dumps({"id": f"b{n}", "input": text, "output": "Renewed [source: CRM]."})
        for n, text in enumerate(inputs)
    ]
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return cases


def test_each_case_counts_when_its_verdicts_are_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-progress-test-key-0123456789")
    cases = write_cases(tmp_path)
    progress = CountingProgress()
    loaded = load_contract(CONTRACT)
    with (
        MessagesServer(default=slow_on_one_case) as server,
        SqliteStore(tmp_path / "gaps.db") as store,
    ):
        assembled = assemble_run(
            loaded,
            store,
            target=str(tmp_path / "gaps.db"),
            judges=Judges(mode="live", base_url=server.base_url, recordings_beside_contract=False),
            progress=progress,
        )
        summary = asyncio.run(assembled.runner.run(read_cases(cases), total=4))
    assert summary.total_cases == 4 and summary.judge_usage is not None
    assert [n for _, n in progress.steps] == [1, 1, 1, 1]
    # The three quick cases counted while the slow one was still being judged.
    (*quick, slow) = [at for at, _ in progress.steps]
    assert slow - max(quick) > SLOW_SECONDS / 2
    # Three judge and comparative claims a case: 12 verdicts for 4 cases.
    assert progress.judge_count() == "judge verdicts 12/12"


def test_without_a_total_the_bar_counts_verdicts_alone() -> None:
    progress = ProgressReporter(enabled=False)
    progress.start(None, 3)
    progress.judged(3)
    assert progress.judge_count() == "judge verdicts 3"

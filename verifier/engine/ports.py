"""What a runner is connected to: report sinks, a progress display, a system under test
producing the outputs, and the phase that checks model-backed claims.

Each is a protocol: the command line, the pytest plugin and the server each bring their
own, and the runner needs only these methods of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from verifier.cases import CaseLine
from verifier.results import CaseResult, ClaimResult, RunSummary


class ReportSink(Protocol):
    """Told of every case as it is checked, and of the run's totals at its end."""

    def add_case(self, case: CaseResult) -> None: ...

    def finish(self, summary: RunSummary) -> None: ...


class Progress(Protocol):
    """A progress display: cases done and judged results settled."""

    def start(self, total: int | None, judged_per_case: int = 0) -> None: ...

    def advance(self, n_cases: int) -> None: ...

    def judged(self, n_results: int) -> None: ...

    def close(self) -> None: ...


class OutputSource(Protocol):
    """Produces the outputs of a chunk of cases (the system under test) before any claim
    is checked; a case it could not produce comes back as an unusable line."""

    async def produce(self, chunk: Sequence[CaseLine]) -> list[CaseLine]: ...

    async def aclose(self) -> None: ...


class ModelPhase(Protocol):
    """Phase 2: judge and comparative claims for one chunk of cases.

    Receives the chunk and the rubric results of each case (for ``after`` gates) and
    returns, per case, a result for every model-backed claim of the plan.
    """

    async def evaluate(
        self, chunk: Sequence[CaseLine], prior: Sequence[Mapping[str, ClaimResult]]
    ) -> list[dict[str, ClaimResult]]: ...

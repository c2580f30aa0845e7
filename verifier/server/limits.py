"""How much work one request may ask of the server, checked before anything is written.

A request's bytes say little about what it costs: a few kilobytes of cases and claims
can ask for hundreds of thousands of gap rows. Each endpoint's figure is counted from
the request itself (the cases, the contract's claims and judge samples, the
assertions) and compared with the server's limit; over it, the request is refused
with a 413 whose one-line ``detail`` names the limit, its value, the request's figure
and the ``verifier serve`` option that raises it.
"""

from __future__ import annotations

from typing import Any

from verifier.contract.load import LoadedContract
from verifier.server.settings import ServerSettings


class OverLimit(Exception):
    """A request asks for more than a limit allows; ``detail`` is the one-line reason."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(detail)


def results_per_case(loaded: LoadedContract) -> int:
    """The results one case of ``loaded`` costs: one per claim, a claim judged by a
    judge counted once per sample (each sample is a call and a verdict)."""
    judges = loaded.contract.judges
    total = 0
    for claim in loaded.contract.claims:
        judge: Any = getattr(claim, "judge", None)
        spec = judges.get(judge) if isinstance(judge, str) else None
        total += spec.samples if spec is not None else 1
    return total


def check_cases(settings: ServerSettings, cases: int) -> None:
    """Refuses a run request with more cases than ``settings.max_cases``.

    Raises:
        OverLimit: Too many cases.
    """
    _at_most(cases, settings.max_cases, "cases", "cases per run", "--max-cases")


def check_run(settings: ServerSettings, loaded: LoadedContract, cases: int) -> None:
    """Refuses a run whose cases x claims (samples counted) exceed ``settings.max_results``.

    Raises:
        OverLimit: The run would make too many results.
    """
    per_case = results_per_case(loaded)
    figure = cases * per_case
    if figure > settings.max_results:
        raise OverLimit(
            f"the run would make {figure} results ({cases} cases x {per_case} per case, "
            f"judge samples counted); this server takes at most {settings.max_results} "
            "results per run (verifier serve --max-results)"
        )


def check_evaluation(settings: ServerSettings, assertions: int) -> None:
    """Refuses an evaluation with more assertions than ``settings.max_assertions``.

    Raises:
        OverLimit: Too many assertions.
    """
    _at_most(
        assertions, settings.max_assertions, "assertions", "per evaluation", "--max-assertions"
    )


def check_batch(settings: ServerSettings, assertions: list[int]) -> None:
    """Refuses a batch with more evaluations than ``settings.max_cases``, an evaluation
    with more assertions than ``settings.max_assertions``, or more assertions in all
    than ``settings.max_results``.

    Args:
        settings: The server's limits.
        assertions: Each evaluation's number of assertions.

    Raises:
        OverLimit: The first limit the batch is over.
    """
    _at_most(len(assertions), settings.max_cases, "evaluations", "per batch", "--max-cases")
    for count in assertions:
        check_evaluation(settings, count)
    _at_most(
        sum(assertions), settings.max_results, "assertions in all", "per batch", "--max-results"
    )


def _at_most(count: int, limit: int, items: str, per: str, option: str) -> None:
    if count > limit:
        raise OverLimit(
            f"the request has {count} {items}; this server takes at most {limit} {per} "
            f"(verifier serve {option})"
        )

"""What each tool takes and gives, as pydantic models: a client is shown their JSON
schemas (``tools/list``) and every call's arguments are validated against them.

The ``evaluate`` tool takes the seed's request as :class:`~verifier.prompt_eval.models.
EvaluateRequest` defines it and answers with its ``EvaluateResponse``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "MAX_FAILURES",
    "AuditInput",
    "CheckInput",
    "CheckOutput",
    "Problem",
    "RunInput",
    "RunOutput",
]

MAX_FAILURES = 50
"""Failing results a ``run`` answer lists; the rest are counted."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CheckInput(_Strict):
    """The arguments of the check tool."""

    contract: str = Field(
        min_length=1, description="The contract's YAML file, relative to the server's root."
    )


class Problem(_Strict):
    """One problem of a contract: its file, line, column and message."""

    file: str
    line: int = Field(description="1-based line; 0 for a problem of the whole file.")
    col: int
    message: str


class CheckOutput(_Strict):
    """What the check tool answers: whether the contract is usable, and every problem."""

    ok: bool
    contract: str | None = Field(description="The contract's id when it loaded, else null.")
    version: int | None
    claims: int | None = Field(description="How many claims it has when it loaded.")
    problems: list[Problem] = Field(description="Errors: the contract cannot be used.")
    warnings: list[Problem] = Field(
        description="Lint warnings, and judges without a sufficient calibration in the store."
    )
    notes: list[str] = Field(description="Why something could not be checked.")


class RunInput(_Strict):
    """The arguments of the run tool."""

    contract: str = Field(
        min_length=1, description="The contract's YAML file, relative to the server's root."
    )
    cases: str | list[dict[str, Any]] = Field(
        description="A JSONL file of cases (or a JSON or YAML suite document: "
        "`{test_suite, version, cases}`) relative to the root, or the cases themselves "
        "(objects with a unique `id` and the fields the claims read)."
    )
    claims: list[str] | None = Field(
        default=None, description="Check only these claims (ids); default: every claim."
    )
    judges: Literal["live", "replay", "record", "off"] | None = Field(
        default=None,
        description="How judged claims are answered: replay (recorded verdicts only) and off "
        "(judged claims skipped) always; live and record only when the server runs in that "
        "mode. Default: the server's mode.",
    )


class RunOutput(_Strict):
    """What the run tool answers: the stored run's totals and its failing results."""

    run_id: str
    contract: str
    version: int
    total_cases: int
    passed_cases: int
    failed_cases: int
    pass_rate: float = Field(description="Cases passed over cases checked.")
    average_score: float
    overall: dict[str, Any] | None = Field(
        default=None,
        description="Contracts with `overall:`: the mean of the cases' overall scores on "
        "their scale and the cases to revise (mean, scale, cases, revise, revise_cases).",
    )
    claims: dict[str, dict[str, Any]] = Field(
        description="Per claim: pass_rate, passed, failed, errors, skipped."
    )
    findings: dict[str, dict[str, Any]] | None = Field(
        default=None,
        description="Per findings claim: micro and macro recall, precision and f1 over the "
        "run, with the counts they rest on (cases, errors, matched, expected, actual).",
    )
    failures: list[dict[str, Any]] = Field(
        description=f"Results that did not pass (fail or error), at most {MAX_FAILURES}: "
        "case, id (the claim), status, score, reasoning, evidence."
    )
    more_failures: int = Field(description="Results that did not pass beyond those listed.")
    judges: str | None = Field(description="The judges' mode (null: no judged claim).")
    head: str | None = Field(description="The store's head after the run (audit checks it).")
    notes: list[str]
    warnings: list[str] = Field(
        default=[],
        description="Paths of the contract that found nothing in any case, each with the "
        "closest path that exists (a claim that applied to no case comes first).",
    )


class AuditInput(_Strict):
    """The arguments of the audit tool."""

    run: str | None = Field(
        default=None,
        description="Check the rows, drift and alerts of this run only: its id, `last` or "
        "`last~N`. The hash chain is always checked whole.",
    )
    window: int | str = Field(
        default=5,
        description="The earlier runs a run's pass rate is compared with for degradation "
        "alerts: a count of runs (at least 3), or a span of time before each run such as "
        "`4w`, `28d` or `12h`.",
    )

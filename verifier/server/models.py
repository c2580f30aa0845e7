"""Request and response bodies of the HTTP API, so its OpenAPI document is exact.

The evaluation request is :class:`verifier.evaluate.EvaluationInput` itself; the
shapes here mirror what :meth:`verifier.evaluate.Evaluation.as_json` and the JSON
report of ``verifier run`` (DESIGN §7) produce.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Status = Literal["pass", "fail", "error", "skipped"]


class _Body(BaseModel):
    model_config = ConfigDict(populate_by_name=True)


class Problem(_Body):
    """An error answer: what was wrong, in one line."""

    detail: str


class ContractProblems(_Body):
    """A contract the run cannot use: every problem as ``FILE:LINE:COL: message``."""

    detail: str
    diagnostics: list[str]


class ValidationIssue(_Body):
    """One reason a body did not validate (FastAPI adds ``input`` and ``ctx``)."""

    loc: list[str | int]
    msg: str
    type: str


class ValidationProblem(_Body):
    """A body that does not validate: FastAPI's 422, one issue per problem."""

    detail: list[ValidationIssue]


class JudgeTriple(_Body):
    """Who judged: the served model, and hashes of the prompt template and sampling."""

    model_id: str
    prompt_sha: str
    sampling_sha: str


class AssertionResult(_Body):
    id: str
    passed: bool = Field(alias="pass")
    reasoning: str
    status: Status
    judge: JudgeTriple | None = Field(description="The stability triple of the verdict.")


class EvaluationOutput(_Body):
    """The PRD's single-evaluation result, plus errors and each result's status and triple."""

    score: float = Field(description="Passed assertions over all assertions.")
    passed: int
    failed: int
    errors: int = Field(description="Assertions no verdict could be obtained for.")
    total: int
    results: list[AssertionResult]


def _case_id(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


class RunRequest(_Body):
    """A run of one contract over a list of cases."""

    model_config = ConfigDict(extra="forbid")

    contract: str = Field(
        min_length=1,
        description=(
            "A contract file's path relative to the server's contracts directory, or the "
            "contract's YAML itself (text with a line break, or a one-line flow mapping)."
        ),
    )
    cases: list[dict[str, Any]] = Field(
        min_length=1,
        description='Case objects as in a cases file: {"id", "input", "output", ...}.',
    )

    @field_validator("cases")
    @classmethod
    def _usable_ids(cls, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
        seen: dict[str, int] = {}
        for index, case in enumerate(cases):
            case_id = _case_id(case.get("id"))
            if case_id is None:
                raise ValueError(f'cases[{index}] has no "id" (a non-empty string or integer)')
            if case_id in seen:
                raise ValueError(
                    f"duplicate case id {case_id!r} (cases[{seen[case_id]}] and [{index}])"
                )
            seen[case_id] = index
        return cases


class RunAccepted(_Body):
    run_id: str
    status: Literal["running"]


class ContractSummary(_Body):
    id: str
    version: int
    sha256: str


class ClaimTally(_Body):
    pass_rate: float
    passed: int
    failed: int
    errors: int
    skipped: int
    not_applicable: int = 0


class ClaimReport(_Body):
    id: str
    status: Status
    passed: bool = Field(alias="pass")
    score: float | None
    reasoning: str
    evidence: dict[str, Any]


class CaseReport(_Body):
    id: str
    passed_case: bool = Field(alias="pass")
    score: float
    passed: int
    failed: int
    errors: int
    total: int
    results: list[ClaimReport]
    content: Annotated[
        dict[str, Any] | None,
        Field(description="A case that did not pass: the case as the store keeps it."),
    ] = None


class RunReport(_Body):
    """The JSON report of ``verifier run --format json``."""

    run_id: str
    contract: ContractSummary
    total_cases: int
    passed_cases: int
    failed_cases: int
    average_score: float
    assertion_breakdown: dict[str, ClaimTally]
    usage: Annotated[
        dict[str, Any] | None, Field(description="Judge calls and tokens (runs with judges).")
    ] = None
    head: Annotated[
        str | None,
        Field(description="The store's head once the run's end was sealed (audit checks it)."),
    ] = None
    cases: list[CaseReport]


class RunState(_Body):
    """A run started through the API: ``running``, then ``finished`` with its report, or
    ``failed`` with the reason (the run could not be carried out, e.g. its store failed)."""

    run_id: str
    status: Literal["running", "finished", "failed"]
    contract: ContractSummary
    started_at: str
    finished_at: str | None = None
    report: RunReport | None = None
    error: str | None = None

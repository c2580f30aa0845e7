"""Request and response bodies of the HTTP API, so its OpenAPI document is exact.

The evaluation request is :class:`verifier.evaluate.EvaluationInput` itself; the
shapes here mirror what :meth:`verifier.evaluate.Evaluation.as_json` and the JSON
report of ``verifier run`` (DESIGN §7) produce.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from verifier.evaluate import EvaluationInput, Threshold

Status = Literal["pass", "fail", "error", "skipped"]


class _Body(BaseModel):
    model_config = ConfigDict(populate_by_name=True)


class Problem(_Body):
    """An error answer: what was wrong, in one line."""

    detail: str


class Health(_Body):
    """The server is up and answering."""

    status: Literal["ok"]


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
    """A single evaluation's result, plus errors and each result's status and triple."""

    score: float = Field(description="Passed assertions over all assertions.")
    passed_evaluation: bool = Field(
        alias="pass",
        description="The score reached the threshold and no assertion is an error.",
    )
    threshold: float = Field(description="The score the evaluation had to reach.")
    passed: int
    failed: int
    errors: int = Field(description="Assertions no verdict could be obtained for.")
    total: int
    results: list[AssertionResult]


class BatchRequest(_Body):
    """A batch of single evaluations, and what its report is about."""

    model_config = ConfigDict(extra="forbid")

    agent_id: str | None = Field(default=None, description="The agent the batch is about.")
    test_suite: str | None = Field(default=None, description="The batch's test suite.")
    threshold: Threshold | None = Field(
        default=None,
        description="The score every evaluation must reach (default: each request's own).",
    )
    evaluations: list[EvaluationInput] = Field(
        min_length=1, description="Single-evaluation requests, each judged on its own."
    )


class AssertionTally(_Body):
    """One assertion id across a batch: its verdicts, and the share that passed."""

    passed: int
    failed: int
    errors: int
    average_score: float


class BatchResults(_Body):
    total_cases: int
    passed_cases: int
    failed_cases: int
    average_score: float = Field(description="The mean of the evaluations' scores.")
    assertion_breakdown: dict[str, AssertionTally]


class BatchCase(_Body):
    """One evaluation of a batch: where it was, its run, score and verdict."""

    item: str
    run_id: str
    score: float
    passed: bool = Field(alias="pass")
    threshold: float


class BatchOutput(_Body):
    """The batch report: each evaluation listed after it."""

    agent_id: str | None
    test_suite: str | None
    results: BatchResults
    cases: list[BatchCase]


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
        description='Case objects as in a cases file: {"id", "input", "output", ...}; for a '
        "contract with `cases: {map: ...}`, log lines as the system wrote them (their ids "
        "found by the map, or derived from the mapped input when it names no `id`).",
    )

    def id_problem(self) -> tuple[int, str] | None:
        """The first case without a usable id, or with one an earlier case has, as its
        index and the problem; ``None`` when every case has its own id. Asked only when
        the contract reads no log (``cases: {map: ...}`` finds or derives each id)."""
        seen: dict[str, int] = {}
        for index, case in enumerate(self.cases):
            case_id = _case_id(case.get("id"))
            if case_id is None:
                return index, f'cases[{index}] has no "id" (a non-empty string or integer)'
            if case_id in seen:
                return (
                    index,
                    f"duplicate case id {case_id!r} (cases[{seen[case_id]}] and [{index}])",
                )
            seen[case_id] = index
        return None


class RunAccepted(_Body):
    run_id: str
    status: Literal["running"]


class ContractSummary(_Body):
    id: str
    version: int
    sha256: str


class ClaimTally(_Body):
    pass_rate: Annotated[
        float | None,
        Field(description="Passes over the checked results (skips left out); null when none."),
    ]
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
    overall: Annotated[
        dict[str, Any] | None,
        Field(
            description="The case's overall (contracts with `overall:`): value (the mean of "
            "its scale claims' scores on their scale, null when none scored), scored, revise."
        ),
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
    judge_claims_not_run: Annotated[
        dict[str, Any] | None,
        Field(
            description="Claims needing a judge the run left unchecked on purpose (judges "
            "off, a choice of claims): count, judges_off, not_chosen. Absent when none."
        ),
    ] = None
    warnings: Annotated[
        list[str] | None,
        Field(
            description="Paths of the contract that found nothing in any case, each with the "
            "closest path that exists (a claim that applied to no case first). Absent when none."
        ),
    ] = None
    overall: Annotated[
        dict[str, Any] | None,
        Field(
            description="The run's overall (contracts with `overall:`): mean, scale, cases, "
            "without_overall, revise_below, revise, revise_cases. Absent otherwise."
        ),
    ] = None
    findings: Annotated[
        dict[str, dict[str, Any]] | None,
        Field(
            description="Per findings claim (`compare: findings`), its figures over the run: "
            "micro and macro recall, precision and f1, macro_cases, cases, errors, "
            "without_counts, matched, expected, actual. Absent when the contract has none."
        ),
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

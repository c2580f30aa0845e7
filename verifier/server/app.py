"""The FastAPI application: single evaluations, and runs in the background."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any, Final

from fastapi import FastAPI, HTTPException
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from verifier import __version__
from verifier.errors import VerifierError
from verifier.evaluate import EvaluationInput, evaluate
from verifier.evaluate.batch import BatchItem, batch_report, evaluate_batch
from verifier.judge.config import JudgeChoice
from verifier.logs import get_logger
from verifier.server.contracts import ContractRejected, resolve_contract
from verifier.server.guard import Guard
from verifier.server.hosts import host_check
from verifier.server.kept_reports import state_with_report
from verifier.server.limits import (
    OverLimit,
    check_batch,
    check_cases,
    check_evaluation,
    check_run,
)
from verifier.server.models import (
    BatchOutput,
    BatchRequest,
    ContractProblems,
    EvaluationOutput,
    Health,
    Problem,
    RunAccepted,
    RunRequest,
    RunState,
    ValidationProblem,
)
from verifier.server.play import add_play_routes
from verifier.server.prompt_eval_route import add_prompt_eval_route
from verifier.server.routing import OrjsonRoute
from verifier.server.runs import RunManager, TooManyRuns
from verifier.server.settings import ServerSettings
from verifier.viewer.app import viewer_router

log = get_logger("verifier.server")

EVALUATE_SOURCE: Final = Path("POST /v1/evaluate")
"""What an evaluation's run records as its source."""

_HEALTHY: Final = b'{"status":"ok"}'

Responses = dict[int | str, dict[str, Any]]


def _problem(description: str) -> dict[str, Any]:
    return {"model": Problem, "description": description}


def _too_large(settings: ServerSettings, what: str) -> dict[str, Any]:
    return _problem(
        f"The body is larger than {settings.max_body} bytes, or {what}; `detail` names the "
        "limit, its value, the request's figure and the `verifier serve` option raising it."
    )


def create_app(settings: ServerSettings) -> FastAPI:
    """Builds the API for ``settings`` (checked already; see :meth:`ServerSettings.check`).

    Args:
        settings: What the server was started with.
    """
    runs = RunManager(settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        await runs.aclose()

    app = FastAPI(
        title="verifier",
        summary="Verify what LLM systems produce: single evaluations and contract runs.",
        version=__version__,
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.router.route_class = OrjsonRoute
    common: Responses = {
        400: _problem("The Content-Length is not a number."),
        413: _problem(f"The body is larger than {settings.max_body} bytes."),
        421: _problem("The `Host` header names no host this server answers to."),
        500: _problem("The request could not be completed; the reason is one line."),
    }
    if settings.token is not None:
        common[401] = _problem("No `Authorization: Bearer <token>`, or a wrong token.")

    _add_evaluate_routes(app, settings, common)
    _add_run_routes(app, settings, common, runs)
    _add_health_route(app, common)

    # The read-only pages over the same store, behind the same guard (ADR 0042).
    app.include_router(viewer_router(settings.store, frame_ancestors=settings.frame_ancestors))
    # The playground: edit a contract, try it on one case, save it (ADR 0081).
    add_play_routes(app, settings)
    if settings.token is not None:
        _document_bearer(app)
    add_guard(app, settings)
    return app


def _add_evaluate_routes(app: FastAPI, settings: ServerSettings, common: Responses) -> None:
    """``POST /v1/evaluate``, ``POST /v1/prompt-eval`` and ``POST /v1/evaluate/batch``:
    outputs judged by the server's judge, each result a gap row in its store."""

    @app.post(
        "/v1/evaluate",
        response_model=EvaluationOutput,
        summary="Judge one output against a set of assertions",
        responses={
            **common,
            413: _too_large(settings, f"it has more than {settings.max_assertions} assertions"),
            503: _problem("The server was started without a judge."),
        },
    )
    async def evaluate_output(request: EvaluationInput) -> Any:
        """A single evaluation: the assertions judged by the server's judge (in
        one call unless it groups by claim), each result a gap row in the server's store."""
        judge = _judge_or_503(settings)
        try:
            check_evaluation(settings, len(request.assertions))
        except OverLimit as exc:
            raise HTTPException(413, exc.detail) from None
        try:
            result = await asyncio.to_thread(
                partial(evaluate, request, judge, source=EVALUATE_SOURCE, **_judging(settings))
            )
        except VerifierError as exc:
            raise _not_carried_out(exc) from None
        return result.as_json()

    add_prompt_eval_route(app, settings, common)

    @app.post(
        "/v1/evaluate/batch",
        response_model=BatchOutput,
        summary="Judge a batch of outputs, each against its assertions",
        responses={
            **common,
            413: _too_large(
                settings,
                f"it has more than {settings.max_cases} evaluations, an evaluation with more "
                f"than {settings.max_assertions} assertions, or more than "
                f"{settings.max_results} assertions in all",
            ),
            503: _problem("The server was started without a judge."),
        },
    )
    async def evaluate_batch_of_outputs(request: BatchRequest) -> Any:
        """A batch: each evaluation judged on its own (its own run of gap rows), reported
        in the batch report's shape with each evaluation's run and verdict."""
        judge = _judge_or_503(settings)
        try:
            check_batch(settings, [len(e.assertions) for e in request.evaluations])
        except OverLimit as exc:
            raise HTTPException(413, exc.detail) from None
        items = [
            BatchItem(f"evaluations[{index}]", evaluation)
            for index, evaluation in enumerate(request.evaluations)
        ]
        try:
            outcomes = await asyncio.to_thread(
                partial(
                    evaluate_batch, items, judge, threshold=request.threshold, **_judging(settings)
                )
            )
        except VerifierError as exc:
            raise _not_carried_out(exc) from None
        return batch_report(outcomes, agent_id=request.agent_id, test_suite=request.test_suite)


def _add_run_routes(
    app: FastAPI, settings: ServerSettings, common: Responses, runs: RunManager
) -> None:
    """``POST /v1/runs`` and ``GET /v1/runs/{run_id}``: contract runs in the background."""

    @app.post(
        "/v1/runs",
        status_code=202,
        response_model=RunAccepted,
        summary="Start a run of a contract over cases",
        responses={
            **common,
            413: _too_large(
                settings,
                f"it has more than {settings.max_cases} cases, or its run would make more "
                f"than {settings.max_results} results (cases x claims, judge samples counted)",
            ),
            422: {
                "model": ContractProblems | ValidationProblem,
                "description": "An unusable contract (every problem with its position), "
                "or a body that does not validate (FastAPI's `detail` list).",
            },
            429: _problem("As many runs as the server allows are in progress."),
        },
    )
    async def start_run(request: RunRequest) -> Any:
        """Checks the contract (as `verifier check` does), then runs it in the background;
        poll `GET /v1/runs/{run_id}` for the report."""
        try:
            check_cases(settings, len(request.cases))
            resolved = await asyncio.to_thread(
                resolve_contract, request.contract, settings.contracts_dir
            )
            check_run(settings, resolved.loaded, len(request.cases))
            _check_ids(request, resolved.loaded.contract.cases is not None)
        except ContractRejected as exc:
            return JSONResponse(
                {"detail": "the contract cannot be used", "diagnostics": exc.diagnostics},
                status_code=422,
            )
        except OverLimit as exc:
            raise HTTPException(413, exc.detail) from None
        try:
            entry = runs.start(resolved, request.cases)
        except TooManyRuns:
            raise HTTPException(
                429,
                f"{settings.max_runs} runs are in progress; retry when one finishes",
                headers={"Retry-After": "5"},
            ) from None
        return {"run_id": entry.run_id, "status": "running"}

    @app.get(
        "/v1/runs/{run_id}",
        response_model=RunState,
        summary="A run's status, and its report once finished",
        responses={**common, 404: _problem("No run with this id was started here.")},
    )
    async def get_run(run_id: str) -> Any:
        entry = runs.get(run_id)
        if entry is None:
            raise HTTPException(404, f"no run {run_id!r} on this server")
        report = runs.open_report(entry)
        if report is None:
            return entry.as_json()
        # The report is sent from its file as it is, never loaded: it can be tens of
        # megabytes, and it is the JSON report `verifier run` wrote.
        return state_with_report(entry.as_json(), report)


def _add_health_route(app: FastAPI, common: Responses) -> None:
    """``GET /health``."""

    @app.get(
        "/health",
        response_model=Health,
        summary="Whether the server is up",
        responses=common,
    )
    async def health() -> Response:
        """`{"status": "ok"}` while the server answers; it reads nothing, so it is the
        cheapest request the server has (for a load balancer's or an uptime check)."""
        return Response(_HEALTHY, media_type="application/json")


def add_guard(app: FastAPI, settings: ServerSettings) -> None:
    """Puts the guard (Host check, bearer token, body limit) in front of ``app``."""
    app.add_middleware(
        Guard,
        token=settings.token,
        max_body=settings.max_body,
        hosts=host_check(settings.host, settings.allowed_hosts),
    )


def _check_ids(request: RunRequest, reads_a_log: bool) -> None:
    """Refuses (422, as a body that does not validate) a case without its own id, unless
    the contract reads log lines, whose ids its map finds or derives."""
    problem = None if reads_a_log else request.id_problem()
    if problem is not None:
        index, message = problem
        raise RequestValidationError(
            [
                {
                    "type": "value_error",
                    "loc": ("body", "cases", index),
                    "msg": f"Value error, {message}",
                    "input": request.cases[index],
                }
            ]
        )


def _judge_or_503(settings: ServerSettings) -> JudgeChoice:
    if settings.judge is None:
        raise HTTPException(
            503, "this server has no judge: start it with --provider and --model, or --config"
        )
    return settings.judge


def _judging(settings: ServerSettings) -> dict[str, Any]:
    """How the server's evaluations reach their judge and store."""
    return {
        "store": settings.store,
        "mode": settings.judge_mode,
        "recordings": settings.recordings,
        "note": lambda text: log.info("evaluate", note=text),
    }


def _not_carried_out(exc: VerifierError) -> HTTPException:
    """The 500 of an evaluation the store or judge failed; the reason goes to the log."""
    log.error("evaluation failed", error=str(exc).splitlines()[0])
    return HTTPException(
        500,
        "the evaluation could not be carried out: the server's store or judge is "
        "unusable (see the server log)",
    )


def _document_bearer(app: FastAPI) -> None:
    """Declares the bearer scheme in the OpenAPI document for every operation."""
    from fastapi.openapi.utils import get_openapi

    def schema() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(
                title=app.title, version=app.version, summary=app.summary, routes=app.routes
            )
            components = document.setdefault("components", {})
            components.setdefault("securitySchemes", {})["bearer"] = {
                "type": "http",
                "scheme": "bearer",
            }
            document["security"] = [{"bearer": []}]
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = schema  # type: ignore[method-assign]

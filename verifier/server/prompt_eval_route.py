"""``POST /v1/prompt-eval``: the prompt evaluator over HTTP."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Final

from fastapi import FastAPI, HTTPException

from verifier.errors import VerifierError
from verifier.logs import get_logger
from verifier.prompt_eval.models import EvaluateRequest, EvaluationReport
from verifier.prompt_eval.run import PromptEvalError, evaluate_prompt
from verifier.run.assembly import Judges
from verifier.server.settings import ServerSettings

__all__ = ["MAX_EXAMPLES", "add_prompt_eval_route"]

MAX_EXAMPLES: Final = 200
"""Examples one request may give: each is a model call and several judge calls."""
SOURCE: Final = Path("POST /v1/prompt-eval")

log = get_logger("verifier.server")


def add_prompt_eval_route(
    app: FastAPI, settings: ServerSettings, common: dict[int | str, dict[str, Any]]
) -> None:
    """Adds the route to ``app``: models and judges reached as the server's judges are
    (its judge mode and recordings), every check a gap row in the server's store."""

    @app.post(
        "/v1/prompt-eval",
        response_model=EvaluationReport,
        summary="Run a prompt on examples and score it (the empirical prompt evaluator)",
        responses={
            **common,
            413: {"description": f"More than {MAX_EXAMPLES} examples."},
            422: {"description": "The request is not valid, or a model id is not pinned."},
        },
    )
    async def evaluate(request: EvaluateRequest) -> Any:
        """The evaluator's tool: the prompt run on each example by the target model, each
        check answered by the judge model, scored 50/30/20 in code (pass at 70/100),
        stored as one run of gap rows; the answer adds the run id."""
        count = len(request.training_examples) + len(request.negative_examples)
        if count > MAX_EXAMPLES:
            raise HTTPException(413, f"{count} examples; at most {MAX_EXAMPLES} per request")
        judges = Judges(
            mode=settings.judge_mode,
            recordings=settings.recordings,
            recordings_beside_contract=False,
        )
        try:
            evaluation = await asyncio.to_thread(
                evaluate_prompt,
                request,
                store=settings.store,
                judges=judges,
                contract_path=SOURCE,
                note=lambda text: log.info("prompt-eval", note=text),
            )
        except PromptEvalError as exc:
            raise HTTPException(422, str(exc)) from None
        except VerifierError as exc:
            log.error("prompt evaluation failed", error=str(exc).splitlines()[0])
            raise HTTPException(
                500,
                "the evaluation could not be carried out: the server's store or models are "
                "unusable (see the server log)",
            ) from None
        return evaluation.report().model_dump(mode="json")

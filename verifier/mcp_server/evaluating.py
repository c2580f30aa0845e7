"""What the ``evaluate`` tool does: the seed's prompt evaluator, its request and answer
exactly as :mod:`verifier.prompt_eval.models` defines them, made as one stored run."""

from __future__ import annotations

import logging
from typing import Any

from verifier.mcp_server.tools import Settings
from verifier.prompt_eval import EvaluateRequest, evaluate_prompt
from verifier.run.assembly import Judges

__all__ = ["evaluate_tool"]

logger = logging.getLogger(__name__)


def evaluate_tool(settings: Settings, request: EvaluateRequest) -> dict[str, Any]:
    """The evaluation of ``request``'s prompt: the seed's seven keys.

    The target model and the judge answer as the server's judges do (``--judges``,
    ``--recordings``); every check is a gap row of one run in the server's store, the
    newest there (``audit`` with run ``last`` checks it).

    Raises:
        VerifierError: A model that is not a pinned id, a key not set in live mode, or
            a store or recordings that cannot be used.
    """
    evaluation = evaluate_prompt(
        request,
        store=settings.store,
        judges=Judges(
            mode=settings.judges,
            recordings=settings.recordings,
            recordings_beside_contract=False,
        ),
        note=lambda text: logger.info("evaluate: %s", text),
    )
    return evaluation.response.model_dump()

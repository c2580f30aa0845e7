"""The empirical prompt evaluator: a prompt run on examples, judged, scored in code.

``evaluate_prompt(EvaluateRequest(...))`` runs one evaluation as a run of gap rows and
returns its score, feedback and record (see ``verifier.prompt_eval.run``).
"""

from verifier.prompt_eval.models import EvaluateRequest, EvaluateResponse, EvaluationReport
from verifier.prompt_eval.run import PromptEvalError, PromptEvaluation, evaluate_prompt

__all__ = [
    "EvaluateRequest",
    "EvaluateResponse",
    "EvaluationReport",
    "PromptEvalError",
    "PromptEvaluation",
    "evaluate_prompt",
]

"""verifier: check what LLM systems produce against contracts of claims.

The public API is what ``__all__`` lists; everything else may change between
versions. Names are imported lazily so the command line starts fast.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Contract": "verifier.contract.models",
    "JudgeSpec": "verifier.contract.models",
    "LoadedContract": "verifier.contract.load",
    "load_contract": "verifier.contract.load",
    "check_contract": "verifier.contract.load",
    "Diagnostic": "verifier.errors",
    "ContractError": "verifier.errors",
    "VerifierError": "verifier.errors",
    "CaseLine": "verifier.cases",
    "read_cases": "verifier.cases",
    "Runner": "verifier.engine.runner",
    "RunOptions": "verifier.engine.runner",
    "run_sync": "verifier.engine.runner",
    "run_contract": "verifier.run.api",
    "Judges": "verifier.run.assembly",
    "Sut": "verifier.run.assembly",
    "RunResult": "verifier.run.api",
    "Sample": "verifier.run.options",
    "Resume": "verifier.run.options",
    "ShardPart": "verifier.run.options",
    "Variants": "verifier.run.options",
    "Batch": "verifier.run.options",
    "RunOptionError": "verifier.run.options",
    "ShardEnd": "verifier.run.shards",
    "finish_sharded_run": "verifier.run.shards",
    "BaselineMatches": "verifier.run.baseline",
    "CallLimits": "verifier.llm.limits",
    "CaseResult": "verifier.results",
    "ClaimResult": "verifier.results",
    "RunSummary": "verifier.results",
    "Outcome": "verifier.rubric._base",
    "PredicateEntry": "verifier.rubric._base",
    "REGISTRY": "verifier.rubric._registry",
    "GapRow": "verifier.gaps.row",
    "open_store": "verifier.gaps.store",
    "audit_store": "verifier.analyses.audit",
    "read_labels": "verifier.compare.labels",
    "calibrate_run": "verifier.compare.calibration",
    "CalibrationReport": "verifier.compare.calibration_report",
    "compare_runs": "verifier.compare.analysis",
    "RunComparison": "verifier.compare.analysis",
    "write_run_html": "verifier.report.html",
    "write_trend_html": "verifier.report.html_trend",
    "SutSpec": "verifier.contract.sut_models",
    "SutStage": "verifier.sut.stage",
    "SutError": "verifier.errors",
    "make_stage": "verifier.sut.setup",
}

__all__ = [*sorted(_EXPORTS), "__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'verifier' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return __all__

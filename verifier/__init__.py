"""verifier: check what LLM systems produce against contracts of claims.

The public API is what ``__all__`` lists; everything else may change between
versions. Names are imported lazily so the command line starts fast; type checkers
read the same names from the imports under ``TYPE_CHECKING``, which a test keeps
equal to ``_EXPORTS``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier._internal.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from verifier.analyses.audit import audit_store as audit_store
    from verifier.analyses.browse import case_in_runs as case_in_runs
    from verifier.analyses.browse import case_results as case_results
    from verifier.analyses.browse import contract_ids as contract_ids
    from verifier.analyses.browse import list_runs as list_runs
    from verifier.analyses.browse import run_results as run_results
    from verifier.cases import CaseLine as CaseLine
    from verifier.cases import read_cases as read_cases
    from verifier.ci.baseline import load_baseline as load_baseline
    from verifier.ci.from_store import replay_stored_run as replay_stored_run
    from verifier.ci.pr_comment import PrCommentWriter as PrCommentWriter
    from verifier.compare.analysis import RunComparison as RunComparison
    from verifier.compare.analysis import compare_runs as compare_runs
    from verifier.compare.calibration import calibrate_run as calibrate_run
    from verifier.compare.calibration_report import CalibrationReport as CalibrationReport
    from verifier.compare.case_labels import CaseCalibration as CaseCalibration
    from verifier.compare.case_labels import calibrate_cases as calibrate_cases
    from verifier.compare.labels import read_labels as read_labels
    from verifier.contract.load import LoadedContract as LoadedContract
    from verifier.contract.load import check_contract as check_contract
    from verifier.contract.load import load_contract as load_contract
    from verifier.contract.models import Contract as Contract
    from verifier.contract.models import JudgeSpec as JudgeSpec
    from verifier.contract.selection import ClaimChoiceError as ClaimChoiceError
    from verifier.contract.sut_models import SutSpec as SutSpec
    from verifier.engine.runner import Runner as Runner
    from verifier.engine.runner import RunOptions as RunOptions
    from verifier.engine.runner import run_sync as run_sync
    from verifier.errors import ContractError as ContractError
    from verifier.errors import Diagnostic as Diagnostic
    from verifier.errors import SutError as SutError
    from verifier.errors import VerifierError as VerifierError
    from verifier.gaps.content import RecordPolicy as RecordPolicy
    from verifier.gaps.row import GapRow as GapRow
    from verifier.gaps.store import open_store as open_store
    from verifier.llm.limits import CallLimits as CallLimits
    from verifier.report import make_writer as make_writer
    from verifier.report.html import write_run_html as write_run_html
    from verifier.report.html_trend import write_trend_html as write_trend_html
    from verifier.results import CaseResult as CaseResult
    from verifier.results import ClaimResult as ClaimResult
    from verifier.results import RunSummary as RunSummary
    from verifier.rubric._base import Outcome as Outcome
    from verifier.rubric._base import PredicateEntry as PredicateEntry
    from verifier.rubric._registry import REGISTRY as REGISTRY
    from verifier.run.api import RunResult as RunResult
    from verifier.run.api import run_contract as run_contract
    from verifier.run.assembly import Judges as Judges
    from verifier.run.assembly import JudgesUnavailable as JudgesUnavailable
    from verifier.run.assembly import Sut as Sut
    from verifier.run.baseline import BaselineMatches as BaselineMatches
    from verifier.run.options import Batch as Batch
    from verifier.run.options import Resume as Resume
    from verifier.run.options import RunOptionError as RunOptionError
    from verifier.run.options import Sample as Sample
    from verifier.run.options import ShardPart as ShardPart
    from verifier.run.options import Variants as Variants
    from verifier.run.shards import ShardEnd as ShardEnd
    from verifier.run.shards import finish_sharded_run as finish_sharded_run
    from verifier.sut.setup import make_stage as make_stage
    from verifier.sut.stage import SutStage as SutStage

__version__ = "0.1.0"

_EXPORTS = {
    "Contract": "verifier.contract.models",
    "JudgeSpec": "verifier.contract.models",
    "LoadedContract": "verifier.contract.load",
    "load_contract": "verifier.contract.load",
    "check_contract": "verifier.contract.load",
    "ClaimChoiceError": "verifier.contract.selection",
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
    "JudgesUnavailable": "verifier.run.assembly",
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
    "RecordPolicy": "verifier.gaps.content",
    "CaseResult": "verifier.results",
    "ClaimResult": "verifier.results",
    "RunSummary": "verifier.results",
    "Outcome": "verifier.rubric._base",
    "PredicateEntry": "verifier.rubric._base",
    "REGISTRY": "verifier.rubric._registry",
    "GapRow": "verifier.gaps.row",
    "open_store": "verifier.gaps.store",
    "audit_store": "verifier.analyses.audit",
    "list_runs": "verifier.analyses.browse",
    "contract_ids": "verifier.analyses.browse",
    "run_results": "verifier.analyses.browse",
    "case_results": "verifier.analyses.browse",
    "case_in_runs": "verifier.analyses.browse",
    "read_labels": "verifier.compare.labels",
    "calibrate_run": "verifier.compare.calibration",
    "CalibrationReport": "verifier.compare.calibration_report",
    "calibrate_cases": "verifier.compare.case_labels",
    "CaseCalibration": "verifier.compare.case_labels",
    "compare_runs": "verifier.compare.analysis",
    "RunComparison": "verifier.compare.analysis",
    "make_writer": "verifier.report",
    "write_run_html": "verifier.report.html",
    "write_trend_html": "verifier.report.html_trend",
    "replay_stored_run": "verifier.ci.from_store",
    "PrCommentWriter": "verifier.ci.pr_comment",
    "load_baseline": "verifier.ci.baseline",
    "SutSpec": "verifier.contract.sut_models",
    "SutStage": "verifier.sut.stage",
    "SutError": "verifier.errors",
    "make_stage": "verifier.sut.setup",
}

__all__ = [*sorted(_EXPORTS), "__version__"]


if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)

"""The Python reference: a mkdocstrings block for every public name of ``verifier``.

The package exports its names lazily (``verifier.__getattr__``), so each name is
documented where it is defined (``verifier._EXPORTS``) and shown under the name users
import.
"""

from __future__ import annotations

__all__ = ["render_python_api"]

_SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Contracts", ("load_contract", "check_contract", "Contract", "JudgeSpec", "LoadedContract")),
    ("Cases", ("read_cases", "CaseLine")),
    (
        "Running",
        (
            "run_contract",
            "Judges",
            "Sut",
            "CallLimits",
            "RecordPolicy",
            "RunResult",
            "Runner",
            "RunOptions",
            "run_sync",
        ),
    ),
    ("Results", ("RunSummary", "CaseResult", "ClaimResult")),
    ("Predicates", ("REGISTRY", "PredicateEntry", "Outcome")),
    ("The record", ("GapRow", "open_store", "audit_store")),
    (
        "Browsing a store",
        ("list_runs", "contract_ids", "run_results", "case_results", "case_in_runs"),
    ),
    (
        "Comparing and calibrating",
        (
            "compare_runs",
            "RunComparison",
            "calibrate_run",
            "CalibrationReport",
            "calibrate_cases",
            "CaseCalibration",
            "read_labels",
        ),
    ),
    ("Reports", ("make_writer", "write_run_html", "write_trend_html")),
    ("CI", ("replay_stored_run", "PrCommentWriter", "load_baseline")),
    ("The system under test", ("SutSpec", "SutStage", "make_stage")),
    (
        "Errors",
        (
            "VerifierError",
            "ContractError",
            "ClaimChoiceError",
            "JudgesUnavailable",
            "SutError",
            "Diagnostic",
        ),
    ),
)


def render_python_api() -> str:
    """One section per area, one mkdocstrings block per name; names added to the package
    but to no area here are listed last, so none is ever missing."""
    import verifier

    exports: dict[str, str] = verifier._EXPORTS
    placed = {name for _, names in _SECTIONS for name in names}
    rest = tuple(sorted(set(exports) - placed))
    out: list[str] = []
    for title, names in (*_SECTIONS, ("Other names", rest)):
        names = tuple(n for n in names if n in exports)
        if not names:
            continue
        out += [f"## {title}", ""]
        for name in names:
            out += [
                f"::: {exports[name]}.{name}",
                "    options:",
                "      heading_level: 3",
                f'      heading: "verifier.{name}"',
                "      show_root_full_path: false",
                "",
            ]
    return "\n".join(out)

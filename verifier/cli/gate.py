"""``verifier gate lock``: fix the decision rule of an evaluation before running it."""

from __future__ import annotations

from pathlib import Path

import click

from verifier.cli._options import fail
from verifier.cli._types import FiniteFloatRange

GATE_OPTION = click.option(
    "--gate",
    "gate_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Decide on the primary claim of this pre-registered gate (verifier gate lock): exit 0 "
    "passed, 1 failed, 2 refused when the contract or cases are not the gate's.",
)
"""``--gate FILE`` of ``run`` and ``compare``."""


@click.group("gate")
def gate_group() -> None:
    """Pre-registered gates: the primary claim, metric and decision rule, fixed before the
    runs (`verifier run --gate FILE`, `verifier compare A B --gate FILE`)."""


@gate_group.command("lock")
@click.argument("contract", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--cases",
    "cases_path",
    default=None,
    type=click.Path(path_type=Path, dir_okay=False),
    help="JSONL file of cases.  [default: NAME.cases.jsonl beside the contract NAME.yaml]",
)
@click.option("--primary", "primary", required=True, help="The claim id that decides.")
@click.option(
    "--metric",
    type=click.Choice(["pass_rate", "mean_score"]),
    default="pass_rate",
    show_default=True,
    help="The primary claim's metric.",
)
@click.option(
    "--direction",
    type=click.Choice(["not-worse", "better"]),
    default="not-worse",
    show_default=True,
    help="not-worse: pass unless significantly worse (or below the threshold); better: pass "
    "only when significantly better (or above the threshold).",
)
@click.option(
    "--threshold",
    type=FiniteFloatRange(0, 1),
    default=None,
    help="The metric's bar for a single run (verifier run --gate); none: comparisons only.",
)
@click.option(
    "--alpha",
    type=FiniteFloatRange(0, 0.5, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="One-sided significance level of the comparison's paired test.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="The gate file (.json for JSON, else YAML); an existing one is never replaced.  "
    "[default: NAME.gate.yaml beside the contract]",
)
def lock_command(
    contract: Path,
    cases_path: Path | None,
    primary: str,
    metric: str,
    direction: str,
    threshold: float | None,
    alpha: float,
    out: Path | None,
) -> None:
    """Write a gate file for CONTRACT and its cases, to commit before the runs: their
    SHA-256, the primary claim, metric, direction, threshold and alpha."""
    from datetime import UTC, datetime

    from verifier import __version__
    from verifier._atomic import write_whole
    from verifier.cases import cases_beside
    from verifier.compare.gate_file import Gate, cases_sha256, gate_text
    from verifier.contract.load import load_contract
    from verifier.contract.schema_files import schema_file_hashes
    from verifier.errors import VerifierError

    cases_path = cases_path or cases_beside(contract)
    out = out or contract.with_name(f"{contract.stem}.gate.yaml")
    if out.exists():
        fail(f"{out} exists: a locked gate is not replaced; remove it first or give another --out")
    try:
        loaded = load_contract(contract)
        claims = [claim.id for claim in loaded.contract.claims]
        if primary not in claims:
            fail(f"{contract}: no claim {primary!r} to be primary; its claims: {', '.join(claims)}")
        gate = Gate(
            contract_id=loaded.contract.contract,
            contract_sha256=loaded.sha256,
            cases_sha256=cases_sha256(cases_path),
            primary_claim=primary,
            metric=metric,  # type: ignore[arg-type]
            direction=direction,  # type: ignore[arg-type]
            threshold=threshold,
            alpha=alpha,
            verifier_version=__version__,
            created_at=datetime.now(UTC).isoformat(timespec="seconds"),
            schema_files=schema_file_hashes(loaded) or None,
        )
        text = gate_text(gate, json=out.suffix.lower() == ".json")
        write_whole(out, lambda stream: stream.write(text), "the gate file")
    except VerifierError as exc:
        fail(str(exc))
    click.echo(
        f"gate locked in {out}: primary claim {primary} {gate.rule()}; commit it before the runs",
        err=True,
    )

"""``verifier gate lock``: fix the decision rule of an evaluation before running it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from verifier.cli._options import STORE_OPTION, fail
from verifier.cli._types import FiniteFloatRange

if TYPE_CHECKING:
    from verifier.compare.gate_file import Gate
    from verifier.compare.power import CasesNeeded

GATE_OPTION = click.option(
    "--gate",
    "gate_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Decide on the primary claim of this pre-registered gate (verifier gate lock): exit 0 "
    "passed, 1 failed, 2 refused when the file is not the gate sealed in the store, or the "
    "contract or cases are not the gate's.",
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
    type=click.Choice(["pass_rate", "mean_score", "precision", "recall", "f1"]),
    default="pass_rate",
    show_default=True,
    help="The primary claim's metric; precision, recall and f1 are a findings claim's "
    "(micro against --threshold; per case in a comparison).",
)
@click.option(
    "--margin",
    type=FiniteFloatRange(0, 1, max_open=True),
    default=None,
    help="For precision, recall or f1: the difference compare --gate requires (better: by "
    "at least it; not-worse: worse by no more than it); 0.10 is 10 points.",
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
    "--secondary",
    type=click.Choice(["block", "report-only"]),
    default="block",
    show_default=True,
    help="What a significant regression of another claim does under compare --gate: "
    "block fails the gate, report-only reports it.",
)
@click.option(
    "--effect",
    type=FiniteFloatRange(0, 1, min_open=True),
    default=None,
    help="The smallest difference in the primary pass rate the hypothesis expects (0.10: "
    "10 points): the cases needed to detect it are printed and recorded.",
)
@click.option(
    "--power",
    type=FiniteFloatRange(0, 1, min_open=True, max_open=True),
    default=None,
    help="The power wanted for --effect.  [default: 0.8]",
)
@click.option(
    "--discordant",
    type=FiniteFloatRange(0, 1, min_open=True),
    default=None,
    help="The share of cases expected to change result between the runs, either way (at "
    "least --effect).  [default: the least --effect allows, so the cases needed are a floor]",
)
@STORE_OPTION
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
    secondary: str,
    effect: float | None,
    power: float | None,
    discordant: float | None,
    margin: float | None,
    store: str | None,
    out: Path | None,
) -> None:
    """Write a gate file for CONTRACT and its cases, to commit before the runs, and seal
    the same gate in the store the runs go to: the contract's SHA-256 and the cases'
    identities (every field but the outputs), the primary claim, metric, direction,
    threshold, alpha and, with --effect, the cases needed. run --gate and compare --gate
    refuse a gate file that differs from its sealed lock."""
    from datetime import UTC, datetime

    from verifier import __version__
    from verifier._internal.atomic import write_whole
    from verifier.cases import cases_beside
    from verifier.compare.case_identity import case_identity
    from verifier.compare.gate_file import Gate, cases_sha256, gate_document, gate_text
    from verifier.contract.load import load_contract
    from verifier.contract.schema_files import schema_file_hashes
    from verifier.errors import VerifierError
    from verifier.gaps.gate_locks import seal_gate
    from verifier.gaps.store import redacted_target
    from verifier.gaps.target import new_store_target

    cases_path = cases_path or cases_beside(contract)
    out = out or contract.with_name(f"{contract.stem}.gate.yaml")
    if out.exists():
        fail(f"{out} exists: a locked gate is not replaced; remove it first or give another --out")
    plan = _plan_options(metric, effect, power, discordant)
    try:
        loaded = load_contract(contract)
        claims = [claim.id for claim in loaded.contract.claims]
        if primary not in claims:
            fail(f"{contract}: no claim {primary!r} to be primary; its claims: {', '.join(claims)}")
        _refuse_findings_mismatch(contract, loaded.contract.claims, primary, metric, margin)
        file_sha = cases_sha256(cases_path)
        try:
            identity = case_identity(cases_path, loaded.contract)
        except OSError as exc:
            fail(f"{cases_path}: cannot read the cases file: {exc.strerror or exc}")
        needed = _cases_needed(plan, alpha)
        gate = Gate(
            contract_id=loaded.contract.contract,
            contract_sha256=loaded.sha256,
            cases_sha256=file_sha,
            primary_claim=primary,
            metric=metric,  # type: ignore[arg-type]
            direction=direction,  # type: ignore[arg-type]
            threshold=threshold,
            alpha=alpha,
            verifier_version=__version__,
            created_at=datetime.now(UTC).isoformat(timespec="seconds"),
            schema_files=schema_file_hashes(loaded) or None,
            case_identity_sha256=identity.sha256,
            secondary_policy=secondary,  # type: ignore[arg-type]
            effect=plan[0] if plan else None,
            power=plan[1] if plan else None,
            discordant=plan[2] if plan else None,
            cases_needed=needed.cases if needed else None,
            margin=margin,
        )
        target = new_store_target(store)
        seal = seal_gate(target, gate_document(gate))
        text = gate_text(gate, json=out.suffix.lower() == ".json")
        write_whole(out, lambda stream: stream.write(text), "the gate file")
    except VerifierError as exc:
        fail(str(exc))
    click.echo(
        f"gate locked in {out}: primary claim {primary} {gate.rule()}, sealed in "
        f"{redacted_target(target)} (seal {seal.n}, hash {seal.seal_hash}); commit it "
        "before the runs",
        err=True,
    )
    if plan is not None and needed is not None:
        _say_plan(gate, needed, identity.cases, cases_path)


Plan = tuple[float, float, float | None]


def _refuse_findings_mismatch(
    contract: Path, claims: Sequence[Any], primary: str, metric: str, margin: float | None
) -> None:
    """Exits 2 when a findings metric names a claim that is not a findings claim, or a
    margin is given for another metric."""
    from verifier.compare.gate_file import FINDINGS_METRICS

    findings = any(c.id == primary and getattr(c, "compare", None) == "findings" for c in claims)
    if metric in FINDINGS_METRICS and not findings:
        fail(f"{contract}: --metric {metric} is a findings claim's; {primary!r} is not one")
    if margin is not None and metric not in FINDINGS_METRICS:
        fail("--margin is for --metric precision, recall or f1 (a findings claim's)")


def _plan_options(
    metric: str, effect: float | None, power: float | None, discordant: float | None
) -> Plan | None:
    """``(effect, power, discordant)`` of a planned gate, or ``None``; exits 2 on a
    plan that cannot be made."""
    if effect is None:
        if power is not None or discordant is not None:
            fail("--power and --discordant plan the cases for an --effect; give --effect")
        return None
    if metric != "pass_rate":
        fail(
            "--effect plans the cases of a pass_rate gate (its exact McNemar test); a "
            "mean_score gate's signed-rank test is not planned: lock it without --effect"
        )
    if discordant is not None and discordant < effect:
        fail(f"--discordant {discordant:g} is below --effect {effect:g}: a difference of "
             f"{effect:g} changes at least that share of the cases")  # fmt: skip
    return effect, 0.8 if power is None else power, discordant


def _cases_needed(plan: Plan | None, alpha: float) -> CasesNeeded | None:
    if plan is None:
        return None
    from verifier.compare.power import planned_cases

    effect, power, discordant = plan
    return planned_cases(effect, alpha=alpha, power=power, discordant=discordant)


def _say_plan(gate: Gate, needed: CasesNeeded, cases: int, cases_path: Path) -> None:
    """Prints the cases the plan needs, and warns when the cases file holds fewer."""
    assert gate.effect is not None and gate.power is not None
    change = "a regression" if gate.direction == "not-worse" else "an improvement"
    test = f"one-sided exact McNemar at alpha {gate.alpha:g}"
    if gate.discordant is None:
        test += "; a floor: more if some cases change the other way (--discordant plans them)"
    else:
        test += f", {gate.discordant * 100:g}% of the cases changing result"
    count = f"at least {needed.cases}" if gate.discordant is None else str(needed.cases)
    if needed.cases is None:
        count = f"more than {needed.searched}"
    click.echo(
        f"cases needed: {count} to detect {change} of {gate.effect * 100:g} points in "
        f"{gate.primary_claim}'s pass rate with {gate.power * 100:g}% power ({test})",
        err=True,
    )
    if needed.cases is None or cases < needed.cases:
        click.echo(
            f"warning: {cases_path} holds {cases} cases, fewer than the {count} needed: the "
            f"gate will have less than {gate.power * 100:g}% power",
            err=True,
        )

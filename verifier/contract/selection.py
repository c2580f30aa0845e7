"""A contract narrowed to some of its claims, or with its judged claims out of the score.

A run may check only some claims (``--claims``) or none that needs a judge (``--judges
off``). Both are the same contract file (its source and sha256 are stored as read); what
changes is the validated model the run plans from: the chosen claims, with their
positions in the file kept, or the judged claims weighing nothing in a case's score.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeGuard

from verifier._internal.yaml_positions import Loc, Positions
from verifier.contract.load import LoadedContract
from verifier.contract.models import CompareClaim, JudgeClaim
from verifier.errors import VerifierError
from verifier.judge_summary import JudgeClaimsNotRun

__all__ = [
    "ClaimChoiceError",
    "choose_claims",
    "judge_claims_not_run",
    "judged_claims",
    "needs_judge",
    "unscored",
]


class ClaimChoiceError(VerifierError):
    """Claims chosen for a run that the contract cannot give (an unknown id, a gate
    left out)."""


def needs_judge(claim: Any) -> TypeGuard[JudgeClaim | CompareClaim]:
    """Whether ``claim`` is answered by a judge (a judge claim or a pairwise comparison)."""
    return isinstance(claim, JudgeClaim) or (
        isinstance(claim, CompareClaim) and claim.compare == "pairwise"
    )


def judged_claims(loaded: LoadedContract) -> list[str]:
    """Ids of the claims a run without judges cannot check, in contract order: those a
    judge answers, and the comparisons that wait for one of them."""
    return _judged(loaded.contract.claims)


def judge_claims_not_run(loaded: LoadedContract, options: Mapping[str, Any]) -> JudgeClaimsNotRun:
    """The claims needing a judge that a run of ``loaded`` leaves out on purpose: every
    one it holds when the run's options record ``judges: off``, and those its choice of
    claims (``choose_claims``) left out.

    Args:
        loaded: The contract the run checks (narrowed to its chosen claims, if any).
        options: The run's options record.
    """
    off = judged_claims(loaded) if options.get("judges") == "off" else []
    left_out = {str(c.id) for c in loaded.left_out}
    whole = _judged((*loaded.contract.claims, *loaded.left_out))
    return JudgeClaimsNotRun(tuple(off), tuple(i for i in whole if i in left_out))


def _judged(claims: Sequence[Any]) -> list[str]:
    out: set[str] = set()
    grew = True
    while grew:  # gates may chain; lint has rejected cycles
        before = len(out)
        for claim in claims:
            if needs_judge(claim) or any(gate in out for gate in claim.after):
                out.add(str(claim.id))
        grew = len(out) != before
    return [str(c.id) for c in claims if str(c.id) in out]


def choose_claims(loaded: LoadedContract, ids: Sequence[str]) -> LoadedContract:
    """``loaded`` with only the claims ``ids`` names (in contract order).

    Raises:
        ClaimChoiceError: An id that is not a claim of the contract (with the closest
            ones), none at all, or a chosen claim that waits for one left out.
    """
    known = [str(c.id) for c in loaded.contract.claims]
    wanted = list(dict.fromkeys(i.strip() for i in ids if i.strip()))
    if not wanted:
        raise ClaimChoiceError("--claims: name at least one claim id")
    for claim_id in wanted:
        if claim_id not in known:
            close = difflib.get_close_matches(claim_id, known, n=3, cutoff=0.5)
            hint = f"did you mean {_listed(close)}?" if close else f"its claims: {_listed(known)}"
            raise ClaimChoiceError(f"--claims: {loaded.path}: no claim {claim_id!r} ({hint})")
    chosen = set(wanted)
    for claim in loaded.contract.claims:
        left_out = [g for g in claim.after if g not in chosen]
        if str(claim.id) in chosen and left_out:
            # Checked without its gate, a claim could fail where the contract skips it.
            raise ClaimChoiceError(
                f"--claims: claim {claim.id!r} waits for {_listed(left_out)}; "
                f"add {'it' if len(left_out) == 1 else 'them'} to --claims"
            )
    kept = [(i, c) for i, c in enumerate(loaded.contract.claims) if str(c.id) in chosen]
    contract = loaded.contract.model_copy(update={"claims": tuple(c for _, c in kept)})
    positions = _renumbered(loaded.positions, {old: new for new, (old, _) in enumerate(kept)})
    unchosen = tuple(c for c in loaded.contract.claims if str(c.id) not in chosen)
    return dataclasses.replace(
        loaded, contract=contract, positions=positions, left_out=(*loaded.left_out, *unchosen)
    )


def unscored(loaded: LoadedContract, ids: Iterable[str]) -> LoadedContract:
    """``loaded`` with the claims ``ids`` weighing nothing in a case's score (claims a
    run leaves unchecked on purpose, so a case is scored on what was checked)."""
    out = set(ids)
    claims = [
        c.model_copy(update={"weight": 0.0}) if str(c.id) in out else c
        for c in loaded.contract.claims
    ]
    return dataclasses.replace(
        loaded, contract=loaded.contract.model_copy(update={"claims": tuple(claims)})
    )


def _renumbered(positions: Positions, new_index: dict[int, int]) -> Positions:
    """Positions of the kept claims under their new indexes (the file's lines kept)."""

    def moved(table: dict[Loc, tuple[int, int]]) -> dict[Loc, tuple[int, int]]:
        out: dict[Loc, tuple[int, int]] = {}
        for loc, where in table.items():
            if len(loc) >= 2 and loc[0] == "claims" and isinstance(loc[1], int):
                if loc[1] not in new_index:
                    continue
                loc = ("claims", new_index[loc[1]], *loc[2:])
            out[loc] = where
        return out

    return Positions(values=moved(positions.values), keys=moved(positions.keys))


def _listed(ids: Sequence[str]) -> str:
    return ", ".join(repr(i) for i in ids)

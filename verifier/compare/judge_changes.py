"""Which judges differ between the two runs of a comparison, and whether a recorded
succession explains the difference.

Each judge verdict carries its stability triple (model, prompt sha, sampling sha) and
the judge's name in its contract. A claim judged under other triples in the two runs
is a *judge change*: a change of its pass rate may come from the judge rather than the
system. When the store's lineage (``verifier.gaps.successions``) holds successions that
lead the judge from the baseline's triples to the candidate's (or back: the baseline
may be the newer run), the change was measured by a trial and chosen, and the
comparison quotes the trial's agreement and pass-rate shift instead of leaving the
difference unexplained. ``verifier compare`` (every format) and the viewer's diff page
read the judge changes from here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from verifier.gaps.successions import Lineage, SuccessionRow, Triple

__all__ = ["JudgeChange", "JudgesSeen", "judge_changes"]

Direction = Literal["forward", "backward"]
"""``forward``: the successions lead from the baseline's judge to the candidate's;
``backward``: from the candidate's to the baseline's (the baseline is the newer run)."""


@dataclass(slots=True)
class JudgesSeen:
    """The judges a run's verdicts were given by: per claim, the triples and the name."""

    triples: dict[str, set[Triple]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)

    def note(self, body: dict[str, Any], claim_id: str) -> None:
        """Records the stability triple (and judge name) of a judge verdict's row body."""
        if body.get("status") not in ("pass", "fail"):
            return
        evidence = body.get("evidence")
        if not isinstance(evidence, dict):
            return
        judge = evidence.get("judge")
        if not isinstance(judge, dict):
            return
        triple = (
            str(judge.get("model_id")),
            str(judge.get("prompt_sha")),
            str(judge.get("sampling_sha")),
        )
        self.triples.setdefault(claim_id, set()).add(triple)
        name = evidence.get("judge_name")
        if isinstance(name, str) and name:
            self.names.setdefault(claim_id, name)


@dataclass(frozen=True, slots=True)
class JudgeChange:
    """Claims judged under other triples in the two runs, by one judge.

    Attributes:
        judge: The judge's name, ``None`` when the rows do not name it.
        claims: The claims, in the baseline's order.
        old: The baseline's triples.
        new: The candidate's triples.
        successions: The successions leading from one to the other, in order (empty
            when none does).
        direction: Which way they lead (``None`` without successions).
    """

    judge: str | None
    claims: tuple[str, ...]
    old: tuple[Triple, ...]
    new: tuple[Triple, ...]
    successions: tuple[SuccessionRow, ...] = ()
    direction: Direction | None = None

    @property
    def explained(self) -> str | None:
        """The successions in one line, or ``None`` when none explains the change."""
        return "; ".join(r.summary() for r in self.successions) or None

    def warnings(self, baseline_id: str, candidate_id: str) -> list[str]:
        """What a reader is warned of: one line naming the succession, else (as without
        a lineage) one line per claim."""
        explained = self.explained
        if explained is None:
            return [
                f"claim {claim} was judged under different judges (model, prompt or "
                "sampling) in the two runs: a change may come from the judge rather than "
                "the system"
                for claim in self.claims
            ]
        which = "claim" if len(self.claims) == 1 else "claims"
        return [
            f"{which} {', '.join(self.claims)} {'was' if which == 'claim' else 'were'} judged "
            f"by judge {self.judge or '?'} with {_models(self.old)} in run {baseline_id} and "
            f"with {_models(self.new)} in run {candidate_id}: the judges differ by a "
            f"succession the store records ({explained}); a change may come from the "
            "judge rather than the system"
        ]

    def as_json(self) -> dict[str, Any]:
        succession = None
        if self.successions:
            succession = {
                "direction": self.direction,
                "summary": self.explained,
                "chain": [_succession_json(r) for r in self.successions],
            }
        return {
            "judge": self.judge,
            "claims": list(self.claims),
            "old": [list(t) for t in self.old],
            "new": [list(t) for t in self.new],
            "succession": succession,
        }


def judge_changes(
    claims: Iterable[str],
    baseline: JudgesSeen,
    candidate: JudgesSeen,
    *,
    lineage: Lineage,
    contract_id: str,
) -> list[JudgeChange]:
    """The judge changes of the shared ``claims``, one per judge and pair of triple
    sets, each with the successions of ``lineage`` (those of ``contract_id`` or of any
    contract) that explain it."""
    own = lineage.of_contract(contract_id)
    grouped: dict[tuple[str | None, frozenset[Triple], frozenset[Triple]], list[str]] = {}
    for claim in claims:
        before, after = baseline.triples.get(claim), candidate.triples.get(claim)
        if not before or not after or before == after:
            continue
        judge = baseline.names.get(claim) or candidate.names.get(claim)
        grouped.setdefault((judge, frozenset(before), frozenset(after)), []).append(claim)
    changes = []
    for (judge, old, new), names in grouped.items():
        chain, direction = _chain(own, judge, old, new)
        changes.append(
            JudgeChange(
                judge, tuple(names), tuple(sorted(old)), tuple(sorted(new)), chain, direction
            )
        )
    return changes


def _chain(
    lineage: Lineage, judge: str | None, old: frozenset[Triple], new: frozenset[Triple]
) -> tuple[tuple[SuccessionRow, ...], Direction | None]:
    """The successions that lead every triple only one side has to one only the other
    side has, forward first; none when some triple is not led anywhere."""
    options: tuple[tuple[Direction, frozenset[Triple], frozenset[Triple]], ...] = (
        ("forward", old - new, new - old),
        ("backward", new - old, old - new),
    )
    for direction, sources, targets in options:
        found: list[SuccessionRow] = []
        for source in sorted(sources):
            path = next(
                (p for t in sorted(targets) if (p := lineage.between(judge, source, t))), None
            )
            if path is None:
                break
            found += [r for r in path if r not in found]
        else:
            if found:
                return tuple(found), direction
    return (), None


def _models(triples: Iterable[Triple]) -> str:
    return "/".join(sorted({t[0] for t in triples}))


def _succession_json(row: SuccessionRow) -> dict[str, Any]:
    before, after = row.models()
    return {
        "succession_id": row.succession_id,
        "judge": row.judge,
        "trial_id": row.trial_id,
        "old_model": before,
        "new_model": after,
        "outcome": row.outcome,
        "figures": row.figures,
        "accepted_failed": row.accepted_failed or None,
        "summary": row.summary(),
    }

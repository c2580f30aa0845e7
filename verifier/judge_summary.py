"""The judge parts of a run's summary as reports word them: the claims needing a judge
that the run left unchecked, what the judge calls cost, and a judged claim's noise."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class JudgeClaimsNotRun:
    """The claims a run left unchecked on purpose that need a judge: those a judge
    answers and those waiting for one (the run's options say why).

    Attributes:
        judges_off: Skipped in every case, and out of its score: the run had judges off.
        not_chosen: Left out of the run by its choice of claims (``--claims``): no rows.
    """

    judges_off: tuple[str, ...] = ()
    not_chosen: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        return len(self.judges_off) + len(self.not_chosen)

    def line(self) -> str | None:
        """``judge claims not run: 2 (--judges off)``, or ``None`` when none was left out."""
        why = [
            (len(ids), reason)
            for ids, reason in ((self.judges_off, "--judges off"), (self.not_chosen, "--claims"))
            if ids
        ]
        if not why:
            return None
        if len(why) == 1:
            return f"judge claims not run: {self.count} ({why[0][1]})"
        parts = ", ".join(f"{n} by {reason}" for n, reason in why)
        return f"judge claims not run: {self.count} ({parts})"

    def as_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "judges_off": list(self.judges_off),
            "not_chosen": list(self.not_chosen),
        }

    @classmethod
    def of(cls, raw: Any) -> JudgeClaimsNotRun:
        """The claims ``as_dict`` wrote (in a stored run summary); none when ``raw`` is not
        in its shape."""
        if not isinstance(raw, Mapping):
            return cls()

        def ids(key: str) -> tuple[str, ...]:
            value = raw.get(key)
            return tuple(str(i) for i in value) if isinstance(value, list) else ()

        return cls(ids("judges_off"), ids("not_chosen"))


def judges_were_off(options: Mapping[str, Any], summary: Mapping[str, Any]) -> bool:
    """Whether a run ran with its judges off (``--judges off``): its options say so, or
    its summary lists judge claims it left unchecked for it."""
    if options.get("judges") == "off":
        return True
    return bool(JudgeClaimsNotRun.of(summary.get("judge_claims_not_run")).judges_off)


def judge_usage_text(usage: dict[str, int]) -> str:
    """One line on a run's judge calls and tokens, from ``RunSummary.judge_usage``."""
    u = usage
    return (
        f"judge calls: {u['calls']} made, {u['cached']} from cache, {u['failed']} failed; "
        f"tokens: {u['input_tokens']} in, {u['output_tokens']} out, "
        f"{u['cache_read_input_tokens']} cache-read"
    )


def noise_line(claim_id: str, noise: Mapping[str, Any]) -> str:
    """One line on a judged claim's noise, from ``JudgeNoise.as_dict`` (or a stored copy)."""
    rate, (low, high) = noise.get("pass_rate"), noise.get("pass_rate_ci95") or (0.0, 1.0)
    parts = [
        f"{claim_id}: pass rate "
        + ("n/a" if rate is None else f"{rate:.1%} (95% CI {low:.1%}-{high:.1%})")
        + f" over {noise.get('verdicts', 0)} verdicts"
    ]
    if noise.get("flip_rate") is not None:
        parts.append(
            f"position flips {noise['position_flips']}/{noise['pairwise']} "
            f"({noise['flip_rate']:.1%})"
        )
    if noise.get("sample_agreement") is not None:
        parts.append(f"sample agreement {noise['sample_agreement']:.1%}")
    if line := served_line(noise):
        parts.append(line)
    return "; ".join(parts)


def served_line(noise: Mapping[str, Any]) -> str | None:
    """ "served X, asked for Y (N of M verdicts)" when another model than the contract's
    gave a judged claim's verdicts, else ``None``."""
    mismatch = noise.get("served_mismatch")
    if not isinstance(mismatch, Mapping):
        return None
    return (
        f"served {mismatch.get('served')}, asked for {mismatch.get('asked_for')} "
        f"({noise.get('served_other', 0)} of {noise.get('verdicts', 0)} verdicts)"
    )

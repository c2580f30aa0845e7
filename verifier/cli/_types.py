"""Option types the commands share."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import click


class FiniteFloatRange(click.FloatRange):
    """``click.FloatRange`` that also refuses ``nan`` and ``inf``.

    A range check alone lets NaN through (every comparison with it is false), and a
    NaN threshold or sample fraction would silently fail every case or crash later.
    """

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if isinstance(number, float) and not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


class ProviderChoice(click.Choice[str]):
    """``click.Choice`` of the registered providers, read when an option is parsed or
    its help shown, so a provider added to the registry is a choice without a change here.
    """

    def __init__(self) -> None:
        super().__init__(())

    @property  # type: ignore[override]
    def choices(self) -> Sequence[str]:
        # The registry is read on use, not when the command line is built: `verifier
        # --help` should not import the providers' modules.
        from verifier.llm.providers.registry import provider_names

        return provider_names()

    @choices.setter
    def choices(self, value: Sequence[str]) -> None:
        """Ignored: the registry holds the choices."""

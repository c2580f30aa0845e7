"""The prompt evaluator's settings file: the models and the batch, kept beside the prompts.

A settings file is YAML (``prompt-eval.config.yaml`` in the working directory is read
when no ``--config FILE`` is given)::

    models:
      target: azure/gpt-4o-mini   # runs the prompt on each example's input
      judge: azure/gpt-4o-mini    # answers the checks
    optimization:
      batch_size: 5               # examples evaluated, drawn at random with seed
      seed: 0

Every key is optional. A request's own keys (``model``, ``judge_model``, ``batch_size``,
``seed``) win over the file, and command-line options win over both: the file holds a
project's defaults, the request one evaluation, the options this one invocation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, field_validator

from verifier._internal.yaml_documents import read_yaml_document
from verifier.llm.providers.registry import route_model

__all__ = ["SETTINGS_FILE", "PromptEvalSettings", "RequestSettings", "request_settings"]

SETTINGS_FILE: Final = "prompt-eval.config.yaml"
"""The settings file read from the working directory when none is named."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class ModelSettings(_Strict):
    """The target model (runs the prompt) and the judge model (answers the checks)."""

    target: str | None = Field(default=None, min_length=1)
    judge: str | None = Field(default=None, min_length=1)

    @field_validator("target", "judge")
    @classmethod
    def _routed(cls, value: str | None) -> str | None:
        if value is not None:
            route_model(value)  # an unknown provider prefix is refused at its line
        return value


class OptimizationSettings(_Strict):
    """How many examples an evaluation draws, and the seed of the draw."""

    batch_size: int | None = Field(default=None, ge=1)
    seed: int | None = None


class PromptEvalSettings(_Strict):
    """A settings file as written."""

    models: ModelSettings = ModelSettings()
    optimization: OptimizationSettings = OptimizationSettings()

    def request_keys(self) -> dict[str, Any]:
        """The request keys this file sets (``model``, ``judge_model``, ...)."""
        keys = {
            "model": self.models.target,
            "judge_model": self.models.judge,
            "batch_size": self.optimization.batch_size,
            "seed": self.optimization.seed,
        }
        return {key: value for key, value in keys.items() if value is not None}


@dataclass(frozen=True)
class RequestSettings:
    """What fills in and overrides a request's keys before it is validated.

    Attributes:
        defaults: From the settings file: used where the request says nothing.
        overrides: From command-line options: used whatever the request says.
        source: The settings file read, if any.
    """

    defaults: Mapping[str, Any] = field(default_factory=dict)
    overrides: Mapping[str, Any] = field(default_factory=dict)
    source: Path | None = None

    def apply(self, request: dict[str, Any]) -> dict[str, Any]:
        """``request`` with the file's defaults under it and the options over it."""
        return {**self.defaults, **request, **self.overrides}


def request_settings(config: Path | None, overrides: Mapping[str, Any]) -> RequestSettings:
    """The settings for a request: the file named (or ``SETTINGS_FILE`` in the working
    directory, when it exists) and the options given (``None`` values left out).

    Raises:
        DocumentError: The file cannot be read or is not a valid settings file (each
            problem as ``FILE:LINE:COL: problem``).
    """
    path = config
    if path is None and Path(SETTINGS_FILE).is_file():
        path = Path(SETTINGS_FILE)
    given = {key: value for key, value in overrides.items() if value is not None}
    if path is None:
        return RequestSettings(overrides=given)
    settings = read_yaml_document(path, PromptEvalSettings, "a prompt-eval settings file")
    return RequestSettings(settings.request_keys(), given, path)

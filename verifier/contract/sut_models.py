"""The ``sut:`` block: how the runner produces outputs instead of reading them.

A contract (or ``verifier run --sut``) may name the system under test as exactly one
of a command (``exec``), a Python function (``python``) or a prompt run on a pinned
model (``prompt``). Each case's input is handed to it and what comes back is placed
in the case (its ``output`` by default) before any claim is checked.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field, WithJsonSchema, field_validator, model_validator

from verifier.contract._base import ProviderName, Sampling, _Frozen, provider_field
from verifier.fieldpath import FieldPathError, compile_path
from verifier.rubric._base import PathText

FUNCTION_PATTERN = r"^[A-Za-z_][A-Za-z0-9_.]*:[A-Za-z_][A-Za-z0-9_.]*$"
OUTPUT_KEY_PATTERN = r"^[A-Za-z_][A-Za-z0-9_-]*$"
ENV_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
RESERVED_OUTPUT_KEYS = ("id", "runs", "baseline")
# A command is a list of arguments or one string split like a shell line.
_COMMAND_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {"type": "array", "items": {"type": "string"}, "minItems": 1},
        {"type": "string", "minLength": 1},
    ]
}


WhenPath = PathText
"""A ``when:`` field path: what a case must have for a claim (or the system) to apply."""


class ExecSut(_Frozen):
    """A command run once per case: the input on stdin, the output on stdout."""

    command: Annotated[tuple[str, ...], WithJsonSchema(_COMMAND_SCHEMA)] = Field(
        min_length=1,
        description="The program and its arguments; a string is split like a shell "
        "would (no shell is run, so no pipes or expansion).",
    )
    cwd: str | None = Field(
        default=None, description="Working directory, relative to the contract file."
    )
    env: dict[str, str] = Field(
        default_factory=dict,
        description="Variables added to the inherited environment; `${NAME}` in a value "
        "is replaced by the caller's NAME, so secrets stay out of the contract.",
    )
    pass_env: tuple[Annotated[str, Field(pattern=ENV_NAME_PATTERN)], ...] | None = Field(
        default=None,
        description="When set, only these inherited variables reach the command (plus "
        "`env`); `[]` passes none. Unset: the whole environment is inherited, provider "
        "keys such as ANTHROPIC_API_KEY included.",
    )

    @field_validator("command", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        if isinstance(value, str):
            try:
                return shlex.split(value)
            except ValueError as exc:
                raise ValueError(f"command cannot be split into arguments: {exc}") from None
        return value

    @field_validator("command")
    @classmethod
    def _program_named(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value or not value[0].strip():
            raise ValueError("command needs a program to run")
        return value


class PromptSut(_Frozen):
    """A prompt template run on a pinned model, through the judges' providers."""

    provider: ProviderName = provider_field("Who answers; `replay` answers from recordings only.")
    model: str = Field(min_length=1, description="An exact, pinned model id (no moving aliases).")
    template: str | None = Field(
        default=None,
        description="The prompt; `{{input}}` (or `{{input.PATH}}`) is replaced by the "
        "case's input. Text before a `<!-- dynamic -->` line becomes the system prompt.",
    )
    template_file: str | None = Field(
        default=None, description="The prompt in a file, relative to the contract."
    )
    sampling: Sampling = Field(default_factory=Sampling)
    base_url: str | None = Field(
        default=None, description="Endpoint for an OpenAI-compatible server."
    )

    @model_validator(mode="after")
    def _one_template(self) -> PromptSut:
        if (self.template is None) == (self.template_file is None):
            raise ValueError("needs exactly one of `template` or `template_file`")
        return self


class SutSpec(_Frozen):
    """The system under test and where its output goes in each case."""

    exec: ExecSut | None = Field(default=None, description="Run a command per case.")
    python: str | None = Field(
        default=None,
        pattern=FUNCTION_PATTERN,
        description="`module:function`, called with the case's input (sync or async).",
    )
    prompt: PromptSut | None = Field(default=None, description="Run a prompt on a model.")
    input: str = Field(default="input", description="The case field handed to the system.")
    output: str = Field(
        default="output",
        pattern=OUTPUT_KEY_PATTERN,
        description="The case key the output is written to.",
    )
    format: Literal["text", "json"] = Field(
        default="text", description="`json`: the output is parsed as JSON."
    )
    allow_empty: bool = Field(
        default=False,
        description="Accept an empty (or all-whitespace) text output from a command or "
        "function; by default it is an error row, since a claim that something is absent "
        "or short would pass on it.",
    )
    timeout: float = Field(default=60.0, gt=0, le=86_400, description="Seconds per call.")
    repeat: int = Field(
        default=1,
        ge=1,
        le=100,
        description="Calls per case; every output goes to `runs` (for consistency claims).",
    )
    when: WhenPath | None = Field(
        default=None,
        description="A field path (`*` allowed): only cases where it finds something are "
        "given to the system; the others reach the claims as they are, with no call.",
    )

    @field_validator("input", "output")
    @classmethod
    def _field_path(cls, value: str) -> str:
        try:
            path = compile_path(value)
        except FieldPathError as exc:
            raise ValueError(str(exc)) from None
        if path.has_wildcard:
            raise ValueError(f"{value!r} must name one field, without '*'")
        return value

    @model_validator(mode="after")
    def _exactly_one(self) -> SutSpec:
        given = [k for k in ("exec", "python", "prompt") if getattr(self, k) is not None]
        if len(given) != 1:
            got = f"got {', '.join(given)}" if given else "got none"
            raise ValueError(f"needs exactly one of `exec`, `python` or `prompt` ({got})")
        if self.output in RESERVED_OUTPUT_KEYS:
            raise ValueError(f"output cannot be {self.output!r}: the runner writes that key itself")
        if self.allow_empty and self.prompt is not None:
            raise ValueError(
                "allow_empty applies to `exec` and `python`: a model's empty answer is an error"
            )
        return self

    @property
    def kind(self) -> Literal["exec", "python", "prompt"]:
        if self.exec is not None:
            return "exec"
        return "python" if self.python is not None else "prompt"

    def describe(self, mask: Callable[[str], str] | None = None) -> str:
        """One line naming the system: the command, the function or the model.

        ``mask`` hides secrets in the command (a ``verifier.sut.SecretMask``): a
        description bound for a row, a report or a log must be masked.
        """
        if self.exec is not None:
            line = "exec:" + shlex.join(self.exec.command)
            return mask(line) if mask is not None else line
        if self.python is not None:
            return "python:" + self.python
        assert self.prompt is not None
        return f"prompt:{self.prompt.provider}:{self.prompt.model}"

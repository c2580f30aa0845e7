"""Choosing a judge outside a contract: from command-line options or a judges file.

A judges file is YAML with one key, ``judges:``, mapping names to judge blocks in
exactly the contract format (``verifier.contract.models.JudgeSpec``), and it is linted
by the same rules, so a judge is pinned the same way wherever it is declared.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from verifier._internal.yaml_positions import Positions, YamlProblem, parse_yaml_with_positions
from verifier.contract.lint import lint_document
from verifier.contract.load import validation_diagnostics
from verifier.contract.models import JudgeSpec
from verifier.errors import Diagnostic, VerifierError
from verifier.llm.providers.registry import route_model

OPTIONS_JUDGE: Final = "judge"
"""The name of a judge given by command-line options."""


class JudgeConfigError(VerifierError):
    """Judge settings that cannot be used; one line per problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass(frozen=True)
class JudgeChoice:
    """A judge picked for a run without a contract file.

    Attributes:
        name: Its name (the file's key, or ``judge`` when given by options).
        spec: The judge as a contract declares it.
        config: The judges file it came from (a ``prompt`` is relative to it).
        warnings: Lint warnings (a deprecated model), one line each.
    """

    name: str
    spec: JudgeSpec
    config: Path | None = None
    warnings: tuple[str, ...] = ()


class _JudgesFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    judges: dict[str, JudgeSpec] = Field(min_length=1)


def judge_from_options(
    provider: str,
    model: str,
    *,
    base_url: str | None = None,
    max_tokens: int | None = None,
    group: str = "case",
) -> JudgeChoice:
    """A judge named by options, linted like a contract's judge.

    Raises:
        JudgeConfigError: The options do not make a valid, pinned judge.
    """
    block: dict[str, Any] = {"provider": provider, "model": model, "group": group}
    if base_url is not None:
        block["base_url"] = base_url
    if max_tokens is not None:
        block["sampling"] = {"max_tokens": max_tokens}
    try:
        spec = JudgeSpec.model_validate(block)
    except ValidationError as exc:
        raise JudgeConfigError(
            [f"judge options: {'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
        ) from None
    found = lint_document(
        "judge options", Path.cwd(), {"judges": {OPTIONS_JUDGE: block}}, Positions()
    )
    # The lint names the judge as a contract would; here the options are the judge.
    own = f"judge {OPTIONS_JUDGE!r}: "
    errors = [
        f"judge options: {d.message.removeprefix(own)}" for d in found if d.severity == "error"
    ]
    if errors:
        raise JudgeConfigError(errors)
    warnings = tuple(d.message.removeprefix(own) for d in found if d.severity == "warning")
    return JudgeChoice(OPTIONS_JUDGE, spec, warnings=warnings)


def judge_from_config(path: Path, name: str | None, *, group: str = "case") -> JudgeChoice:
    """A judge from a judges file.

    Args:
        path: The YAML file.
        name: The judge to use; may be omitted when the file declares only one.
        group: The grouping of a judge that does not set ``group`` itself.

    Raises:
        JudgeConfigError: The file is unusable (every problem as ``FILE:LINE:COL:
            message``) or declares no such judge.
    """
    file = str(path)
    try:
        data, positions = parse_yaml_with_positions(path.read_bytes())
    except OSError as exc:
        raise JudgeConfigError(
            [f"{file}: cannot read judges file: {exc.strerror or exc}"]
        ) from None
    except YamlProblem as problem:
        raise JudgeConfigError(
            [f"{file}:{problem.line}:{problem.col}: {problem.message}"]
        ) from None
    if not isinstance(data, dict) or "judges" not in data:
        raise JudgeConfigError([f"{file}:1:1: a judges file is a mapping with a `judges:` key"])
    found = [
        Diagnostic(file, *positions.of((key,), key=True), f"unknown key {key!r} (only `judges`)")
        for key in data
        if key != "judges"
    ]
    found += lint_document(file, path.parent, data, positions)
    parsed: _JudgesFile | None = None
    try:
        parsed = _JudgesFile.model_validate({"judges": data["judges"]})
    except ValidationError as exc:
        found += validation_diagnostics(file, data, positions, exc)
    errors = sorted({d for d in found if d.severity == "error"})
    if errors or parsed is None:
        raise JudgeConfigError([str(d) for d in errors])
    names = sorted(parsed.judges)
    if name is None:
        if len(names) > 1:
            raise JudgeConfigError(
                [f"{file}: declares judges {', '.join(names)}; pick one with --judge"]
            )
        name = names[0]
    if name not in parsed.judges:
        raise JudgeConfigError([f"{file}: no judge {name!r} (judges: {', '.join(names)})"])
    spec = parsed.judges[name]
    if "group" not in spec.model_fields_set:
        spec = spec.model_copy(update={"group": group})
    warnings = tuple(
        str(d)
        for d in sorted(set(found))
        if d.severity == "warning" and d.message.startswith(f"judge {name!r}")
    )
    return JudgeChoice(name, spec, path, warnings)


def choose_judge(
    *,
    provider: str | None,
    model: str | None,
    base_url: str | None,
    max_tokens: int | None,
    config: Path | None,
    name: str | None,
) -> JudgeChoice:
    """The judge that command-line options name: ``provider`` and ``model``, or a file.

    Without ``provider``, ``model`` names it by a prefix (``azure/NAME``,
    ``openai/ID``; none: Anthropic), as ``route_model`` reads it.

    Raises:
        JudgeConfigError: The options name no judge, or both kinds at once.
    """
    if config is not None:
        if provider or model or base_url or max_tokens:
            raise JudgeConfigError(
                ["--config names the judge; drop --provider, --model, --base-url and --max-tokens"]
            )
        return judge_from_config(config, name)
    if name is not None:
        raise JudgeConfigError(["--judge picks a judge of --config FILE; pass --config too"])
    if model and not provider:
        try:  # a provider-prefixed id names its provider, as an evaluation request's does
            provider, model = route_model(model)
        except ValueError as exc:
            raise JudgeConfigError([f"--model: {exc}"]) from None
    if not provider or not model:
        raise JudgeConfigError(
            ["name a judge: --provider and --model, or --config FILE [--judge NAME]"]
        )
    return judge_from_options(provider, model, base_url=base_url, max_tokens=max_tokens)

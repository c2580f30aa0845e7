"""Building a run's system under test from the contract's ``sut:`` and the command line.

``--sut`` and ``--variant NAME=SPEC`` take ``exec:COMMAND`` (split like a shell line,
run without a shell), ``python:MODULE:FUNCTION``, or a YAML flow mapping of the
``sut:`` block (``{prompt: {provider: anthropic, model: ..., template_file: p.md}}``).
A spec from the command line replaces the contract's system but keeps the contract's
``input``, ``output``, ``format``, ``allow_empty``, ``timeout`` and ``repeat`` unless it
sets them itself.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from verifier.contract.load import pattern_mismatch
from verifier.contract.sut_models import SutSpec
from verifier.errors import SutError
from verifier.files import FileScope, scope_of
from verifier.llm.limits import CallLimits
from verifier.llm.providers.registry import unset_key
from verifier.llm.replies import recordings_beside, reply_cache
from verifier.llm.types import CallMode
from verifier.sut._types import Caller, SecretMask
from verifier.sut.stage import SutStage

_KINDS = ("exec", "python", "prompt")
_VARIANT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
_FORMS = "exec:COMMAND, python:MODULE:FUNCTION or a YAML mapping like {prompt: {...}}"


@dataclass(frozen=True)
class ModelAccess:
    """How a prompt SUT reaches its model: the same modes, cache and recordings as judges.

    Attributes:
        mode: ``live``, ``replay`` or ``record``.
        store_path: The store whose cache table keeps replies (``None``: none).
        recordings: A recordings file read before the cache (written in ``record``).
        limits: Concurrency and rates; the spec's ``timeout`` replaces theirs.
        run_id: The run, recorded beside cached replies.
        base_url: Endpoint override (tests, proxies).
    """

    mode: CallMode = "live"
    store_path: str | None = None
    recordings: Path | None = None
    limits: CallLimits = field(default_factory=CallLimits)
    run_id: str = ""
    base_url: str | None = None


def parse_sut_option(text: str, *, base: SutSpec | None, option: str = "--sut") -> SutSpec:
    """The spec ``text`` names, over the contract's ``base`` (see the module docstring).

    Raises:
        SutError: ``text`` is none of the accepted forms or makes an invalid spec.
    """
    stripped = text.strip()
    given: dict[str, Any]
    if stripped.startswith("exec:"):
        given = {"exec": {"command": stripped.removeprefix("exec:").strip()}}
    elif stripped.startswith("python:"):
        given = {"python": stripped.removeprefix("python:").strip()}
    elif stripped.startswith("{"):
        from verifier._internal.yaml_positions import YamlProblem, parse_yaml_with_positions

        try:  # the contracts' reader and limits: YAML 1.2, no alias bombs
            loaded, _ = parse_yaml_with_positions(stripped.encode("utf-8"))
        except YamlProblem as exc:
            raise SutError(f"{option}: {exc.message}") from None
        if not isinstance(loaded, dict):
            raise SutError(f"{option}: expected {_FORMS}")
        given = loaded
    else:
        raise SutError(f"{option}: expected {_FORMS}, got {text!r}")
    kept: dict[str, Any] = {}
    if base is not None:
        kept = base.model_dump(exclude=set(_KINDS), exclude_unset=True)
    if not any(kind in given for kind in _KINDS):
        raise SutError(f"{option}: names no system (one of {', '.join(_KINDS)})")
    try:
        return SutSpec.model_validate({**kept, **given})
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        message = pattern_mismatch(error) or str(error["msg"]).removeprefix("Value error, ")
        if error["type"] == "too_short":
            message = "must not be empty"
        raise SutError(f"{option}: {where + ': ' if where else ''}{message}") from None


def masked_description(spec: SutSpec) -> str:
    """``spec.describe()`` with the values of secret variables of this environment
    masked: the form to record (run options, logs), since a command line may carry a
    secret (``exec:bot --token $API_TOKEN`` arrives expanded by the shell)."""
    return spec.describe(SecretMask(os.environ))


def parse_variant_option(text: str, *, base: SutSpec | None) -> tuple[str, SutSpec]:
    """``NAME=SPEC`` as a variant name and its spec.

    Raises:
        SutError: No name, a name that is not ``[A-Za-z0-9][A-Za-z0-9_.-]*`` (at most
            32 characters), or a bad spec.
    """
    name, sep, spec = text.partition("=")
    if not sep or not _VARIANT_NAME.fullmatch(name):
        raise SutError(
            f"--variant: expected NAME=SPEC with NAME of letters, digits, '_', '.' or '-', "
            f"got {text!r}"
        )
    return name, parse_sut_option(spec, base=base, option=f"--variant {name}")


def make_caller(
    spec: SutSpec,
    *,
    base_dir: Path | FileScope,
    access: ModelAccess,
    contract_dir: Path | None = None,
) -> Caller:
    """The caller of ``spec``'s system; raises ``SutError`` when it cannot be used.

    Relative paths (a command, its ``cwd``, a template file) are resolved from
    ``base_dir`` (a directory, whose tree a ``cwd`` or template file must lie in, or a
    ``FileScope``); a Python module is looked for there, then in ``contract_dir``.
    """
    if spec.exec is not None:
        from verifier.sut._exec import ExecCaller

        return ExecCaller(spec.exec, base_dir=base_dir, timeout=spec.timeout)
    if spec.python is not None:
        from verifier.sut._python import PythonCaller

        search = [scope_of(base_dir).base_dir, *([contract_dir] if contract_dir else [])]
        return PythonCaller(spec.python, search=search, timeout=spec.timeout)
    assert spec.prompt is not None
    from verifier.sut._prompt import PromptCaller

    return PromptCaller(
        spec.prompt,
        base_dir=base_dir,
        timeout=spec.timeout,
        mode=access.mode,
        cache=reply_cache(access.store_path, access.recordings),
        limits=access.limits,
        run_id=access.run_id,
        base_url=access.base_url,
    )


def make_stage(
    spec: SutSpec,
    *,
    base_dir: Path | FileScope,
    access: ModelAccess,
    repeat: int | None = None,
    variant: str | None = None,
    contract_dir: Path | None = None,
) -> SutStage:
    """The stage that produces a run's outputs with ``spec``'s system (``repeat``, when
    given, overrides the spec's)."""
    caller = make_caller(spec, base_dir=base_dir, access=access, contract_dir=contract_dir)
    calls = repeat if repeat is not None else spec.repeat
    return SutStage(
        spec, caller, repeat=calls, concurrency=access.limits.concurrency, variant=variant
    )


def model_access(
    spec: SutSpec,
    *,
    contract_path: Path,
    mode: CallMode | None,
    recordings: Path | None,
    target: str,
    limits: CallLimits | None = None,
    run_id: str = "",
    store_replies: bool = True,
) -> tuple[ModelAccess, str | None]:
    """How ``spec`` reaches its model, as judges do: the mode (``None``: ``live`` unless
    the provider's key is unset), the recordings (default ``NAME.recordings.jsonl``
    beside the contract, when it exists or is being recorded) and the store's cache
    (none when ``store_replies`` is false: a contract that redacts its outputs keeps
    no reply in the store). Returns it with a note to show when the mode fell back to
    replay."""
    why = None
    if mode is None:
        mode, why = default_sut_mode(spec)
    if recordings is None and spec.prompt is not None:
        recordings = recordings_beside(contract_path, mode)
    access = ModelAccess(
        mode=mode,
        store_path=target if store_replies else None,
        recordings=recordings,
        limits=limits or CallLimits(),
        run_id=run_id,
    )
    return access, why


def default_sut_mode(spec: SutSpec) -> tuple[CallMode, str | None]:
    """``live`` unless a prompt SUT's provider key is unset (then ``replay``, with why)."""
    variable = unset_key(spec.prompt.provider) if spec.prompt is not None else None
    if variable:
        return "replay", f"{variable} is not set, so the prompt SUT replays recordings"
    return "live", None

"""Lint rules for the ``sut:`` block: what can be known about the system before a run.

A prompt SUT is pinned like a judge (no moving aliases, no sampling its provider cannot
send, a template that exists and uses the input); a command's working directory must
exist and a program not on PATH is worth a warning. A Python SUT is not imported here:
importing runs the module's code, which checking a contract must never do.
"""

from __future__ import annotations

import datetime as dt
import shutil
from typing import Any

from pydantic import ValidationError

from verifier.contract.judge_lint import (
    Report,
    moving_alias,
    retirement_warning,
    unpinned_form,
)
from verifier.contract.models import Sampling
from verifier.contract.prompt_template import PromptTemplate
from verifier.errors import SutError
from verifier.files import WITHHELD, FileRefused, FileScope
from verifier.llm.providers.registry import find_provider, missing_endpoint


def lint_sut(data: dict[str, Any], files: FileScope, report: Report) -> None:
    """Reports problems of the contract's ``sut:`` block, if it has one."""
    sut = data.get("sut")
    if not isinstance(sut, dict):
        return
    command = sut.get("exec", {}).get("command") if isinstance(sut.get("exec"), dict) else None
    if isinstance(command, (str, list)):
        _lint_exec(sut["exec"], files, report)
    if isinstance(sut.get("prompt"), dict):
        _lint_prompt(sut["prompt"], files, report)


def _lint_exec(spec: dict[str, Any], files: FileScope, report: Report) -> None:
    cwd = spec.get("cwd")
    if isinstance(cwd, str):
        try:
            where = files.resolve(cwd, f"cwd {cwd!r}").path
        except FileRefused as refused:
            report(("sut", "exec", "cwd"), f"sut exec: {refused}")
            return
        if not where.is_dir():
            report(("sut", "exec", "cwd"), f"sut exec: cwd {cwd!r} is not a directory")
            return
    command = spec["command"]
    program = command.split()[0] if isinstance(command, str) and command.split() else None
    if isinstance(command, list) and command and isinstance(command[0], str):
        program = command[0]
    if program and "/" not in program and shutil.which(program) is None:
        report(
            ("sut", "exec", "command"),
            f"sut exec: program {program!r} is not on PATH here",
            severity="warning",
        )


def _lint_prompt(spec: dict[str, Any], files: FileScope, report: Report) -> None:
    provider, model = spec.get("provider"), spec.get("model")
    entry = find_provider(provider)
    endpoint = missing_endpoint(provider, spec.get("base_url"))
    if endpoint:
        report(("sut", "prompt", "provider"), f"sut prompt: {endpoint}")
    if isinstance(model, str):
        alias = moving_alias(model, provider)
        if alias:
            report(("sut", "prompt", "model"), f"sut prompt: {alias}")
        base_url = spec.get("base_url")
        unpinned = (
            None
            if alias
            else unpinned_form(model, entry, base_url if isinstance(base_url, str) else None)
        )
        if unpinned:
            # The system under test is what is being measured, not a yardstick: an
            # unpinned model there is worth knowing, not a reason to refuse the run.
            report(("sut", "prompt", "model"), f"sut prompt: {unpinned}", severity="warning")
        if entry is not None:
            today = dt.datetime.now(dt.UTC).date()
            warning = retirement_warning(
                model, today=today, table=entry.retirements(), listed_as=entry.base_model(model)
            )
            if warning:
                report(("sut", "prompt", "model"), f"sut prompt: {warning}", severity="warning")
    sampling = spec.get("sampling", {})
    if entry is not None and isinstance(sampling, dict):
        try:
            parsed = Sampling.model_validate(sampling)
        except ValidationError:
            parsed = None  # the model validation reports it
        for param in entry.unsupported(parsed) if parsed else []:
            report(
                ("sut", "prompt", "sampling", param),
                f"sut prompt: {entry.refusal_of(param)}",
                key=True,
            )
    text: bytes | None = None
    key = "template"
    outside = False  # a file outside the contract's folder is never quoted
    if isinstance(spec.get("template"), str):
        text = spec["template"].encode("utf-8")
    elif isinstance(spec.get("template_file"), str):
        key = "template_file"
        name = spec[key]
        try:
            named = files.resolve(name, f"template file {name!r}")
            outside = named.outside
            text = named.path.read_bytes()
        except FileRefused as refused:
            report(("sut", "prompt", key), f"sut prompt: {refused}")
        except OSError:
            report(
                ("sut", "prompt", key),
                f"sut prompt: template file {name!r} does not exist (relative to the contract)",
            )
    if text is not None:
        try:
            PromptTemplate(text, source=str(spec[key]) if key == "template_file" else key)
        except SutError as exc:
            message = str(exc)
            if outside:
                message = f"sut prompt: template file {spec[key]!r} is unusable {WITHHELD}"
            report(("sut", "prompt", key), message)

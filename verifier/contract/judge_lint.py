"""Lint rules for the judge block: models that are not pinned snapshots, sampling a
provider cannot take (or a judge cannot use), custom templates, and judge models that
are deprecated or retiring (their verdicts stop being reproducible once the model is
gone)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from pydantic import ValidationError

from verifier._internal.file_lookup import is_file
from verifier.contract.judge_template import validate_template
from verifier.contract.models import Sampling
from verifier.files import FileRefused, FileScope
from verifier.llm.pinning import is_local_endpoint
from verifier.llm.providers._platform_ids import missing_setting
from verifier.llm.providers.openai_responses import refused_settings
from verifier.llm.providers.registry import ProviderEntry, find_provider, missing_endpoint
from verifier.llm.providers.retirement import parse_retirement

WARN_WITHIN_DAYS = 90

Report = Callable[..., None]


def retirement_warning(
    model: str, *, today: dt.date, table: Mapping[str, str], listed_as: str | None = None
) -> str | None:
    """A warning when ``model`` is deprecated, naming when it retires, or ``None``.

    ``listed_as`` is the id ``table`` lists it under when that is another (the
    Anthropic id of a cloud platform's model id).
    """
    when = table.get(listed_as or model)
    if when is None:
        return None
    date = parse_retirement(when)
    if date is None:
        return f"model {model!r} is deprecated (retires {when}); pin a current model"
    days = (date - today).days
    if days < 0:
        return f"model {model!r} retired on {date.isoformat()}; live calls will fail"
    soon = f" (in {days} days)" if days <= WARN_WITHIN_DAYS else ""
    return (
        f"model {model!r} is deprecated and retires on {date.isoformat()}{soon}; "
        "its verdicts stop being reproducible then, so plan a move to a current model"
    )


def _judge_kinds(data: dict[str, Any], name: str) -> Iterator[tuple[str, bool]]:
    """The verdict kinds a judge is asked for, each with whether its claims carry a
    reference (which the template must then show)."""
    claims = data.get("claims")
    for claim in claims if isinstance(claims, list) else []:
        if not isinstance(claim, dict) or claim.get("judge") != name:
            continue
        if "compare" in claim:
            yield "pairwise", False
        else:
            kinds = ("critique", "compliance", "scale")
            kind = next((k for k in kinds if claim.get(k) is not None), "binary")
            yield kind, claim.get("reference") is not None


def lint_judges(
    data: dict[str, Any], files: FileScope, report: Report, *, today: dt.date | None = None
) -> None:
    """Reports pinning, sampling, template and model-lifecycle problems of every judge."""

    judges = data.get("judges")
    if not isinstance(judges, dict):
        return
    today = today or dt.datetime.now(dt.UTC).date()
    for name, spec in judges.items():
        if not isinstance(spec, dict):
            continue
        # An unknown provider is the model validation's to report.
        entry = find_provider(spec.get("provider"))
        endpoint = missing_endpoint(spec.get("provider"), spec.get("base_url"))
        if endpoint:
            report(("judges", name, "provider"), f"judge {name!r}: {endpoint}")
        _lint_pinning(name, spec, report)
        if entry is not None:
            _lint_platform(name, spec, entry, report)
        _lint_stored_prompt(name, spec, report)
        sampling = spec.get("sampling", {})
        if entry is not None and isinstance(sampling, dict):
            try:
                parsed = Sampling.model_validate(sampling)
            except ValidationError:
                parsed = None  # the model validation reports it
            for param in entry.unsupported(parsed) if parsed else []:
                report(
                    ("judges", name, "sampling", param),
                    f"judge {name!r}: {entry.refusal_of(param)}",
                    key=True,
                )
            if parsed is not None and _thinks(parsed.thinking) and "thinking" in entry.accepts:
                report(
                    ("judges", name, "sampling", "thinking"),
                    f"judge {name!r}: sampling.thinking: {THINKING_REFUSAL}",
                    key=True,
                )
        model = spec.get("model")
        if entry is not None and isinstance(model, str):
            warning = retirement_warning(
                model, today=today, table=entry.retirements(), listed_as=entry.base_model(model)
            )
            if warning:
                report(("judges", name, "model"), f"judge {name!r}: {warning}", severity="warning")
        prompt = spec.get("prompt")
        if not isinstance(prompt, str):
            continue
        try:  # a refused name is the cross-node lint's to report
            named = files.resolve(prompt, f"prompt {prompt!r}")
        except FileRefused:
            continue
        if is_file(named.path):
            try:
                text = named.path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                report(
                    ("judges", name, "prompt"),
                    f"judge {name!r}: cannot read prompt {prompt!r}: {named.quote(str(exc))}",
                )
                continue
            for kind, reference in sorted(set(_judge_kinds(data, name))):
                for problem in validate_template(text, kind, reference=reference):  # type: ignore[arg-type]
                    report(
                        ("judges", name, "prompt"),
                        f"judge {name!r}: prompt {prompt!r}: {named.quote(problem)}",
                    )


THINKING_REFUSAL = (
    "a judge answers through a forced tool call, and the API refuses thinking with a "
    "forced tool; remove it (or set it to {type: disabled})"
)


def _thinks(thinking: Mapping[str, Any] | None) -> bool:
    return thinking is not None and thinking.get("type") != "disabled"


STORED_PROMPT_PROVIDER = "openai"
"""The provider whose stored prompts a judge can name (through its Responses API)."""


def _lint_stored_prompt(name: str, spec: dict[str, Any], report: Report) -> None:
    stored = spec.get("stored_prompt")
    if not isinstance(stored, dict):
        return  # absent, or the model validation's to report
    where = ("judges", name, "stored_prompt")
    if stored.get("version") in (None, ""):
        prompt_id = stored.get("id")
        report(
            where,
            f"judge {name!r}: stored prompt {prompt_id!r} has no version; pin one "
            "(stored_prompt.version) so verdicts stay reproducible: without it the vendor "
            "serves whichever version is current",
            key=True,
        )
    provider = spec.get("provider")
    if find_provider(provider) is not None and provider != STORED_PROMPT_PROVIDER:
        report(
            ("judges", name, "provider"),
            f"judge {name!r}: stored_prompt names a prompt kept at OpenAI; "
            f"set provider: {STORED_PROMPT_PROVIDER}",
        )
    if "prompt" in spec:
        report(
            ("judges", name, "prompt"),
            f"judge {name!r}: a judge has a prompt template or a stored_prompt, not both",
            key=True,
        )
    sampling = spec.get("sampling")
    set_names = (
        [k for k, v in sampling.items() if v not in (None, [])]
        if isinstance(sampling, dict)
        else []
    )
    for param in refused_settings(set_names):
        report(
            ("judges", name, "sampling", param),
            f"judge {name!r}: sampling.{param}: the openai Responses API, which a stored "
            "prompt is called through, takes no such parameter; remove it",
            key=True,
        )


_PLATFORM_KEYS = ("region", "project")


def _lint_platform(name: str, spec: dict[str, Any], entry: ProviderEntry, report: Report) -> None:
    """Reports a region or project on a provider that takes none, and what a judge on a
    cloud platform lacks to reach it (read where its client would read it)."""
    for key in _PLATFORM_KEYS:
        if key in spec and key not in entry.settings:
            report(
                ("judges", name, key),
                f"judge {name!r}: provider {entry.name} takes no `{key}:`; remove it",
                key=True,
            )
    problem = missing_setting(entry.name, spec)
    if problem:
        report(("judges", name, "provider"), f"judge {name!r}: {problem}")


def _lint_pinning(name: str, spec: dict[str, Any], report: Report) -> None:
    model = spec.get("model")
    if not isinstance(model, str):
        return
    base_url = spec.get("base_url")
    entry = find_provider(spec.get("provider"))
    problem = moving_alias(model, spec.get("provider")) or unpinned_form(
        model, entry, base_url if isinstance(base_url, str) else None
    )
    if problem is None:
        return
    if spec.get("pinned") is False:
        # The contract's author knows and accepts it; the rows still record the
        # model that served each verdict, and audit shows when it changes.
        report(
            ("judges", name, "pinned"),
            f"judge {name!r}: {problem} (accepted: pinned: false)",
            severity="warning",
        )
        return
    # A provider none of whose ids is pinned has no pinned id to suggest instead.
    never = entry is not None and entry.pinned_form is not None and entry.pinned_form.never_pinned
    joint = "; set" if never else ", or set"
    report(
        ("judges", name, "model"),
        f"judge {name!r}: {problem}{joint} `pinned: false` on the judge to accept it",
    )


def unpinned_form(model: str, entry: ProviderEntry | None, base_url: str | None) -> str | None:
    """Why ``model`` lacks the form of ``entry``'s pinned snapshots, or ``None``.

    A model on a local or private OpenAI-compatible server has no such form (the
    triple records the model the server says it served), nor has one of a provider
    that declares none.
    """
    if entry is None or entry.pinned_form is None or is_local_endpoint(base_url):
        return None
    return entry.pinned_form.unpinned(model, entry.name)


def moving_alias(model: str, provider: Any) -> str | None:
    """Why ``model`` is a moving alias rather than a pinned id, or ``None``."""
    if model.endswith("-latest") or model in {"latest", "default"}:
        return (
            f"model {model!r} is a moving alias; "
            "pin an exact model id so verdicts stay reproducible"
        )
    entry = find_provider(provider)
    if entry is not None:
        dated = entry.dated_snapshot(model)
        if dated:
            return (
                f"model {model!r} is an alias that moves with new snapshots; "
                f"pin the snapshot {dated!r} so verdicts stay reproducible"
            )
    return None

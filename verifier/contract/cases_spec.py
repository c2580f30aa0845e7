"""The ``cases:`` section: the contract's cases read from a production log by a mapping.

Declared in the contract, the mapping is sealed with it (its hash), read alike by every
surface (command line, pytest plugin, HTTP API, MCP) and recorded with each run.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from pydantic import Field, field_validator, model_validator

from verifier._internal.case_mapping import CaseMapping, parse_since
from verifier.contract._base import _Frozen

__all__ = ["CasesSpec"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LOG_PATH = re.compile(r"[^.\s]+(?:\.[^.\s]+)*")


OTLP_MAP = {
    "id": "span_id",
    "input": "prompt",
    "output": "completion",
    "model": "model",
    "usage": "usage",
}
"""The map of ``format: otlp`` when the contract names none: each GenAI span's id, last
user message, completion, model and token usage."""

OTLP_TIME = "start_time"
"""The time of ``format: otlp`` when the contract names none: the span's start."""


class CasesSpec(_Frozen):
    """How each line of a cases file (a production log) becomes a case."""

    format: Literal["jsonl", "otlp"] = Field(
        default="jsonl",
        description="What the cases file holds: log lines (`jsonl`), or OpenTelemetry "
        "GenAI spans exported as OTLP JSON (`otlp`), each span with `gen_ai.*` attributes "
        "read as one flat line (`prompt`, `completion`, `model`, `usage`, `span_id`, "
        "`start_time`, its attributes by their dotted names); other spans are passed over.",
    )
    map: dict[str, str] | None = Field(
        default=None,
        description="Each case field and the dotted path of the log line holding it; a "
        "negative index counts from a list's end (`request.messages.-1.content`). The case "
        "holds these fields only. Without `id`, each case's id is derived from its mapped "
        "`input` (`log-` and 16 hex digits of its sha256), the same for the same input; "
        "under `format: otlp` it is the span's id. Needed unless `format: otlp`, whose "
        "default is `{id: span_id, input: prompt, output: completion, model: model, "
        "usage: usage}`.",
    )
    time: str | None = Field(
        default=None,
        description="Path of the line's time: ISO 8601 (UTC when no zone is given) or "
        "seconds since 1970 (under `format: otlp`, `start_time` unless named).",
    )
    since: str | None = Field(
        default=None,
        description="Only lines logged since then are cases: a window back from the run's "
        "start (`12h`, `7d`, `4w`) or an ISO 8601 date or time. Needs `time`.",
    )

    @field_validator("map")
    @classmethod
    def _fields(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        if value is None:
            return value
        if not value:
            raise ValueError("map needs at least one field (`input: request.text`)")
        for name, path in value.items():
            if not _NAME.fullmatch(name):
                raise ValueError(f"map: {name!r} is not a case field name (letters, digits, _)")
            _check_path(path, f"map.{name}")
        return value

    @field_validator("since", mode="before")
    @classmethod
    def _date_as_text(cls, value: object) -> object:
        # A contract built in Python (or read as YAML 1.1) may give a date itself.
        return value.isoformat() if isinstance(value, dt.date) else value

    @field_validator("time")
    @classmethod
    def _time(cls, value: str | None) -> str | None:
        if value is not None:
            _check_path(value, "time")
        return value

    @model_validator(mode="after")
    def _since(self) -> CasesSpec:
        if self.map is None and self.format != "otlp":
            raise ValueError("map is needed (`map: {input: request.text}`) unless `format: otlp`")
        if self.since is not None:
            if self.time is None and self.format != "otlp":
                raise ValueError("since needs `time`: the path of each line's time")
            parse_since(self.since, dt.datetime.now(dt.UTC))
        return self

    def mapping(self, now: dt.datetime) -> CaseMapping:
        """The mapping a run starting at ``now`` reads its cases with."""
        since = None if self.since is None else parse_since(self.since, now)
        return CaseMapping(self.fields(), self._time_path(), since, self.format)

    def fields(self) -> dict[str, str]:
        """Each case field and its path: the map, with the OTLP defaults under
        ``format: otlp`` (the span's id when the map names no ``id``)."""
        if self.format != "otlp":
            return dict(self.map or {})
        return {"id": "span_id", **(self.map or OTLP_MAP)}

    def _time_path(self) -> str | None:
        return self.time or (OTLP_TIME if self.format == "otlp" else None)


def _check_path(path: str, key: str) -> None:
    if not _LOG_PATH.fullmatch(path):
        raise ValueError(f"{key}: {path!r} is not a dotted path (`response.text`)")

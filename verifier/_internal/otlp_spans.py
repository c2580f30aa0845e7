"""OpenTelemetry GenAI spans, exported as OTLP JSON, read as flat log lines.

The OpenTelemetry collector's file exporter writes one OTLP JSON document per line
(``{"resourceSpans": [{"resource", "scopeSpans": [{"scope", "spans": [...]}]}]}``);
a document may also fill a file alone, over many lines. Each span that carries
GenAI attributes (a key starting ``gen_ai.``, or a ``gen_ai.`` event) becomes one
flat record, which a contract's ``cases:`` map then maps as it maps a log line:

- the span's attributes, nested by their dots (``gen_ai.request.model`` is the path
  ``gen_ai.request.model``); the message attributes (``gen_ai.input.messages``,
  ``gen_ai.output.messages``, ``gen_ai.system_instructions``) read as the JSON they
  hold when recorded as text;
- ``trace_id``, ``span_id``, ``parent_span_id``, ``name``, ``start_time`` and
  ``end_time`` (ISO 8601, UTC), ``resource`` (its attributes, nested) and ``events``;
- what the conventions' several forms say alike: ``prompt`` (the text of the last
  user message), ``completion`` (the text of the first output message), ``model``
  (the response's model, else the request's) and ``usage`` (``input_tokens``,
  ``output_tokens``).

These span fields take the place of an attribute of the same first name. A span
without GenAI attributes is passed over and counted; a line that is no JSON, or a
span whose values cannot be read, is an unusable case naming the line and the span.
"""

from __future__ import annotations

import base64
import codecs
import datetime as dt
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from verifier._internal.canonical import loads_exact
from verifier._internal.json_words import json_kind
from verifier._internal.otlp_messages import derived_fields
from verifier.errors import CasesError

__all__ = [
    "SPANS_OPTION",
    "UNDECLARED",
    "OtlpSpan",
    "SpanCount",
    "check_otlp_file",
    "is_otlp_document",
    "otlp_spans",
    "read_spans",
]

_JSON_ATTRIBUTES = ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions")
_LENIENT_JSON = ("gen_ai.prompt", "gen_ai.completion", "gen_ai.event.content")
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

UNDECLARED = (
    "an OTLP JSON trace document (resourceSpans); read its spans as cases with "
    "`cases: {format: otlp}` in the contract"
)
"""What a cases file read as log lines or a suite document is, when it is OTLP JSON."""

SPANS_OPTION = "otlp_spans"
"""Where a run over OTLP JSON records its GenAI spans read and other spans passed over."""


class SpanProblem(ValueError):
    """A span (or line) that cannot be read; the message names what."""


@dataclass(frozen=True, slots=True)
class OtlpSpan:
    """One GenAI span of the file, or why a line or span is unusable.

    Attributes:
        position: The span's 1-based position among the file's spans (an unreadable
            line counts as one): the case's number, which a resumed run reads past.
        where: Where it is, for messages (``line 2 span 3``).
        record: The flat record, or ``None`` when unusable.
        problem: Why it is unusable, or ``None``.
        span_id: The unusable span's id, when it has one (its error rows carry it).
    """

    position: int
    where: str
    record: dict[str, Any] | None
    problem: str | None = None
    span_id: Any = None


@dataclass
class SpanCount:
    """How many spans a reading met: GenAI spans read, and others passed over."""

    gen_ai: int = 0
    skipped: int = 0


def is_otlp_document(value: Any) -> bool:
    """Whether a decoded JSON value is an OTLP trace document."""
    return isinstance(value, dict) and "resourceSpans" in value


def otlp_spans(path: Path, count: SpanCount | None = None) -> Iterator[OtlpSpan]:
    """The GenAI spans of an OTLP JSON file, in order (a span without GenAI attributes
    is passed over, counted in ``count``).

    Raises:
        OSError: The file cannot be read.
    """
    count = SpanCount() if count is None else count
    position = 0
    for number, document in _documents(path):
        if isinstance(document, SpanProblem):
            position += 1
            yield OtlpSpan(position, f"line {number}", None, f"line {number}: {document}")
            continue
        for index, span in enumerate(_raw_spans(document, number), start=1):
            position += 1
            where = f"line {number} span {index}"
            if isinstance(span, SpanProblem):
                yield OtlpSpan(position, where, None, f"{where}: {span}")
                continue
            try:
                record = _record(*span)
            except SpanProblem as exc:
                yield OtlpSpan(position, where, None, f"{where}: {exc}", span[0].get("spanId"))
                continue
            if record is None:
                count.skipped += 1
                continue
            count.gen_ai += 1
            yield OtlpSpan(position, where, record)


def read_spans(path: Path, count: SpanCount | None = None) -> Iterator[OtlpSpan]:
    """``otlp_spans``, a file that cannot be read refused as a cases file is.

    Raises:
        CasesError: The file cannot be read.
    """
    try:
        yield from otlp_spans(path, count)
    except OSError as exc:
        raise CasesError(f"{path}: cannot read cases: {exc.strerror or exc}") from None


def check_otlp_file(path: Path, *, shown: Path | None = None) -> SpanCount:
    """Refuses an OTLP JSON file holding no GenAI span (naming the first line's
    problem, or how many other spans it has), before a run starts.

    Returns:
        How many GenAI spans it holds, and how many others a run passes over.

    Raises:
        CasesError: The file cannot be read or holds no GenAI span.
    """
    count, first = SpanCount(), None
    for span in read_spans(path, count):
        first = first or span.problem
    if count.gen_ai:
        return count
    name = shown or path
    if first is not None:
        raise CasesError(f"{name}: no GenAI span to read as a case ({first})")
    raise CasesError(
        f"{name}: no GenAI span to read as a case ({count.skipped} span(s) without "
        "gen_ai.* attributes)"
    )


def _documents(path: Path) -> Iterator[tuple[int, Any]]:
    """Each document of the file with its line, one per line, read as a stream; or the
    whole file when its first line holds no whole document (one written over lines)."""
    with path.open("rb") as handle:
        first = True
        for number, line in enumerate(handle, start=1):
            line = line.removeprefix(codecs.BOM_UTF8) if number == 1 else line
            if not line.strip():
                continue
            if first and _parsed(line) is None:
                whole = _parsed(path.read_bytes().removeprefix(codecs.BOM_UTF8))
                if whole is not None:
                    yield 1, whole
                    return
            first = False
            yield number, _document(line.rstrip(b"\r\n"))


def _parsed(raw: bytes) -> Any:
    try:
        return loads_exact(raw)
    except orjson.JSONDecodeError:
        return None


def _document(line: bytes) -> Any:
    try:
        value = loads_exact(line)
    except orjson.JSONDecodeError as exc:
        return SpanProblem(f"invalid JSON: {exc.msg} (column {exc.colno})")
    if not is_otlp_document(value):
        what = "an object without resourceSpans" if isinstance(value, dict) else json_kind(value)
        return SpanProblem(f"not an OTLP JSON trace document ({what})")
    return value


def _raw_spans(document: dict[str, Any], number: int) -> Iterator[Any]:
    """Each span of a document with its resource, or a problem where the shape is wrong."""
    for resource_spans in _objects(document.get("resourceSpans"), "resourceSpans"):
        if isinstance(resource_spans, SpanProblem):
            yield resource_spans
            continue
        resource = resource_spans.get("resource") or {}
        for scope_spans in _objects(resource_spans.get("scopeSpans"), "scopeSpans"):
            if isinstance(scope_spans, SpanProblem):
                yield scope_spans
                continue
            for span in _objects(scope_spans.get("spans"), "spans"):
                yield span if isinstance(span, SpanProblem) else (span, resource)


def _objects(value: Any, key: str) -> Iterable[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        return [SpanProblem(f"{key} must be a list, not {json_kind(value)}")]
    return [
        item if isinstance(item, dict) else SpanProblem(f"{key} holds {json_kind(item)}")
        for item in value
    ]


def _record(span: dict[str, Any], resource: Any) -> dict[str, Any] | None:
    """The flat record of a span, or ``None`` when it carries no GenAI attribute."""
    attributes = _attributes(span.get("attributes"), "attributes")
    events = [_event(event) for event in _objects(span.get("events"), "events")]
    if not any(key.startswith("gen_ai.") for key in attributes) and not any(
        str(event["name"]).startswith("gen_ai.") for event in events
    ):
        return None
    for key in _JSON_ATTRIBUTES:
        if isinstance(attributes.get(key), str):
            attributes[key] = _json_text(attributes[key], key, strict=True)
    for key in _LENIENT_JSON:
        if isinstance(attributes.get(key), str):
            attributes[key] = _json_text(attributes[key], key, strict=False)
    record = _nested(attributes)
    record.update(
        {
            "trace_id": span.get("traceId"),
            "span_id": span.get("spanId"),
            "parent_span_id": span.get("parentSpanId") or None,
            "name": span.get("name"),
            "resource": _nested(_attributes(_field(resource, "attributes"), "resource")),
            "events": [{**e, "attributes": _nested(e["attributes"])} for e in events],
        }
    )
    for key, field in (("start_time", "startTimeUnixNano"), ("end_time", "endTimeUnixNano")):
        if span.get(field) is not None:
            record[key] = _time(span[field], field)
    record.update(derived_fields(attributes, events))
    return record


def _field(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def _event(event: Any) -> dict[str, Any]:
    if isinstance(event, SpanProblem):
        raise event
    attributes = _attributes(event.get("attributes"), f"event {event.get('name')}")
    for key in _LENIENT_JSON:
        if isinstance(attributes.get(key), str):
            attributes[key] = _json_text(attributes[key], key, strict=False)
    when = event.get("timeUnixNano")
    time = _time(when, "timeUnixNano") if when is not None else None
    return {"name": event.get("name"), "time": time, "attributes": attributes}


def _attributes(value: Any, where: str) -> dict[str, Any]:
    """OTLP key-values as a dict of plain JSON values."""
    out: dict[str, Any] = {}
    for item in _objects(value, where):
        if isinstance(item, SpanProblem):
            raise item
        key = item.get("key")
        if not isinstance(key, str):
            raise SpanProblem(f"{where}: an attribute without a key")
        out[key] = _any_value(item.get("value"), key)
    return out


def _any_value(value: Any, key: str) -> Any:
    """An OTLP ``AnyValue`` as the JSON value it holds."""
    if value is None or value == {}:
        return None
    if not isinstance(value, dict) or len(value) != 1:
        raise SpanProblem(f"attribute {key}: not an OTLP value ({json_kind(value)})")
    [(kind, inner)] = value.items()
    if kind in ("stringValue", "boolValue", "doubleValue"):
        return inner
    if kind == "intValue":
        try:
            return int(inner)
        except (TypeError, ValueError):
            raise SpanProblem(f"attribute {key}: intValue {inner!r} is not an integer") from None
    if kind == "bytesValue":
        try:
            return base64.b64decode(str(inner), validate=True).hex()
        except ValueError:
            raise SpanProblem(f"attribute {key}: bytesValue is not base64") from None
    if kind == "arrayValue":
        return [_any_value(v, key) for v in _field(inner, "values") or []]
    if kind == "kvlistValue":
        return _attributes(_field(inner, "values"), key)
    raise SpanProblem(f"attribute {key}: unknown OTLP value kind {kind!r}")


def _json_text(text: str, key: str, *, strict: bool) -> Any:
    try:
        return loads_exact(text)
    except orjson.JSONDecodeError as exc:
        if not strict:
            return text
        raise SpanProblem(f"attribute {key}: not JSON: {exc.msg} (column {exc.colno})") from None


def _nested(attributes: dict[str, Any]) -> dict[str, Any]:
    """Dotted keys as nested objects (``gen_ai.request.model``)."""
    out: dict[str, Any] = {}
    for key, value in attributes.items():
        *parents, last = key.split(".")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise SpanProblem(f"attribute {key}: a shorter attribute holds a value there")
        if isinstance(node.get(last), dict):
            raise SpanProblem(f"attribute {key}: longer attributes continue it")
        node[last] = value
    return out


def _time(value: Any, field: str) -> str:
    try:
        nanos = int(value)
        return (_EPOCH + dt.timedelta(microseconds=nanos // 1000)).isoformat()
    except (TypeError, ValueError, OverflowError, OSError):
        raise SpanProblem(f"{field} {value!r} is not nanoseconds since 1970") from None

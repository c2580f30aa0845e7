"""Reading a JSON document into a pydantic model, with one located line per problem.

Requests given as files or on standard input (an evaluation, a prompt evaluation) are
read here, so a bad one is told the same way wherever it comes from: the file, then
where in the document (``training_examples[1].expected_output``), then the problem.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import orjson
from pydantic import BaseModel, ValidationError

from verifier._internal.canonical import loads_exact
from verifier._internal.json_words import json_kind
from verifier.errors import VerifierError

__all__ = ["DocumentError", "allowed_keys", "parse_document", "read_document", "where"]

M = TypeVar("M", bound=BaseModel)


class DocumentError(VerifierError):
    """A document that cannot be used; one line per problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


def where(loc: Sequence[Any]) -> str:
    """A location as a reader writes it: ``training_examples[1].input``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def allowed_keys(model: type[BaseModel], loc: Sequence[Any]) -> list[str]:
    """The keys allowed at ``loc`` (a key of a nested model, or of a list's items)."""
    current: type[BaseModel] = model
    for part in loc:
        if isinstance(part, int):
            continue
        info = current.model_fields.get(part)
        if info is None:
            return []
        annotation = info.annotation
        args = getattr(annotation, "__args__", ()) or (annotation,)
        nested = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
        if not nested:
            return []
        current = nested[0]
    return list(current.model_fields)


def _problem(label: str, model: type[BaseModel], error: Mapping[str, Any]) -> str:
    loc = tuple(error["loc"])
    kind = error["type"]
    if kind in ("missing", "extra_forbidden") and loc:
        parent, key = where(loc[:-1]), str(loc[-1])
        prefix = f"{label}: {parent}: " if parent else f"{label}: "
        if kind == "missing":
            return f"{prefix}missing {key!r}"
        close = difflib.get_close_matches(key, allowed_keys(model, loc[:-1]), n=1)
        return f"{prefix}unknown key {key!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
    message = str(error["msg"]).removeprefix("Value error, ")
    message = message[:1].lower() + message[1:]
    at = where(loc)
    return f"{label}: {at}: {message}" if at else f"{label}: {message}"


def parse_document(
    raw: bytes,
    label: str,
    model: type[M],
    what: str,
    prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> M:
    """Decodes and validates one JSON object as ``model``.

    Args:
        raw: The document's bytes.
        label: How to name the source in errors (the path, or ``stdin``).
        model: What the document must be.
        what: What it is called in errors (``a prompt evaluation``).
        prepare: Changes the decoded object before it is validated (settings from
            elsewhere filled in or overriding its keys).

    Raises:
        DocumentError: Every problem found, each naming where it is.
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentError([f"{label}: not UTF-8 text (byte {exc.start})"]) from None
    if not text.strip():
        raise DocumentError([f"{label}: empty input; expected a JSON object"])
    try:
        data = loads_exact(text)
    except orjson.JSONDecodeError as exc:
        raise DocumentError(
            [f"{label}: line {exc.lineno}: invalid JSON: {exc.msg} (column {exc.colno})"]
        ) from None
    if not isinstance(data, dict):
        raise DocumentError([f"{label}: {what} must be a JSON object, not {json_kind(data)}"])
    try:
        return model.model_validate(data if prepare is None else prepare(data))
    except ValidationError as exc:
        raise DocumentError([_problem(label, model, e) for e in exc.errors()]) from None


def read_document(
    name: str,
    model: type[M],
    what: str,
    prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> M:
    """Reads and validates the document in file ``name`` (``-``: standard input).

    ``prepare`` is as ``parse_document``'s.

    Raises:
        DocumentError: The file cannot be read or is not a valid document.
    """
    label = "stdin" if name == "-" else name
    try:
        raw = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
    except OSError as exc:
        raise DocumentError([f"{label}: cannot read: {exc.strerror or exc}"]) from None
    return parse_document(raw, label, model, what, prepare)

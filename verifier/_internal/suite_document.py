"""Suite documents: cases given as one JSON or YAML document instead of JSONL.

A suite document is a mapping ``{"test_suite": NAME, "version": V, "cases": [...]}``
(``description`` allowed too; only ``cases`` is required). Which form a cases file
has is told from its start, so a JSONL stream is still read a line at a time:

- YAML: the name ends ``.yaml`` or ``.yml``, or the first line that is not blank or a
  comment starts with ``---`` or a ``test_suite:``, ``version:`` or ``cases:`` key;
- JSON: the first non-blank line is ``{`` alone, starts an object whose first key is
  ``test_suite``, ``version`` or ``cases`` without closing it on that line, or is a
  whole object holding ``test_suite`` and a ``cases`` list;
- JSONL: anything else.

A document is read whole. JSON is read exactly as a JSONL line is (orjson, a key
written twice refused); YAML with the contract loader (YAML 1.2 scalars, no tags,
no duplicate keys), which also gives each case's line.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import orjson

from verifier._internal.canonical import loads_exact
from verifier._internal.duplicate_keys import duplicate_key
from verifier._internal.json_words import json_kind
from verifier._internal.otlp_spans import UNDECLARED
from verifier._internal.yaml_positions import (
    MAX_BYTES,
    Positions,
    YamlProblem,
    parse_yaml_with_positions,
)

__all__ = ["SUITE_KEYS", "SuiteDocument", "SuiteProblem", "cases_form", "read_suite"]

SUITE_KEYS = ("test_suite", "version", "description", "cases")
"""The keys a suite document may have."""

CasesForm = Literal["jsonl", "json", "yaml"]

_YAML_SUFFIXES = (".yaml", ".yml")
_YAML_START = re.compile(rb"""^(---|["']?(test_suite|version|cases)["']?[ \t]*:)""")
_JSON_START = re.compile(rb"""^\{\s*("(test_suite|version|cases)"\s*:.*)?$""")


class SuiteProblem(Exception):
    """A suite document that cannot be used, with where (``line 3``, ``cases``)."""


@dataclass(frozen=True)
class SuiteDocument:
    """A suite document read whole.

    Attributes:
        name: Its ``test_suite`` (``None`` when not given).
        version: Its ``version`` as text (``None`` when not given).
        cases: The items of ``cases``, as written (each checked later, like a line).
        lines: The line of each item in the file (YAML only; ``None`` for JSON).
    """

    name: str | None
    version: str | None
    cases: list[Any]
    lines: list[int] | None

    def label(self, index: int) -> str:
        """How messages name item ``index`` (0-based): ``case 2`` or ``case 2 (line 9)``."""
        line = f" (line {self.lines[index]})" if self.lines is not None else ""
        return f"case {index + 1}{line}"


def cases_form(path: Path) -> CasesForm:
    """Whether a cases file is JSONL or a JSON or YAML suite document (module docstring).

    Raises:
        OSError: The file cannot be read.
    """
    if path.suffix in _YAML_SUFFIXES:
        return "yaml"
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            line = (raw.removeprefix(codecs.BOM_UTF8) if number == 1 else raw).strip()
            if not line or line.startswith(b"#"):
                continue
            if _YAML_START.match(line):
                return "yaml"
            return "json" if _json_document(line) else "jsonl"
    return "jsonl"


def _json_document(line: bytes) -> bool:
    if not line.startswith(b"{"):
        return False
    try:
        value = loads_exact(line)
    except orjson.JSONDecodeError:
        return _JSON_START.match(line) is not None
    return (
        isinstance(value, dict) and "test_suite" in value and isinstance(value.get("cases"), list)
    )


def read_suite(path: Path, form: CasesForm) -> SuiteDocument:
    """Reads a JSON or YAML suite document whole and checks its keys.

    Raises:
        SuiteProblem: It is not a usable suite document (naming the line when known).
        OSError: The file cannot be read.
    """
    raw = path.read_bytes().removeprefix(codecs.BOM_UTF8)
    positions: Positions | None = None
    if form == "yaml":
        if len(raw) > MAX_BYTES:
            raise SuiteProblem(
                f"a YAML suite document is limited to {MAX_BYTES} bytes; this one has "
                f"{len(raw)} (write the cases as JSON or JSONL)"
            )
        try:
            data, positions = parse_yaml_with_positions(raw)
        except YamlProblem as exc:
            raise SuiteProblem(f"line {exc.line}: {exc.message}") from None
    else:
        data = _json(raw)
    return _checked(data, positions)


def _json(raw: bytes) -> Any:
    try:
        data = loads_exact(raw)
    except orjson.JSONDecodeError as exc:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as bad:
            raise SuiteProblem(f"not valid UTF-8 at byte {bad.start}") from None
        raise SuiteProblem(
            f"line {exc.lineno}: invalid JSON: {exc.msg} (column {exc.colno})"
        ) from None
    twice = duplicate_key(raw, data)
    if twice is not None:
        raise SuiteProblem(f"key {twice!r} appears twice in one object")
    return data


def _checked(data: Any, positions: Positions | None) -> SuiteDocument:
    def at(key: str, *, value: bool = True) -> str:
        where = positions.of((key,), key=not value)[0] if positions is not None else None
        return f"line {where}: " if where is not None else ""

    if not isinstance(data, dict):
        raise SuiteProblem(f"a suite document is a mapping with `cases`, not {json_kind(data)}")
    if "resourceSpans" in data:
        raise SuiteProblem(UNDECLARED)
    for key in data:
        if key not in SUITE_KEYS:
            raise SuiteProblem(
                f"{at(key, value=False)}unknown key {str(key)!r} (a suite document has "
                f"{', '.join(SUITE_KEYS[:-1])} and {SUITE_KEYS[-1]})"
            )
    if "cases" not in data:
        raise SuiteProblem("a suite document needs `cases`: a list of case objects")
    cases = data["cases"]
    if not isinstance(cases, list):
        raise SuiteProblem(f"{at('cases')}cases is {json_kind(cases)}, not a list")
    name = data.get("test_suite")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise SuiteProblem(f"{at('test_suite')}test_suite is {json_kind(name)}, not a name")
    version = data.get("version")
    if version is not None and (
        isinstance(version, bool) or not isinstance(version, str | int | float)
    ):
        raise SuiteProblem(f"{at('version')}version is {json_kind(version)}, not text or a number")
    lines = None
    if positions is not None:
        lines = [positions.of(("cases", i))[0] for i in range(len(cases))]
    shown = None if version is None else str(version)
    return SuiteDocument(name, shown, cases, lines)

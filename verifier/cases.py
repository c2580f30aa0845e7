"""Cases: a JSONL file read as a stream, one observation per line, or a suite document.

A line that cannot be used (not UTF-8, not JSON, not an object, no usable id) does not
stop the run: it becomes a ``CaseLine`` carrying the error, which the runner records
as error rows for that line. A suite document (``{"test_suite", "version", "cases":
[...]}`` in JSON or YAML, ``verifier._internal.suite_document``) is read whole, and
each item of its ``cases`` is taken as a line is, numbered by its position. Under a
contract's ``cases:`` mapping each line (or item) is a production log line, read as the
case it maps to (``verifier._internal.case_mapping``).
"""

from __future__ import annotations

import codecs
import hashlib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from verifier._internal import otlp_spans as otlp
from verifier._internal.canonical import loads_exact
from verifier._internal.case_ids import FALLBACK_ID, id_of, id_problem, unused_id
from verifier._internal.case_mapping import CaseMapping, MappedLine
from verifier._internal.duplicate_keys import duplicate_key
from verifier._internal.json_words import json_kind
from verifier._internal.seen_ids import SeenIds
from verifier._internal.suite_document import (
    CasesForm,
    SuiteDocument,
    SuiteProblem,
    cases_form,
    read_suite,
)
from verifier.errors import CasesError
from verifier.fieldpath import FieldPath

_READ_BUFFER = 256 * 1024


@dataclass(frozen=True, slots=True)
class CaseLine:
    """One line of a cases file.

    Attributes:
        line: 1-based line number (in a suite document, the case's position in ``cases``).
        case_id: The case's id, or when the line has none usable ``line-N`` (``line-N~2``
            when a case of the file holds that id: see ``verifier._internal.case_ids``).
        case: The decoded case, or ``None`` when the line is unusable.
        error: Why the line is unusable, or ``None``.
        sut: Where the case's output came from when the system under test produced
            it (recorded in the evidence of every row of the case), or ``None``.
    """

    line: int
    case_id: str
    case: dict[str, Any] | None
    error: str | None = None
    sut: dict[str, Any] | None = None


def _unreadable(number: int, raw: bytes, exc: orjson.JSONDecodeError) -> str:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"line {number}: not valid UTF-8 at byte {bad.start}"
    # orjson's own text would add "line 1": the line it parsed, not the file's line.
    return f"line {number}: invalid JSON: {exc.msg} (column {exc.colno})"


def cases_beside(contract_path: Path) -> Path:
    """Where a contract's cases are when none are named: ``NAME.cases.jsonl`` beside
    ``NAME.yaml`` (the command line and the pytest plugin alike)."""
    return contract_path.with_name(f"{contract_path.stem}.cases.jsonl")


def check_cases_file(
    path: Path, *, shown: Path | None = None, format: str = "jsonl"
) -> SuiteDocument | otlp.SpanCount | None:
    """Refuses a cases file that holds no case at all, before a run starts: an empty
    one (or only blank lines), one where no line is a JSON object (not JSONL: a JSON
    array, a CSV file), or a suite document that cannot be read or has no object among
    its cases. A file with some usable cases passes; its other lines (or items) become
    error rows as the run reaches them.

    Reads a JSONL file only up to the first line that is a JSON object; messages name
    the file ``shown`` (the name it was given, when ``path`` is a copy), else ``path``.

    Under ``format: otlp`` (a contract's ``cases:``) the file is OpenTelemetry spans as
    OTLP JSON, refused when it holds no GenAI span (``otlp.check_otlp_file``).

    Returns:
        The suite document when the file is one (its name and version are recorded
        with the run), how many spans an OTLP file holds, else ``None``.

    Raises:
        CasesError: The file cannot be opened, is empty, is not JSONL (naming the first
            line's problem), or is not a usable suite document (naming where).
    """
    if format == "otlp":
        return otlp.check_otlp_file(path, shown=shown)
    name = shown or path
    form = _form(path, name)
    if form != "jsonl":
        suite = _suite(path, form, name)
        if not suite.cases:
            raise CasesError(f"{name}: no cases (the suite document's cases list is empty)")
        if not any(isinstance(case, dict) for case in suite.cases):
            kind = json_kind(suite.cases[0])
            raise CasesError(f"{name}: {suite.label(0)}: a case must be a JSON object, not {kind}")
        return suite
    _check_jsonl(path, name)
    return None


SUITE_OPTION = "suite"
"""Where a run records the suite document its cases came from (``suite_record``)."""


MAPPING_OPTION = "cases_mapping"
"""Where a run records the mapping its cases were read with (``CaseMapping.record``)."""


def suite_record(suite: SuiteDocument) -> dict[str, str | None]:
    """What a run records of its suite document: its name and version."""
    return {"name": suite.name, "version": suite.version}


def _check_jsonl(path: Path, name: Path) -> None:
    first_problem: str | None = None
    with _open_cases(path) as handle:
        for number, raw in enumerate(handle, start=1):
            if number == 1:
                raw = raw.removeprefix(codecs.BOM_UTF8)
            if not raw.strip():
                continue
            try:
                value = loads_exact(raw.rstrip(b"\r\n"))
            except orjson.JSONDecodeError as exc:
                problem = _unreadable(number, raw, exc)
            else:
                if otlp.is_otlp_document(value):
                    raise CasesError(f"{name}: line {number} is {otlp.UNDECLARED}")
                if isinstance(value, dict):
                    return
                problem = f"line {number}: a case must be a JSON object, not {json_kind(value)}"
            first_problem = first_problem or problem
    if first_problem is None:
        raise CasesError(f"{name}: no cases (empty file)")
    raise CasesError(
        f"{name}: cases are JSONL (one JSON object per line) or a suite document "
        f'({{"test_suite", "version", "cases": [...]}}) ({first_problem})'
    )


def _form(path: Path, name: Path) -> CasesForm:
    try:
        return cases_form(path)
    except OSError as exc:
        raise CasesError(f"{name}: cannot read cases: {exc.strerror or exc}") from None


def _suite(path: Path, form: CasesForm, name: Path) -> SuiteDocument:
    try:
        return read_suite(path, form)
    except SuiteProblem as exc:
        raise CasesError(f"{name}: {exc}") from None
    except OSError as exc:
        raise CasesError(f"{name}: cannot read cases: {exc.strerror or exc}") from None


def _open_cases(path: Path) -> BinaryIO:
    try:
        # A large buffer: lines average a few hundred bytes to kilobytes, and the
        # default 8 KiB would make a system call every few cases.
        return path.open("rb", buffering=_READ_BUFFER)
    except OSError as exc:
        raise CasesError(f"{path}: cannot read cases: {exc.strerror or exc}") from None


def read_cases(
    path: Path, *, seen: SeenIds | None = None, after: int = 0, mapping: CaseMapping | None = None
) -> Iterator[CaseLine]:
    """Streams the cases of a JSONL file in constant memory (blank lines are skipped).

    A suite document is read whole instead, and its cases taken in order.

    Args:
        path: The JSONL file (or suite document).
        seen: Where the ids taken so far are kept (a fresh ``SeenIds`` when not given;
            it is closed when the reading ends either way).
        after: Lines up to this one (in a suite document, cases up to this position)
            are passed over unread (their ids are not taken: ``seen`` must know them,
            as a resumed run's does).
        mapping: Read each line as a production log line, the case made of the fields
            it maps (a contract's ``cases:``); a line logged before its cutoff is
            passed over.

    Raises:
        CasesError: The file cannot be opened at all, or is a YAML suite document
            that cannot be used.
    """
    if mapping is not None and mapping.format == "otlp":
        yield from _span_cases(path, seen, after, mapping)
        return
    suite = _suite_read(path)
    if suite is not None:
        yield from _suite_cases(suite, seen, after, mapping)
        return
    handle = _open_cases(path)
    seen = SeenIds() if seen is None else seen
    with handle, closing(seen):
        for number, raw in enumerate(handle, start=1):
            if number <= after or not raw.strip():
                continue
            if number == 1:
                raw = raw.removeprefix(codecs.BOM_UTF8)  # editors on Windows save UTF-8 with one
            text = raw.rstrip(b"\r\n")
            try:
                value = loads_exact(text)
            except orjson.JSONDecodeError as exc:
                # orjson refuses invalid UTF-8 too; the position in bytes is clearer.
                what = _unreadable(number, raw, exc)
                yield CaseLine(number, unused_id(seen, f"line-{number}"), None, what)
                continue
            twice = duplicate_key(text, value)
            if twice is not None:
                # The parse kept the last of the two: which one the author meant is unknown.
                what = f"line {number}: key {twice!r} appears twice in one object"
                yield CaseLine(number, unused_id(seen, f"line-{number}"), None, what)
                continue
            line = mapped_case(number, value, seen, mapping)
            if line is not None:
                yield line


def _suite_read(path: Path) -> SuiteDocument | None:
    """The suite document ``path`` holds, or ``None`` to read it as JSONL: also when its
    start looked like a JSON document but it is none, as damaged JSONL can (a line cut
    to ``{``), so a bad line stays an error row of its own. ``check_cases_file``, which
    a run asks first, refuses such a file instead."""
    form = _form(path, path)
    if form == "jsonl":
        return None
    if form == "json":
        try:
            return read_suite(path, form)
        except (SuiteProblem, OSError):
            return None
    return _suite(path, form, path)


def _suite_cases(
    suite: SuiteDocument, seen: SeenIds | None, after: int, mapping: CaseMapping | None
) -> Iterator[CaseLine]:
    """The cases of a suite document from position ``after`` on; an unusable item's
    error names it as ``case N (line L)`` when its line is known."""
    seen = SeenIds() if seen is None else seen
    with closing(seen):
        for index, value in enumerate(suite.cases[after:], start=after):
            line = mapped_case(index + 1, value, seen, mapping, "case")
            if line is None:
                continue
            if line.error is not None:
                rest = line.error.removeprefix(f"case {index + 1}")
                line = replace(line, error=suite.label(index) + rest)
            yield line


def _span_cases(
    path: Path, seen: SeenIds | None, after: int, mapping: CaseMapping
) -> Iterator[CaseLine]:
    """The cases of an OTLP JSON file: each GenAI span, numbered by its position among
    the file's spans, read as the log line it is (``verifier._internal.otlp_spans``)."""
    seen = SeenIds() if seen is None else seen
    with closing(seen):
        for span in otlp.read_spans(path):
            if span.position <= after:
                continue
            if span.record is None:
                yield _unusable(span.position, span.span_id, span.problem, seen)
                continue
            line = mapped_case(span.position, span.record, seen, mapping, label=span.where)
            if line is not None:
                yield line


def mapped_case(
    number: int,
    value: Any,
    seen: SeenIds,
    mapping: CaseMapping | None,
    where: str = "line",
    *,
    label: str | None = None,
) -> CaseLine | None:
    """``checked_case`` of the case ``value`` maps to (``value`` itself without a
    mapping); ``None`` for a log line older than the mapping's cutoff. ``label`` names
    the line in messages (``where`` and ``number`` when not given)."""
    if mapping is None:
        return checked_case(number, value, seen, where)
    case = mapping.case_of(value, label or f"{where} {number}")
    if isinstance(case, MappedLine):
        return None if case.problem is None else _unusable(number, case.case_id, case.problem, seen)
    if mapping.derives_ids:
        # The same input again in this run: a case of its own, numbered after the first.
        case["id"] = unused_id(seen, case["id"])
        return CaseLine(number, case["id"], case)
    return checked_case(number, case, seen, where)


def _unusable(number: int, given: Any, problem: str | None, seen: SeenIds) -> CaseLine:
    """An unusable line, named by the id it gives when usable and not taken."""
    case_id = id_of(given)
    if case_id is None or "\x00" in case_id or not seen.add(case_id):
        case_id = unused_id(seen, f"line-{number}")
    return CaseLine(number, case_id, None, problem)


def checked_case(number: int, value: Any, seen: SeenIds, where: str = "line") -> CaseLine:
    """Case ``number`` as the runner takes it: ``value`` when it is an object with a
    usable id not in ``seen`` (which it joins), else an unusable line saying why.

    Args:
        number: The case's 1-based position (its line in a file).
        value: The decoded case.
        seen: The ids taken so far (exactly, in flat memory).
        where: What ``number`` counts in messages (``line`` of a file, ``case`` of a list).
    """
    if not isinstance(value, dict):
        what = f"{where} {number}: a case must be a JSON object, not {json_kind(value)}"
        return CaseLine(number, unused_id(seen, f"line-{number}"), None, what)
    case_id = id_of(value.get("id"))
    if case_id is None or "\x00" in case_id:
        problem = id_problem(where, number, case_id)
        return CaseLine(number, unused_id(seen, f"line-{number}"), None, problem)
    if not seen.add(case_id):
        what = f"{where} {number}: duplicate case id {case_id!r}"
        if FALLBACK_ID.fullmatch(case_id):
            what += " (an earlier line has it, or it names the error rows of an unusable one)"
        return CaseLine(number, unused_id(seen, f"{case_id}@line-{number}"), None, what)
    return CaseLine(number, case_id, value)


def case_lines(
    values: Iterable[Mapping[str, Any] | CaseLine], mapping: CaseMapping | None = None
) -> Iterator[CaseLine]:
    """Cases given in memory, checked as a file's lines are (``CaseLine`` passes as is;
    with a ``mapping``, each other value is a log line mapped to its case)."""
    with closing(SeenIds()) as seen:
        for number, value in enumerate(values, start=1):
            if isinstance(value, CaseLine):
                yield value
                continue
            given = dict(value) if isinstance(value, Mapping) else value
            line = mapped_case(number, given, seen, mapping, "case")
            if line is not None:
                yield line


def sample_cases(cases: Iterator[CaseLine], fraction: float, seed: int) -> Iterator[CaseLine]:
    """Keeps a reproducible random sample of about ``fraction`` of ``cases``.

    Whether a line is kept depends only on ``seed`` and its id (the case id, or for
    an unusable line the ``line-N`` it is reported under): a keyed hash of the two,
    read as a number in [0, 1), is compared with ``fraction``. So the same seed picks
    the same cases whatever their order, however the stream is split or resumed, and
    a larger fraction with the same seed keeps every case a smaller one kept.
    Unusable lines are sampled like the others, so the sample's share of them
    estimates the stream's.
    """
    if not 0 < fraction <= 1:
        raise ValueError(f"sample fraction must be in (0, 1], not {fraction}")
    if fraction == 1:
        yield from cases
        return
    limit = int(fraction * _SAMPLE_SCALE)
    key = seed.to_bytes(16, "big", signed=True)
    for line in cases:
        digest = hashlib.blake2b(line.case_id.encode("utf-8"), digest_size=8, key=key).digest()
        if int.from_bytes(digest, "big") < limit:
            yield line


_SAMPLE_SCALE = 1 << 64


def parse_json_fields(
    case: dict[str, Any], paths: Iterable[FieldPath]
) -> tuple[dict[str, Any], dict[str, str]]:
    """``case`` with the JSON text at each path replaced by the value it holds.

    A contract's ``parse_json`` names fields that hold JSON text (a logged ``output``);
    after this step every claim, the judges and the stored content see the value.
    A value that is not text (already parsed) or a path that finds nothing is left as
    it is; text that is not JSON, or is JSON of a string, is left as text and reported,
    so that parsing a parsed case again changes nothing. ``case`` itself is not
    changed: the nodes on each path are copied.

    Returns:
        The parsed case, and for each field whose text is not JSON its concrete path
        and why (``{"output": "unexpected character: line 1 column 1"}``).
    """
    failures: dict[str, str] = {}
    for path in paths:
        case = _parse_at(case, path.parts, "", failures)
    return case, failures


def _parse_at(node: Any, parts: tuple[str, ...], where: str, failures: dict[str, str]) -> Any:
    if not parts:
        if not isinstance(node, str):
            return node
        try:
            value = loads_exact(node)
        except orjson.JSONDecodeError as exc:
            failures[where] = f"{exc.msg}: line {exc.lineno} column {exc.colno}"
            return node
        if isinstance(value, str):
            # Kept as text, so parsing the stored case again (a recheck) finds the same.
            failures[where] = "it holds a JSON string, not a JSON value to read into"
            return node
        return value
    first, rest = parts[0], parts[1:]
    sep = "." if where else ""
    if isinstance(node, dict):
        keys = list(node) if first == "*" else [first] if first in node else []
        if not keys:
            return node
        copy = dict(node)
        for key in keys:
            copy[key] = _parse_at(node[key], rest, f"{where}{sep}{key}", failures)
        return copy
    if isinstance(node, list):
        if first == "*":
            indexes = range(len(node))
        elif first.isascii() and first.isdigit() and int(first) < len(node):
            indexes = range(int(first), int(first) + 1)
        else:
            return node
        items = list(node)
        for i in indexes:
            items[i] = _parse_at(node[i], rest, f"{where}{sep}{i}", failures)
        return items
    return node

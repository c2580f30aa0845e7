"""What a gate pins of the cases: their identities, not the outputs recorded with them.

A hypothesis is about the same cases (ids, inputs, references), not the same outputs:
the candidate's outputs are the thing under test. So a gate pins the SHA-256 of the
cases with their outputs left out, and every run records it beside its cases file's
sha, so ``compare --gate`` can check both runs.

The outputs left out are the fields a run produces or records, as the contract
names them:

- ``output``, where a case's output is, and ``runs``, where repeated outputs go;
- the contract's ``sut.output`` key, where its system under test writes;
- every path of the contract's ``llm_fields`` (``fields.summary``,
  ``field_meta.*.source_span``): what the contract declares an LLM wrote.

Everything else is the case's identity: its id, input, references, expectations and
any other key. A path is removed where it names a key of an object; a list element
it names is kept as ``null``, so the other elements keep their places.

The digest is over the lines in the file's order, each the canonical JSON of the
case without its outputs (numbers normalised, so ``1`` and ``1.0`` are one value),
followed by a newline; a line that is not JSON enters as its bytes, and blank lines
not at all. It is read as a stream: a cases file can be larger than memory. A suite
document is read whole, each item of its ``cases`` taking the place of a line. Under
a contract's ``cases:`` mapping, each log line is the case it maps to.
"""

from __future__ import annotations

import codecs
import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from verifier._internal.canonical import canonical_json, loads_exact, normalise_numbers
from verifier._internal.case_mapping import CaseMapping
from verifier._internal.otlp_spans import otlp_spans
from verifier._internal.suite_document import SuiteProblem, cases_form, read_suite
from verifier.contract.models import Contract
from verifier.engine.comparative import RUNS_KEY
from verifier.errors import CasesError
from verifier.fieldpath import compile_path

__all__ = ["CaseIdentity", "case_identity", "output_paths"]


@dataclass(frozen=True, slots=True)
class CaseIdentity:
    """The identity of a cases file.

    Attributes:
        sha256: SHA-256 of the cases' identities, in file order.
        cases: How many lines are JSON objects (cases a run can check).
    """

    sha256: str
    cases: int


def output_paths(contract: Contract) -> tuple[str, ...]:
    """The field paths a gate leaves out of a case's identity (see the module)."""
    paths = ["output", RUNS_KEY]
    if contract.sut is not None:
        paths.append(contract.sut.output)
    paths.extend(contract.llm_fields)
    return tuple(dict.fromkeys(paths))


def case_identity(path: Path, contract: Contract) -> CaseIdentity:
    """The identity of the cases in ``path`` under ``contract``'s outputs (a suite
    document's: each item of its ``cases`` as a line).

    Raises:
        OSError: The file cannot be read.
        CasesError: The file is a suite document that cannot be read.
    """
    drops = [compile_path(text).parts for text in output_paths(contract)]
    # A log's lines are taken as the cases they map to (every line, whatever its time),
    # so the identity leaves out the outputs the mapping reads too.
    spec = contract.cases
    mapping = None if spec is None else CaseMapping(spec.fields(), format=spec.format)
    digest = hashlib.sha256()
    cases = 0
    for value in _values(path, mapping):
        if isinstance(value, bytes):
            digest.update(value + b"\n")
            continue
        if isinstance(value, dict):
            cases += 1
            if mapping is not None:
                mapped = mapping.case_of(value, "")
                value = mapped if isinstance(mapped, dict) else {"unmapped": mapped.problem}
            for parts in drops:
                value = _without(value, parts)
        digest.update(canonical_json(normalise_numbers(value)) + b"\n")
    return CaseIdentity(digest.hexdigest(), cases)


def _values(path: Path, mapping: CaseMapping | None) -> Iterator[Any]:
    """Each case as decoded, or as its bytes when the line is not JSON (under an OTLP
    mapping, each GenAI span as its flat line, or its problem's text)."""
    if mapping is not None and mapping.format == "otlp":
        for span in otlp_spans(path):
            yield span.record if span.record is not None else str(span.problem).encode()
        return
    form = cases_form(path)
    if form != "jsonl":
        try:
            yield from read_suite(path, form).cases
        except SuiteProblem as exc:
            raise CasesError(f"{path}: {exc}") from None
        return
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number == 1:
                raw = raw.removeprefix(codecs.BOM_UTF8)
            line = raw.rstrip(b"\r\n")
            if not line.strip():
                continue
            try:
                yield loads_exact(line)
            except orjson.JSONDecodeError:
                yield line


def _without(node: Any, parts: Sequence[str]) -> Any:
    """``node`` without what the path ``parts`` names; the nodes on it are copied."""
    head, rest = parts[0], parts[1:]
    if isinstance(node, dict):
        keys = list(node) if head == "*" else [head] if head in node else []
        if not keys:
            return node
        copy = dict(node)
        for key in keys:
            if rest:
                copy[key] = _without(node[key], rest)
            else:
                del copy[key]
        return copy
    if isinstance(node, list):
        if head == "*":
            places = range(len(node))
        else:
            places = range(int(head), int(head) + 1) if head.isdigit() else range(0)
        places = range(0) if places and places[-1] >= len(node) else places
        if not places:
            return node
        listed = list(node)
        for place in places:
            listed[place] = _without(node[place], rest) if rest else None
        return listed
    return node

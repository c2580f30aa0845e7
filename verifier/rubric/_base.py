"""What every rubric predicate shares: its spec base class, its outcome, its context."""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import AfterValidator, BaseModel, ConfigDict

from verifier._internal.json_words import json_kind
from verifier.fieldpath import MISSING as _MISSING
from verifier.fieldpath import FieldPath, compile_path, json_text_on
from verifier.files import FileScope

Status = Literal["pass", "fail", "error"]


class PredicateSpec(BaseModel):
    """Base of every predicate's parameter model.

    Subclasses declare ``rubric: Literal["<name>"]`` plus their own parameters. Specs
    are frozen and reject unknown keys, so a typo in a contract is an error.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class _OutcomeFields(NamedTuple):
    status: Status
    reason: str
    evidence: dict[str, Any]
    score: float | None


class Outcome(_OutcomeFields):
    """The result of checking one predicate against one case (immutable).

    A named tuple rather than a frozen dataclass: one is built per claim per case, and
    a tuple costs a third as much to build.

    Attributes:
        status: ``pass``, ``fail`` or ``error`` (the check could not be made).
        reason: One sentence a person understands.
        evidence: What a reviewer needs: matched spans and offsets, offending values,
            schema error paths, citation spans not found.
        score: 1.0 for a pass, 0.0 for a fail, ``None`` for an error, unless the
            predicate has a graded score of its own (e.g. a similarity ratio).
    """

    __slots__ = ()

    def __new__(
        cls,
        status: Status,
        reason: str,
        evidence: dict[str, Any] | None = None,
        score: float | None = None,
    ) -> Outcome:
        return _new(cls, (status, reason, {} if evidence is None else evidence, score))

    @property
    def resolved_score(self) -> float | None:
        if self.score is not None or self.status == "error":
            return self.score
        return 1.0 if self.status == "pass" else 0.0


_new = tuple.__new__


def passed(
    reason: str, evidence: dict[str, Any] | None = None, score: float | None = None
) -> Outcome:
    return _new(Outcome, ("pass", reason, evidence or {}, score))


def failed(
    reason: str, evidence: dict[str, Any] | None = None, score: float | None = None
) -> Outcome:
    return _new(Outcome, ("fail", reason, evidence or {}, score))


def errored(reason: str, evidence: dict[str, Any] | None = None) -> Outcome:
    return _new(Outcome, ("error", reason, evidence or {}, None))


def cannot_apply(reason: str, evidence: dict[str, Any]) -> Outcome:
    """The fail of a check that found nothing it can examine: a missing field, a value
    of the wrong kind, text that does not parse. Marked so that a ``not`` above it
    fails too: what could not be checked is no proof of the negation."""
    evidence[CANNOT_APPLY] = True
    return failed(reason, evidence)


def wrong_kind(where: str, value: Any, wanted: str, evidence: dict[str, Any]) -> Outcome:
    """``cannot_apply`` for a value that is not what the check examines (``wanted``:
    ``text``, ``a number``), named as JSON names it: ``output is null, not text``."""
    return cannot_apply(f"{where} is {json_kind(value)}, not {wanted}", evidence)


def unusable_source(where: str, value: Any) -> Outcome:
    """The ``error`` of a check whose yardstick (a citation's ``within``, a similarity's
    ``reference_field``) is not text: nothing about the output was checked, so it is no
    fail of the output (ADR 0062). A list names the ``*`` path that reads each item."""
    reason = f"not checked: {where} is {json_kind(value)}, not text"
    if isinstance(value, list):
        reason += f" (to use each item, write {where}.*)"
    return errored(reason, {"path": where, "kind": json_kind(value)})


def applies(outcome: Outcome) -> bool:
    """Whether the check examined something (``cannot_apply`` marks the fails it did not)."""
    return CANNOT_APPLY not in outcome.evidence


CANNOT_APPLY = "cannot_apply"
"""The evidence key of a fail whose check could not apply (see ``cannot_apply``)."""

Check = Callable[[Mapping[str, Any]], Outcome]
"""A prepared predicate: compiled once per claim, then called once per case."""


@dataclass(frozen=True, slots=True)
class PrepareContext:
    """What preparing a predicate may need beyond its spec.

    Attributes:
        base_dir: Directory of the contract file, whose tree relative files
            (``schema_file``) are resolved in and confined to, or the contract's
            ``FileScope``.
        llm_fields: Paths the contract declares as written by an LLM.
    """

    base_dir: Path | FileScope = Path(".")
    llm_fields: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PredicateEntry:
    """A predicate registered under its YAML name.

    Attributes:
        name: The value of ``rubric:`` in a contract.
        spec: Its parameter model.
        prepare: Turns a validated spec into a ``Check``.
        doc: One paragraph for users: what it checks, pass and fail.
        example: A complete example claim (as the YAML mapping) that lints clean.
        needs_model_call: Whether evaluating it calls a model (never, for rubric).
    """

    name: str
    spec: type[PredicateSpec]
    prepare: Callable[[Any, PrepareContext], Check]
    doc: str
    example: dict[str, Any]
    needs_model_call: bool = False


def describe(value: Any, limit: int = 60) -> str:
    """A short, readable rendering of a value for reasons."""
    try:
        text = repr(value)
    except RecursionError:
        # A case value nested deeper than repr can walk (JSON allows it): the
        # outer levels are what a reader needs.
        text = _SHALLOW.repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_SHALLOW = reprlib.Repr()
_SHALLOW.maxlevel = 8


def field_path(text: str) -> FieldPath:
    return compile_path(text)


def for_each_value(
    path: FieldPath, case: Mapping[str, Any], check: Callable[[str, Any], Outcome]
) -> Outcome:
    """Applies ``check`` to every value the path finds.

    A path that finds nothing is a fail naming the path. With a wildcard, every value
    must pass; the first that does not decides the outcome and its concrete path is
    named in the evidence. A graded score (similarity) survives as the lowest of the
    values' scores, so a wildcard cannot hide a weak match behind a 1.0.
    """
    if not path.has_wildcard:
        value = path.get(case)
        if value is _MISSING:
            return field_missing(path, case)
        return check(path.text, value)
    return _for_each_found(path, case, check)


def each_value(path: FieldPath, check: Callable[[str, Any], Outcome]) -> Check:
    """Returns the ``Check`` that is ``for_each_value(path, case, check)`` for each case.

    Built once per claim, so a path without wildcards costs one lookup and one call
    per case rather than a walk through ``for_each_value``.
    """
    if path.has_wildcard:

        def check_all(case: Mapping[str, Any]) -> Outcome:
            return _for_each_found(path, case, check)

        return check_all
    get = path.getter()
    text = path.text

    def check_one(case: Mapping[str, Any]) -> Outcome:
        value = get(case)
        if value is _MISSING:
            return field_missing(path, case)
        return check(text, value)

    return check_one


def field_missing(
    path: FieldPath, case: Mapping[str, Any], what: str = "field {} is missing"
) -> Outcome:
    """The fail of a path that finds nothing in ``case`` (``what`` words it, ``{}`` the
    path), with the fix when the path runs into JSON text: ``parse_json``."""
    reason = what.format(path.text)
    evidence: dict[str, Any] = {"path": path.text, "field_missing": True}
    text = json_text_on(path, case)
    if text is not None:
        reason += f" ({text} is JSON text; add parse_json: [{text}])"
        evidence["json_text"] = text
    return cannot_apply(reason, evidence)


def _for_each_found(
    path: FieldPath, case: Mapping[str, Any], check: Callable[[str, Any], Outcome]
) -> Outcome:
    found = path.find(case)
    if not found:
        return field_missing(path, case, "no value found at {}")
    last: Outcome | None = None
    low: float | None = None
    for concrete, value in found:
        last = check(concrete, value)
        if last.status != "pass":
            return last
        if last.score is not None and (low is None or last.score < low):
            low = last.score
    assert last is not None
    return passed(
        f"all {len(found)} values at {path.text} pass: {last.reason}",
        {"count": len(found), **last.evidence},
        low,
    )


def llm_written(case: Mapping[str, Any], path_text: str) -> bool:
    """Whether the case's ``field_meta`` marks the field at ``path_text`` as LLM-written.

    ``field_meta`` is keyed by field name (``industry``) rather than full path, so a
    key ``K`` covers ``K`` itself, ``fields.K`` and any path ending in ``.K``.
    """
    meta = case.get("field_meta")
    if not isinstance(meta, Mapping):
        return False
    for key, info in meta.items():
        if not isinstance(info, Mapping) or info.get("source") != "llm":
            continue
        if names_field(path_text, str(key)):
            return True
    return False


def names_field(path_text: str, key: str) -> bool:
    """Whether the path ``path_text`` is the field a ``field_meta`` key names: ``K``
    itself, ``fields.K`` or any path ending in ``.K``."""
    return path_text == key or path_text == "fields." + key or path_text.endswith("." + key)


def fold_case(text: str) -> tuple[str, list[int] | None]:
    """Case-folds ``text`` and maps offsets in the folded text back to ``text``.

    Full case folding can lengthen a character (``ß`` becomes ``ss``), so an offset
    found in the folded text is not always an offset in the original. The map is
    ``None`` when the lengths agree: each character then folded to exactly one.

    Returns:
        The folded text and, when needed, the original index of every folded character.
    """
    folded = text.casefold()
    if len(folded) == len(text):
        return folded, None
    # Folded character by character so the map and the folded text agree by construction.
    pieces: list[str] = []
    index: list[int] = []
    for i, char in enumerate(text):
        piece = char.casefold()
        pieces.append(piece)
        index.extend([i] * len(piece))
    return "".join(pieces), index


def original_span(index: list[int] | None, start: int, end: int) -> tuple[int, int]:
    """Maps a ``[start, end)`` span of folded text back to the original text."""
    if index is None or end <= start:
        return start, end
    return index[start], index[end - 1] + 1


def clip(value: Any, limit: int = 200) -> Any:
    """A value fit for evidence: scalars and short strings as they are, others shortened.

    Evidence is stored with every gap row, so a whole document must not ride along
    just because it was the offending value.
    """
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return value if len(value) <= limit else value[: limit - 1] + "…"
    return describe(value, limit)


def _compiles(text: str) -> str:
    compile_path(text)  # FieldPathError is a ValueError, so pydantic reports it
    return text


PathText = Annotated[str, AfterValidator(_compiles)]
"""A field path in a spec, checked for form when the contract is validated."""


def plural(count: int, noun: str) -> str:
    """``1 word``, ``2 words``: counts in reasons read as sentences."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"

"""Redaction of gap rows: a redacted field's value leaves no trace in a row.

The content record already keeps only the hash of a redacted field. But a row's
``reason`` and ``evidence`` are written from the case too: a regex match span, an
enum reason quoting the value, a judge's reasoning quoting the output, a citation
span. For a case whose contract redacts fields, ``Redactor`` rewrites each of its
results before it becomes a row:

* every string in the reason and the evidence loses each whole redacted value and
  every run of ``QUOTE_CHARS`` or more characters copied from one (a quote, a match
  span), replaced by ``[redacted]``;
* the evidence of a rubric claim that reads a redacted field is replaced by
  ``{"redacted": [paths]}``: a span shorter than a quote (a three-digit match) would
  survive the scrub, and such evidence holds nothing but values of that field;
* a judge's triple (``evidence.judge``: model, prompt and sampling hashes) and a
  prompt system's (``evidence.sut.triple``) are kept as they are, so the audit still
  checks and groups those rows; the rest of ``evidence.sut`` is kept, scrubbed, even
  where the other evidence is replaced;
* the mark of a claim that did not apply to the case (``evidence.not_applicable``, a
  path of the contract) is kept, so the row still weighs nothing in the case's score.

Redacting overshoots rather than undershoots: any text of a row that happens to share
``QUOTE_CHARS`` characters with a redacted value is replaced too.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from typing import Any

from verifier.fieldpath import compile_path, paths_overlap
from verifier.gaps.content import REDACTED_MARK, RecordPolicy
from verifier.results import NOT_APPLICABLE, ClaimResult

__all__ = [
    "QUOTE_CHARS",
    "Redactor",
    "claim_paths",
    "joined",
    "mark_runs",
    "texts_of",
    "windows",
]

QUOTE_CHARS = 12
"""Shortest run of characters copied from a redacted value that is scrubbed as a quote."""

# A triple ties a row to the model, prompt and sampling that judged it (``judge``)
# or produced its output (``sut.triple``): hashes and a model id, never case text, and
# the audit needs them whole. ``None``: the whole entry is the triple.
_TRIPLES: dict[str, str | None] = {"judge": None, "sut": "triple"}
# Keys of a rubric spec (or a findings claim) that name a field it reads, besides ``field``.
_PATH_KEYS = ("spans", "within", "reference_field", "expected")


class Redactor:
    """Rewrites a contract's claim results so no redacted value reaches a row.

    Args:
        policy: The run's record policy; only ``redact`` matters here.
        rubric_paths: For each rubric claim id, the field paths it reads.
    """

    def __init__(self, policy: RecordPolicy, rubric_paths: Mapping[str, Sequence[str]]) -> None:
        self._paths = tuple(compile_path(p) for p in policy.redact)
        self._reads = {
            claim_id: sorted({r for r in policy.redact for p in paths if paths_overlap(p, r)})
            for claim_id, paths in rubric_paths.items()
        }

    def for_case(self, case: Mapping[str, Any]) -> _CaseScrub | None:
        """The scrub for one case, or ``None`` when none of its values is redacted."""
        values: set[str] = set()
        for path in self._paths:
            for _, value in path.find(case):
                values.update(texts_of(value))
        # Blank values say nothing, and scrubbing every space would leave no text.
        values = {v for v in values if v.strip()}
        return _CaseScrub(values, self._reads) if values else None


class _CaseScrub:
    def __init__(self, values: set[str], reads: Mapping[str, Sequence[str]]) -> None:
        # Longest first: a value that contains another is replaced whole.
        self._values = sorted(values, key=len, reverse=True)
        self._value_set = frozenset(values)
        self._grams: set[str] = set()
        for value in values:
            self._grams.update(windows(value))
        self._reads = reads

    def result(self, result: ClaimResult) -> ClaimResult:
        """The result as it may be stored: reason and evidence scrubbed."""
        read = self._reads.get(result.claim_id) if result.kind == "rubric" else None
        evidence: dict[str, Any] = {}
        for key, value in result.evidence.items():
            if key in _TRIPLES and isinstance(value, Mapping):
                # Provenance is kept (scrubbed) even where the rest is withheld.
                triple = _TRIPLES[key]
                evidence[key] = {
                    k: (v if k == triple or triple is None else self._value(v))
                    for k, v in value.items()
                }
            elif key == NOT_APPLICABLE:
                evidence[key] = value
            elif not read:
                evidence[key] = self._value(value)
        if read:
            evidence["redacted"] = list(read)
        reason = self.text(result.reason) if isinstance(result.reason, str) else result.reason
        return ClaimResult(
            result.claim_id, result.kind, result.status, result.score, reason, evidence
        )

    def text(self, text: str) -> str:
        """A string with every redacted value and every quote of one replaced."""
        for value in self._values:
            if value in text:
                text = text.replace(value, REDACTED_MARK)
        return mark_runs(text, self._grams, REDACTED_MARK)

    def _value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self._value(k): self._value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self._value(v) for v in value]
        if isinstance(value, int | float) and not isinstance(value, bool):
            # A number equal to a redacted value (an ARR copied into "actual") is one.
            return REDACTED_MARK if str(value) in self._value_set else value
        return value


def texts_of(value: Any, *, numbers: bool = True) -> Iterable[str]:
    """Every string leaf of a value, and numbers as written (unless ``numbers`` is false)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from texts_of(item, numbers=numbers)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from texts_of(item, numbers=numbers)
    elif numbers and isinstance(value, int | float) and not isinstance(value, bool):
        yield str(value)


def mark_runs(text: str, grams: Set[str] | str, mark: str) -> str:
    """``text`` with every run of ``QUOTE_CHARS`` or more characters whose every
    ``QUOTE_CHARS``-window is one of ``grams`` replaced by one ``mark``.

    ``grams`` is a set of windows, or a string whose substrings they are (``joined``:
    the windows of strings, without building the set of them).
    """
    n = QUOTE_CHARS
    if not grams or len(text) < n or not _may_hold(text, grams):
        return text
    covered = [False] * len(text)
    for i in range(len(text) - n + 1):
        if text[i : i + n] in grams:
            covered[i : i + n] = [True] * n
    if not any(covered):
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        if covered[i]:
            while i < len(text) and covered[i]:
                i += 1
            out.append(mark)
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _may_hold(text: str, grams: Set[str] | str) -> bool:
    """Whether a window of ``text`` may be one of ``grams`` (``False``: none is).

    In a string of them, every fourth 8-character piece of ``text`` is looked for: a
    window found there holds one of them (the one starting at or just after the
    window's start), so a quarter of the searches rule out most texts.
    """
    if not isinstance(grams, str):
        return any(map(grams.__contains__, windows(text)))
    pieces = map(slice, range(0, len(text) - 7, 4), range(8, len(text) + 1, 4))
    return any(map(grams.__contains__, map(text.__getitem__, pieces)))


def joined(texts: Iterable[str]) -> str:
    """``texts`` as one string whose ``QUOTE_CHARS``-character substrings are their
    windows (``mark_runs``' ``grams``), each apart from the next by a NUL: a window
    across two of them holds the NUL, so only a text with one can match it."""
    return "\x00".join(texts)


def windows(text: str, size: int = QUOTE_CHARS) -> Iterator[str]:
    """Every ``size``-character window of ``text``, in order (none when shorter),
    sliced without a Python-level loop."""
    starts = range(len(text) - size + 1)
    return map(text.__getitem__, map(slice, starts, range(size, len(text) + 1)))


def claim_paths(spec: Any, inherited: str | None = None) -> list[str]:
    """The field paths a rubric claim reads, combinators' inner claims included.

    Args:
        spec: The claim as a mapping (``model_dump()`` of a rubric claim).
        inherited: The ``field`` a combinator passes down to its inner claims.
    """
    if not isinstance(spec, Mapping):
        return []
    field = spec.get("field") or inherited
    found = [field] if isinstance(field, str) else []
    found.extend(p for key in _PATH_KEYS if isinstance(p := spec.get(key), str))
    inner = spec.get("of")
    for item in inner if isinstance(inner, list | tuple) else ():
        found.extend(claim_paths(item, field if isinstance(field, str) else None))
    return found

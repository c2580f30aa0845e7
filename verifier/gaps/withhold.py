"""Rows of a run that keeps no case text: ``record: content: hashes`` or ``none``.

Such a run stores no content, so its rows must not carry the case either: a regex
span, an enum's value, a ``found`` list, a JSON Schema message, a judge's reasoning
and the reasons that quote them are all copies of the case (or, for a judge, model
text about it). ``Withholder`` rewrites each result of a case before it becomes a row
(and before the run's reports show it, so a resumed run reports what the store holds):

* the evidence keeps its shape, its numbers, booleans and positions; a string in it
  is kept only when it is the contract's own text (a path, a pattern, a listed value,
  a criterion, a judge's name) and not a whole value of the case, or one of the few
  fixed words a check writes (``pass``, ``tie``...). Any other string, and any number
  the case holds, becomes ``{"withheld": "case text", "length": N}``: fail-closed, so
  a string a new predicate adds is withheld until it is known to be safe;
* ``reason`` strings (the row's and a combinator item's) lose every string the
  evidence withheld, every whole value of the case of four characters or more (a
  shorter one when quoted), and every run of ``QUOTE_CHARS`` characters copied from
  the case (in its escaped forms too); a reason left with nothing but marks says
  that what it quoted is not recorded;
* a judge's triple (``judge``), a prompt system's (``sut.triple``), the vendor's
  ``response_id`` and served models, and ``not_applicable`` stay whole; the rest of
  ``sut`` (a system's command, its stderr tail) is scrubbed as a reason is.

No hash of a withheld string is kept: a hash of a short span is the span to anyone who
tries the candidates, and ``hashes`` promises no hash of a single value (the row's
``content_sha256`` already proves the whole case to whoever holds it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from json.encoder import encode_basestring_ascii as _json_string  # json.dumps of a str
from typing import Any

from verifier.gaps.content import ContentMode
from verifier.gaps.redact import joined, mark_runs, texts_of
from verifier.results import NOT_APPLICABLE, ClaimResult

__all__ = ["WITHHELD_MARK", "Withholder", "withheld_facts"]

WITHHELD_MARK = "[withheld]"
"""What stands in a reason where it quoted the case."""

# Whole values shorter than this are scrubbed from reasons only where quoted: "1" or
# "yes" anywhere would take every digit and word of "1 of 1 value" with them.
_SHORT = 4
# Kept whole: provenance a model or vendor wrote about the call, never case text.
_WHOLE_KEYS = frozenset(
    {"judge", "response_id", "served_models", "served_mismatch", NOT_APPLICABLE}
)
# Free text a check writes, quoting the case at most: scrubbed, not withheld.
_REASON_KEYS = frozenset({"reason"})
# Words checks and judges write into evidence (statuses, kinds, a pairwise choice).
_VOCABULARY = frozenset(
    {"pass", "fail", "error", "skipped", "binary", "scale", "pairwise", "critique"}
    | {"compliance", "tie", "a", "b", "1", "2", "rubric", "judge", "comparative"}
)
# Strings of up to this many characters are remembered, per case, as holding none of it.
_KEPT_UP_TO = 64
_ONLY_MARKS = re.compile(r"[\W_]*(?:\[withheld\][\W_]*)+")


def withheld_facts(text: str) -> dict[str, Any]:
    """What a row keeps of a string copied from the case: that it was withheld, and its length."""
    return {"withheld": "case text", "length": len(text)}


class Withholder:
    """Rewrites a run's claim results so that no case text reaches a row.

    Args:
        mode: The run's content mode (``hashes`` or ``none``), named in reworded reasons.
        contract: The contract as a mapping (``model_dump()``): its strings may stay.
    """

    def __init__(self, mode: ContentMode, contract: Any) -> None:
        self._mode = mode
        self._contract = frozenset(texts_of(contract, numbers=False))

    def for_case(self, case: Mapping[str, Any]) -> CaseWithhold:
        """The rewrite for one case (the case as its claims read it)."""
        values: set[str] = set()
        # The names of a case's fields are its structure, as a contract's paths are:
        # the paths a wildcard or a JSON Schema error points at stay readable.
        paths: set[str] = set()
        for value in texts_of(case):
            values.add(value)
            if value.lstrip().startswith(("{", "[")):
                try:
                    parsed = json.loads(value)
                except (ValueError, RecursionError):
                    continue
                values.update(texts_of(parsed))
                _paths_of(parsed, "", "/", paths)
        _paths_of(case, "", ".", paths)
        return CaseWithhold({v for v in values if v.strip()}, self._contract | paths, self._mode)


class CaseWithhold:
    """The rewrite of one case's results (see the module docstring).

    What every result of the case is scrubbed of is worked out once, here: the case's
    values longest first, the forms a reason may quote them in (``repr``, JSON), and
    every ``QUOTE_CHARS``-character window of them (as the one string they are the
    substrings of: no set of them is built); a result then costs a substring test per
    value and form, and one per window, for each of its strings.
    """

    def __init__(self, values: set[str], kept: frozenset[str], mode: ContentMode) -> None:
        self._values = values
        self._kept = kept
        self._mode = mode
        self._grams = _grams(values)
        self._long = sorted((v for v in values if len(v) >= _SHORT), key=len, reverse=True)
        self._forms = [form for v in values for form in (repr(v), _json_string(v))]
        self._absent: dict[str, bool] = {}

    def result(self, result: ClaimResult) -> ClaimResult:
        """The result as it may be stored: no text of the case in reason or evidence."""
        found: set[str] = set()
        self._collect(result.evidence, found)
        quotes = _Quotes(self._long, found)
        evidence = {
            key: self._evidence(key, value, quotes) for key, value in result.evidence.items()
        }
        reason = self.text(result.reason, quotes, _grams(found))
        if reason != result.reason and _ONLY_MARKS.fullmatch(reason):
            reason = (
                f"{result.status}: the reason quoted the case, which this run does not "
                f"record (content: {self._mode})"
            )
        return ClaimResult(
            result.claim_id, result.kind, result.status, result.score, reason, evidence
        )

    def text(self, text: str, quotes: _Quotes, grams: str = "") -> str:
        """``text`` with every quote of the case replaced by ``[withheld]``: the case's
        values of ``_SHORT`` characters or more and the strings the evidence withheld
        (``quotes``) whole, every value in its escaped forms, and runs of
        ``QUOTE_CHARS`` characters of the case or of ``grams`` (those of the strings the
        evidence withheld, which a reason may quote cut short)."""
        if quotes.absent_from(text) and self._absent_from(text):
            return mark_runs(text, grams, WITHHELD_MARK)
        for value in quotes.longest_first():
            if value in text:
                text = text.replace(value, WITHHELD_MARK)
        for form in self._forms:
            if form in text:
                text = text.replace(form, WITHHELD_MARK)
        text = mark_runs(text, self._grams, WITHHELD_MARK)
        return mark_runs(text, grams, WITHHELD_MARK)

    def _absent_from(self, text: str) -> bool:
        """Whether ``text`` holds no value of the case, no form of one and no window of
        one (the scrub leaves it as it is); kept for the short strings every result of
        the case has (the keys of its evidence)."""
        known = self._absent.get(text)
        if known is None:
            known = (
                not any(map(text.__contains__, self._long))
                and not any(map(text.__contains__, self._forms))
                and mark_runs(text, self._grams, WITHHELD_MARK) == text
            )
            if len(text) <= _KEPT_UP_TO:
                self._absent[text] = known
        return known

    def _keeps(self, text: str) -> bool:
        if text in self._values:
            return False
        return text in self._kept or text in _VOCABULARY

    def _collect(self, value: Any, found: set[str], key: str = "") -> None:
        """Every string of the evidence that will be withheld (to scrub it from reasons)."""
        if key in _WHOLE_KEYS or key in _REASON_KEYS:
            return
        if isinstance(value, str):
            if not self._keeps(value) and value.strip():
                found.add(value)
        elif isinstance(value, list | tuple):
            for v in value:
                self._collect(v, found, key)
        elif isinstance(value, dict | Mapping):
            for k, v in value.items():
                self._collect(v, found, str(k))
        elif _is_number(value) and str(value) in self._values:
            found.add(str(value))

    def _evidence(self, key: str, value: Any, quotes: _Quotes) -> Any:
        if key in _WHOLE_KEYS:
            return value
        if key == "sut" and isinstance(value, Mapping):
            return {
                k: v if k == "triple" else self._scrubbed(v, quotes, fail_closed=k == "calls")
                for k, v in value.items()
            }
        if key in _REASON_KEYS and isinstance(value, str):
            return self.text(value, quotes)
        if isinstance(value, str):
            return value if self._keeps(value) else withheld_facts(value)
        if isinstance(value, dict | Mapping):
            return {
                self.text(str(k), quotes): self._evidence(str(k), v, quotes)
                for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            return [self._evidence(key, v, quotes) for v in value]
        if _is_number(value) and str(value) in self._values:
            return withheld_facts(str(value))
        return value

    def _scrubbed(self, value: Any, quotes: _Quotes, *, fail_closed: bool) -> Any:
        """A system's description is scrubbed; what its calls wrote (stderr) is withheld."""
        if isinstance(value, str):
            if fail_closed and not self._keeps(value) and not value.isdigit():
                return withheld_facts(value)
            return self.text(value, quotes)
        if isinstance(value, Mapping):
            return {k: self._scrubbed(v, quotes, fail_closed=fail_closed) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self._scrubbed(v, quotes, fail_closed=fail_closed) for v in value]
        return value


class _Quotes:
    """What one result's texts lose whole: the case's values of ``_SHORT`` characters or
    more, and the strings its evidence withheld (``found``), longest first so a value
    that contains another is replaced whole (put in order once, when first asked)."""

    def __init__(self, long: list[str], found: set[str]) -> None:
        self._long = long
        self._found = found
        self._ordered: list[str] | None = None

    def absent_from(self, text: str) -> bool:
        """Whether ``text`` holds none of the strings the evidence withheld."""
        return not any(map(text.__contains__, self._found))

    def longest_first(self) -> list[str]:
        if self._ordered is None:
            more = self._found.difference(self._long)
            self._ordered = (
                sorted({*self._long, *more}, key=len, reverse=True) if more else self._long
            )
        return self._ordered


def _is_number(value: Any) -> bool:
    kind = type(value)
    return kind is int or kind is float or (kind is not bool and isinstance(value, int | float))


def _grams(values: Iterable[str]) -> str:
    """Every ``QUOTE_CHARS``-character window of the values, also as repr and JSON
    escape them, so a quote of a text with a newline or a quote mark in it is caught:
    as one string they are the substrings of (``redact.joined``)."""
    return joined({f for v in values for f in (v, repr(v)[1:-1], _json_string(v)[1:-1])})


def _paths_of(value: Any, prefix: str, sep: str, out: set[str]) -> None:
    """Every path of ``value``'s keys and indexes (``a.b.0``, or ``/a/b/0`` for JSON
    pointers), ``prefix`` before each."""
    items: Iterable[tuple[Any, Any]]
    if isinstance(value, Mapping):
        items = value.items()
    elif isinstance(value, list | tuple):
        items = enumerate(value)
    else:
        return
    for key, item in items:
        path = f"{prefix}{sep}{key}" if prefix or sep == "/" else str(key)
        out.add(path)
        _paths_of(item, path, sep, out)

"""Checking a findings claim: the output's findings matched with the case's expected ones.

Items are read from the output (a list of objects, or numbered text lines under
``parse: numbered``) and from the case's expected list. Two items match when every
``match_on`` key agrees, compared without case, surrounding spaces or the separators
space, ``_`` and ``-`` (``Edge cases`` is ``edge_cases``); the wording of a finding
never matters. Matching is one to one: each expected item in order takes the first
output item not yet taken that agrees with it. Agreement is equality of the keys, so
two items that agree with a third agree with each other and this greedy matching is a
maximum one (no other pairing matches more); the order only decides which of several
equal items are named missed or unexpected.

recall = matched / expected and precision = matched / output items; a list with no
items has nothing missed (recall 1) or nothing false (precision 1). The claim's score
is the measure its thresholds name: recall under ``min_recall`` alone, precision under
``min_precision`` alone, their harmonic mean (F1) under both. An output that cannot be
read, or a case without its expected list, is an ``error``: nothing was checked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from verifier._internal.canonical import canonical_json
from verifier._internal.json_words import json_kind
from verifier.contract.findings import FindingsClaim
from verifier.fieldpath import MISSING, closest_path, compile_path, json_text_on
from verifier.rubric._base import Check, Outcome, clip, errored, failed, passed

_ITEM = re.compile(r"^\s*\d+[.)]\s")
_NUMBERED = re.compile(
    r"^\s*\d+[.)]\s+\[(?P<severity>[^\]]*[^\]\s][^\]]*)\]\s*(?P<dimension>[^:]*[^:\s])\s*"
    r"(?::\s*(?P<text>.*?))?\s*$"
)
_SEPARATORS = re.compile(r"[\s_-]+")
_SHOWN = 20
"""At most this many missed or unexpected items are kept in the evidence."""


class UnreadableFindings(Exception):
    """Why a list of findings could not be read (the claim's row is an ``error``)."""


def parse_numbered(text: str) -> list[dict[str, Any]]:
    """The findings of a numbered list: one per line ``N. [severity] dimension: text``
    (``N)`` too; the text after the colon is optional). Lines that are not numbered
    (a preamble, a continuation) are passed over; text with no numbered line holds no
    findings.

    Raises:
        UnreadableFindings: A numbered line does not follow the form (naming the line).
    """
    items: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not _ITEM.match(line):
            continue
        found = _NUMBERED.match(line)
        if found is None:
            raise UnreadableFindings(
                f"line {number} is numbered but not `N. [severity] dimension: text`: "
                f"{clip(line.strip(), 80)!r}"
            )
        items.append(
            {
                "dimension": found["dimension"].strip(),
                "severity": found["severity"].strip(),
                "text": (found["text"] or "").strip(),
                "line": number,
            }
        )
    return items


def normalised(value: Any) -> str:
    """A key's value as it is compared: text without case, surrounding spaces or
    separators (space, ``_``, ``-``); anything else as its canonical JSON, so a number
    matches its text (a numbered line's ``[3]`` is severity ``3``)."""
    if isinstance(value, str):
        return _SEPARATORS.sub(" ", value.casefold()).strip()
    return canonical_json(value).decode("utf-8")


def _listed(value: Any, where: str, *, output: bool) -> list[Any]:
    if isinstance(value, list):
        return value
    if isinstance(value, str) and output:
        raise UnreadableFindings(
            f"{where} is text, not a list of findings (parse: numbered reads numbered "
            f"lines; parse_json: [{where}] reads JSON text)"
        )
    raise UnreadableFindings(f"{where} is {json_kind(value)}, not a list of findings")


def _keys(items: Sequence[Any], where: str, match_on: Sequence[str]) -> list[tuple[str, ...]]:
    keys = []
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise UnreadableFindings(f"{where}.{index} is {json_kind(item)}, not an object")
        absent = [k for k in match_on if k not in item]
        if absent:
            raise UnreadableFindings(f"{where}.{index} has no {absent[0]!r}")
        keys.append(tuple(normalised(item[k]) for k in match_on))
    return keys


def read_findings(value: Any, where: str, parse: str) -> list[Any]:
    """The findings an output holds: ``value`` read as ``parse`` says (``json``, a list
    of objects; ``numbered``, text of numbered lines, see ``parse_numbered``).

    Raises:
        UnreadableFindings: ``value`` (at ``where``) is not what ``parse`` reads.
    """
    if parse != "numbered":
        return _listed(value, where, output=True)
    if not isinstance(value, str):
        raise UnreadableFindings(f"{where} is {json_kind(value)}, not text")
    return parse_numbered(value)


def finding_types(
    value: Any, where: str, parse: str, match_on: Sequence[str]
) -> frozenset[tuple[str, ...]]:
    """The set of an output's finding types: each finding's ``match_on`` values,
    normalised as a findings claim compares them, repeats counted once.

    Raises:
        UnreadableFindings: The output cannot be read, or a finding lacks a key.
    """
    if parse == "numbered" and isinstance(value, str):
        try:
            items = parse_numbered(value)
        except UnreadableFindings as exc:  # which of several outputs: named
            raise UnreadableFindings(f"{where}: {exc}") from None
    else:
        items = read_findings(value, where, parse)
    return frozenset(_keys(items, where, match_on))


def match_greedy(
    expected: Sequence[tuple[str, ...]], actual: Sequence[tuple[str, ...]]
) -> list[tuple[int, int]]:
    """Pairs ``(expected index, actual index)`` matched one to one: each expected item
    in order takes the first actual item not taken with equal keys (a maximum matching,
    as equality is transitive: see the module docstring)."""
    free: dict[tuple[str, ...], list[int]] = {}
    for index, key in enumerate(actual):
        free.setdefault(key, []).append(index)
    pairs = []
    for index, key in enumerate(expected):
        waiting = free.get(key)
        if waiting:
            pairs.append((index, waiting.pop(0)))
    return pairs


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


def _shown(item: Any) -> Any:
    if isinstance(item, Mapping):
        return {str(k): clip(v) for k, v in item.items()}
    return clip(item)


class _FindingsCheck:
    """The prepared check of one findings claim (called once per case)."""

    def __init__(self, claim: FindingsClaim) -> None:
        self.claim = claim
        self.field = compile_path(claim.field)
        self.expected = compile_path(claim.expected)

    def __call__(self, case: Mapping[str, Any]) -> Outcome:
        claim = self.claim
        try:
            found = self._value(case, self.expected, "expected findings")
            expected = _listed(found, claim.expected, output=False)
            actual_value = self._value(case, self.field, "output")
            actual = read_findings(actual_value, claim.field, claim.parse)
            wanted = _keys(expected, claim.expected, claim.match_on)
            got = _keys(actual, claim.field, claim.match_on)
        except UnreadableFindings as exc:
            where = {
                "field": claim.field,
                "expected": claim.expected,
                "match_on": list(claim.match_on),
            }
            return errored(f"not checked: {exc}", where)
        return self._outcome(expected, actual, match_greedy(wanted, got))

    def _value(self, case: Mapping[str, Any], path: Any, what: str) -> Any:
        value = path.get(case)
        if value is not MISSING:
            return value
        near = closest_path(case, path.text)
        text = json_text_on(path, case)
        hint = (
            f" ({text} is JSON text; add parse_json: [{text}])"
            if text is not None
            else f" (closest: {near})"
            if near
            else ""
        )
        raise UnreadableFindings(f"no {what} at {path.text}{hint}")

    def _outcome(
        self, expected: list[Any], actual: list[Any], pairs: list[tuple[int, int]]
    ) -> Outcome:
        claim = self.claim
        recall = _share(len(pairs), len(expected))
        precision = _share(len(pairs), len(actual))
        f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
        taken_e, taken_a = {e for e, _ in pairs}, {a for _, a in pairs}
        missed = [_shown(x) for i, x in enumerate(expected) if i not in taken_e]
        unexpected = [_shown(x) for i, x in enumerate(actual) if i not in taken_a]
        evidence: dict[str, Any] = {
            "recall": recall,
            "precision": precision,
            "f1": f1,
            "expected_count": len(expected),
            "actual_count": len(actual),
            "matched": [
                {"expected": e, "actual": a, **{k: clip(expected[e][k]) for k in claim.match_on}}
                for e, a in pairs
            ],
            "missed": missed[:_SHOWN],
            "unexpected": unexpected[:_SHOWN],
            "match_on": list(claim.match_on),
            "min_recall": claim.min_recall,
            "min_precision": claim.min_precision,
        }
        checks = [
            ("recall", recall, len(pairs), len(expected), claim.min_recall),
            ("precision", precision, len(pairs), len(actual), claim.min_precision),
        ]
        parts, ok = [], True
        for name, value, part, whole, floor in checks:
            said = f"{name} {part}/{whole} ({value:.0%})"
            if floor is not None:
                holds = value >= floor
                ok = ok and holds
                said += f" {'>=' if holds else '<'} min_{name} {floor:g}"
            parts.append(said)
        reason = "; ".join(parts) + _names("missed", missed, claim.match_on)
        reason += _names("unexpected", unexpected, claim.match_on)
        if claim.min_recall is not None and claim.min_precision is not None:
            score = f1
        else:
            score = recall if claim.min_recall is not None else precision
        return (passed if ok else failed)(reason, evidence, score)


def _names(label: str, items: Sequence[Any], match_on: Sequence[str]) -> str:
    """``; missed: docstring (critical), ...`` for a reason, three items at most."""
    if not items:
        return ""
    shown = [
        " ".join(str(item.get(k)) for k in match_on[:1])
        + (f" ({', '.join(str(item.get(k)) for k in match_on[1:])})" if match_on[1:] else "")
        for item in items[:3]
    ]
    more = f" and {len(items) - 3} more" if len(items) > 3 else ""
    return f"; {label}: {', '.join(shown)}{more}"


def prepare_findings(claim: FindingsClaim) -> Check:
    """The ``Check`` of a findings claim, compiled once for every case."""
    return _FindingsCheck(claim)

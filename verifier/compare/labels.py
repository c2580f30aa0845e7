"""Human labels for calibrating a judge: a JSONL file, one label a line.

Each line is ``{"case_id": ..., "claim_id": ..., "label": "pass" | "fail" | <number>,
"rater": ...}``: a person's verdict on one claim for one case, or their score on the
claim's scale. ``rater`` is optional; several raters may label the same case and claim,
but one rater labels it once. ``note`` may hold a free-text remark.

A line without ``claim_id`` labels a whole case (``verifier.compare.case_labels``):
``{"case_id": ..., "thumbs": "up" | "down"}`` (``true``/``false`` and ``1``/``0`` mean
up/down too) or ``{"case_id": ..., "score": <number>}``. One file may mix both kinds.

Every line is checked, and every problem is reported as ``FILE:LINE: message``.
"""

from __future__ import annotations

import codecs
import hashlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from verifier.errors import VerifierError

__all__ = ["CaseLabel", "HumanLabel", "LabelSet", "LabelsError", "read_labels"]

_KEYS = frozenset({"case_id", "claim_id", "label", "rater", "note"})
_CASE_KEYS = frozenset({"case_id", "thumbs", "score", "rater", "note"})
# The thumbs a case label may give, and whether each is up. JSON's true/false and 1/0
# are accepted as up/down (a spreadsheet export often writes them so).
_THUMBS: dict[Any, bool] = {"up": True, "down": False}


class LabelsError(VerifierError):
    """A labels file that cannot be used; one ``FILE:LINE: message`` per problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass(frozen=True, slots=True)
class HumanLabel:
    """One person's label of one claim on one case.

    Attributes:
        case_id: The case labelled.
        claim_id: The claim labelled.
        verdict: ``pass`` or ``fail`` when the label is a verdict, else ``None``.
        score: The score given on the claim's scale when the label is a number.
        rater: Who labelled (empty when the file does not say).
        line: Line of the label in its file.
    """

    case_id: str
    claim_id: str
    verdict: str | None
    score: float | None
    rater: str
    line: int

    @property
    def shown(self) -> str:
        """The label as the file gave it."""
        if self.verdict is not None:
            return self.verdict
        assert self.score is not None
        return f"{self.score:g}"


@dataclass(frozen=True, slots=True)
class CaseLabel:
    """One person's label of a whole case: a thumbs up or down, or a score.

    Attributes:
        case_id: The case labelled.
        up: ``True`` for a thumbs up, ``False`` for a thumbs down, ``None`` for a score.
        score: The score given, when the label is a score.
        rater: Who labelled (empty when the file does not say).
        line: Line of the label in its file.
    """

    case_id: str
    up: bool | None
    score: float | None
    rater: str
    line: int

    @property
    def kind(self) -> str:
        """``thumbs`` or ``score``."""
        return "score" if self.up is None else "thumbs"


@dataclass(frozen=True, slots=True)
class LabelSet:
    """The labels of one file, with the file's SHA-256 (stored with a calibration).

    Attributes:
        labels: The labels of a claim on a case (judge calibration).
        cases: The labels of a whole case (correlated with the cases' scores).
    """

    path: Path
    sha256: str
    labels: tuple[HumanLabel, ...]
    cases: tuple[CaseLabel, ...] = ()


def _problem(data: Any) -> str | None:
    if not isinstance(data, dict):
        return "a label must be a JSON object"
    if "claim_id" not in data and ("thumbs" in data or "score" in data):
        return _case_problem(data)
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        if unknown[0] in ("thumbs", "score"):
            return f"{unknown[0]} labels a whole case: leave out claim_id and label"
        return f"unknown key {unknown[0]!r}; a label has case_id, claim_id, label, rater, note"
    for key in ("case_id", "claim_id"):
        value = data.get(key)
        if value is None:
            return f"missing {key}"
        if not isinstance(value, str) or not value.strip():
            return f"{key} must be a non-empty string"
    if "label" not in data:
        return "missing label"
    label = data["label"]
    if isinstance(label, str):
        if label not in ("pass", "fail"):
            return f'label must be "pass", "fail" or a number (got {label!r})'
    elif isinstance(label, bool) or not isinstance(label, (int, float)):
        return f'label must be "pass", "fail" or a number (got {orjson.dumps(label).decode()})'
    elif not math.isfinite(label):
        return "label must be a finite number"
    return _rater_note_problem(data)


def _rater_note_problem(data: dict[str, Any]) -> str | None:
    rater = data.get("rater")
    if rater is not None and (not isinstance(rater, str) or not rater.strip()):
        return "rater must be a non-empty string when given"
    note = data.get("note")
    if note is not None and not isinstance(note, str):
        return "note must be a string"
    return None


def _case_problem(data: dict[str, Any]) -> str | None:
    """What is wrong with a label of a whole case (``None``: nothing)."""
    unknown = sorted(set(data) - _CASE_KEYS)
    if unknown:
        return (
            f"unknown key {unknown[0]!r}; a label of a whole case has case_id, "
            "thumbs or score, rater, note"
        )
    case_id = data.get("case_id")
    if case_id is None:
        return "missing case_id"
    if not isinstance(case_id, str) or not case_id.strip():
        return "case_id must be a non-empty string"
    if "thumbs" in data and "score" in data:
        return "give thumbs or score, not both (one label a line)"
    if "thumbs" in data and _thumbs_up(data["thumbs"]) is None:
        shown = orjson.dumps(data["thumbs"]).decode()
        return f'thumbs must be "up" or "down" (or true/false, 1/0) (got {shown})'
    if "score" in data:
        score = data["score"]
        if isinstance(score, bool) or not isinstance(score, (int, float)):
            return f"score must be a number (got {orjson.dumps(score).decode()})"
        if not math.isfinite(score):
            return "score must be a finite number"
    return _rater_note_problem(data)


def _thumbs_up(value: Any) -> bool | None:
    """Whether a ``thumbs`` value is up (``None``: it is not a thumbs)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return value == 1
    if isinstance(value, str):
        return _THUMBS.get(value)
    return None


def read_labels(path: Path) -> LabelSet:
    """Reads and checks a labels file.

    Raises:
        LabelsError: The file cannot be read, is empty, or has bad lines; every bad
            line is named, not only the first.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LabelsError([f"{path}: cannot read labels: {exc.strerror or exc}"]) from None
    problems: list[str] = []
    labels: list[HumanLabel | CaseLabel] = []
    first_line: dict[tuple[str, ...], int] = {}
    # A byte order mark, as some editors write, is no part of the first label (the
    # file's hash below stays that of its bytes).
    for number, raw in enumerate(data.removeprefix(codecs.BOM_UTF8).splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            parsed = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            problems.append(f"{path}:{number}: not JSON ({exc.msg}, column {exc.colno})")
            continue
        problem = _problem(parsed)
        if problem is None:
            label = _label_of(parsed, number)
            problem = _labelled_again(label, first_line)
            if problem is None:
                labels.append(label)
        if problem is not None:
            problems.append(f"{path}:{number}: {problem}")
    if problems:
        raise LabelsError(problems)
    if not labels:
        raise LabelsError([f"{path}: no labels found"])
    return LabelSet(
        path,
        hashlib.sha256(data).hexdigest(),
        tuple(label for label in labels if isinstance(label, HumanLabel)),
        tuple(label for label in labels if isinstance(label, CaseLabel)),
    )


def _label_of(parsed: dict[str, Any], line: int) -> HumanLabel | CaseLabel:
    """The label of a checked line."""
    rater = str(parsed.get("rater") or "").strip()
    if "claim_id" not in parsed:
        if "thumbs" in parsed:
            return CaseLabel(parsed["case_id"], _thumbs_up(parsed["thumbs"]), None, rater, line)
        return CaseLabel(parsed["case_id"], None, float(parsed["score"]), rater, line)
    label = parsed["label"]
    verdict = label if isinstance(label, str) else None
    score = float(label) if verdict is None else None
    return HumanLabel(parsed["case_id"], parsed["claim_id"], verdict, score, rater, line)


def _labelled_again(
    label: HumanLabel | CaseLabel, first_line: dict[tuple[str, ...], int]
) -> str | None:
    """Why ``label`` repeats one a rater gave before (``None``: it does not); records it."""
    if isinstance(label, HumanLabel):
        key: tuple[str, ...] = ("claim", label.case_id, label.claim_id, label.rater)
        what = f"case {label.case_id!r} claim {label.claim_id!r}"
    else:
        key = ("case", label.case_id, label.kind, label.rater)
        what = f"case {label.case_id!r} ({label.kind})"
    if key in first_line:
        who = f"rater {label.rater!r}" if label.rater else "a label without rater"
        return (
            f"{what} is labelled again by {who} (first on line {first_line[key]}); "
            "give each rater's name in `rater`"
        )
    first_line[key] = label.line
    return None

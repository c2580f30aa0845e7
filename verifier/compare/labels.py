"""Human labels for calibrating a judge: a JSONL file, one label a line.

Each line is ``{"case_id": ..., "claim_id": ..., "label": "pass" | "fail" | <number>,
"rater": ...}``: a person's verdict on one claim for one case, or their score on the
claim's scale. ``rater`` is optional; several raters may label the same case and claim,
but one rater labels it once. ``note`` may hold a free-text remark.

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

__all__ = ["HumanLabel", "LabelSet", "LabelsError", "read_labels"]

_KEYS = frozenset({"case_id", "claim_id", "label", "rater", "note"})


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
class LabelSet:
    """The labels of one file, with the file's SHA-256 (stored with a calibration)."""

    path: Path
    sha256: str
    labels: tuple[HumanLabel, ...]


def _problem(data: Any) -> str | None:
    if not isinstance(data, dict):
        return "a label must be a JSON object"
    unknown = sorted(set(data) - _KEYS)
    if unknown:
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
    rater = data.get("rater")
    if rater is not None and (not isinstance(rater, str) or not rater.strip()):
        return "rater must be a non-empty string when given"
    note = data.get("note")
    if note is not None and not isinstance(note, str):
        return "note must be a string"
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
    labels: list[HumanLabel] = []
    first_line: dict[tuple[str, str, str], int] = {}
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
        if problem is not None:
            problems.append(f"{path}:{number}: {problem}")
            continue
        rater = str(parsed.get("rater") or "").strip()
        key = (parsed["case_id"], parsed["claim_id"], rater)
        if key in first_line:
            who = f"rater {rater!r}" if rater else "a label without rater"
            problems.append(
                f"{path}:{number}: case {key[0]!r} claim {key[1]!r} is labelled again by "
                f"{who} (first on line {first_line[key]}); give each rater's name in `rater`"
            )
            continue
        first_line[key] = number
        label = parsed["label"]
        verdict = label if isinstance(label, str) else None
        score = float(label) if verdict is None else None
        labels.append(
            HumanLabel(parsed["case_id"], parsed["claim_id"], verdict, score, rater, number)
        )
    if problems:
        raise LabelsError(problems)
    if not labels:
        raise LabelsError([f"{path}: no labels found"])
    return LabelSet(path, hashlib.sha256(data).hexdigest(), tuple(labels))

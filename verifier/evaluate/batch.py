"""A batch of PRD evaluations, and the PRD's batch report over them.

A batch is a JSON array of evaluation requests or a JSONL file of them, one a line.
Each request is judged as an evaluation of its own (its own run, its own gap rows),
so one bad request is an item that failed, located by its index or line, and never
costs the others. The report is the PRD's batch shape, ``{agent_id, test_suite,
results: {total_cases, passed_cases, failed_cases, average_score,
assertion_breakdown}}``, with each item's run, score and verdict after it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from verifier._internal.canonical import loads_exact
from verifier.evaluate import (
    EvaluateError,
    Evaluation,
    EvaluationInput,
    decode_text,
    evaluate,
    invalid_json,
    validate_evaluation,
)
from verifier.judge.config import JudgeChoice

if TYPE_CHECKING:
    from verifier.judge.phase import JudgeMode

__all__ = [
    "BatchItem",
    "BatchOutcome",
    "batch_report",
    "evaluate_batch",
    "parse_evaluations",
    "read_evaluations",
]

_JSONL_SUFFIXES = (".jsonl", ".ndjson")


@dataclass(frozen=True)
class BatchItem:
    """One request of a batch: where it is, and the request or why it cannot be used."""

    where: str
    request: EvaluationInput | None
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class BatchOutcome:
    """One item of a batch once judged: its evaluation, or why it has none."""

    where: str
    evaluation: Evaluation | None
    problems: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.evaluation is not None and self.evaluation.passed

    def as_json(self) -> dict[str, Any]:
        """The item's single-evaluation output, or its problems, after its location."""
        if self.evaluation is None:
            return {"item": self.where, "pass": False, "problems": list(self.problems)}
        return {"item": self.where, **self.evaluation.as_json()}

    def case_json(self) -> dict[str, Any]:
        """The item as the batch report lists it: its run, score and verdict."""
        if self.evaluation is None:
            return self.as_json()
        ev = self.evaluation
        return {
            "item": self.where,
            "run_id": ev.run_id,
            "score": round(ev.case.score, 6),
            "pass": ev.passed,
            "threshold": ev.threshold,
        }


def read_evaluations(name: str) -> EvaluationInput | list[BatchItem]:
    """Reads file ``name`` (``-``: standard input): one evaluation, or a batch of them.

    Raises:
        EvaluateError: The file cannot be read, or its content is neither.
    """
    label = "stdin" if name == "-" else name
    try:
        raw = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
    except OSError as exc:
        raise EvaluateError([f"{label}: cannot read: {exc.strerror or exc}"]) from None
    return parse_evaluations(raw, label, jsonl=name.endswith(_JSONL_SUFFIXES))


def parse_evaluations(
    raw: bytes, label: str, *, jsonl: bool = False
) -> EvaluationInput | list[BatchItem]:
    """Decodes a single evaluation, a JSON array of them or JSONL of them.

    Text that is not one JSON document is read as JSONL when its first line is a JSON
    document on its own (or ``jsonl`` says so): a pretty-printed object cut short stays
    one document with one error, while a bad line among good ones is an item.

    Args:
        raw: The bytes.
        label: How to name the source in errors (the path, or ``stdin``).
        jsonl: Read the text as JSONL whatever it looks like (a ``.jsonl`` file).

    Raises:
        EvaluateError: The text is unusable as a whole: not UTF-8, empty, invalid JSON
            that is not JSONL, an empty array, or one request that is invalid.
    """
    text = decode_text(raw, label)
    if not jsonl:
        try:
            data = loads_exact(text)
        except orjson.JSONDecodeError as exc:
            if not _first_line_parses(text):
                raise EvaluateError([invalid_json(label, exc)]) from None
        else:
            if not isinstance(data, list):
                return validate_evaluation(data, label)
            if not data:
                raise EvaluateError([f"{label}: an empty array; expected evaluations"])
            return [_item(value, f"{label}[{index}]") for index, value in enumerate(data)]
    return _jsonl_items(text, label)


def _first_line_parses(text: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        loads_exact(first)
    except orjson.JSONDecodeError:
        return False
    return True


def _jsonl_items(text: str, label: str) -> list[BatchItem]:
    items = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{label}:{number}"
        try:
            value = loads_exact(line)
        except orjson.JSONDecodeError as exc:
            problem = f"{where}: invalid JSON: {exc.msg} (column {exc.colno})"
            items.append(BatchItem(where, None, (problem,)))
            continue
        items.append(_item(value, where))
    return items


def _item(value: Any, where: str) -> BatchItem:
    try:
        return BatchItem(where, validate_evaluation(value, where))
    except EvaluateError as exc:
        return BatchItem(where, None, tuple(exc.problems))


def evaluate_batch(
    items: Sequence[BatchItem],
    judge: JudgeChoice,
    *,
    store: str,
    mode: JudgeMode | None = None,
    recordings: Path | None = None,
    threshold: float | None = None,
    note: Callable[[str], None] = lambda _: None,
) -> list[BatchOutcome]:
    """Judges every usable item as an evaluation of its own, in order.

    Args:
        items: The batch, as :func:`parse_evaluations` read it.
        judge: The judge to ask.
        store: The gap-row store target.
        mode: ``live``, ``replay`` or ``record`` (as :func:`evaluate`).
        recordings: Recorded verdicts read before the cache.
        threshold: The score every item must reach; default: each request's own.
        note: Receives each distinct one-line note once.

    Raises:
        VerifierError: The store, template or recordings cannot be used.
    """
    said: set[str] = set()

    def once(text: str) -> None:
        if text not in said:
            said.add(text)
            note(text)

    outcomes = []
    for item in items:
        if item.request is None:
            outcomes.append(BatchOutcome(item.where, None, item.problems))
            continue
        evaluation = evaluate(
            item.request,
            judge,
            source=Path(item.where),
            store=store,
            mode=mode,
            recordings=recordings,
            threshold=threshold,
            note=once,
        )
        outcomes.append(BatchOutcome(item.where, evaluation))
    return outcomes


@dataclass
class _AssertionTally:
    passed: int = 0
    failed: int = 0
    errors: int = 0

    def as_dict(self) -> dict[str, Any]:
        total = self.passed + self.failed + self.errors
        return {
            "passed": self.passed,
            "failed": self.failed,
            "errors": self.errors,
            "average_score": round(self.passed / total, 6) if total else 0.0,
        }


def batch_report(
    outcomes: Iterable[BatchOutcome], *, agent_id: str | None, test_suite: str | None
) -> dict[str, Any]:
    """The PRD's batch shape over ``outcomes``, each item listed after it.

    An item that could not be read counts as a failed case scoring 0: averaging only
    the items that parsed would let a broken file look better than a whole one.
    """
    listed = list(outcomes)
    breakdown: dict[str, _AssertionTally] = {}
    score_sum = 0.0
    for outcome in listed:
        if outcome.evaluation is None:
            continue
        score_sum += outcome.evaluation.case.score
        for result in outcome.evaluation.case.results:
            tally = breakdown.setdefault(result.claim_id, _AssertionTally())
            if result.status == "pass":
                tally.passed += 1
            elif result.status == "fail":
                tally.failed += 1
            else:
                tally.errors += 1
    passed = sum(outcome.passed for outcome in listed)
    return {
        "agent_id": agent_id,
        "test_suite": test_suite,
        "results": {
            "total_cases": len(listed),
            "passed_cases": passed,
            "failed_cases": len(listed) - passed,
            "average_score": round(score_sum / len(listed), 6) if listed else 0.0,
            "assertion_breakdown": {
                claim_id: tally.as_dict() for claim_id, tally in breakdown.items()
            },
        },
        "cases": [outcome.case_json() for outcome in listed],
    }

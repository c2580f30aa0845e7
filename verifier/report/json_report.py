"""The JSON report (``verifier run --format json``), in the shape of DESIGN §7.

The totals come first in the document but are known only at the end, so each
case is serialised as it arrives into a temporary file and copied behind the
header in :meth:`JsonReportWriter.finish`.
"""

from __future__ import annotations

import codecs
import json
import math
import tempfile
from collections.abc import Mapping
from typing import IO, Any

import orjson

from verifier.results import CaseResult, ClaimResult, RunSummary

__all__ = ["JsonReportWriter", "case_json", "result_json"]

_DIGITS = 6
_COPY_CHUNK = 256 * 1024
_SPOOL_BUFFER = 1024 * 1024
_ORJSON_OPTS = orjson.OPT_NON_STR_KEYS


class JsonReportWriter:
    """Streams the JSON report of a run to a text stream.

    Args:
        out: Where the report goes in :meth:`finish`; never closed here.
        held: Keep the report from :meth:`finish` until :meth:`release`, which adds
            what is known only after the run (a gate's decision on the stored rows).
    """

    def __init__(self, out: IO[str], *, held: bool = False) -> None:
        self._out = out
        # A large buffer: cases average a couple of kilobytes, and the default 8 KiB
        # would make a system call every few cases.
        self._spool: IO[bytes] = tempfile.TemporaryFile(buffering=_SPOOL_BUFFER)  # noqa: SIM115 (open until finish/close)
        self._cases = 0
        self._held = held
        self._summary: RunSummary | None = None

    def add_case(self, case: CaseResult) -> None:
        """Serialises ``case`` to the spool file."""
        if self._cases:
            self._spool.write(b",")
        self._spool.write(_dumps(case_json(case)))
        self._cases += 1

    def finish(self, summary: RunSummary) -> None:
        """Writes the whole document: the totals, then the spooled cases (held: later)."""
        if self._held:
            self._summary = summary
            return
        self._write(_head_json(summary))

    def release(self, extra: Mapping[str, Any]) -> None:
        """Writes a held report, ``extra``'s keys after the totals and before the cases.

        Raises:
            RuntimeError: The report is not held, or the run has not finished.
        """
        if not self._held or self._summary is None:
            raise RuntimeError("only a held report of a finished run is released")
        self._write({**_head_json(self._summary), **extra})

    def _write(self, head_json: dict[str, Any]) -> None:
        try:
            head = _dumps(head_json)
            # ``head`` is a complete object; reopen it to append the cases array.
            self._out.write(head[:-1].decode("utf-8"))
            self._out.write(',"cases":[')
            self._copy_spool()
            self._out.write("]}\n")
            self._out.flush()
        finally:
            self._spool.close()

    def _copy_spool(self) -> None:
        self._spool.flush()
        self._spool.seek(0)
        binary = _utf8_buffer(self._out)
        if binary is not None:
            # The spool is UTF-8 already: copy bytes rather than decode and re-encode.
            self._out.flush()
            while chunk := self._spool.read(_COPY_CHUNK):
                binary.write(chunk)
            binary.flush()
            return
        # Chunks may end inside a multi-byte character; the incremental decoder
        # carries the partial bytes over to the next chunk.
        decoder = codecs.getincrementaldecoder("utf-8")()
        while chunk := self._spool.read(_COPY_CHUNK):
            self._out.write(decoder.decode(chunk))
        self._out.write(decoder.decode(b"", final=True))


def _utf8_buffer(out: IO[str]) -> IO[bytes] | None:
    """The binary stream under ``out`` when text written to ``out`` becomes UTF-8."""
    buffer = getattr(out, "buffer", None)
    encoding = getattr(out, "encoding", None)
    if buffer is None or not isinstance(encoding, str):
        return None
    try:
        utf8 = codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return None
    return buffer if utf8 else None


def case_json(case: CaseResult) -> dict[str, Any]:
    """Returns one entry of the report's ``cases`` array."""
    results = case.results
    # One list of statuses counted in C, and the entries built inline: this runs for
    # every case of the run.
    statuses = [r.status for r in results]
    entry = {
        "id": case.case_id,
        "pass": case.passed,
        "score": _round(case.score),
        "passed": statuses.count("pass"),
        "failed": statuses.count("fail"),
        "errors": statuses.count("error"),
        "total": len(results),
        # A rubric score is nearly always exactly 1.0 or 0.0, which rounding keeps as
        # it is: skipping round() there saves a tenth of the report's cost.
        "results": [
            {
                "id": r.claim_id,
                "status": r.status,
                "pass": r.status == "pass",
                "score": s if (s == 1.0 or s == 0.0) and type(s) is float else _round(s),
                "reasoning": r.reason,
                "evidence": r.evidence,
            }
            for r in results
            for s in (r.score,)
        ],
    }
    if case.overall is not None:  # only when the contract asks for an overall
        entry["overall"] = case.overall.as_dict()
    if statuses.count("skipped"):
        absent = len(results) - case.applicable
        if absent:  # claims whose `when` path the case lacks: not checked, not in its score
            entry["not_applicable"] = absent
    if case.content is not None and not case.passed:
        # What a failing case was about, as the store keeps it (redacted fields as
        # their marker). Only for cases that did not pass: a passing case's content
        # would double the report of a large run for what nobody looks at, and the
        # store (verifier show) has it.
        entry["content"] = case.content
    return entry


def result_json(result: ClaimResult) -> dict[str, Any]:
    """Returns one entry of a case's ``results`` array (as ``case_json`` builds it)."""
    return {
        "id": result.claim_id,
        "status": result.status,
        "pass": result.status == "pass",
        "score": _round(result.score),
        "reasoning": result.reason,
        "evidence": result.evidence,
    }


def _head_json(summary: RunSummary) -> dict[str, Any]:
    head = {
        "run_id": summary.run_id,
        "contract": {
            "id": summary.contract_id,
            "version": summary.contract_version,
            "sha256": summary.contract_sha256,
        },
        "total_cases": summary.total_cases,
        "passed_cases": summary.passed_cases,
        "failed_cases": summary.failed_cases,
        "average_score": _round(summary.average_score),
        "assertion_breakdown": {
            claim_id: tally.as_dict() for claim_id, tally in summary.breakdown.items()
        },
        # The store's head once the run's end was sealed: publish it, check it later
        # with `verifier audit --expect-head`.
        "head": summary.head,
    }
    if summary.overall is not None:
        # The mean of the cases' overall scores and the cases to revise, when the
        # contract asks for them (`overall:`).
        head["overall"] = summary.overall.as_dict()
    if summary.findings:
        # Each findings claim's micro and macro recall, precision and F1
        # (`verifier.findings_tally`), when the contract has one.
        head["findings"] = summary.findings_dict()
    if summary.judge_claims_not_run.count:
        # Claims needing a judge that the run did not check, and why; only when there
        # are: a run of every claim keeps the documented shape exactly.
        head["judge_claims_not_run"] = summary.judge_claims_not_run.as_dict()
    if summary.warnings:
        # Only when there is one: a clean run keeps the documented shape exactly.
        head["warnings"] = summary.warnings
    if summary.judge_noise:
        # Per judged claim: pass rate with its Wilson interval, position flips of the
        # pairwise comparisons and sample agreement (ADR 0031).
        head["judge_noise"] = summary.judge_noise_dict()
    if summary.judge_usage is not None:
        # Runs with judge claims add what the judges cost; runs without keep the
        # documented shape exactly.
        head["usage"] = summary.judge_usage
    return head


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, _DIGITS)


def _dumps(value: dict[str, Any]) -> bytes:
    try:
        return orjson.dumps(value, default=_fallback, option=_ORJSON_OPTS)
    except orjson.JSONEncodeError:
        # orjson refuses integers beyond 64 bits, lone surrogates and very deep
        # nesting; the standard library takes the first two, once made strict JSON.
        text = json.dumps(_strict(value), default=_fallback, ensure_ascii=False)
        return text.encode("utf-8", "replace")


def _strict(value: Any) -> Any:
    """Returns ``value`` with non-finite floats as null and every key a string."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k if isinstance(k, str) else str(k): _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    return value


def _fallback(value: Any) -> Any:
    # Evidence is meant to be JSON-like; anything else is shown, not dropped.
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, (bytes, bytearray)):
        return value.decode("utf-8", "replace")
    return repr(value)

"""JUnit XML: one ``<testcase>`` per case x claim, for CI test-result views.

A case that failed with no failing or erroring claim (its skipped claims are not
passes, or no claim applied to it) gets one more testcase, ``(case)``, failed with
its score: every failing case of the run is a failure or an error in CI.

The suite's counts are attributes of its opening tag and the contract id is part
of every ``classname``; both are known only in ``finish``. So each result's
outcome element is rendered as it arrives and spooled to a temporary file, and
``finish`` wraps the spooled fragments in their ``<testcase>`` tags.

Elements are built as strings, escaped with one ``str.translate`` per value,
rather than with ElementTree or ``xml.sax.saxutils``: a 100,000-case run has half
a million testcases, and those cost five to ten times as much per element.
Validity is tested by parsing the output with ``xml.etree``.
"""

from __future__ import annotations

from datetime import datetime
from typing import IO, Any

import orjson

from verifier.report._spool import Spool
from verifier.results import CaseResult, RunSummary

__all__ = ["JunitReportWriter", "xml_text"]

# Characters XML 1.0 cannot carry at all, not even as references; a parser rejects
# the whole file if one slips into a reason or an evidence string.
_ILLEGAL_XML = dict.fromkeys(
    [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0xD800, 0xE000), 0xFFFE, 0xFFFF]
)
_TEXT_TABLE: dict[int, str | None] = {
    **_ILLEGAL_XML,
    ord("&"): "&amp;",
    ord("<"): "&lt;",
    ord(">"): "&gt;",
}
# Newlines and tabs in attributes become references, or parsers fold them to spaces.
_ATTR_TABLE: dict[int, str | None] = {
    **_TEXT_TABLE,
    ord('"'): "&quot;",
    ord("\n"): "&#10;",
    ord("\r"): "&#13;",
    ord("\t"): "&#9;",
}
# CI tools show the message attribute on one line; the full reason is in the body.
_MESSAGE_CHARS = 1000
# A case whose failure no claim's testcase shows (an unreadable line without results,
# a case whose claims were all skipped) gets a testcase of its own, or its failure
# would vanish from CI.
_CASE_NAME = "(case)"

_STATUS_ELEMENT = {"fail": "failure", "error": "error", "skipped": "skipped"}
_COUNTER = {"fail": "failures", "error": "errors", "skipped": "skipped"}

# One spooled case: its id and, per claim, the claim id and the rendered outcome
# element ("" for a pass).
_SpooledCase = tuple[str, list[tuple[str, str]]]


def xml_text(text: str) -> str:
    """Returns ``text`` without the characters XML 1.0 forbids."""
    return text.translate(_ILLEGAL_XML)


class JunitReportWriter:
    """Writes a JUnit XML document with one test suite for the contract.

    Args:
        out: Where the document goes in :meth:`finish`; never closed here.
    """

    def __init__(self, out: IO[str]) -> None:
        self._out = out
        self._spool: Spool[_SpooledCase] = Spool()
        self._counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}

    def add_case(self, case: CaseResult) -> None:
        """Renders the outcomes of ``case``, spools them and counts them."""
        counts = self._counts
        outcomes: list[tuple[str, str]] = []
        for result in case.results:
            counts["tests"] += 1
            if result.status == "pass":
                outcomes.append((result.claim_id, ""))
                continue
            counts[_COUNTER[result.status]] += 1
            outcomes.append(
                (result.claim_id, _outcome(result.status, result.reason, result.evidence))
            )
        if not case.results:
            counts["tests"] += 1
            outcome = ""
            if not case.passed:
                counts["errors"] += 1
                outcome = _outcome("error", "the case produced no claim results", {})
            outcomes.append((_CASE_NAME, outcome))
        elif not case.passed and all(r.status in ("pass", "skipped") for r in case.results):
            counts["tests"] += 1
            counts["failures"] += 1
            outcomes.append((_CASE_NAME, _outcome("fail", _case_failure(case), {})))
        self._spool.append((case.case_id, outcomes))

    def finish(self, summary: RunSummary) -> None:
        """Writes the document, streaming the spooled cases as testcases."""
        try:
            self._write(summary)
        finally:
            self._spool.close()

    def _write(self, summary: RunSummary) -> None:
        counts = {k: str(v) for k, v in self._counts.items()}
        timing = _suite_timing(summary)
        out = self._out
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        out.write(_open_tag("testsuites", {"name": "verifier", **counts, **timing}) + "\n")
        suite_attrs = {"name": summary.contract_id, **counts, **timing}
        if summary.started_at:
            suite_attrs["timestamp"] = summary.started_at
        if summary.contract_path:
            suite_attrs["file"] = summary.contract_path
        out.write("  " + _open_tag("testsuite", suite_attrs) + "\n")
        out.write(_properties(summary))
        # file/line let annotation tools point at the claim in the contract.
        file_attr = f" file={_attr(summary.contract_path)}" if summary.contract_path else ""
        # The same few claims repeat in every case: render their attributes once.
        claim_attrs: dict[str, str] = {}
        for case_id, outcomes in self._spool:
            classname = _attr(f"{summary.contract_id}.{case_id}")
            for claim_id, outcome in outcomes:
                attrs = claim_attrs.get(claim_id)
                if attrs is None:
                    attrs = claim_attrs[claim_id] = _claim_attrs(summary, claim_id, file_attr)
                head = f"    <testcase classname={classname}{attrs}"
                out.write(f"{head}>{outcome}</testcase>\n" if outcome else f"{head} />\n")
        out.write("  </testsuite>\n</testsuites>\n")
        out.flush()


def _case_failure(case: CaseResult) -> str:
    """Why a case failed whose claims all passed or were skipped."""
    why = f"the case failed with score {case.score:.3f}, below the run's threshold"
    if not case.applicable:
        return f"{why}: no claim applies to it (every claim's `when` path is missing)"
    skipped = case.count("skipped")
    return f"{why}: {skipped} of its {len(case.results)} claims were skipped, which is no pass"


def _claim_attrs(summary: RunSummary, claim_id: str, file_attr: str) -> str:
    line = summary.claim_lines.get(claim_id, 0)
    line_attr = f' line="{line}"' if line > 0 else ""
    return f' name={_attr(claim_id)} time="0"{file_attr}{line_attr}'


def _outcome(status: str, reason: str, evidence: dict[str, Any]) -> str:
    element = _STATUS_ELEMENT[status]
    message = _attr(" ".join(reason.split())[:_MESSAGE_CHARS])
    if status == "skipped":
        return f"<{element} message={message} />"
    body = reason if not evidence else f"{reason}\n\nevidence:\n{_evidence_text(evidence)}"
    return f'<{element} message={message} type="{status}">{body.translate(_TEXT_TABLE)}</{element}>'


def _evidence_text(evidence: dict[str, Any]) -> str:
    try:
        return orjson.dumps(
            evidence, default=repr, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
        ).decode("utf-8")
    except orjson.JSONEncodeError:
        return repr(evidence)


def _properties(summary: RunSummary) -> str:
    values = {
        "run_id": summary.run_id,
        "contract_version": str(summary.contract_version),
        "contract_sha256": summary.contract_sha256,
        "threshold": str(summary.threshold),
        "interrupted": str(summary.interrupted).lower(),
    }
    not_run = summary.judge_claims_not_run.line()
    if not_run:
        values["judge_claims_not_run"] = not_run.removeprefix("judge claims not run: ")
    rendered = "".join(
        f"      <property name={_attr(name)} value={_attr(value)} />\n"
        for name, value in values.items()
    )
    return f"    <properties>\n{rendered}    </properties>\n"


def _suite_timing(summary: RunSummary) -> dict[str, str]:
    try:
        started = datetime.fromisoformat(summary.started_at)
        finished = datetime.fromisoformat(summary.finished_at)
        seconds = (finished - started).total_seconds()
    except (ValueError, TypeError):
        # Missing or naive/aware-mixed timestamps: CI tools accept a suite without time.
        return {}
    return {"time": f"{max(seconds, 0.0):.3f}"}


def _open_tag(name: str, attrs: dict[str, str]) -> str:
    rendered = "".join(f" {key}={_attr(value)}" for key, value in attrs.items())
    return f"<{name}{rendered}>"


def _attr(value: str) -> str:
    return f'"{value.translate(_ATTR_TABLE)}"'

"""What a re-check of stored verdicts found: counts, differing rows, tampered contents."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

__all__ = ["WHY", "Difference", "RecheckReport", "TamperedContent", "Why", "render_recheck"]

Why: TypeAlias = Literal[
    "before_content_record",
    "content_not_recorded",
    "content_hashes_only",
    "content_missing",
    "content_purged",
    "content_tampered",
    "content_withheld",
    "unreadable_case",
    "unreadable_row",
    "contract_missing",
    "contract_unloadable",
    "schema_file_missing",
    "schema_file_changed",
    "judge_unavailable",
    "no_cache_entry",
    "judge_prompt_changed",
    "judges_off",
    "unknown_claim",
    "imported",
]

WHY: dict[str, str] = {
    "before_content_record": "row from before the content record",
    "content_not_recorded": "content not recorded (record: none)",
    "content_hashes_only": "content recorded as hashes only",
    "content_missing": "content missing from the store, and no purge removed it",
    "content_purged": "content purged (a sealed purge removed it)",
    "content_tampered": "stored content does not match its hash",
    "content_withheld": "content redacted or cut on a path the claim reads",
    "unreadable_case": "the case line could not be read, so no content was recorded",
    "unreadable_row": "the row body is not a JSON object",
    "contract_missing": "contract not in the store",
    "contract_unloadable": "stored contract cannot be loaded",
    "schema_file_missing": "schema file missing beside the stored contract path",
    "schema_file_changed": "schema file changed since the run read it",
    "judge_unavailable": "the judge cannot be set up from the stored contract",
    "no_cache_entry": "no judge cache entry or recording for the request",
    "judge_prompt_changed": "the judge's prompt_sha differs from the run's (its template, "
    "verdict tool or rendering changed since), so the request is not the one the run sent",
    "judges_off": "a judged claim the run skipped on purpose (--judges off)",
    "unknown_claim": "claim not in the stored contract",
    "imported": "imported from another tool",
}
"""Why a row could not be re-checked, by the key reports and ``--format json`` use."""


@dataclass(frozen=True, slots=True)
class Difference:
    """A row whose stored verdict is not what re-checking its content gives.

    The same shape lists the rows whose stored error is answerable now and the stored
    verdicts that recheck to an error now (``RecheckReport.answerable``, ``unconfirmed``).
    """

    seq: int
    run_id: str
    case_id: str
    claim_id: str
    stored: str
    rechecked: str
    what: str
    reason: str

    def as_dict(self) -> dict[str, Any]:
        """The difference as JSON-ready data."""
        return {
            "seq": self.seq,
            "run_id": self.run_id,
            "case_id": self.case_id,
            "claim_id": self.claim_id,
            "stored": self.stored,
            "rechecked": self.rechecked,
            "what": self.what,
            "reason": self.reason,
        }

    def describe(self) -> str:
        """The difference in one line: where, stored against rechecked, and why."""
        return (
            f"seq {self.seq} run {self.run_id} case {self.case_id} claim {self.claim_id}: "
            f"stored {self.stored}, rechecked {self.rechecked} ({self.what}): {self.reason}"
        )


@dataclass(slots=True)
class TamperedContent:
    """A stored content whose bytes no longer hash to its key."""

    sha256: str
    actual: str
    rows: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The tampered content as JSON-ready data."""
        return {"sha256": self.sha256, "actual": self.actual, "rows": self.rows}


@dataclass(slots=True)
class RecheckReport:
    """The counts of ``verifier audit --recheck``.

    Attributes:
        rows: Rows read (of ``run_id`` if given).
        rechecked: Rows re-evaluated (``agree`` + differing rows).
        not_recheckable: Rows that could not be re-evaluated, by ``WHY`` key.
        examples: The first detail seen for each key of ``not_recheckable``.
        differences: Differing rows, at most ``max_listed`` of them: a stored pass, fail,
            skip or score that rechecks to another one.
        answerable: Rows stored as error (or skipped behind a gate stored as error) that
            recheck to an answer now, at most ``max_listed`` of them (``answered`` counts
            them all): the record lacked an answer, it does not contradict one.
        unconfirmed: Rows stored as pass or fail that recheck to an error now, at most
            ``max_listed`` of them (``unconfirmed_rows`` counts them all): their verdict
            is not borne out by what the store keeps.
        head: The store's head in the snapshot that was re-checked (``None``: nothing
            sealed): rows other processes wrote later were not read.
    """

    location: str
    run_id: str | None = None
    rows: int = 0
    rechecked: int = 0
    agree: int = 0
    differ: int = 0
    not_recheckable: dict[str, int] = field(default_factory=dict)
    examples: dict[str, str] = field(default_factory=dict)
    differences: list[Difference] = field(default_factory=list)
    answered: int = 0
    answerable: list[Difference] = field(default_factory=list)
    unconfirmed_rows: int = 0
    unconfirmed: list[Difference] = field(default_factory=list)
    tampered: dict[str, TamperedContent] = field(default_factory=dict)
    tampered_cache: list[str] = field(default_factory=list)
    tampered_cache_rows: int = 0
    max_listed: int = 1000
    head: str | None = None

    @property
    def ok(self) -> bool:
        """Whether no re-checked verdict differs or recheck to an error, and nothing
        stored was tampered with (a stored error answerable now is not a finding)."""
        return (
            not self.differ
            and not self.unconfirmed_rows
            and not self.tampered
            and not self.tampered_cache_rows
        )

    def cache_tampered(self, detail: str) -> None:
        """Counts a judge row whose cache entry no longer matches its seal."""
        self.tampered_cache_rows += 1
        if len(self.tampered_cache) < self.max_listed:
            self.tampered_cache.append(detail)

    def skip(self, why: Why, detail: str, rows: int = 1) -> None:
        """Counts ``rows`` rows as not recheckable for one reason."""
        self.not_recheckable[why] = self.not_recheckable.get(why, 0) + rows
        self.examples.setdefault(why, detail)

    def add_difference(self, difference: Difference) -> None:
        """Counts a differing row, listing it while fewer than ``max_listed`` are."""
        self.rechecked += 1
        self.differ += 1
        if len(self.differences) < self.max_listed:
            self.differences.append(difference)

    def add_answerable(self, difference: Difference) -> None:
        """Counts a row stored as error (no answer then) that rechecks to an answer now."""
        self.rechecked += 1
        self.answered += 1
        if len(self.answerable) < self.max_listed:
            self.answerable.append(difference)

    def add_unconfirmed(self, difference: Difference) -> None:
        """Counts a row stored as pass or fail that rechecks to an error now."""
        self.rechecked += 1
        self.unconfirmed_rows += 1
        if len(self.unconfirmed) < self.max_listed:
            self.unconfirmed.append(difference)

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (``--format json``)."""
        return {
            "store": self.location,
            "run_id": self.run_id,
            "ok": self.ok,
            "rows": self.rows,
            "rechecked": self.rechecked,
            "agree": self.agree,
            "differ": self.differ,
            "not_recheckable": sum(self.not_recheckable.values()),
            "not_recheckable_by_reason": {
                key: {"rows": count, "why": WHY[key], "example": self.examples[key]}
                for key, count in sorted(self.not_recheckable.items())
            },
            "differences": [d.as_dict() for d in self.differences],
            "omitted_differences": self.differ - len(self.differences),
            "answerable_now": self.answered,
            "answerable": [d.as_dict() for d in self.answerable],
            "now_error": self.unconfirmed_rows,
            "now_errors": [d.as_dict() for d in self.unconfirmed],
            "tampered_contents": [t.as_dict() for t in self.tampered.values()],
            "tampered_cache_rows": self.tampered_cache_rows,
            "tampered_cache": self.tampered_cache,
            "head": self.head,
        }

    def counts(self) -> str:
        """The counts in one phrase: rechecked, agree, differ, answerable now, now
        error (the last two only when there are any) and not recheckable."""
        parts = [f"{self.rechecked} rechecked", f"{self.agree} agree", f"{self.differ} differ"]
        if self.answered:
            parts.append(f"{self.answered} answerable now")
        if self.unconfirmed_rows:
            parts.append(f"{self.unconfirmed_rows} now error")
        parts.append(f"{sum(self.not_recheckable.values())} not recheckable")
        return ", ".join(parts)

    def lines(self) -> list[str]:
        """The report for a terminal, one line a finding."""
        scope = f"run {self.run_id} in {self.location}" if self.run_id else self.location
        lines = [
            f"recheck of {scope}: {self.rows} rows; {self.counts()}",
            f"head: {self.head or 'none (nothing is sealed in this store yet)'} (the store "
            "as rechecked)",
        ]
        lines += [
            f"  not recheckable: {count} {WHY[key]} (e.g. {self.examples[key]})"
            for key, count in sorted(self.not_recheckable.items())
        ]
        for tampered in self.tampered.values():
            lines.append(
                f"  TAMPERED content {tampered.sha256}: its bytes hash to {tampered.actual}; "
                f"{tampered.rows} row(s) refer to it and were not rechecked against it"
            )
        lines += [f"  TAMPERED judge cache: {detail}" for detail in self.tampered_cache]
        lines += _listed("  DIFFERS", self.differences, self.differ)
        if self.unconfirmed_rows:
            lines.append(
                f"  {self.unconfirmed_rows} stored verdict(s) recheck to an error now: the "
                "store no longer bears them out"
            )
            lines += _listed("    NOW ERROR", self.unconfirmed, self.unconfirmed_rows)
        if self.answered:
            lines.append(
                f"  {self.answered} stored error(s) are answerable now (the run had no "
                "answer, the store has one; not a difference):"
            )
            lines += _listed("    ANSWERABLE", self.answerable, self.answered)
        return [*lines, self._verdict()]

    def _verdict(self) -> str:
        if self.ok and not self.rechecked:
            return "ok: nothing differs, but no row could be rechecked (see above)"
        if self.ok and self.answered:
            return (
                f"ok: no stored verdict differs; {self.answered} stored error(s) are "
                "answerable now (listed above)"
            )
        if self.ok:
            return "ok: every rechecked verdict agrees"
        found = [f"{self.differ} stored verdict(s) differ"] if self.differ else []
        if self.unconfirmed_rows:
            found.append(f"{self.unconfirmed_rows} stored verdict(s) recheck to an error now")
        if self.tampered:
            found.append(f"{len(self.tampered)} stored content(s) tampered with")
        if self.tampered_cache_rows:
            found.append(
                f"{self.tampered_cache_rows} judge verdict(s) whose cache entry was tampered with"
            )
        return "FAILED: " + "; ".join(found)


def _listed(label: str, rows: list[Difference], count: int) -> list[str]:
    # ``label`` carries its indent; the "and more" line keeps it.
    indent = label[: len(label) - len(label.lstrip())]
    lines = [f"{label} {d.describe()}" for d in rows]
    if count > len(rows):
        lines.append(f"{indent}... and {count - len(rows)} more")
    return lines


def render_recheck(report: RecheckReport, fmt: str) -> str:
    """The re-check as ``console``, ``json`` or ``markdown`` text, ending in a newline."""
    if fmt == "json":
        import orjson

        return orjson.dumps(report.as_dict(), option=orjson.OPT_INDENT_2).decode() + "\n"
    if fmt == "markdown":
        from verifier.recheck.report_markdown import recheck_markdown

        return recheck_markdown(report)
    return "\n".join(report.lines()) + "\n"

"""What an audit reports: problems located by seq, and the verdict."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from verifier.gaps.store import StoredRow
from verifier.judge_summary import noise_line
from verifier.results import JudgeNoise

_IN_FLIGHT_SHOWN = 10

ProblemKind = Literal[
    "body",
    "schema",
    "column",
    "chain",
    "judge_triple",
    "duplicate_row_id",
    "run",
    "seal",
    "head",
    "summary",
    "contract",
    "content",
]
"""``body``: not a JSON object. ``schema``: breaks ``verifier.gap-row.v1``. ``column``:
an indexed column disagrees with the body. ``chain``: a missing, moved, edited or
forged row (including rows cut from a run's end). ``judge_triple``: a verdict without
the full stability triple. ``duplicate_row_id``: one id on several rows. ``run``: a
run record that is missing or does not account for its rows. ``seal``: a seal missing,
edited or moved, a row or run record that disagrees with its seal, or a sealed run
whose record is gone. ``head``: the published head is not in the seal chain.
``summary``: a run's summary whose case or claim totals its rows contradict.
``contract``, ``content``: a stored contract source or case content that no longer
hashes to its key."""


@dataclass(frozen=True, slots=True)
class AuditProblem:
    """One integrity problem, located by seq and row id where it has them."""

    kind: ProblemKind
    seq: int | None
    row_id: str | None
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "seq": self.seq, "row_id": self.row_id, "message": self.message}


@dataclass(slots=True)
class AuditReport:
    """What ``audit_store`` found.

    Attributes:
        location: The store audited.
        run_id: The run the row-level checks were limited to, if any.
        rows_checked: Rows that got the row-level checks (those of ``run_id`` if given).
        chain_rows: Rows whose links were verified (always the whole store).
        runs_seen: Distinct runs among the rows checked.
        problems: Problems in the order found, at most ``max_problems`` of them.
        omitted_problems: Problems found beyond that limit.
        first_broken_link: The first chain problem in seq order, if any.
        head: The hash of the store's last seal, which commits to every row and sealed
            run record; ``None`` when nothing is sealed.
        head_seal: The position of that seal in the seal chain.
        head_rows: The last row the seals commit to (its seq).
        expected_head: The published head the audit was asked to find, if any.
        expected_head_at: Where in the seal chain it was found.
        in_flight: Runs (of ``run_id`` if given) still running when the audit read
            the store: their rows so far were checked; nothing records their end yet.
    """

    location: str
    run_id: str | None = None
    rows_checked: int = 0
    chain_rows: int = 0
    runs_seen: int = 0
    problems: list[AuditProblem] = field(default_factory=list)
    omitted_problems: int = 0
    first_broken_link: AuditProblem | None = None
    max_problems: int = 1000
    head: str | None = None
    head_seal: int | None = None
    head_rows: int | None = None
    expected_head: str | None = None
    expected_head_at: int | None = None
    in_flight: list[str] = field(default_factory=list)
    judge_noise: dict[str, dict[str, JudgeNoise]] = field(default_factory=dict)
    """Per run checked and judged claim: pass rate, position flips, sample agreement."""
    notes: list[str] = field(default_factory=list)
    """What the audit saw that is no integrity problem but worth knowing: rows of the
    tables beside the rows that no seal vouches for (an earlier release's)."""

    @property
    def ok(self) -> bool:
        """Whether the store (or the run) passed every integrity check."""
        return not self.problems and not self.omitted_problems

    def add(self, kind: ProblemKind, seq: int | None, row_id: str | None, message: str) -> None:
        """Records a problem (only counted past ``max_problems``)."""
        problem = AuditProblem(kind, seq, row_id, message)
        if kind == "chain" and self.first_broken_link is None:
            self.first_broken_link = problem
        if len(self.problems) < self.max_problems:
            self.problems.append(problem)
        else:
            self.omitted_problems += 1

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (``verifier audit --format json``)."""
        link = self.first_broken_link
        return {
            "store": self.location,
            "run_id": self.run_id,
            "ok": self.ok,
            "rows_checked": self.rows_checked,
            "chain_rows": self.chain_rows,
            "runs_seen": self.runs_seen,
            "first_broken_link": link.as_dict() if link else None,
            "problems": [p.as_dict() for p in self.problems],
            "omitted_problems": self.omitted_problems,
            "head": self.head,
            "head_seal": self.head_seal,
            "expected_head": self.expected_head,
            "expected_head_at": self.expected_head_at,
            "in_flight": self.in_flight,
            "notes": self.notes,
            **(
                {"judge_noise": {run: _noise(claims) for run, claims in self.judge_noise.items()}}
                if self.judge_noise
                else {}
            ),
        }

    def head_line(self) -> str:
        """One line naming the store's head, the hash to publish and check later."""
        if self.head is None:
            return "head: none (nothing is sealed in this store yet)"
        return (
            f"head: {self.head} (seal {self.head_seal}, "
            f"committing to rows up to seq {self.head_rows})"
        )

    def in_flight_line(self) -> str:
        """One line naming the runs still running when the audit read the store."""
        shown = ", ".join(self.in_flight[:_IN_FLIGHT_SHOWN])
        more = len(self.in_flight) - _IN_FLIGHT_SHOWN
        shown += f" and {more} more" if more > 0 else ""
        return (
            f"in flight: {len(self.in_flight)} run(s) still running ({shown}); "
            "their rows so far were checked"
        )

    def run_noise_lines(self) -> list[str]:
        """One line per judged claim of the audited run on how noisy its verdicts were;
        none for a whole store's audit (its runs are the trends' business)."""
        if self.run_id is None or not self.judge_noise.get(self.run_id):
            return []
        noise = _noise(self.judge_noise[self.run_id])
        return [noise_line(claim, figures) for claim, figures in noise.items()]

    def render_text(self) -> str:
        """The report for a terminal: what was checked, the verdict, one line a problem."""
        scope = f"run {self.run_id} in {self.location}" if self.run_id else self.location
        head = (
            f"audit of {scope}: {self.rows_checked} rows checked in {self.runs_seen} run(s); "
            f"hash chain walked over {self.chain_rows} rows"
        )
        lines = [head, self.head_line()]
        if self.in_flight:
            lines.append(self.in_flight_line())
        if self.expected_head is not None and self.expected_head_at is not None:
            lines.append(
                f"published head {self.expected_head}: held at seal {self.expected_head_at}"
            )
        lines += [f"note: {note}" for note in self.notes]
        if noise := self.run_noise_lines():
            lines.append("judge noise:")
            lines += [f"  {line}" for line in noise]
        if self.ok:
            return "\n".join([*lines, "ok: no integrity problems"])
        count = len(self.problems) + self.omitted_problems
        lines.append(f"FAILED: {count} integrity problem(s)")
        if self.first_broken_link is not None:
            lines.append(f"first broken link: {self.first_broken_link.message}")
        lines.extend(f"  [{p.kind}] {p.message}" for p in self.problems)
        if self.omitted_problems:
            lines.append(f"  ... and {self.omitted_problems} more")
        return "\n".join(lines)


def _noise(claims: dict[str, JudgeNoise]) -> dict[str, dict[str, Any]]:
    return {claim: noise.as_dict() for claim, noise in claims.items()}


class JudgeNoiseObserver:
    """The noise of each judged claim's verdicts, per run (a ``RowObserver``).

    Args:
        run_id: Only this run's rows (``None``: every run's).
    """

    def __init__(self, run_id: str | None) -> None:
        self.run_id = run_id
        self.noise: dict[str, dict[str, JudgeNoise]] = {}

    def observe(self, rows: Sequence[tuple[StoredRow, Any]]) -> None:
        """Takes rows with their parsed bodies; only judged verdicts are looked into."""
        for row, body in rows:
            if row.kind not in ("judge", "comparative") or row.status not in ("pass", "fail"):
                continue
            if self.run_id is not None and row.run_id != self.run_id:
                continue
            evidence = body.get("evidence") if isinstance(body, dict) else None
            if isinstance(evidence, dict) and isinstance(evidence.get("judge"), dict):
                claims = self.noise.setdefault(row.run_id, {})
                claims.setdefault(row.claim_id, JudgeNoise()).add(row.status, evidence)

"""Judge drift: one judge, or one claim, judged under more than one stability triple.

A judge is pinned by its triple (served model, prompt template hash, sampling hash);
when the triple changes, verdicts before and after are no longer comparable, even if
nobody edited the contract: a provider may serve another snapshot under the same
requested name. Drift is a finding, not an integrity failure: the rows are honest
about who judged; the audit shows where the judge changed.

Two subjects are followed, each within its contract: a judge (``evidence.judge_name``,
per kind of verdict it gives: binary, scale and pairwise claims are asked with
different templates, so one judge rightly holds one prompt sha per kind) and a claim
(``claim_id``). A claim moved to another judge with the same triple has not drifted:
its verdicts come from the same model, prompt and sampling. A judge whose prompt is
kept at the vendor has the same ``prompt_sha`` sentinel for every version of it, so
the stored prompt its rows name (``evidence.stored_prompt``: id and version) counts
as part of the triple here: a new version is judge drift.

``JudgeDriftObserver`` rides on the audit's single pass and keeps, per subject and
run, each distinct triple with its first row: memory grows with runs x subjects (x the
rare triples a run mixes), never with rows. Only rows with a complete triple count:
a row missing part of it proves nothing about who judged (the audit reports it).

A change a recorded succession explains (``verifier judge switch``: a trial measured
the new triple against the old and the judge was moved) is no drift:
``verifier.analyses.lineage`` sets it apart, and the audit names it a succession.

It also notes every judge whose served model is not the model the contract asked for
(``ServedMismatch``): an alias the provider resolved, a local server serving another
model under the name, or a provider swapping models. Such verdicts are honest about
who judged, but not from the judge the contract names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from verifier.analyses.audit import ObservedRows
from verifier.gaps.row import TRIPLE_PARTS
from verifier.gaps.store import StoredRow

__all__ = [
    "DriftChange",
    "DriftScope",
    "JudgeDriftObserver",
    "JudgeSetup",
    "JudgedKey",
    "ServedMismatch",
    "judge_setup",
    "judged_row",
    "verdict_kind",
]

DriftScope = Literal["judge", "claim"]
Triple = tuple[str, str, str]
StoredPromptRef = tuple[str, str]
"""A prompt kept at the vendor: its id and version."""
Identity = tuple[str, str, str, StoredPromptRef | None]

_JUDGED_KINDS = frozenset({"judge", "comparative"})


@dataclass(frozen=True, slots=True)
class JudgeSetup:
    """Who judged: the triple, with the judge's name and the model the contract asked for."""

    model_id: str
    prompt_sha: str
    sampling_sha: str
    judge_name: str | None = None
    requested_model: str | None = None
    stored_prompt: StoredPromptRef | None = None

    @property
    def triple(self) -> Triple:
        return (self.model_id, self.prompt_sha, self.sampling_sha)

    @property
    def identity(self) -> Identity:
        """What drift compares: the triple, and the stored prompt it names, if any."""
        return (*self.triple, self.stored_prompt)

    def as_dict(self) -> dict[str, Any]:
        return {
            "model_id": self.model_id,
            "prompt_sha": self.prompt_sha,
            "sampling_sha": self.sampling_sha,
            "judge_name": self.judge_name,
            "requested_model": self.requested_model,
            "stored_prompt": _stored_dict(self.stored_prompt),
        }


@dataclass(frozen=True, slots=True)
class DriftChange:
    """The point where a judge or claim went from one triple to another.

    Attributes:
        scope: Whether ``subject`` is a judge name or a claim id.
        run_id: The run where the new triple first judged the subject.
        seq: The first row of the subject under the new triple.
        recorded_at: That row's time.
        before_run_id: The run of the previous triple (``run_id`` itself when one run
            mixed triples).
        verdict_kind: For a judge, the kind of verdict (``binary``, ``scale``,
            ``pairwise``) whose triple changed, when the rows tell it.
        succession: The recorded successions that explain the change, one line
            (``Lineage.explains``); ``None``: nothing explains it, it is drift.
    """

    scope: DriftScope
    contract_id: str
    subject: str
    run_id: str
    seq: int
    recorded_at: str
    before_run_id: str
    before: JudgeSetup
    after: JudgeSetup
    verdict_kind: str | None = None
    succession: str | None = None

    @property
    def changed(self) -> tuple[str, ...]:
        """The parts of the triple that differ (``model_id`` is the served model), and
        ``stored_prompt`` when the vendor-kept prompt or its version did."""
        parts = (*TRIPLE_PARTS, "stored_prompt")
        return tuple(
            part
            for part, old, new in zip(parts, self.before.identity, self.after.identity, strict=True)
            if old != new
        )

    @property
    def title(self) -> str:
        """``judge CONTRACT/NAME`` or ``claim CONTRACT/ID``, with a judge's verdict kind."""
        kind = f" ({self.verdict_kind} verdicts)" if self.verdict_kind else ""
        return f"{self.scope} {self.contract_id}/{self.subject}{kind}"

    @property
    def within_run(self) -> bool:
        """Whether one run judged the subject under both triples."""
        return self.before_run_id == self.run_id

    def describe(self) -> str:
        """What changed, old to new, in one line (hashes shortened to 12 characters)."""
        parts = []
        for part in self.changed:
            old, new = getattr(self.before, part), getattr(self.after, part)
            if part == "model_id":
                parts.append(f"served model {old} -> {new}")
            elif part == "stored_prompt":
                parts.append(f"stored prompt {_stored_text(old)} -> {_stored_text(new)}")
            else:
                parts.append(f"{part} {old[:12]} -> {new[:12]}")
        requested = self.before.requested_model, self.after.requested_model
        if "model_id" in self.changed and requested[0] and requested[0] == requested[1]:
            parts.append(f"requested model {requested[0]} unchanged")
        elif requested[0] != requested[1]:
            parts.append(f"requested model {requested[0]} -> {requested[1]}")
        return "; ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "contract_id": self.contract_id,
            "subject": self.subject,
            "run_id": self.run_id,
            "seq": self.seq,
            "recorded_at": self.recorded_at,
            "before_run_id": self.before_run_id,
            "within_run": self.within_run,
            "verdict_kind": self.verdict_kind,
            "changed": list(self.changed),
            "before": self.before.as_dict(),
            "after": self.after.as_dict(),
            "succession": self.succession,
        }


@dataclass(slots=True)
class ServedMismatch:
    """A judge served by another model than the one its contract asked for.

    Attributes:
        contract_id: The contract of the judge.
        judge_name: The judge (``None`` when the rows do not name it).
        requested: The model the contract asked for.
        served: The model the provider said it served.
        run_id: The first run where it happened.
        seq: The first row where it happened.
        runs: Every run where it happened, in the order first seen.
    """

    contract_id: str
    judge_name: str | None
    requested: str
    served: str
    run_id: str
    seq: int
    runs: list[str]

    def describe(self) -> str:
        """``served X, asked for Y`` for one judge, with where it began."""
        judge = f"judge {self.contract_id}/{self.judge_name or '?'}"
        runs = f" (in {len(self.runs)} runs)" if len(self.runs) > 1 else ""
        return (
            f"{judge}: served {self.served}, asked for {self.requested}; "
            f"from run {self.run_id}, row {self.seq}{runs}"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "contract_id": self.contract_id,
            "judge_name": self.judge_name,
            "requested": self.requested,
            "served": self.served,
            "run_id": self.run_id,
            "seq": self.seq,
            "runs": list(self.runs),
        }


@dataclass(frozen=True, slots=True)
class _Sighting:
    seq: int
    recorded_at: str
    setup: JudgeSetup


# (scope, contract_id, subject, verdict kind) -> run_id -> identity -> first row in that run
_Subject = tuple[DriftScope, str, str, str | None]
_Seen = dict[_Subject, dict[str, dict[Identity, _Sighting]]]


def _stored_prompt(evidence: dict[str, Any]) -> StoredPromptRef | None:
    stored = evidence.get("stored_prompt")
    if type(stored) is not dict:
        return None
    return (str(stored.get("id")), str(stored.get("version")))


def _stored_dict(stored: StoredPromptRef | None) -> dict[str, str] | None:
    return None if stored is None else {"id": stored[0], "version": stored[1]}


def _stored_text(stored: StoredPromptRef | None) -> str:
    return "none" if stored is None else f"{stored[0]} version {stored[1]}"


def verdict_kind(row_kind: str, evidence: dict[str, Any]) -> str | None:
    """The kind of verdict a judged row holds: recorded, or read from its verdict.

    A reference-guided verdict (``evidence.reference``) is a kind of its own
    (``binary, reference-guided``): its template, so its ``prompt_sha``, differs from
    the same judge's without a reference. Rows recorded before ``verdict_kind`` was
    written tell it by their shape: a
    comparative judge row is pairwise, a ``verdict`` with ``pass`` is binary, one with
    ``score`` is on a scale. ``None`` when nothing says (an old error row).
    """
    recorded = evidence.get("verdict_kind")
    if type(recorded) is str:
        # Reference-guided claims are asked through templates of their own.
        return f"{recorded}, reference-guided" if evidence.get("reference") else recorded
    if row_kind == "comparative":
        return "pairwise"
    verdict = evidence.get("verdict")
    if type(verdict) is dict:
        if "pass" in verdict:
            return "binary"
        if "score" in verdict:
            return "scale"
    return None


JudgedKey = tuple[Any, ...]
"""What a judged row says of who judged it, as recorded (unchecked): run id, contract
id, claim id, judge name, served model, prompt sha, sampling sha, verdict kind and
stored prompt (see ``judged_row``)."""


def judged_row(
    row: StoredRow, body: dict[str, Any] | None
) -> tuple[JudgedKey, dict[str, Any]] | None:
    """Who judged a row, as its evidence records it, with that evidence; ``None`` for a
    row no judge answered (or whose evidence names no judge).

    The key is cheap to build and hash: a pass over many rows keeps a set of the keys
    it has seen and looks further (``judge_setup``) only at a new one.
    """
    if body is None or row.kind not in _JUDGED_KINDS:
        return None
    evidence = body.get("evidence")
    if type(evidence) is not dict:
        return None
    judge = evidence.get("judge")
    if type(judge) is not dict:
        return None
    get = judge.get
    key = (
        row.run_id,
        body.get("contract_id"),
        row.claim_id,
        evidence.get("judge_name"),
        get("model_id"),
        get("prompt_sha"),
        get("sampling_sha"),
        verdict_kind(row.kind, evidence),
        _stored_prompt(evidence),
    )
    return key, evidence


def judge_setup(key: JudgedKey, evidence: dict[str, Any]) -> tuple[str, JudgeSetup] | None:
    """The contract id (``?`` when the row names none) and the judge of a key of
    ``judged_row``; ``None`` unless its triple is complete (a row missing part of it
    proves nothing about who judged)."""
    _run, contract, _claim, name, model_id, prompt_sha, sampling_sha, _kind, stored = key
    if not all(type(p) is str and p.strip() for p in (model_id, prompt_sha, sampling_sha)):
        return None
    requested = evidence.get("requested_model")
    setup = JudgeSetup(
        model_id,
        prompt_sha,
        sampling_sha,
        judge_name=name if type(name) is str and name else None,
        requested_model=requested if type(requested) is str else None,
        stored_prompt=stored,
    )
    return (contract if type(contract) is str else "?"), setup


class JudgeDriftObserver:
    """Remembers, per judge and per claim, the triples each run judged them under."""

    def __init__(self) -> None:
        self._seen: _Seen = {}
        # Every (run, contract, claim, judge name, triple) already noted: a judged row
        # costs one tuple and one set lookup unless it brings something new.
        self._known: set[tuple[Any, ...]] = set()
        self._mismatches: dict[tuple[str, str | None, str, str], ServedMismatch] = {}

    def observe(self, rows: ObservedRows) -> None:
        """Takes rows (see ``RowObserver``); only judged rows are looked into."""
        known = self._known
        for row, body in rows:
            found = judged_row(row, body)
            if found is not None and found[0] not in known:
                known.add(found[0])
                self._note_row(*found, row)

    def _note_row(self, key: JudgedKey, evidence: dict[str, Any], row: StoredRow) -> None:
        noted = judge_setup(key, evidence)
        if noted is None:
            return
        contract_id, setup = noted
        run_id, _contract, claim_id, _name, *_triple, kind, _stored = key
        sighting = _Sighting(row.seq, row.recorded_at, setup)
        if setup.requested_model and setup.requested_model != setup.model_id:
            self._note_mismatch(
                contract_id, setup.judge_name, setup.requested_model, setup.model_id, row
            )
        self._note(("claim", contract_id, claim_id, None), run_id, setup.identity, sighting)
        if setup.judge_name is not None:
            subject: _Subject = ("judge", contract_id, setup.judge_name, kind)
            self._note(subject, run_id, setup.identity, sighting)

    def _note_mismatch(
        self, contract_id: str, name: str | None, requested: str, served: str, row: StoredRow
    ) -> None:
        key = (contract_id, name, requested, served)
        seen = self._mismatches.get(key)
        if seen is None:
            self._mismatches[key] = ServedMismatch(*key, row.run_id, row.seq, [row.run_id])
        elif row.run_id not in seen.runs:
            seen.runs.append(row.run_id)

    def mismatches(self, run_id: str | None = None) -> list[ServedMismatch]:
        """Every judge served by another model than asked for (of ``run_id`` only, when
        given), in the order first seen."""
        found = list(self._mismatches.values())
        return [m for m in found if run_id is None or run_id in m.runs]

    def _note(self, subject: _Subject, run_id: str, identity: Identity, seen: _Sighting) -> None:
        triples = self._seen.setdefault(subject, {}).setdefault(run_id, {})
        triples.setdefault(identity, seen)

    def changes(self, run_order: Sequence[str]) -> list[DriftChange]:
        """Every change of triple, judges first, each in history order.

        Args:
            run_order: Run ids, oldest first; a run missing from it is placed after
                them all, by its first row.
        """
        position = {run_id: n for n, run_id in enumerate(run_order)}
        last = len(position)
        found: list[DriftChange] = []
        for (scope, contract_id, subject, kind), runs in self._seen.items():
            history = sorted(
                runs.items(),
                key=lambda item: (
                    position.get(item[0], last),
                    min(s.seq for s in item[1].values()),
                ),
            )
            previous: tuple[str, _Sighting] | None = None
            for run_id, triples in history:
                for triple, sighting in triples.items():
                    if previous is not None and previous[1].setup.identity != triple:
                        found.append(
                            DriftChange(
                                scope,
                                contract_id,
                                subject,
                                run_id,
                                sighting.seq,
                                sighting.recorded_at,
                                previous[0],
                                previous[1].setup,
                                sighting.setup,
                                kind,
                            )
                        )
                    previous = (run_id, sighting)
        found.sort(
            key=lambda c: (
                c.scope != "judge",
                position.get(c.run_id, last),
                c.seq,
                c.contract_id,
                c.subject,
            )
        )
        return found

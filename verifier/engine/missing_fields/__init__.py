"""Field paths that found nothing, named once after the run with the closest path.

A typo in a path of a contract (``fields.totl``) either fails every case with the same
reason, where hundreds of identical reasons hide the cause, or, worse, makes nothing
happen: a ``when: output.citatons`` applies its claim to no case, so a case that
should fail passes. The runner tells :class:`MissingFields` of every case and its
results; after the run it gives one warning for

* each rubric claim whose path was missing in all the cases it checked (``claim
  total_ok: field fields.totl is missing in all 200 cases (closest: fields.total)``);
* each other path the contract names (see :func:`named_paths`) that resolved in no
  case of the run (``claim cites applied to no case: its when: path output.citatons
  matched nothing (closest: output.citations)``).

The closest path is the one that differs in the first segment found nowhere, by the
nearest key the cases had there instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from verifier.engine.missing_fields._closest import NearKeys
from verifier.engine.missing_fields._named import NamedPath, named_paths
from verifier.fieldpath import FieldPath, FieldPathError, compile_path
from verifier.results import NOT_APPLICABLE, ClaimResult, ClaimTally

__all__ = ["MissingFields", "NamedPath", "named_paths"]

_UNCHECKED = ("fail", "error")
"""Statuses of a result whose check found its field missing (a fail, or an error)."""


class MissingFields:
    """Counts, per claim and path, the cases the path was missing in.

    Args:
        named: The paths the contract names (:func:`named_paths`), each watched until
            a case has it.
    """

    def __init__(self, named: Sequence[NamedPath] = ()) -> None:
        # (claim id, path) -> cases a rubric result found it missing in, and of those
        # the ones whose result is an error rather than a fail.
        self._missing: dict[tuple[str, str], tuple[int, int]] = {}
        self._near = NearKeys()
        # The named paths no case has had so far: once one has, it costs nothing more.
        self._unresolved: dict[NamedPath, FieldPath] = {}
        for path in named:
            try:
                self._unresolved[path] = compile_path(path.path)
            except FieldPathError:
                continue  # the contract's lint names it
        self._cases = 0

    def add(self, case: Mapping[str, Any] | None, results: Iterable[ClaimResult]) -> None:
        """Counts one case's results; ``case`` (when known) tells which keys exist."""
        results = tuple(results)
        for result in results:
            # Runs once per result of every case: a passing result costs one compare.
            status = result.status
            if status not in _UNCHECKED or "field_missing" not in result.evidence:
                continue
            evidence = result.evidence
            path = evidence.get("path") or evidence.get("spans")
            if result.kind != "rubric" or not isinstance(path, str):
                continue  # a combinator: its parts name their own paths
            key = (result.claim_id, path)
            count, errors = self._missing.get(key, (0, 0))
            self._missing[key] = (count + 1, errors + (status == "error"))
            if case is not None:
                self._near.remember(key, case, path)
        if self._unresolved:
            self._resolve(case, results)

    def warnings(self, breakdown: Mapping[str, ClaimTally]) -> list[str]:
        """One line per path that found nothing: first each claim that applied to no
        case, then each rubric path missing in every case its claim checked, then each
        other named path no case had.

        Args:
            breakdown: The run's tally per claim: its passes and failures are the
                cases it checked (not those a gate skipped or an unusable line).
        """
        warned: set[tuple[str, str]] = set()
        missing = []
        for (claim_id, path), (count, errors) in self._missing.items():
            tally = breakdown.get(claim_id)
            # Other errors (an unusable line) are no case the claim checked.
            if tally is None or count - errors != tally.passed + tally.failed:
                continue
            warned.add((claim_id, path))
            cases = "the only case" if count == 1 else f"all {count} cases"
            line = f"claim {claim_id}: field {path} is missing in {cases}"
            missing.append(line + self._closest((claim_id, path), path, str))
        unapplied: list[str] = []
        unresolved: list[str] = []
        if self._cases:
            for named in self._unresolved:
                if named.owner == "claim" and (named.name, named.path) in warned:
                    continue  # said above, with its count
                if named.gates:
                    unapplied.append(self._line(named))
                else:
                    unresolved.append(self._line(named))
        return [*unapplied, *missing, *unresolved]

    def _resolve(self, case: Mapping[str, Any] | None, results: Sequence[ClaimResult]) -> None:
        self._cases += 1
        if case is None:
            # A resumed case stored without its content: only the rows tell, and only
            # of a claim's ``when`` path (a row not marked not-applicable found it).
            unapplied = {r.claim_id for r in results if NOT_APPLICABLE in r.evidence}
            for named in list(self._unresolved):
                if named.owner != "claim" or not named.gates or named.name not in unapplied:
                    del self._unresolved[named]
            return
        for named, compiled in list(self._unresolved.items()):
            if compiled.find(case):
                del self._unresolved[named]
            else:
                self._near.remember(named, case, named.path)

    def _line(self, named: NamedPath) -> str:
        closest = self._closest(named, named.path, named.shown)
        shown = named.shown(named.path)
        if named.gates:
            # The headline of what did nothing at all: the count adds nothing.
            did = "ran on" if named.owner == "system" else "applied to"
            who = "the system under test" if named.owner == "system" else named.who
            return f"{who} {did} no case: its when: path {shown} matched nothing{closest}"
        count = self._cases
        cases = "the only case" if count == 1 else f"all {count} cases"
        where = "its template's" if named.owner == "judge" else f"its {named.key}: path"
        return f"{named.who}: {where} {shown} matched nothing in {cases}" + closest

    def _closest(self, key: Any, path: str, shown: Any) -> str:
        near = self._near.closest(key, path)
        return f" (closest: {shown(near)})" if near else ""

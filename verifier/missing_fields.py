"""Field paths a claim found missing in every case, named once after the run.

A typo in a claim's path (``fields.totl``) fails every case with the same reason;
hundreds of identical reasons hide the cause. The runner tells :class:`MissingFields`
of every case and its results; after the run, each claim whose path was missing in
all the cases it checked gets one warning naming the closest path that does exist
(``claim total_ok: field fields.totl is missing in all 200 cases (closest:
fields.total)``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from verifier.fieldpath import nearest_path, where_path_stops
from verifier.results import ClaimResult, ClaimTally

__all__ = ["MissingFields"]

_MAX_KEYS = 1000
"""Distinct keys remembered per missing path: enough to find a near name, bounded."""


class MissingFields:
    """Counts, per claim and path, the cases the path was missing in."""

    def __init__(self) -> None:
        # (claim id, path) -> cases missing it, and the keys found where it stopped.
        self._missing: dict[tuple[str, str], int] = {}
        self._keys: dict[tuple[str, str], tuple[int, set[str]]] = {}

    def add(self, case: Mapping[str, Any] | None, results: Iterable[ClaimResult]) -> None:
        """Counts one case's results; ``case`` (when known) tells which keys exist."""
        for result in results:
            # Runs once per result of every case: a passing result costs one compare.
            if result.status != "fail" or "field_missing" not in result.evidence:
                continue
            evidence = result.evidence
            path = evidence.get("path") or evidence.get("spans")
            if result.kind != "rubric" or not isinstance(path, str):
                continue  # a combinator: its parts name their own paths
            key = (result.claim_id, path)
            self._missing[key] = self._missing.get(key, 0) + 1
            if case is not None:
                self._remember_keys(key, case, path)

    def warnings(self, breakdown: Mapping[str, ClaimTally]) -> list[str]:
        """One line per claim and path missing in every case the claim checked.

        Args:
            breakdown: The run's tally per claim: its passes and failures are the
                cases it checked (not those a gate skipped or an unusable line).
        """
        lines = []
        for (claim_id, path), count in self._missing.items():
            tally = breakdown.get(claim_id)
            if tally is None or count != tally.passed + tally.failed:
                continue
            cases = "the only case" if count == 1 else f"all {count} cases"
            line = f"claim {claim_id}: field {path} is missing in {cases}"
            closest = self._closest(claim_id, path)
            if closest:
                line += f" (closest: {closest})"
            lines.append(line)
        return lines

    def _remember_keys(self, key: tuple[str, str], case: Mapping[str, Any], path: str) -> None:
        depth, found = where_path_stops(case, path)
        known = self._keys.get(key)
        if known is None or depth > known[0]:
            self._keys[key] = (depth, set(list(found)[:_MAX_KEYS]))
        elif depth == known[0] and len(known[1]) < _MAX_KEYS:
            known[1].update(found)

    def _closest(self, claim_id: str, path: str) -> str | None:
        known = self._keys.get((claim_id, path))
        return None if known is None else nearest_path(path, *known)

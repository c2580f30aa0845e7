"""A case as its content record keeps it, for reports written while a run goes on.

The console's output excerpts and the JSON report's ``content`` show a case as the
store keeps it, never more: a field the policy redacts appears as its marker, a text
it cuts appears cut, and a policy that stores no content shows none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from verifier._internal.canonical import loads_exact
from verifier.gaps.content import RecordPolicy

__all__ = ["recorded_case"]


def recorded_case(
    case: Mapping[str, Any] | None, policy: RecordPolicy, body: bytes | None
) -> Mapping[str, Any] | None:
    """The case as stored under ``policy``, given the content ``body`` built for it.

    Returns:
        ``case`` itself when the policy stores it whole, the stored envelope's case
        when it redacts or cuts, and ``None`` when it stores none (``hashes``,
        ``none``) or no content could be built.
    """
    if case is None or policy.content != "full" or not body:
        return None
    if policy.plain:
        return case
    kept = loads_exact(body).get("case")
    return kept if isinstance(kept, Mapping) else None

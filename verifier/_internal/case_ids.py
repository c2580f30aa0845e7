"""The ids of cases: the one a line gives, and the one an unusable line's error rows get.

Every row of a run names its case by id, so no two lines of a cases file may share
one: a second case with an id is refused as a duplicate, and the id given to the error
rows of an unusable line (``line-N``) is taken like any other, moving aside
(``line-N~2``) when a case of the file already holds it.
"""

from __future__ import annotations

import re
from typing import Any

from verifier._internal.seen_ids import SeenIds

__all__ = ["FALLBACK_ID", "id_of", "id_problem", "unused_id"]


def id_of(value: Any) -> str | None:
    """The case id ``value`` (a case's ``id``) gives: a non-blank string, or an integer
    as text; ``None`` for anything else."""
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def id_problem(where: str, number: int, case_id: str | None) -> str:
    """Why the case at ``where`` ``number`` has no usable id."""
    if case_id is None:
        return f'{where} {number}: case has no "id" (a non-empty string or integer)'
    # Ids are stored as text columns, and PostgreSQL text cannot hold NUL: refusing
    # the case here keeps the run going and both stores holding the same rows.
    return f'{where} {number}: case "id" contains the NUL character (U+0000), which ids cannot hold'


FALLBACK_ID = re.compile(r"(?:.*@)?line-[0-9]+(?:~[0-9]+)?", re.DOTALL)
"""The form of the ids ``unused_id`` gives the error rows of unusable lines."""


def unused_id(seen: SeenIds, wanted: str) -> str:
    """The id of an unusable line's error rows: ``wanted`` (``line-N``), or when a case
    of the run already holds it, ``wanted~2``, ``wanted~3``...; taken in ``seen``, so no
    two lines ever share an id (a later case with it is a duplicate)."""
    candidate, count = wanted, 1
    while not seen.add(candidate):
        count += 1
        candidate = f"{wanted}~{count}"
    return candidate

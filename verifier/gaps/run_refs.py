"""Naming a stored run relative to the newest: ``last``, ``last~1``, ``last~2``...

``last`` is the run most recently started in a store, ``last~N`` the one N runs
before it (the order ``verifier runs`` lists them in), optionally among the runs of
one contract. Every command that takes a run id takes these too
(``verifier.gaps.store.resolve_run_id`` finds the run). So that a reference can never
mean a real run, a store refuses to begin a run whose id is ``last`` or starts with
``last~`` (``verifier.gaps.records.check_run_id``).

Standard library only: the command line checks the form while parsing its options.
"""

from __future__ import annotations

import re

__all__ = ["is_reserved", "parse_reference"]

_REFERENCE = re.compile(r"last(?:~([0-9]{1,9}))?")
_RESERVED = "last"


def is_reserved(run_id: str) -> bool:
    """Whether ``run_id`` is written like a reference (``last``, ``last~...``), which
    no stored run may be called."""
    return run_id == _RESERVED or run_id.startswith(_RESERVED + "~")


def parse_reference(text: str) -> int | None:
    """How many runs before the newest ``text`` names, or ``None`` for a plain run id.

    Raises:
        ValueError: ``text`` starts like a reference but is not one (``last~x``).
    """
    if not is_reserved(text):
        return None
    # fullmatch, not match with ``$``: ``$`` also matches before a final newline.
    found = _REFERENCE.fullmatch(text)
    if found is None:
        raise ValueError(
            f"{text[:40]!r} is not a run: write a run id, last, or last~N "
            "(N a whole number: the Nth run before the last)"
        )
    return int(found.group(1) or 0)

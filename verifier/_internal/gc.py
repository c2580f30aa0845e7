"""The cycle collector during a run or a recheck: off what was loaded before, and
seldom on what the run makes (ADR 0051)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# The cycle collector's first threshold during a run: about what one chunk of 500
# cases keeps alive until it is stored.
_RUN_GC_THRESHOLD = 50_000


@contextmanager
def gc_frozen() -> Iterator[None]:
    """Keeps the cycle collector off the objects that exist before the run, and runs
    it less often during the run.

    Each chunk builds tens of thousands of containers, so the collector runs often,
    and every full collection would walk everything already loaded (modules, models,
    the plan): about a tenth of a rubric run. Frozen objects are still freed by
    reference counting; they rejoin the collector when the run ends. A process that
    froze objects itself (a pre-forking server) is left as it is.
    """
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    threshold = gc.get_threshold()
    # The collector runs when allocations outnumber deallocations by the first
    # threshold (700). A chunk holds its cases, results and drafts until it is stored,
    # so with 700 the collector ran thousands of times a run, each time walking the
    # chunk's live objects (about a twentieth of a rubric run). Nearly everything a
    # chunk makes is freed by reference counting, so a high threshold still finds the
    # rare cycle, just less often.
    gc.set_threshold(max(threshold[0], _RUN_GC_THRESHOLD), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()

"""The results part of the run page: which results a page lists, in which order, and
the links to the pages around it.

Unless a status is chosen or ``order=run`` asks for the run's own order, the failing
results (``fail``, ``error``) come first, then the others (``part=rest``): a page that
ends the failing ones fills up with the first of the others. Each part pages by seq
as ``browse.run_results`` does, with the same ``back`` trail for its "previous" link.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from verifier.analyses.browse import ResultRow, count_results, run_results
from verifier.gaps.store import GapStore
from verifier.viewer._views import BackTrail, query

__all__ = ["ORDERS", "ResultsPage", "results_page"]

ORDERS: Final = ("", "run")
"""``""``: failing results first; ``run``: every result in the run's order."""


@dataclass(frozen=True, slots=True)
class ResultsPage:
    """One page of a run's results and the query strings of the pages around it.

    Attributes:
        items: The results, in the order shown.
        searching: The page is empty but a scan goes on in the next one.
        count: How many results the filters match (``None``: not counted, see
            ``browse.count_results``).
        failing_first: Whether failing results come first.
    """

    items: list[ResultRow]
    searching: bool
    count: int | None
    failing_first: bool
    first: str | None
    previous: str | None
    next: str | None


def results_page(
    store: GapStore,
    run_id: str,
    filters: dict[str, str],
    part: str,
    after: int | None,
    trail: BackTrail,
    limit: int,
) -> ResultsPage:
    """The page of results ``filters`` (claim, status, q, order) and ``part``/``after``
    ask for."""
    claim, status, q = filters["claim"] or None, filters["status"] or None, filters["q"] or None
    failing_first = status is None and filters["order"] != "run"
    rest = failing_first and part == "rest"
    failing = None if not failing_first else not rest
    page = run_results(
        store, run_id, claim=claim, status=status, text=q, failing=failing, after=after, limit=limit
    )
    items, has_more, next_after = page.items, page.has_more, page.next_after
    at_start = after is None and not rest
    here = {**filters, "part": "rest" if rest else ""}
    back = trail.previous()
    previous = None if back is None else query(**here, after=back[0], back=back[1].text())
    if failing_first and not rest and not has_more and len(items) < limit:
        # The failing results end here: the others begin on this page.
        others = run_results(
            store, run_id, claim=claim, text=q, failing=False, limit=limit - len(items)
        )
        items = [*items, *others.items]
        has_more, next_after = others.has_more, others.next_after
        here, trail, after = {**filters, "part": "rest"}, BackTrail(()), None
    return ResultsPage(
        items=items,
        searching=not items and has_more,
        count=count_results(store, run_id, claim=claim, status=status, text=q),
        failing_first=failing_first,
        first=None if at_start else query(**filters),
        previous=previous,
        next=None
        if next_after is None or not has_more
        else query(**here, after=next_after, back=trail.forward(after).text()),
    )

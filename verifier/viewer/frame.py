"""What every viewer page shares: where pages live, the headers they carry, and the
``Viewer`` a page module's ``register`` receives (see :mod:`verifier.viewer.app`).

Page modules import from here, not from ``app``, which imports them.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import quote, urlencode

import jinja2
from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute

from verifier import __version__
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore, RunRecord, open_store, redacted_target, resolve_run_id
from verifier.report._html_page import environment

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "SECURITY_HEADERS",
    "VIEW_PREFIX",
    "MissingPage",
    "Registrar",
    "Viewer",
    "ViewerRoute",
    "case_url",
    "stored_run",
]

VIEW_PREFIX: Final = "/view"
"""Where the viewer's pages are, under ``verifier view`` and ``verifier serve`` alike."""

CONTENT_SECURITY_POLICY: Final = (
    "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "script-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The static pages' policy, with the stylesheets and script served by the viewer
itself: no fetch, frame or form goes anywhere else, and no inline script runs."""

SECURITY_HEADERS: Final = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}
"""Set on every viewer response that has not set its own (an embeddable panel may
widen ``frame-ancestors``)."""


class ViewerRoute(APIRoute):
    """A route whose responses carry ``SECURITY_HEADERS`` (those it did not set)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def with_headers(request: Request) -> Response:
            response = await handler(request)
            for name, value in SECURITY_HEADERS.items():
                response.headers.setdefault(name, value)
            return response

        return with_headers


@dataclass(frozen=True)
class Viewer:
    """What every page needs: the store it reads and the templates it renders.

    Attributes:
        store_target: The gap store, as ``verifier run --store`` takes it.
        environment: The autoescaping environment over the viewer's templates.
        frame_ancestors: Origins besides the viewer's own whose pages may frame the
            evaluation panel (``--frame-ancestor``; ``verifier.viewer.frame_ancestors``).
    """

    store_target: str
    environment: jinja2.Environment = field(default_factory=lambda: page_environment())
    frame_ancestors: tuple[str, ...] = ()

    @contextmanager
    def store(self) -> Iterator[GapStore]:
        """The store, opened for one request and closed after it.

        Raises:
            HTTPException: 503 when the store cannot be opened (the reason is one line).
        """
        try:
            opened = open_store(self.store_target)
        except VerifierError as exc:
            raise HTTPException(503, str(exc).splitlines()[0]) from None
        with opened:
            yield opened

    @property
    def location(self) -> str:
        """The store as pages may show it (no password)."""
        return redacted_target(self.store_target)

    def page(self, template: str, title: str, context: Mapping[str, Any]) -> HTMLResponse:
        """``template`` rendered with ``context`` (plus ``title``, ``version``, ``prefix``
        and the store's ``location``).

        Args:
            template: A template name in ``verifier/viewer/templates``, extending
                ``base.html.j2``.
            title: The page's title.
            context: What the template reads.
        """
        values = {
            "title": title,
            "version": __version__,
            "prefix": VIEW_PREFIX,
            "location": self.location,
            **context,
        }
        return HTMLResponse(self.environment.get_template(template).render(values))

    def problem(self, status: int, message: str) -> HTMLResponse:
        """A page saying, in one line, why the request has no page (``status``: 404 for
        what the store does not hold, 400 for a parameter out of its range)."""
        response = self.page("problem.html.j2", "verifier view", {"message": message})
        response.status_code = status
        return response


def page_environment() -> jinja2.Environment:
    """The viewer's templates, then the static reports' (whose parts pages import), with
    ``case_url`` for their links to a case."""
    pages = environment("verifier.viewer", "verifier.report")
    pages.globals["case_url"] = case_url
    return pages


def case_url(run_id: str, case_id: str) -> str:
    """The viewer's address of case ``case_id`` of run ``run_id``.

    Each id is one path segment, every character but letters, digits and ``-._~``
    percent-encoded: a ``/`` in an id (``../x``) must not become a path separator a
    browser resolves. A case id of ``.`` or ``..`` would still be a dot segment (URL
    parsers read ``%2e`` as ``.`` too), so such an id goes in the query instead.
    """
    run = quote(run_id, safe="")
    if case_id in (".", ".."):
        return f"{VIEW_PREFIX}/runs/{run}/case?{urlencode({'id': case_id})}"
    return f"{VIEW_PREFIX}/runs/{run}/cases/{quote(case_id, safe='')}"


class MissingPage(Exception):
    """What a page asked for is not in the store; the message is one line."""


def stored_run(store: GapStore, run: str) -> RunRecord:
    """The run ``run`` names (an id, ``last`` or ``last~N``, as on the command line).

    Raises:
        MissingPage: The store holds no such run.
    """
    try:
        run_id = resolve_run_id(store, run)
    except VerifierError as exc:
        raise MissingPage(str(exc).splitlines()[0]) from None
    record = store.run(run_id)
    if record is None:
        raise MissingPage(f"no run {run_id} in {store.location}")
    return record


Registrar = Callable[[APIRouter, Viewer], None]
"""A page module's ``register``: adds its ``GET`` routes to the viewer's router."""

"""The viewer's assembly: its router, its page environment, and how pages join it.

Every page lives under ``/view`` (``VIEW_PREFIX``), whether ``verifier view`` serves it
alone or ``verifier serve`` serves it beside the API, so one link works under both.
Pages are server-rendered from autoescaping Jinja2 templates; their stylesheets and
their one script are package data served from ``/view/static/``, so a page fetches
nothing from anywhere else and its content security policy allows scripts from the
server only (ADR 0042). The viewer only reads: it has no route but ``GET``.

A page module joins the viewer with a function of its own,
``register(router: APIRouter, viewer: Viewer) -> None``, that adds its ``GET`` routes to
``router`` (paths relative to ``/view``) and renders with :meth:`Viewer.page`; its
function is then listed once in ``PAGES`` below.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Final

import jinja2
from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.routing import APIRoute

from verifier import __version__
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore, open_store, redacted_target
from verifier.report._html_page import environment
from verifier.viewer import diff, panel, trends

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "PAGES",
    "VIEW_PREFIX",
    "Registrar",
    "Viewer",
    "ViewerRoute",
    "viewer_router",
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

_STATIC: Final = {
    # name: (package, resource path, media type)
    "report.css": ("verifier.report", "templates/report.css", "text/css; charset=utf-8"),
    "viewer.css": ("verifier.viewer", "static/viewer.css", "text/css; charset=utf-8"),
    "viewer.js": ("verifier.viewer", "static/viewer.js", "text/javascript; charset=utf-8"),
}
"""The files a page may load: the static reports' stylesheet (one look for both), the
viewer's own additions, and its script."""


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
            evaluation panel (``--frame-ancestor``; see ``verifier.viewer.frame_ancestors``).
    """

    store_target: str
    environment: jinja2.Environment = field(default_factory=lambda: environment("verifier.viewer"))
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


Registrar = Callable[[APIRouter, Viewer], None]
"""A page module's ``register``: adds its ``GET`` routes to the viewer's router."""

PAGES: Final[tuple[Registrar, ...]] = (diff.register, trends.register, panel.register)
"""Every page module's ``register``, one line each."""


def viewer_router(store_target: str, *, frame_ancestors: tuple[str, ...] = ()) -> APIRouter:
    """The viewer's routes, under ``/view``, reading the store ``store_target``.

    Include it in an application with ``app.include_router(viewer_router(target))``;
    nothing else is needed (no middleware, no mounted folder).

    Args:
        store_target: The gap store, as ``verifier run --store`` takes it.
        frame_ancestors: Origins that may frame the evaluation panel.
    """
    viewer = Viewer(store_target, frame_ancestors=frame_ancestors)
    router = APIRouter(prefix=VIEW_PREFIX, route_class=ViewerRoute, include_in_schema=False)

    @router.get("/")
    def home() -> RedirectResponse:
        return RedirectResponse(f"{VIEW_PREFIX}/runs", status_code=303)

    @router.get("/static/{name}")
    def static(name: str) -> Response:
        found = _STATIC.get(name)
        if found is None:
            raise HTTPException(404, f"no file {name!r}")
        package, path, media_type = found
        body = resources.files(package).joinpath(path).read_bytes()
        return Response(body, media_type=media_type, headers={"cache-control": "no-cache"})

    for register in PAGES:
        register(router, viewer)
    return router

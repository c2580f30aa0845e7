"""The viewer's assembly: its router, and the page modules that join it.

Every page lives under ``/view`` (``VIEW_PREFIX``), whether ``verifier view`` serves it
alone or ``verifier serve`` serves it beside the API, so one link works under both.
Pages are server-rendered from autoescaping Jinja2 templates; their stylesheets and
their one script are package data served from ``/view/static/``, so a page fetches
nothing from anywhere else and its content security policy allows scripts from the
server only (ADR 0042). The viewer only reads: it has no route but ``GET``.

A page module joins the viewer with a function of its own,
``register(router: APIRouter, viewer: Viewer) -> None`` (``Viewer`` and the rest from
:mod:`verifier.viewer.frame`), that adds its ``GET`` routes to ``router`` (paths
relative to ``/view``) and renders with :meth:`Viewer.page`; its function is then
listed once in ``PAGES`` below.
"""

from __future__ import annotations

from importlib import resources
from typing import Final

from fastapi import APIRouter, HTTPException, Response
from fastapi.responses import RedirectResponse

from verifier.viewer import diff, grid, pages, panel, trends
from verifier.viewer.frame import (
    CONTENT_SECURITY_POLICY,
    VIEW_PREFIX,
    Registrar,
    Viewer,
    ViewerRoute,
)

__all__ = ["CONTENT_SECURITY_POLICY", "PAGES", "VIEW_PREFIX", "viewer_router"]

_STATIC: Final = {
    # name: (package, resource path, media type)
    "report.css": ("verifier.report", "templates/report.css", "text/css; charset=utf-8"),
    "viewer.css": ("verifier.viewer", "static/viewer.css", "text/css; charset=utf-8"),
    "viewer.js": ("verifier.viewer", "static/viewer.js", "text/javascript; charset=utf-8"),
}
"""The files a page may load: the static reports' stylesheet (one look for both), the
viewer's own additions, and its script."""


PAGES: Final[tuple[Registrar, ...]] = (
    pages.register,
    grid.register,
    diff.register,
    trends.register,
    panel.register,
)
"""Every page module's ``register``, one line each."""


def viewer_router(store_target: str, *, frame_ancestors: tuple[str, ...] = ()) -> APIRouter:
    """The viewer's routes, under ``/view``, reading the store ``store_target``.

    Include it in an application with ``app.include_router(viewer_router(target))``;
    nothing else is needed (no middleware, no mounted folder).

    Args:
        store_target: The gap store, as ``verifier run --store`` takes it.
        frame_ancestors: Origins whose pages may frame the evaluation panel.
    """
    viewer = Viewer(store_target, frame_ancestors=frame_ancestors)
    router = APIRouter(prefix=VIEW_PREFIX, route_class=ViewerRoute, include_in_schema=False)

    @router.get("/")
    def home() -> RedirectResponse:
        """Redirects to the list of runs."""
        return RedirectResponse(f"{VIEW_PREFIX}/runs", status_code=303)

    @router.get("/static/{name}")
    def static(name: str) -> Response:
        """The viewer's stylesheets and script."""
        found = _STATIC.get(name)
        if found is None:
            raise HTTPException(404, f"no file {name!r}")
        package, path, media_type = found
        body = resources.files(package).joinpath(path).read_bytes()
        return Response(body, media_type=media_type, headers={"cache-control": "no-cache"})

    for register in PAGES:
        register(router, viewer)
    return router

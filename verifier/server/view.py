"""The application of ``verifier view``: the viewer's pages alone, behind the API's guard.

It answers the same ``Host`` names and needs the same bearer token as ``verifier
serve`` would with these settings (checked by :meth:`ServerSettings.check`: a token is
required off loopback), and serves nothing but the viewer's ``GET`` routes (ADR 0042).
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import RedirectResponse

from verifier import __version__
from verifier.server.app import add_guard
from verifier.server.settings import ServerSettings
from verifier.viewer.app import VIEW_PREFIX, viewer_router


def create_view_app(settings: ServerSettings) -> FastAPI:
    """The viewer over ``settings.store``, guarded as the API is.

    Args:
        settings: Checked settings (``store``, ``host``, ``token``, ``allowed_hosts``
            and ``max_body`` are used).
    """
    app = FastAPI(
        title="verifier view",
        version=__version__,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.include_router(viewer_router(settings.store, frame_ancestors=settings.frame_ancestors))

    @app.get("/", include_in_schema=False)
    def home() -> RedirectResponse:
        return RedirectResponse(f"{VIEW_PREFIX}/runs", status_code=303)

    add_guard(app, settings)
    return app

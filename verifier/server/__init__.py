"""``verifier serve``: the HTTP API (FastAPI behind uvicorn, from the ``serve`` extra).

``POST /v1/evaluate`` is the PRD's single evaluation; ``POST /v1/runs`` runs a contract
over cases in the background and ``GET /v1/runs/{run_id}`` returns its JSON report.
"""

from verifier.server.app import create_app
from verifier.server.settings import ServeError, ServerSettings

__all__ = ["ServeError", "ServerSettings", "create_app"]

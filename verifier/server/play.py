"""``/play/``: the playground of ``verifier serve``: edit a contract, try it on one case,
save it into the contracts folder.

Every route is behind the server's guard, as the API is (the ``Host`` check, and the
bearer token when one is set; ADR 0081). A request that changes something (a try, a
save) must also be JSON (``Content-Type: application/json``) and, when the browser
says where it comes from (``Origin``, ``Sec-Fetch-Site``), come from this server's own
pages: a page of another site can send neither a JSON body nor a header without the
browser asking the server first, which it never allows, and no cookie is ever read, so
no request is made on a visitor's behalf. The contract's text is checked as ``verifier
check`` checks a file and held to the rules of an inline contract
(:func:`verifier.server.contracts.check_inline`); a try is one ``run_contract`` call
(:mod:`verifier.server.play_run`); saving is :mod:`verifier.server.play_files`.
"""

from __future__ import annotations

import asyncio
from importlib import resources
from pathlib import Path
from typing import Any, Final

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field

from verifier.contract.load import LoadedContract
from verifier.errors import Diagnostic, VerifierError
from verifier.logs import get_logger
from verifier.server.contracts import check_inline
from verifier.server.limits import OverLimit, check_run
from verifier.server.play_cases import add_case_routes
from verifier.server.play_files import (
    STARTERS,
    SaveRefused,
    folder_contracts,
    read_contract,
    save_contract,
    starter_text,
)
from verifier.server.play_run import PLAY_CASE_ID, run_one_case
from verifier.server.routing import OrjsonRoute
from verifier.server.settings import ServerSettings
from verifier.viewer.frame import CONTENT_SECURITY_POLICY, Viewer, ViewerRoute

__all__ = ["PLAY_POLICY", "PLAY_PREFIX", "add_play_routes"]

log = get_logger("verifier.server")

PLAY_PREFIX: Final = "/play"
PLAY_POLICY: Final = f"{CONTENT_SECURITY_POLICY}; connect-src 'self'"
"""The viewer's policy, and the page's script may call this server (and nothing else)."""

_STATIC: Final = {
    "play.js": "text/javascript; charset=utf-8",
    "play.css": "text/css; charset=utf-8",
}
_NEW_NAME: Final = "new-contract.yaml"


class _PlayRoute(ViewerRoute, OrjsonRoute):
    """The viewer's security headers, and JSON bodies decoded as the API decodes them."""


class ContractText(BaseModel):
    """A contract being edited: where it would stand in the folder, and its YAML."""

    name: str = Field(default=_NEW_NAME, max_length=500)
    text: str


class TryRequest(ContractText):
    """A contract and the one case to check it on (an object with an ``id``, or none:
    the playground's own id is given)."""

    case: dict[str, Any]


def same_origin_json(request: Request) -> None:
    """Refuses a request that changes something unless it is JSON from this server's
    own pages (the playground's defence against requests forged by other sites).

    Raises:
        HTTPException: 415 for another content type, 403 for another origin.
    """
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json":
        raise HTTPException(415, "send the body as JSON (Content-Type: application/json)")
    site = request.headers.get("sec-fetch-site")
    origin = request.headers.get("origin")
    host = request.headers.get("host", "")
    foreign_origin = origin is not None and origin.split("://", 1)[-1] != host
    if foreign_origin or site not in (None, "same-origin", "none"):
        raise HTTPException(403, "only the playground's own page may send this request")


def add_play_routes(app: FastAPI, settings: ServerSettings) -> None:
    """Adds the playground's routes under ``/play`` to the API ``app``."""
    router = APIRouter(prefix=PLAY_PREFIX, route_class=_PlayRoute, include_in_schema=False)
    viewer = Viewer(settings.store)
    root = settings.contracts_dir.resolve() if settings.contracts_dir is not None else None
    _add_page_routes(router, viewer, root)
    _add_edit_routes(router, settings, viewer, root)
    add_case_routes(router, viewer)
    app.include_router(router)


def _add_page_routes(router: APIRouter, viewer: Viewer, root: Path | None) -> None:
    @router.get("/")
    def page() -> HTMLResponse:
        """The playground."""
        context = {
            "contracts": folder_contracts(root) if root is not None else [],
            "has_folder": root is not None,
            "starters": list(STARTERS),
        }
        response = viewer.page("play.html.j2", "verifier playground", context)
        response.headers["content-security-policy"] = PLAY_POLICY
        return response

    @router.get("/static/{name}")
    def static(name: str) -> Response:
        """The playground's script and stylesheet."""
        media_type = _STATIC.get(name)
        if media_type is None:
            raise HTTPException(404, f"no file {name!r}")
        body = resources.files("verifier.viewer").joinpath("static", name).read_bytes()
        return Response(body, media_type=media_type, headers={"cache-control": "no-cache"})

    @router.get("/contract")
    def contract(name: str | None = None, starter: str | None = None) -> Any:
        """A contract of the folder (``name``) or a starter's (``starter``), to edit."""
        if starter is not None:
            text = starter_text(starter)
            if text is None:
                raise HTTPException(404, f"no starter {starter!r}")
            return {"name": f"{STARTERS[starter][1]}.yaml", "text": text}
        if root is None or name is None:
            raise HTTPException(404, "this server has no contracts folder (--contracts)")
        try:
            return {"name": name, "text": read_contract(root, name)}
        except SaveRefused as exc:
            raise HTTPException(exc.status, str(exc)) from None


def _add_edit_routes(
    router: APIRouter, settings: ServerSettings, viewer: Viewer, root: Path | None
) -> None:
    guarded = [Depends(same_origin_json)]
    trying = [0]  # tries in progress; the event loop is one thread, so a list suffices

    @router.post("/check", dependencies=guarded)
    async def check(body: ContractText) -> Any:
        """Every problem of the text, as ``verifier check`` finds them."""
        loaded, problems = await asyncio.to_thread(_checked, body, settings)
        return _check_answer(loaded, problems)

    @router.post("/run", dependencies=guarded)
    async def try_contract(body: TryRequest) -> Any:
        """The contract's claims on the one case, as ``verifier run`` checks them."""
        loaded, problems = await asyncio.to_thread(_checked, body, settings)
        if loaded is None:
            return JSONResponse(_check_answer(loaded, problems), status_code=422)
        try:
            check_run(settings, loaded, 1)
        except OverLimit as exc:
            raise HTTPException(413, exc.detail) from None
        if trying[0] >= settings.max_runs:
            raise HTTPException(
                429, f"{settings.max_runs} tries are in progress; retry when one finishes"
            )
        case = {"id": PLAY_CASE_ID, **body.case}
        trying[0] += 1
        try:
            outcome = await asyncio.to_thread(run_one_case, loaded, case, mode=settings.judge_mode)
        except VerifierError as exc:
            raise HTTPException(422, _shown(exc, root)) from None
        finally:
            trying[0] -= 1
        html = viewer.environment.get_template("_play_verdicts.html.j2").render(o=outcome)
        return {
            "passed": outcome.passed,
            "score": outcome.score,
            "verdicts": [{"claim": v.claim_id, "status": v.status} for v in outcome.verdicts],
            "html": html,
        }

    @router.post("/save", dependencies=guarded)
    async def save(body: ContractText) -> Any:
        """Writes the contract as a new file of the folder (or over one of a lower
        version)."""
        if root is None:
            raise HTTPException(409, "this server has no contracts folder to save into")
        loaded, problems = await asyncio.to_thread(_checked, body, settings)
        if loaded is None:
            answer = _check_answer(loaded, problems)
            answer["detail"] = "the contract has problems; fix them before saving"
            return JSONResponse(answer, status_code=422)
        try:
            saved = save_contract(root, body.name, body.text, loaded.contract.version)
        except SaveRefused as exc:
            raise HTTPException(exc.status, str(exc)) from None
        log.info("playground saved a contract", name=saved.name, replaced=saved.replaced)
        return {"name": saved.name, "replaced": saved.replaced}


def _checked(
    body: ContractText, settings: ServerSettings
) -> tuple[LoadedContract | None, list[Diagnostic]]:
    """The contract and its problems, as ``verifier check`` gives them (calibration
    warnings included), held to the inline contract's rules."""
    from verifier.compare.calibration_check import CalibrationCheck

    loaded, problems = check_inline(body.text, settings.contracts_dir, name=body.name)
    if loaded is not None:
        calibrations = CalibrationCheck(settings.store, note=lambda _: None)
        problems = sorted({*problems, *calibrations.warnings(loaded)})
    return loaded, problems


def _check_answer(loaded: LoadedContract | None, problems: list[Diagnostic]) -> dict[str, Any]:
    summary = contract_id = None
    if loaded is not None:
        contract = loaded.contract
        count = len(contract.claims)
        summary = f"{contract.contract} v{contract.version}, {count} claim{'s' * (count != 1)}"
        contract_id = contract.contract
    return {
        "ok": loaded is not None,
        "summary": summary,
        "contract": contract_id,
        "problems": [
            {"line": d.line, "col": d.col, "severity": d.severity, "message": d.message}
            for d in problems
        ],
    }


def _shown(exc: VerifierError, root: Path | None) -> str:
    """A run's error as the page may show it: its first line, the folder's own path
    left out (the server's other paths are its operator's business)."""
    line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    log.warning("playground try failed", error=line)
    return line.replace(f"{root}/", "") if root is not None else line

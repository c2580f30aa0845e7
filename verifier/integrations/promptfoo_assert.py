"""A promptfoo ``python`` assertion that grades each output with a verifier contract.

promptfoo calls ``get_assert(output, context)`` for every test and takes the returned
GradingResult. Here the output becomes one case (``output``; ``input`` is the rendered
prompt; ``vars`` the test's vars), every claim of the contract is checked through the
ordinary runner, and the case's result comes back: ``pass`` when the case passes
(score at or above the contract's threshold and no error), ``score`` the case score,
one component result per claim, and ``namedScores`` by claim id. A contract that
cannot be loaded, or a store that cannot be written, is ``pass: false`` with the
reason; never a pass by default.

In ``promptfooconfig.yaml`` (the assertion's ``config`` is passed in ``context``)::

    defaultTest:
      assert:
        - type: python
          value: file://verifier_grade.py     # a shim holding one import, see below
          config:
            contract: contracts/answers.yaml  # required; relative to where promptfoo runs
            store: .verifier/gaps.db          # optional; false keeps no gap rows
            judges: replay                    # optional: live, replay or record
            recordings: answers.recordings.jsonl  # optional
            parse_json: true                  # optional: parse a text output as JSON
            case_id: my-case                  # optional: default the test's description

The shim is ``from verifier.integrations.promptfoo_assert import get_assert``; or point
``value`` at this file itself (``python -m verifier.integrations.promptfoo_assert``
prints its path). Set ``PROMPTFOO_PYTHON`` to the interpreter verifier is installed in.
Each call is one run in the store (``options.promptfoo`` records it), so ``verifier
audit`` and ``verifier export --format promptfoo`` see promptfoo-graded outputs too.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from verifier.gaps.target import store_target

__all__ = ["get_assert"]

_OPTIONS = frozenset({"contract", "store", "judges", "recordings", "parse_json", "case_id"})
_MODES = ("live", "replay", "record")


def get_assert(output: Any, context: Mapping[str, Any]) -> dict[str, Any]:
    """Checks ``output`` against the contract named in the assertion's config.

    Args:
        output: The provider's output as promptfoo passes it (text or JSON value).
        context: promptfoo's assertion context: ``prompt``, ``vars``, ``test`` and the
            assertion's ``config``.

    Returns:
        A GradingResult: ``pass``, ``score``, ``reason``, ``componentResults`` (one per
        claim) and ``namedScores``.
    """
    from verifier.errors import VerifierError
    from verifier.logs import is_configured, route_to_standard_logging

    if not is_configured():
        # Unconfigured, structlog prints every run's start and end to stdout; in
        # promptfoo's worker they belong to the host's logging (warnings and up by
        # default), as under pytest.
        route_to_standard_logging()
    try:
        options = _options(context)
        case = _case(output, context, options)
        return _graded(case, options)
    except (VerifierError, ValueError, OSError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        return {"pass": False, "score": 0, "reason": f"verifier could not grade: {reason}"}


def _options(context: Mapping[str, Any]) -> dict[str, Any]:
    config = context.get("config") or {}
    if not isinstance(config, Mapping):
        raise ValueError("the assertion's config must be a mapping")
    unknown = sorted(set(config) - _OPTIONS)
    if unknown:
        raise ValueError(f"unknown config key {unknown[0]!r}; known: {', '.join(sorted(_OPTIONS))}")
    contract = config.get("contract")
    if not isinstance(contract, str) or not contract.strip():
        raise ValueError("the assertion's config needs `contract: path/to/contract.yaml`")
    mode = config.get("judges")
    if mode is not None and mode not in _MODES:
        raise ValueError(f"judges must be one of {', '.join(_MODES)}, got {mode!r}")
    return dict(config)


def _case(output: Any, context: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    if options.get("parse_json") and isinstance(output, str):
        try:
            output = json.loads(output)
        except ValueError as exc:
            raise ValueError(f"parse_json is set but the output is not JSON: {exc}") from None
    test = context.get("test")
    described = test.get("description") if isinstance(test, Mapping) else None
    case_id = options.get("case_id") or described or "promptfoo-output"
    vars_ = context.get("vars")
    return {
        "id": str(case_id),
        "input": context.get("prompt"),
        "output": output,
        "vars": dict(vars_) if isinstance(vars_, Mapping) else {},
    }


def _graded(case: dict[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    from verifier.contract.load import load_contract

    loaded = load_contract(Path(options["contract"]))
    target = options.get("store")
    if target is False:
        with tempfile.TemporaryDirectory(prefix="verifier-promptfoo-") as scratch:
            return _run(loaded, case, options, str(Path(scratch) / "gaps.db"))
    if target is not None and not isinstance(target, str):
        raise ValueError("store must be a store target (a path or URL) or false")
    return _run(loaded, case, options, store_target(target))


def _run(
    loaded: Any, case: dict[str, Any], options: Mapping[str, Any], target: str
) -> dict[str, Any]:
    from verifier.run.api import run_contract
    from verifier.run.assembly import Judges

    recordings = options.get("recordings")
    result = run_contract(
        loaded,
        [case],
        store=target,
        judges=Judges(
            mode=options.get("judges"), recordings=Path(recordings) if recordings else None
        ),
        # promptfoo's provider produced the output; the contract's own system is not run.
        use_declared_sut=False,
        options_record={"promptfoo": "python assertion"},
    )
    return _case_grading_result(loaded, result.cases[0])


def _case_grading_result(loaded: Any, case: Any) -> dict[str, Any]:
    from verifier.integrations.promptfoo_export import claim_grading_result

    contract = loaded.contract
    components = [
        claim_grading_result(
            status=r.status,
            score=r.score,
            reason=r.reason,
            claim_id=r.claim_id,
            kind=r.kind,
            contract_id=contract.contract,
            contract_version=contract.version,
        )
        for r in case.results
    ]
    missed = [f"{r.claim_id} {r.status}: {r.reason}" for r in case.results if r.status != "pass"]
    passed = f"{case.count('pass')}/{len(case.results)}"
    head = f"{contract.contract} v{contract.version}: {passed} claims passed"
    reason = "; ".join([head, *missed]) if missed else head
    return {
        "pass": case.passed,
        "score": round(case.score, 6),
        "reason": " ".join(reason.split()),
        "componentResults": components,
        "namedScores": {c["assertion"]["metric"]: c["score"] for c in components},
    }


if __name__ == "__main__":
    print(Path(__file__).resolve())

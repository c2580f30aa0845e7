"""Producing each case's output with the system under test, before any claim is checked.

For every usable case of a chunk the stage reads the input (``sut.input``), calls the
system ``repeat`` times, and writes the first output to ``sut.output`` and, with more
than one run, every output in order to ``runs`` (so consistency claims compare them).
Calls run concurrently, at most ``concurrency`` at a time. A case whose input is
missing, whose call failed, or whose output is not of the declared format becomes an
unusable line: error rows for that case, naming the cause; the other cases go on.
Every case the stage touched carries the provenance recorded in its rows' evidence.
With ``sut.when``, a case where that path finds nothing is not given to the system:
it reaches the claims as it is, its provenance saying the system did not run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import orjson

from verifier.cases import CaseLine
from verifier.contract.sut_models import SutSpec
from verifier.engine.comparative import RUNS_KEY
from verifier.fieldpath import MISSING, compile_path
from verifier.sut._types import Caller, Produced


class SutStage:
    """Produces the outputs of chunks of cases (the runner's ``OutputSource``).

    Args:
        spec: The system and where its output goes.
        caller: What calls it.
        repeat: Calls per case.
        concurrency: Calls in flight at once.
        variant: The variant's name, recorded in the provenance (``--variant``).
    """

    def __init__(
        self,
        spec: SutSpec,
        caller: Caller,
        *,
        repeat: int = 1,
        concurrency: int = 8,
        variant: str | None = None,
    ) -> None:
        self.spec = spec
        self.caller = caller
        self.repeat = repeat
        self.concurrency = concurrency
        self.input_path = compile_path(spec.input)
        self.when = compile_path(spec.when) if spec.when is not None else None
        self.identity = caller.describe()
        if variant is not None:
            self.identity["variant"] = variant
        self._slots: asyncio.Semaphore | None = None

    async def produce(self, chunk: Sequence[CaseLine]) -> list[CaseLine]:
        if self._slots is None:  # made inside the running loop
            self._slots = asyncio.Semaphore(self.concurrency)
        return list(await asyncio.gather(*(self._produce(line) for line in chunk)))

    async def _produce(self, line: CaseLine) -> CaseLine:
        if line.case is None:
            return line
        if self.when is not None and not self.when.find(line.case):
            return CaseLine(line.line, line.case_id, line.case, None, self._not_run())
        value = self.input_path.get(line.case)
        if value is MISSING:
            reason = (
                f"line {line.line}: case has no {self.spec.input!r} to give the system under test"
            )
            return CaseLine(line.line, line.case_id, None, reason, dict(self.identity))
        runs = await asyncio.gather(
            *(self._call(value, line.case_id, i) for i in range(self.repeat))
        )
        provenance = self._provenance(runs)
        outputs: list[Any] = []
        for index, produced in enumerate(runs):
            output, problem = (None, produced.error) if produced.error else self._decode(produced)
            if problem is not None:
                which = f" (run {index + 1} of {self.repeat})" if self.repeat > 1 else ""
                # The whole reason is masked: the command line may carry a secret too.
                reason = self.caller.mask(
                    f"system under test {self._name()} failed{which}: {problem}"
                )
                return CaseLine(line.line, line.case_id, None, reason, provenance)
            outputs.append(output)
        case = dict(line.case)
        case[self.spec.output] = outputs[0]
        if self.repeat > 1:
            case[RUNS_KEY] = outputs
        return CaseLine(line.line, line.case_id, case, None, provenance)

    async def _call(self, value: Any, case_id: str, run: int) -> Produced:
        assert self._slots is not None
        async with self._slots:
            try:
                return await self.caller.call(value, case_id=case_id, run=run)
            except Exception as exc:  # a caller bug must not lose the chunk
                return Produced(
                    error=self.caller.mask(f"internal error: {type(exc).__name__}: {exc}")
                )

    def _decode(self, produced: Produced) -> tuple[Any, str | None]:
        value = produced.value
        if isinstance(value, str) and not value.strip():
            empty = self._empty(value)
            if empty is not None:
                return None, empty
        if self.spec.format == "text":
            if not isinstance(value, str):
                kind = type(value).__name__
                return None, f"returned {kind}, not text (declare `format: json` for data)"
            return value, None
        if isinstance(value, (str, bytes)):
            try:
                return orjson.loads(value), None
            except orjson.JSONDecodeError as exc:
                return None, f"output is not JSON: {exc}"
        try:  # a Python value must be JSON data, as a case read from a file is
            return orjson.loads(orjson.dumps(value)), None
        except TypeError as exc:
            return None, f"returned a value that is not JSON data: {exc}"

    def _empty(self, value: str) -> str | None:
        """Why an empty or all-whitespace output is refused (``None``: accepted).

        Every kind of system ends here, so none of them can pass a claim that something
        is absent or short by producing nothing: a command that crashed quietly or a
        function that forgot to return its text is an error row, not a pass.
        """
        if self.spec.allow_empty and self.spec.format == "text":
            return None
        nothing = "nothing" if value == "" else "only whitespace"
        verb = {"exec": "printed", "python": "returned", "prompt": "answered"}[self.spec.kind]
        if self.spec.format == "json":
            return f"{verb} {nothing}, not JSON"
        if self.spec.kind == "prompt":
            return f"{verb} {nothing}"
        return f"{verb} {nothing} (set `allow_empty: true` in `sut:` if that is an answer)"

    def _provenance(self, runs: Sequence[Produced]) -> dict[str, Any]:
        provenance = {**self.identity, "calls": [produced.call for produced in runs]}
        if self.identity["kind"] == "prompt":
            served = [str(p.call.get("model_id") or "") for p in runs]
            provenance["triple"] = {
                "model_id": served[0],
                "prompt_sha": self.identity["prompt_sha"],
                "sampling_sha": self.identity["sampling_sha"],
            }
            if len(set(served)) > 1:
                provenance["served_models"] = sorted(set(served))
        return provenance

    def _not_run(self) -> dict[str, Any]:
        """The provenance of a case the system was not given: no ``kind``, so no row
        of it claims an output of the system (nor needs a prompt's triple)."""
        assert self.spec.when is not None
        provenance: dict[str, Any] = {
            "ran": False,
            "when": self.spec.when,
            "reason": f"not run: the case has no {self.spec.when}",
            "system": self.caller.mask(self._name()),
        }
        if "variant" in self.identity:
            provenance["variant"] = self.identity["variant"]
        return provenance

    def _name(self) -> str:
        return self.spec.describe()

    async def aclose(self) -> None:
        await self.caller.aclose()

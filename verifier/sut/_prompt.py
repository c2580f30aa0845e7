"""A prompt run on a pinned model as the system under test.

The template is rendered with the case's input (``{{input}}``, or ``{{input.PATH}}``
for a field of an object input) and sent through the providers, cache and recordings
judges use (``verifier.llm``), so ``--judges live|replay|record`` apply to it as to
judges. The text before a ``<!-- dynamic -->`` line, if any, is the system prompt.
The input is placed verbatim: this is the system's own prompt, not a judge's, so
nothing is added to it.

Every output carries its own stability triple (the served model, the template's
SHA-256, the sampling's SHA-256); an answer that names no served model, was refused,
was cut off at ``max_tokens`` or holds no text is an error for its case.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from pathlib import Path
from typing import Any

from verifier.contract.prompt_template import load_prompt_template
from verifier.contract.sut_models import PromptSut
from verifier.errors import SutError
from verifier.files import FileScope
from verifier.llm.cache import LayeredCache, entry_for
from verifier.llm.cache_key import cache_key
from verifier.llm.calls import CallStats, call_within_limits
from verifier.llm.limits import CallLimits, Limiter, shared_limiter
from verifier.llm.providers import make_provider
from verifier.llm.providers.registry import sent_sampling
from verifier.llm.triple import sampling_sha_of
from verifier.llm.types import CallMode, ModelProvider, ModelReply, ModelRequest, SystemBlock
from verifier.sut._types import Produced, SecretMask

_TRUNCATED = ("max_tokens", "model_context_window_exceeded")


class PromptCaller:
    """Renders and sends one request per call (per run of a case with ``--repeat``)."""

    def __init__(
        self,
        spec: PromptSut,
        *,
        base_dir: Path | FileScope,
        timeout: float,
        mode: CallMode,
        cache: LayeredCache | None,
        limits: CallLimits,
        run_id: str,
        base_url: str | None = None,
    ) -> None:
        self.spec = spec
        self.template = load_prompt_template(spec, base_dir)
        try:
            self.sampling = sent_sampling(spec.provider, spec.sampling)
        except ValueError as exc:
            raise SutError(f"sut prompt: {exc}") from None
        self.sampling_sha = sampling_sha_of(self.sampling)
        self.mode = mode
        self.cache = cache
        self.limits = dataclasses.replace(limits, timeout=timeout)
        self.run_id = run_id
        self.base_url = base_url or spec.base_url
        self.stats = CallStats()
        self.mask = SecretMask(os.environ)
        self.provider: ModelProvider | None = None
        if mode != "replay" and spec.provider != "replay":
            self.provider = make_provider(spec, base_url=base_url, max_retries=0)
        self._limiter: Limiter | None = None
        self._put_lock: asyncio.Lock | None = None

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "prompt",
            "provider": self.spec.provider,
            "requested_model": self.spec.model,
            "template": self.spec.template_file or "inline",
            "prompt_sha": self.template.sha,
            "sampling_sha": self.sampling_sha,
        }

    def request(self, value: Any, *, run: int) -> ModelRequest:
        """The request for one input and run (each run of a case has its own cache key)."""
        system = (SystemBlock(self.template.system),) if self.template.system else ()
        user = self.template.render(value)
        fields: dict[str, Any] = {
            "provider": self.spec.provider,
            "model": self.spec.model,
            "base_url": self.spec.base_url,
            "prompt_sha": self.template.sha,
            "sampling_sha": self.sampling_sha,
            "verdict": "generation",
            "system": system,
            "user": user,
            "tool": None,
        }
        key = cache_key(**fields, nonce="", data={"input": value, "run": run})
        return ModelRequest(**fields, sampling=self.sampling, cache_key=key)

    async def call(self, value: Any, *, case_id: str, run: int) -> Produced:
        try:
            request = self.request(value, run=run)
        except KeyError as exc:
            return Produced(error=f"the input has no field for {{{{{exc.args[0]}}}}}")
        if self.cache is not None and self.mode != "record":
            hit = self.cache.get(request.cache_key)
            if hit is not None:
                self.stats.cached += 1
                cached = {"hit": True, "recorded_at": hit.recorded_at, "run": hit.recorded_run}
                return self._read(hit.reply, cache=cached)
        if self.provider is None:
            return Produced(error=f"replay: no recorded output for case {case_id} (run {run + 1})")
        if self._limiter is None:  # made inside the running loop
            self._limiter = shared_limiter(self.limits)
            self._put_lock = asyncio.Lock()
        reply, problem = await call_within_limits(
            self.provider,
            request,
            limiter=self._limiter,
            limits=self.limits,
            stats=self.stats,
            what="model",
        )
        if reply is None:
            self.stats.failed += 1
            return Produced(error=problem)
        produced = self._read(reply)
        if produced.error is None and self.cache is not None:
            assert self._put_lock is not None
            async with self._put_lock:
                await asyncio.to_thread(self.cache.put, entry_for(request, reply, self.run_id))
        return produced

    def _read(self, reply: ModelReply, *, cache: dict[str, Any] | None = None) -> Produced:
        call: dict[str, Any] = {
            "model_id": reply.served_model or "",
            "usage": reply.usage.as_dict(),
            "latency_ms": round(reply.latency_ms, 1),
            "response_id": reply.response_id,
            "stop_reason": reply.stop_reason,
        }
        if cache is not None:
            call["cache"] = cache
        if reply.stop_reason == "refusal":
            return Produced(error="the model refused to answer", call=call)
        if reply.stop_reason in _TRUNCATED:
            return Produced(error=f"the output was cut off ({reply.stop_reason})", call=call)
        if not reply.served_model:
            return Produced(
                error="the reply names no served model, so the output's triple is incomplete",
                call=call,
            )
        if not reply.text:
            return Produced(error="the model returned no text", call=call)
        return Produced(value=reply.text, call=call)

    async def aclose(self) -> None:
        if self.provider is not None:
            await self.provider.aclose()
        if self.cache is not None:
            self.cache.close()  # its connection to the store (see JudgePhase.aclose)

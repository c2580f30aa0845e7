"""The stability triple every judge result carries: who judged, with which prompt, how.

A judge verdict can only be reproduced, compared across runs or trusted in an audit
when three things are pinned: the model the API says it served (``model_id``), what
shapes the prompt besides the data (``prompt_sha``: for a judge the normalised
template, the verdict tool and the rendering version) and every generation
parameter sent (``sampling_sha``). A result missing any of them is an error, never a pass or fail;
``missing_parts`` is the one check both the runner and ``verifier audit`` apply.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, field_validator

from verifier._internal.canonical import params_sha256, sha256_hex
from verifier.gaps.vendor_managed import VENDOR_MANAGED as _VENDOR_MANAGED
from verifier.gaps.vendor_managed import VENDOR_MANAGED_PREFIX
from verifier.llm.types import ToolSpec

TRIPLE_PARTS: Final = ("model_id", "prompt_sha", "sampling_sha")

_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def is_sha256_hex(value: str) -> bool:
    """Whether ``value`` is a lower-case hex SHA-256 digest."""
    return _SHA256_HEX.fullmatch(value) is not None


def is_valid_prompt_sha(value: str) -> bool:
    """Whether ``value`` is a template digest or a ``vendor-managed:<vendor>:<endpoint>``."""
    return is_sha256_hex(value) or _VENDOR_MANAGED.fullmatch(value) is not None


def prompt_sha_of(template_bytes: bytes) -> str:
    """The ``prompt_sha`` of a template: SHA-256 of its bytes as committed (not rendered)."""
    return sha256_hex(template_bytes)


def vendor_managed(vendor: str, endpoint: str) -> str:
    """The ``prompt_sha`` of a prompt kept at a vendor: ``vendor-managed:<vendor>:<endpoint>``.

    The prompt's text is the vendor's, not ours to hash; which prompt and version a
    row used is recorded beside the triple (see ``verifier.judge.stored_prompt``).

    Raises:
        ValueError: ``vendor`` or ``endpoint`` would not make a valid sentinel.
    """
    sentinel = f"{VENDOR_MANAGED_PREFIX}{vendor}:{endpoint}"
    if _VENDOR_MANAGED.fullmatch(sentinel) is None:
        raise ValueError(f"{sentinel!r} is not {VENDOR_MANAGED_PREFIX}<vendor>:<endpoint>")
    return sentinel


def normalised_template(text: str) -> bytes:
    """A template's text as its identity: no BOM, ``\n`` line ends, no final newlines.

    An editor that adds a BOM, converts line ends or appends a newline changes no
    word the model reads that matters, so it must not make a new judge.
    """
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return text.rstrip("\n").encode("utf-8")


def judge_prompt_sha(template_text: str, tool: ToolSpec | None, rendering: int) -> str:
    """The ``prompt_sha`` of a judge: everything besides the data that shapes a verdict.

    That is the template (normalised, see ``normalised_template``), the forced tool the
    verdict comes through (name, description and input schema: a changed schema
    changes answers) and the version of the code that renders the request (how the
    assertions, scales and delimited data are written out). See ADR 0032.

    Args:
        template_text: The template, decoded.
        tool: The verdict tool, or ``None`` when no tool is forced.
        rendering: The renderer's version; raised whenever the rendering changes.
    """
    parts: dict[str, Any] = {
        "template_sha256": sha256_hex(normalised_template(template_text)),
        "tool": None if tool is None else tool.as_dict(),
        "rendering": rendering,
    }
    return params_sha256(parts)


def sampling_sha_of(sent_params: Mapping[str, Any]) -> str:
    """The ``sampling_sha`` of the generation parameters actually sent.

    Canonical JSON with numbers normalised, so ``0`` and ``0.0`` hash the same.
    """
    return params_sha256(dict(sent_params))


def served_mismatch(requested: str, served: str | None) -> dict[str, str] | None:
    """``{"served": ..., "asked_for": ...}`` when the model that served a call is not
    the one asked for (an alias resolved, a local server serving another model under
    the name), else ``None``. The triple names the served model either way; this
    flag, stored in the row's evidence, says that it is not the contract's."""
    if not served or served == requested:
        return None
    return {"served": served, "asked_for": requested}


class StabilityTriple(BaseModel):
    """Who judged, with which prompt template and which sampling parameters.

    Attributes:
        model_id: The model the API reported serving (not the requested alias).
        prompt_sha: SHA-256 hex of what shapes the prompt (``judge_prompt_sha`` for a
            judge, ``prompt_sha_of`` for a prompt system), or
            ``vendor-managed:<vendor>:<endpoint>``.
        sampling_sha: SHA-256 hex of canonical JSON of the parameters sent.
    """

    # Built on first use: a run writes triples as plain mappings (``as_dict``'s form).
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    model_id: str = Field(min_length=1)
    prompt_sha: str
    sampling_sha: str

    @field_validator("model_id")
    @classmethod
    def _model_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("model_id must not be blank")
        return value

    @field_validator("prompt_sha")
    @classmethod
    def _prompt_sha_form(cls, value: str) -> str:
        if not is_valid_prompt_sha(value):
            raise ValueError(
                "prompt_sha must be a sha256 hex digest or "
                f"'{VENDOR_MANAGED_PREFIX}<vendor>:<endpoint>'"
            )
        return value

    @field_validator("sampling_sha")
    @classmethod
    def _sampling_sha_form(cls, value: str) -> str:
        if not is_sha256_hex(value):
            raise ValueError("sampling_sha must be a sha256 hex digest")
        return value

    def as_dict(self) -> dict[str, str]:
        """The triple as stored in a gap row's evidence under ``judge``."""
        return {
            "model_id": self.model_id,
            "prompt_sha": self.prompt_sha,
            "sampling_sha": self.sampling_sha,
        }


def missing_parts(triple: Mapping[str, Any] | None) -> list[str]:
    """Names of the triple's parts that are absent, empty, blank or not strings.

    ``None`` (no triple at all) is missing every part. An empty list means the triple
    is complete; whether each part is well formed is ``triple_problems``' business.
    """
    if triple is None:
        return list(TRIPLE_PARTS)
    missing: list[str] = []
    for part in TRIPLE_PARTS:
        value = triple.get(part)
        if not isinstance(value, str) or not value.strip():
            missing.append(part)
    return missing


def triple_problems(triple: Mapping[str, Any] | None) -> list[str]:
    """Every reason a stored triple cannot back a pass or fail, one line each."""
    missing = missing_parts(triple)
    if triple is None or missing:
        return [f"judge triple is missing {', '.join(missing)}"]
    problems: list[str] = []
    if not is_valid_prompt_sha(triple["prompt_sha"]):
        problems.append("judge triple prompt_sha is neither a sha256 digest nor vendor-managed")
    if not is_sha256_hex(triple["sampling_sha"]):
        problems.append("judge triple sampling_sha is not a sha256 digest")
    return problems

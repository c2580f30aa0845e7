"""The prompt of a prompt system under test: its template file, split and checked.

A contract's ``sut: prompt`` names a template (inline or a file in the contract's
tree). The text before a ``<!-- dynamic -->`` line, if any, is the system prompt; the
rest is the user message, where ``{{input}}`` or ``{{input.PATH}}`` places the case's
input verbatim. ``verifier check`` validates it here, and the system under test
renders it from here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from verifier.contract.sut_models import PromptSut
from verifier.errors import SutError
from verifier.fieldpath import MISSING, FieldPathError, compile_path
from verifier.files import FileRefused, FileScope, scope_of
from verifier.llm.template import DYNAMIC_MARKER, split_at_marker
from verifier.llm.triple import prompt_sha_of

_PLACEHOLDER = re.compile(r"\{\{([^{}]*)\}\}")


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode("utf-8")


class PromptTemplate:
    """A SUT prompt: its bytes as committed, split into system and user parts."""

    def __init__(self, data: bytes, *, source: str) -> None:
        try:
            # As judge templates: a BOM is not text, and the marker is a line whatever
            # ends it (an editor or git may write CRLF).
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise SutError(f"sut prompt {source}: not UTF-8 at byte {exc.start}") from None
        self.sha = prompt_sha_of(data)
        split = split_at_marker(text)
        if split == 0:
            self.system, self.user = "", text
        elif isinstance(split, int):
            raise SutError(
                f"sut prompt {source}: {split} '{DYNAMIC_MARKER}' lines; at most one may end "
                "the system part"
            )
        else:
            self.system, self.user = split
        if _PLACEHOLDER.search(self.system):
            raise SutError(f"sut prompt {source}: placeholders belong after {DYNAMIC_MARKER}")
        self.paths: dict[str, Any] = {}
        for name in _PLACEHOLDER.findall(self.user):
            head, _, rest = name.partition(".")
            # Quoted with repr: a name written over a line break stays on one line.
            shown = repr("{{" + name + "}}")
            if head != "input":
                raise SutError(
                    f"sut prompt {source}: unknown placeholder {shown} "
                    "(use {{input}} or {{input.PATH}})"
                )
            try:
                self.paths[name] = compile_path(rest) if rest else None
            except FieldPathError as exc:
                raise SutError(f"sut prompt {source}: {shown}: {exc}") from None
        if not self.paths:
            raise SutError(f"sut prompt {source}: never uses {{{{input}}}}")

    def render(self, value: Any) -> str:
        """The user message for one input; a missing ``input.PATH`` is a ``KeyError``."""

        def fill(match: re.Match[str]) -> str:
            path = self.paths[match.group(1)]
            found = value if path is None else path.get(value)
            if found is MISSING:
                raise KeyError(match.group(1))
            return _as_text(found)

        return _PLACEHOLDER.sub(fill, self.user)


def load_prompt_template(spec: PromptSut, base_dir: Path | FileScope) -> PromptTemplate:
    """The spec's template, from its text or its file (confined as ``FileScope`` says).

    Raises:
        SutError: The file is refused, unreadable, or not a usable template.
    """
    if spec.template is not None:
        return PromptTemplate(spec.template.encode("utf-8"), source="template")
    assert spec.template_file is not None
    try:
        named = scope_of(base_dir).resolve(spec.template_file, f"{spec.template_file!r}")
    except FileRefused as refused:
        raise SutError(f"sut prompt: template file {refused}") from None
    path = named.path
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SutError(f"sut prompt: cannot read {spec.template_file!r}: {exc.strerror}") from None
    return PromptTemplate(data, source=spec.template_file)

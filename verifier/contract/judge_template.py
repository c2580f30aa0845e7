"""Judge prompt templates: a static part that can be prompt-cached, then a dynamic part.

A template is a text file. Everything before the line ``<!-- dynamic -->`` is the
static part (role, instructions, answer format): it is identical for every request,
goes into the system prompt and can be cached by the provider. Everything after it is
the dynamic part, sent as the user message, with placeholders:

- ``{{nonce}}``: the random nonce of this request; must come before any data.
- ``{{input}}``, ``{{output}}``, ``{{output_1}}``, ``{{output_2}}``: untrusted data,
  each replaced by a block delimited by tags that carry the nonce.
- ``{{case.PATH}}``: any other field of the case by its field path
  (``{{case.retrieved}}``, ``{{case.reference}}``, ``{{case.docs.*.text}}``), untrusted
  data fenced the same way; a value that is not a string is shown as canonical JSON.
  The path's segments are letters, digits, ``_``, ``-`` or ``*``.
- ``{{reference}}``: what the claims compare the output with (``reference:`` of a
  judge claim: the instructions given, an expected output, a known bad output and why
  it is bad), each role in a block of its own fenced like the data; empty for claims
  without a reference. A template judging reference-guided claims must show it.
- ``{{assertions}}``: the claims to judge (ids, instructions, criteria) as JSON.
- ``{{scale}}``: the score scale of each claim and its anchors (empty for pass/fail).

Built-in templates ship in ``verifier/judge/templates/``; a contract's own template
(``prompt:`` relative to the contract) follows the same syntax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Final

from verifier.contract.models import JudgeSpec
from verifier.errors import VerifierError
from verifier.fieldpath import FieldPathError, compile_path
from verifier.files import FileRefused, FileScope, scope_of
from verifier.llm.template import DYNAMIC_MARKER, split_at_marker
from verifier.llm.triple import prompt_sha_of
from verifier.llm.types import VerdictKind

PLACEHOLDERS: Final = (
    "input",
    "output",
    "output_1",
    "output_2",
    "reference",
    "assertions",
    "scale",
    "nonce",
)
DATA_PLACEHOLDERS: Final = ("input", "output", "output_1", "output_2", "reference")
CASE_PREFIX: Final = "case."
"""Placeholders ``{{case.PATH}}`` name a field of the case; they are data too."""
BUILTIN_TEMPLATES: Final[dict[VerdictKind, str]] = {
    "binary": "assertions.md",
    "scale": "likert.md",
    "pairwise": "pairwise.md",
    "critique": "critique.md",
    "compliance": "compliance.md",
}
REFERENCE_TEMPLATES: Final[dict[VerdictKind, str]] = {
    "binary": "assertions-reference.md",
    "scale": "likert-reference.md",
    # One template each, with or without a reference: it shows {{reference}}, which
    # renders empty for a claim without one.
    "critique": "critique.md",
    "compliance": "compliance.md",
}
"""Built-in templates for claims with a ``reference:``, by kind; their instructions say
how a reference is used (judged for meaning, never matched word for word)."""

# Placeholders each kind needs, and the ones that have no value for it.
_REQUIRED: Final[dict[VerdictKind, tuple[str, ...]]] = {
    "binary": ("output",),
    "scale": ("output", "scale"),
    "pairwise": ("output_1", "output_2"),
    "critique": ("output",),
    "compliance": ("output", "reference"),
}
_UNAVAILABLE: Final[dict[VerdictKind, tuple[str, ...]]] = {
    "binary": ("output_1", "output_2"),
    "scale": ("output_1", "output_2"),
    "pairwise": ("output",),
    "critique": ("output_1", "output_2"),
    "compliance": ("output_1", "output_2"),
}

# Anything written like a placeholder; known names are checked separately so a typo
# (``{{ouput}}``, ``{{ output }}``) is reported instead of being sent verbatim.
_ANY_PLACEHOLDER = re.compile(r"\{\{([^{}]*)\}\}")
# A case path's segments become part of its block's tag names, so they are kept to
# characters a tag name can hold; the path itself is checked by ``compile_path``.
_CASE_PATH = r"case\.[\w*-]+(?:\.[\w*-]+)*"
_PLACEHOLDER = re.compile(r"\{\{(" + "|".join(PLACEHOLDERS) + "|" + _CASE_PATH + r")\}\}")


class TemplateError(VerifierError):
    """A judge prompt template that cannot be used; carries every problem found."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        super().__init__(f"judge template {source}: " + "; ".join(problems))


@dataclass(frozen=True, slots=True)
class Template:
    """A validated judge prompt template.

    Attributes:
        source: Where it came from (``builtin:assertions.md`` or the contract's path).
        text: The whole template.
        sha: SHA-256 of the template bytes as committed: the triple's ``prompt_sha``.
        static: The part before the marker (system prompt, cacheable).
        dynamic: The part after the marker (user message, with placeholders).
    """

    source: str
    text: str
    sha: str
    static: str
    dynamic: str


def _split(text: str) -> tuple[str, str] | int:
    split = split_at_marker(text)
    return split if isinstance(split, int) else (split[0], split[1].strip())


def validate_template(
    text: str, kind: VerdictKind | None = None, *, reference: bool = False
) -> list[str]:
    """Every problem of a template's text, one line each (empty when usable).

    Args:
        text: The template.
        kind: When given, also check the placeholders this kind of verdict needs.
        reference: Whether it judges claims with a ``reference:`` (which it must show).
    """
    problems = [
        problem
        for name in dict.fromkeys(_ANY_PLACEHOLDER.findall(text))
        if (problem := _placeholder_problem(name)) is not None
    ]
    split = _split(text)
    if isinstance(split, int):
        where = "no" if split == 0 else f"{split}"
        problems.append(
            f"{where} '{DYNAMIC_MARKER}' lines; exactly one must separate the static "
            "instructions from the dynamic part"
        )
        return problems
    static, dynamic = split
    if not static:
        problems.append(f"the static part before '{DYNAMIC_MARKER}' is empty")
    problems.extend(
        f"placeholder '{{{{{name}}}}}' in the static part; the part before "
        f"'{DYNAMIC_MARKER}' must be the same for every request"
        for name in dict.fromkeys(_PLACEHOLDER.findall(static))
    )
    used = [m.group(1) for m in _PLACEHOLDER.finditer(dynamic)]
    if "assertions" not in used:
        problems.append("the dynamic part lacks '{{assertions}}' (the claims to judge)")
    data_at = [i for i, name in enumerate(used) if is_data(name)]
    if "nonce" not in used:
        problems.append("the dynamic part lacks '{{nonce}}', which tells the judge the data tags")
    elif data_at and used.index("nonce") > data_at[0]:
        problems.append("'{{nonce}}' must come before the first data placeholder")
    if kind is not None:
        problems.extend(
            f"a {kind} judge needs '{{{{{name}}}}}' in the dynamic part"
            for name in _REQUIRED[kind]
            if name not in used
        )
        problems.extend(
            f"'{{{{{name}}}}}' has no value for a {kind} judge"
            for name in _UNAVAILABLE[kind]
            if name in used
        )
    # A kind that always needs it has said so above.
    needed = _REQUIRED[kind] if kind is not None else ()
    if reference and "reference" not in used and "reference" not in needed:
        problems.append(
            "claims with a reference need '{{reference}}' in the dynamic part (what the "
            "output is compared with)"
        )
    return problems


def _placeholder_problem(name: str) -> str | None:
    """Why ``{{name}}`` is not a placeholder a judge template can use, or ``None``."""
    if name in PLACEHOLDERS:
        return None
    # The name is quoted with repr: one written over a line break stays one line.
    shown = repr("{{" + name + "}}")
    if name.startswith(CASE_PREFIX):
        path = name.removeprefix(CASE_PREFIX)
        try:
            compile_path(path)
        except FieldPathError as exc:
            return f"placeholder {shown}: {exc}"
        if re.fullmatch(_CASE_PATH, name) is None:
            return (
                f"placeholder {shown}: a case path here is made of segments of letters, "
                "digits, _, - or * joined by dots"
            )
        return None
    return (
        f"unknown placeholder {shown}; placeholders are written {{{{name}}}} with a name "
        f"among {', '.join(PLACEHOLDERS)}, or {{{{case.PATH}}}} for a field of the case"
    )


def is_data(name: str) -> bool:
    """Whether placeholder ``name`` stands for untrusted data (a fenced block)."""
    return name in DATA_PLACEHOLDERS or name.startswith(CASE_PREFIX)


def case_paths(template: Template) -> tuple[str, ...]:
    """The case field paths the template's dynamic part shows (``{{case.PATH}}``), each
    once, in order of first use."""
    names = (m.group(1) for m in _PLACEHOLDER.finditer(template.dynamic))
    return tuple(
        dict.fromkeys(n.removeprefix(CASE_PREFIX) for n in names if n.startswith(CASE_PREFIX))
    )


def parse_template(
    data: bytes, *, source: str, kind: VerdictKind | None = None, reference: bool = False
) -> Template:
    """Validates template bytes and splits them into static and dynamic parts.

    Raises:
        TemplateError: The bytes are not UTF-8 or the template has problems.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TemplateError(
            source, [f"not UTF-8 text ({exc.reason} at byte {exc.start})"]
        ) from None
    problems = validate_template(text, kind, reference=reference)
    split = _split(text)
    if problems or isinstance(split, int):
        raise TemplateError(source, problems)
    static, dynamic = split
    return Template(
        source=source, text=text, sha=prompt_sha_of(data), static=static, dynamic=dynamic
    )


def builtin_template_name(kind: VerdictKind, *, reference: bool = False) -> str:
    """The file name of the built-in template for ``kind`` (with or without references)."""
    if reference:
        if kind not in REFERENCE_TEMPLATES:
            raise TemplateError(
                f"builtin:{BUILTIN_TEMPLATES[kind]}", [f"a {kind} claim cannot take a reference"]
            )
        return REFERENCE_TEMPLATES[kind]
    return BUILTIN_TEMPLATES[kind]


def builtin_template_bytes(kind: VerdictKind, *, reference: bool = False) -> bytes:
    """The bytes of the built-in template for ``kind``, read from the installed package."""
    name = builtin_template_name(kind, reference=reference)
    return resources.files("verifier.judge").joinpath("templates", name).read_bytes()


def load_template(
    spec: JudgeSpec, base_dir: Path | FileScope, kind: VerdictKind, *, reference: bool = False
) -> Template:
    """The template a judge uses for one kind of verdict.

    Args:
        spec: The judge; ``spec.prompt`` names its own template, else the built-in one.
        base_dir: The directory of the contract file (``prompt`` is relative to it and
            must lie in its tree), or the contract's ``FileScope``.
        kind: The verdict kind, which picks the built-in template and the placeholders
            a custom one must have.
        reference: Whether the template judges claims with a ``reference:`` (the
            built-in reference-guided template; a custom one must show ``{{reference}}``).

    Raises:
        TemplateError: The file cannot be read or the template has problems.
    """
    if spec.prompt is None:
        name = builtin_template_name(kind, reference=reference)
        return parse_template(
            builtin_template_bytes(kind, reference=reference),
            source=f"builtin:{name}",
            kind=kind,
            reference=reference,
        )
    try:
        named = scope_of(base_dir).resolve(spec.prompt, f"prompt {spec.prompt!r}")
    except FileRefused as refused:
        raise TemplateError(spec.prompt, [str(refused)]) from None
    path = named.path
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TemplateError(spec.prompt, [f"cannot read {path}: {exc.strerror}"]) from None
    return parse_template(data, source=spec.prompt, kind=kind, reference=reference)


def fill(dynamic: str, values: dict[str, str]) -> str:
    """Replaces every placeholder in one pass, so substituted text is never re-read."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), ""), dynamic)

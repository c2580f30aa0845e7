"""Safe YAML loading that keeps the line and column of every key and value.

Contracts are small, hand-written files, so the loader favours refusing odd input
over accepting it: no object tags, no duplicate keys, no merge keys, no document
streams, a size cap and a cap on nodes (which stops alias bombs before they expand).
Scalars follow YAML 1.2's core schema: only ``true``/``false`` are booleans, so an
enum value ``no`` or ``on`` stays a string, and ``1:20`` or ``2026-01-01`` stay text.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import BaseResolver
from yaml.scanner import Scanner

from verifier.errors import Diagnostic

MAX_BYTES = 1_000_000
MAX_NODES = 50_000
MAX_DEPTH = 64

Loc = tuple[str | int, ...]


class _CoreResolver(BaseResolver):
    """YAML 1.2 core schema resolution (PyYAML's default is YAML 1.1)."""


_CoreResolver.yaml_implicit_resolvers = {}
_CoreResolver.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_CoreResolver.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^(?:[-+]?[0-9]+|0x[0-9a-fA-F]+)$"), list("-+0123456789")
)
_CoreResolver.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)
_CoreResolver.add_implicit_resolver(
    "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]
)

_ALLOWED_SCALAR_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
}


class _Loader(Reader, Scanner, Parser, Composer, SafeConstructor, _CoreResolver):
    def __init__(self, stream: str) -> None:
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        Composer.__init__(self)
        SafeConstructor.__init__(self)
        _CoreResolver.__init__(self)
        self.depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        """Composes a node, refusing nesting deeper than ``MAX_DEPTH`` as it goes: the
        composer recurses once per level, so a few thousand ``[`` would otherwise end
        in a ``RecursionError`` before the builder could count the levels."""
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH + 1:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise YamlProblem(
                    mark.line + 1, mark.column + 1, f"document nests deeper than {MAX_DEPTH} levels"
                )
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_core_int(self, node: ScalarNode) -> int:
        """An integer as YAML 1.2 reads it: ``010`` is ten (PyYAML's YAML 1.1 reading
        makes it octal eight, and refuses ``08``)."""
        value = str(self.construct_scalar(node))
        return int(value[2:], 16) if value.startswith("0x") else int(value, 10)

    def construct_core_float(self, node: ScalarNode) -> float:
        """A float, refusing what would silently change a check: a literal too large
        for a float (``1e99999`` would become infinity) and ``.nan`` (every comparison
        with it is false, so a ``range`` bound of NaN would pass anything). An explicit
        ``.inf`` stays infinity."""
        value = float(self.construct_yaml_float(node))
        if math.isnan(value):
            raise ValueError("NaN is not a number a check can compare with")
        if math.isinf(value) and "inf" not in str(node.value).lower():
            raise ValueError("too large for a number (it would be infinity)")
        return value


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_core_int)  # type: ignore[type-var]
_Loader.add_constructor("tag:yaml.org,2002:float", _Loader.construct_core_float)  # type: ignore[type-var]


@dataclass
class Positions:
    """Where each node of a loaded document is: by path of keys and indexes."""

    values: dict[Loc, tuple[int, int]] = field(default_factory=dict)
    keys: dict[Loc, tuple[int, int]] = field(default_factory=dict)

    def of(self, loc: Loc, *, key: bool = False) -> tuple[int, int]:
        """Line and column of the value (or key) at ``loc``, or of its nearest ancestor."""
        if key and loc in self.keys:
            return self.keys[loc]
        while loc:
            if loc in self.values:
                return self.values[loc]
            loc = loc[:-1]
        return self.values.get((), (1, 1))


class YamlProblem(Exception):
    """A document that cannot be loaded, with the position of the problem."""

    def __init__(self, line: int, col: int, message: str) -> None:
        super().__init__(message)
        self.line, self.col, self.message = line, col, message


def _pos(node: Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


class _Builder:
    def __init__(self, loader: _Loader) -> None:
        self.loader = loader
        self.positions = Positions()
        self.count = 0

    def build(self, node: Node, loc: Loc, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise YamlProblem(
                *_pos(node), f"document has more than {MAX_NODES} nodes (alias expansion?)"
            )
        if depth > MAX_DEPTH:
            raise YamlProblem(*_pos(node), f"document nests deeper than {MAX_DEPTH} levels")
        self.positions.values[loc] = _pos(node)
        if isinstance(node, ScalarNode):
            if node.tag not in _ALLOWED_SCALAR_TAGS:
                raise YamlProblem(*_pos(node), f"tag {node.tag!r} is not allowed in a contract")
            return self.scalar(node, deep=True)
        if isinstance(node, SequenceNode):
            if node.tag != "tag:yaml.org,2002:seq":
                raise YamlProblem(*_pos(node), f"tag {node.tag!r} is not allowed in a contract")
            return [self.build(child, (*loc, i), depth + 1) for i, child in enumerate(node.value)]
        if isinstance(node, MappingNode):
            if node.tag != "tag:yaml.org,2002:map":
                raise YamlProblem(*_pos(node), f"tag {node.tag!r} is not allowed in a contract")
            result: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, ScalarNode):
                    raise YamlProblem(*_pos(key_node), "mapping keys must be plain scalars")
                if key_node.value == "<<" and key_node.style is None:
                    raise YamlProblem(
                        *_pos(key_node), "merge keys (<<) are not supported in contracts"
                    )
                if key_node.tag not in _ALLOWED_SCALAR_TAGS:
                    raise YamlProblem(
                        *_pos(key_node), f"tag {key_node.tag!r} is not allowed in a contract"
                    )
                key = self.scalar(key_node)
                if not isinstance(key, (str, int)) or isinstance(key, bool):
                    key = key_node.value
                if key in result:
                    raise YamlProblem(*_pos(key_node), f"duplicate key {key!r}")
                self.positions.keys[(*loc, key)] = _pos(key_node)
                result[key] = self.build(value_node, (*loc, key), depth + 1)
            return result
        raise YamlProblem(*_pos(node), "unsupported YAML node")

    def scalar(self, node: ScalarNode, *, deep: bool = False) -> Any:
        # PyYAML's resolver takes some plain scalars for numbers or dates that its own
        # constructors then refuse with a bare ValueError ("2026-13-01", "0o8").
        try:
            return self.loader.construct_object(node, deep=deep)
        except (yaml.YAMLError, ValueError, OverflowError) as exc:
            detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise YamlProblem(*_pos(node), f"invalid scalar {node.value!r}: {detail}") from None


def load_yaml_with_positions(path: Path) -> tuple[Any, Positions]:
    """Reads and loads one YAML file (see ``parse_yaml_with_positions``).

    Raises:
        YamlProblem: As ``parse_yaml_with_positions``.
        OSError: The file cannot be read.
    """
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise YamlProblem(1, 1, f"file is {size} bytes; contracts are limited to {MAX_BYTES} bytes")
    return parse_yaml_with_positions(path.read_bytes())


def parse_yaml_with_positions(raw: bytes) -> tuple[Any, Positions]:
    """Loads one YAML document safely, with positions.

    Raises:
        YamlProblem: The document is too large, not UTF-8, not valid YAML, or uses a
            construct contracts do not allow.
    """
    if len(raw) > MAX_BYTES:
        raise YamlProblem(
            1, 1, f"file is {len(raw)} bytes; contracts are limited to {MAX_BYTES} bytes"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise YamlProblem(line, col, "file is not valid UTF-8") from None
    try:
        loader = _Loader(text)  # the reader refuses control characters right away
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        col = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        raise YamlProblem(
            line, col, f"invalid YAML: control character U+{exc.character:04X} is not allowed"
        ) from None
    try:
        node = loader.get_single_node()
        if node is None:
            raise YamlProblem(1, 1, "file is empty")
        builder = _Builder(loader)
        data = builder.build(node, (), 0)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = exc.problem or exc.context or "invalid YAML"
        raise YamlProblem(line, col, f"invalid YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise YamlProblem(1, 1, f"invalid YAML: {exc}") from None
    finally:
        loader.dispose()
    return data, builder.positions


def yaml_problem_diagnostic(file: str, problem: YamlProblem) -> Diagnostic:
    return Diagnostic(file, problem.line, problem.col, problem.message)

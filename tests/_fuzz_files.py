"""Hypothesis strategies for the files users hand to verifier: a good file, damaged.

A file is built from real lines (an example's cases, labels, recordings, ...): hypothesis
mutates the JSON of one to three of them (a value replaced, removed or given a sibling),
adds lines of any JSON or of raw bytes, and may damage the bytes as editors and tools do
(a BOM, CRLF or CR line ends, U+2028 inside a string, invalid UTF-8, a huge line, a line
cut short, a line repeated).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

BOM = b"\xef\xbb\xbf"

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e308, -1e308, 0.5, -0.0]),
    st.text(max_size=12),
    st.sampled_from(["", " ", "\x00", "\u2028", "\r\n", "pass", "fail", "id", "{{output}}"]),
)
json_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)
"""Any JSON value, with the numbers and strings that break naive readers."""

_raw_lines = st.one_of(
    st.binary(max_size=40),
    st.sampled_from(
        [
            b"\xff\xfe",
            b"\xc3",
            b'{"id": "\xe9"}',
            b"{",
            b"[]",
            b"null",
            b"1e400",
            b'"\\ud800"',
            b"NaN",
            b'{"id": 1e400}',
            b"[" * 2000,
            b'{"a":' * 600 + b"1" + b"}" * 600,
            b"\x00",
            b'{"id": "a\xe2\x80\xa8b"}',
            b'{"id": "\\u2028"}',
        ]
    ),
)


def value_paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON-like tree, as keys and indexes from the root (``()``)."""
    found = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            found.extend(value_paths(value, (*prefix, key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found.extend(value_paths(value, (*prefix, index)))
    return found


def mutate(document: Any, path: tuple[Any, ...], action: str, value: Any) -> Any:
    """``document`` with ``value`` replacing (``replace``), removing (``delete``) or added
    beside (``add``) what ``path`` names; the root replaced is ``value`` itself."""
    if not path:
        return value
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if action == "replace":
        parent[last] = value
    elif action == "delete":
        del parent[last]
    elif isinstance(parent, list):
        parent.insert(last, value)
    else:
        parent[f"extra_{last}"] = value
    return document


def edit_json(value: Any, changes: list[tuple[int, str, Any]]) -> Any:
    """A copy of ``value`` with each ``(pick, action, new)`` applied at the place ``pick``
    chooses among the copy's places at that moment."""
    value = json.loads(json.dumps(value))
    for pick, action, new in changes:
        paths = value_paths(value)
        value = mutate(value, paths[pick % len(paths)], action, new)
    return value


def _encode(value: Any, rng_line_sep: bool) -> bytes:
    text = json.dumps(value, ensure_ascii=False)
    if rng_line_sep:
        # U+2028 is legal inside a JSON string; line splitters that know Unicode split on it.
        text = text.replace('"', '"\u2028', 1) if '"' in text else text
    return text.encode("utf-8", "surrogatepass")


@st.composite
def damaged_jsonl(draw: st.DrawFn, good: list[Any]) -> bytes:
    """The bytes of a JSONL file made of ``good`` lines, damaged."""
    lines: list[bytes] = [_encode(value, False) for value in good]
    for _ in range(draw(st.integers(0, 3))):
        index = draw(st.integers(0, len(lines) - 1)) if lines else 0
        choice = draw(
            st.sampled_from(["edit", "json", "raw", "repeat", "cut", "huge", "u2028", "id"])
        )
        if choice == "edit" and good:
            changes = draw(
                st.lists(
                    st.tuples(
                        st.integers(min_value=0),
                        st.sampled_from(["replace", "delete", "add"]),
                        json_values,
                    ),
                    min_size=1,
                    max_size=3,
                )
            )
            source = good[index % len(good)]
            lines[index] = _encode(edit_json(source, changes), False)
        elif choice == "json":
            lines.insert(index, _encode(draw(json_values), False))
        elif choice == "raw":
            lines.insert(index, draw(_raw_lines))
        elif choice == "repeat" and lines:
            lines.insert(index, lines[index])
        elif choice == "cut" and lines:
            line = lines[index]
            lines[index] = line[: draw(st.integers(0, max(len(line) - 1, 0)))]
        elif choice == "huge" and lines:
            lines[index] = lines[index].replace(b'"', b'"' + b"x" * 300_000, 1)
        elif choice == "id" and good and isinstance(good[index % len(good)], dict):
            # Ids (and keys of that name in other files) of every JSON type.
            value = dict(good[index % len(good)])
            value["id"] = draw(json_values)
            lines[index] = _encode(value, False)
        elif choice == "u2028" and good:
            lines[index] = _encode(good[index % len(good)], True)
    end = draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
    data = end.join(lines) + draw(st.sampled_from([end, b""]))
    if draw(st.booleans()):
        data = BOM + data
    return data

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from verifier.fieldpath import MISSING, FieldPathError, compile_path, paths_overlap

CASE: dict[str, Any] = {
    "output": "text",
    "fields": {"name": "Acme", "empty": None},
    "items": [{"title": "a"}, {"title": "b"}, {"other": 1}],
    "field_meta": {"x": {"source_span": "one"}, "y": {"source_span": "two"}},
}


def test_compiled_path_keeps_text_parts_and_wildcard_flag() -> None:
    path = compile_path("field_meta.*.source_span")
    assert path.text == "field_meta.*.source_span"
    assert path.parts == ("field_meta", "*", "source_span")
    assert path.has_wildcard
    assert not compile_path("items.0.title").has_wildcard


@pytest.mark.parametrize("bad", ["", "a..b", ".a", "a.", "a b", "a*", "a.b*", "a\n", "a.\tb"])
def test_malformed_paths_are_rejected(bad: str) -> None:
    with pytest.raises(FieldPathError):
        compile_path(bad)


def test_non_string_path_is_rejected() -> None:
    with pytest.raises(FieldPathError):
        compile_path(3)  # type: ignore[arg-type]


def test_field_path_error_is_a_value_error_so_pydantic_reports_it() -> None:
    assert issubclass(FieldPathError, ValueError)


def test_get_walks_mappings_and_list_indexes() -> None:
    assert compile_path("fields.name").get(CASE) == "Acme"
    assert compile_path("items.1.title").get(CASE) == "b"
    assert compile_path("output").get(CASE) == "text"


def test_get_tells_a_present_null_from_a_missing_key() -> None:
    assert compile_path("fields.empty").get(CASE) is None
    assert compile_path("fields.absent").get(CASE) is MISSING


@pytest.mark.parametrize(
    "text", ["items.3.title", "items.x", "output.length", "items.0.title.deeper", "items.²"]
)
def test_unreachable_paths_are_missing_not_errors(text: str) -> None:
    assert compile_path(text).get(CASE) is MISSING


def test_numeric_segment_is_also_a_mapping_key() -> None:
    assert compile_path("codes.404").get({"codes": {"404": "not found"}}) == "not found"


def test_any_mapping_type_is_walked() -> None:
    case = MappingProxyType({"a": MappingProxyType({"b": 2})})
    assert compile_path("a.b").get(case) == 2
    assert compile_path("a.*").find(case) == [("a.b", 2)]


def test_find_expands_wildcards_in_document_order_with_concrete_paths() -> None:
    assert compile_path("field_meta.*.source_span").find(CASE) == [
        ("field_meta.x.source_span", "one"),
        ("field_meta.y.source_span", "two"),
    ]
    assert compile_path("items.*.title").find(CASE) == [
        ("items.0.title", "a"),
        ("items.1.title", "b"),
    ]


def test_find_with_nested_wildcards() -> None:
    case = {"a": [{"b": [1, 2]}, {"b": [3]}]}
    assert compile_path("a.*.b.*").find(case) == [
        ("a.0.b.0", 1),
        ("a.0.b.1", 2),
        ("a.1.b.0", 3),
    ]


def test_find_without_wildcard_returns_zero_or_one_value() -> None:
    assert compile_path("fields.name").find(CASE) == [("fields.name", "Acme")]
    assert compile_path("fields.nope").find(CASE) == []


def test_wildcard_over_a_scalar_finds_nothing() -> None:
    assert compile_path("output.*").find(CASE) == []


def test_missing_is_a_falsy_singleton() -> None:
    assert not MISSING
    assert type(MISSING)() is MISSING
    assert repr(MISSING) == "MISSING"


@pytest.mark.parametrize(
    ("a", "b", "overlap"),
    [
        ("output", "output", True),
        ("output", "output.name", True),
        ("fields.summary", "fields", True),
        ("fields.*", "fields.summary", True),
        ("fields.summary", "fields.industry", False),
        ("output", "outputs", False),
        ("items.*.title", "items.0.body", False),
    ],
)
def test_paths_overlap_when_one_lies_inside_the_other(a: str, b: str, overlap: bool) -> None:
    assert paths_overlap(a, b) is overlap
    assert paths_overlap(b, a) is overlap


_keys = st.text(alphabet="abcxyz_", min_size=1, max_size=4)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keys, inner, max_size=3),
    max_leaves=12,
)


def _leaves(node: Any, trail: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    if isinstance(node, dict):
        pairs = node.items()
    elif isinstance(node, list):
        pairs = ((str(i), v) for i, v in enumerate(node))
    else:
        return [(trail, node)]
    out: list[tuple[tuple[str, ...], Any]] = []
    for key, value in pairs:
        out.extend(_leaves(value, (*trail, key)))
    return out


@given(st.dictionaries(_keys, _json, min_size=1, max_size=3))
def test_every_concrete_leaf_path_resolves_to_its_value(case: dict[str, Any]) -> None:
    for parts, value in _leaves(case):
        path = compile_path(".".join(parts))
        assert path.get(case) == value
        assert path.find(case) == [(path.text, value)]


@given(st.dictionaries(_keys, _json, min_size=1, max_size=3), st.data())
def test_a_wildcard_finds_the_concrete_path_it_generalises(
    case: dict[str, Any], data: st.DataObject
) -> None:
    leaves = _leaves(case)
    assume(leaves)
    parts, value = data.draw(st.sampled_from(leaves))
    i = data.draw(st.integers(0, len(parts) - 1))
    general = compile_path(".".join((*parts[:i], "*", *parts[i + 1 :])))
    assert (".".join(parts), value) in general.find(case)


def test_find_keeps_empty_keys_in_concrete_paths() -> None:
    case = {"": {"x": 1}, "a": {"": 2}}
    assert compile_path("*.x").find(case) == [(".x", 1)]
    assert compile_path("a.*").find(case) == [("a.", 2)]


def test_wildcard_first_and_last_segments() -> None:
    assert compile_path("*").find({"a": 1, "b": [2]}) == [("a", 1), ("b", [2])]
    assert compile_path("*.*").find({"a": [1, 2], "b": 3}) == [("a.0", 1), ("a.1", 2)]


@pytest.mark.parametrize(
    "text",
    ["output", "fields.name", "fields.absent", "items.1", "items.1.title", "output.x", "items.9"],
)
def test_getter_agrees_with_get(text: str) -> None:
    path = compile_path(text)
    assert path.getter()(CASE) == path.get(CASE)
    assert path.getter()(MappingProxyType(CASE)) == path.get(CASE)

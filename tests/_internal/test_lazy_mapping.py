"""LazyMapping: values made on first lookup, once; nothing made to list or count them."""

from __future__ import annotations

import pytest

from verifier._internal.lazy_mapping import LazyMapping


def test_a_value_is_made_on_its_first_lookup_and_kept() -> None:
    made: list[str] = []

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    mapping = LazyMapping(["b", "a", "c"], make)
    assert list(mapping) == ["b", "a", "c"] and len(mapping) == 3
    assert "a" in mapping and "z" not in mapping
    assert made == []
    assert mapping["a"] == "A" and mapping["a"] == "A"
    assert mapping.get("c") == "C"
    assert made == ["a", "c"]


def test_an_unknown_key_is_a_key_error_and_makes_nothing() -> None:
    made: list[str] = []
    mapping = LazyMapping(["a"], made.append)
    with pytest.raises(KeyError):
        mapping["z"]
    assert mapping.get("z", 0) == 0
    assert made == []


def test_it_cannot_be_written() -> None:
    mapping = LazyMapping(["a"], str.upper)
    with pytest.raises(TypeError):
        mapping["a"] = "b"  # type: ignore[index]

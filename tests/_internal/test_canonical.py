"""``normalise_numbers``: integral floats become ints at any depth, nothing else changes."""

from __future__ import annotations

import math
from collections import OrderedDict
from enum import IntEnum

from verifier._internal.canonical import canonical_json, normalise_numbers


class Level(IntEnum):
    LOW = 1


def test_integral_floats_become_ints_at_any_depth() -> None:
    value = {"a": 1.0, "b": [2.0, {"c": 3.5, "d": (4.0, -0.0)}], "e": {"f": [[5.0]]}}
    normalised = normalise_numbers(value)
    assert normalised == {"a": 1, "b": [2, {"c": 3.5, "d": [4, 0]}], "e": {"f": [[5]]}}
    assert type(normalised["a"]) is int
    assert type(normalised["b"][1]["d"][1]) is int
    assert canonical_json(normalise_numbers({"x": 1.0})) == canonical_json({"x": 1})


def test_other_values_are_kept_and_keys_become_strings() -> None:
    value = {1: True, "n": None, "s": "1.0", "inf": math.inf, "lvl": Level.LOW, "big": 10**30}
    normalised = normalise_numbers(value)
    assert normalised == {
        "1": True,
        "n": None,
        "s": "1.0",
        "inf": math.inf,
        "lvl": 1,
        "big": 10**30,
    }
    assert normalised["1"] is True
    assert math.isnan(normalise_numbers([math.nan])[0])


def test_containers_are_copies_even_without_floats() -> None:
    inner = [1, "x"]
    value = OrderedDict(k=inner)
    normalised = normalise_numbers(value)
    assert normalised == {"k": [1, "x"]}
    assert type(normalised) is dict
    assert normalised["k"] is not inner

"""The YAML loader keeps positions, uses core-schema scalars and refuses odd input fast."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier._internal.yaml_positions import MAX_BYTES, YamlProblem, parse_yaml_with_positions
from verifier.contract.load import check_contract


def test_positions_of_keys_and_values_are_one_based() -> None:
    data, positions = parse_yaml_with_positions(b"a: 1\nb:\n  - x\n  - {c: d}\n")
    assert data == {"a": 1, "b": ["x", {"c": "d"}]}
    assert positions.of(("a",)) == (1, 4)
    assert positions.of(("a",), key=True) == (1, 1)
    assert positions.of(("b", 1, "c")) == (4, 9)
    assert positions.of(("b", 5, "zzz")) == positions.of(("b",))


def test_yaml_1_1_booleans_and_sexagesimals_stay_strings() -> None:
    data, _ = parse_yaml_with_positions(
        b"v: [yes, no, on, off, y, n]\nt: 1:20\nd: 2026-01-01\nb: true\n"
    )
    assert data == {
        "v": ["yes", "no", "on", "off", "y", "n"],
        "t": "1:20",
        "d": "2026-01-01",
        "b": True,
    }


def test_numbers_and_null_resolve() -> None:
    data, _ = parse_yaml_with_positions(b"i: 42\nf: 0.5\ne: 1e3\nh: 0x1F\nz: ~\nq: '7'\n")
    assert data == {"i": 42, "f": 0.5, "e": 1000.0, "h": 31, "z": None, "q": "7"}


@pytest.mark.parametrize(
    ("text", "fragment", "line"),
    [
        (b"a: !!python/object:os.system x\n", "not allowed", 1),
        (b"a: 1\nb: 2\na: 3\n", "duplicate key 'a'", 3),
        (b"base: &b {x: 1}\nother:\n  <<: *b\n", "merge keys", 3),
        (b"a: [1, 2\n", "invalid YAML", 2),
        (b"a: 1\n---\nb: 2\n", "invalid YAML", 2),
        (b"? [a, b]\n: c\n", "plain scalars", 1),
        (b"a: !custom x\n", "not allowed", 1),
    ],
)
def test_refused_constructs_name_the_line(text: bytes, fragment: str, line: int) -> None:
    with pytest.raises(YamlProblem) as info:
        parse_yaml_with_positions(text)
    assert fragment in info.value.message
    assert info.value.line == line


def test_control_characters_are_refused_with_their_position() -> None:
    with pytest.raises(YamlProblem) as info:
        parse_yaml_with_positions(b"a: 1\nb: x\x00y\n")
    assert (info.value.line, info.value.col) == (2, 5)
    assert info.value.message == "invalid YAML: control character U+0000 is not allowed"


def test_alias_bomb_is_refused_before_it_expands() -> None:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        refs = ",".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    started = time.process_time()
    with pytest.raises(YamlProblem) as info:
        parse_yaml_with_positions("\n".join(lines).encode())
    assert "alias expansion" in info.value.message
    # Expanded, the document holds 9**10 strings (minutes and gigabytes); refused, it
    # costs milliseconds. CPU time, with a wide margin, so a loaded machine passes.
    assert time.process_time() - started < 5.0


@pytest.mark.parametrize("depth", [65, 3000])
def test_nesting_too_deep_is_refused_at_its_position_not_a_recursion_error(depth: int) -> None:
    with pytest.raises(YamlProblem) as info:
        parse_yaml_with_positions(b"a: " + b"[" * depth + b"]" * depth + b"\n")
    assert (info.value.line, info.value.col) == (1, 68)  # the 65th '['
    assert info.value.message == "document nests deeper than 64 levels"


def test_nesting_at_the_limit_loads() -> None:
    data, _ = parse_yaml_with_positions(b"a: " + b"[" * 64 + b"]" * 64 + b"\n")
    assert isinstance(data["a"], list)


def test_oversized_file_is_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"# " + b"x" * MAX_BYTES + b"\n")
    loaded, diagnostics = check_contract(path)
    assert loaded is None and "limit" in diagnostics[0].message


def test_not_utf8_names_line_and_column(tmp_path: Path) -> None:
    with pytest.raises(YamlProblem) as info:
        parse_yaml_with_positions(b"a: ok\nb: caf\xe9\n")
    assert (info.value.line, info.value.col) == (2, 7)


def test_empty_and_non_mapping_documents_are_refused(write_contract) -> None:
    for text in ("", "- a\n- b\n", "just text\n"):
        loaded, diagnostics = check_contract(write_contract(text))
        assert loaded is None and len(diagnostics) == 1


def test_missing_file_is_one_diagnostic(tmp_path: Path) -> None:
    loaded, diagnostics = check_contract(tmp_path / "nope.yaml")
    assert loaded is None and "cannot read contract" in diagnostics[0].message


_keys = st.text(alphabet=st.characters(categories=["L", "Nd"]), min_size=1, max_size=8)
_scalars = st.one_of(st.integers(-(10**6), 10**6), st.booleans(), st.none(), _keys)


@given(st.dictionaries(_keys, st.one_of(_scalars, st.lists(_scalars, max_size=4)), max_size=6))
def test_round_trips_what_pyyaml_dumps(value: dict) -> None:
    import json

    # JSON is valid YAML 1.2, so a JSON dump must load back to the same value.
    data, positions = parse_yaml_with_positions(json.dumps(value, ensure_ascii=False).encode())
    assert data == value
    for key in value:
        assert positions.of((key,), key=True)[0] == 1


@pytest.mark.parametrize(
    ("text", "value"),
    [("010", 10), ("08", 8), ("-007", -7), ("+12", 12), ("0x1F", 31), ("0o17", "0o17")],
)
def test_integers_are_read_as_yaml_1_2_decimal_not_1_1_octal(text: str, value: object) -> None:
    data, _ = parse_yaml_with_positions(f"n: {text}\n".encode())
    assert data == {"n": value}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("min: 1e99999\n", "too large for a number"),
        ("min: -1e400\n", "too large for a number"),
        ("max: .nan\n", "NaN is not a number"),
    ],
)
def test_numbers_that_would_silently_change_a_check_are_refused(text: str, problem: str) -> None:
    with pytest.raises(YamlProblem, match=problem) as caught:
        parse_yaml_with_positions(text.encode())
    assert (caught.value.line, caught.value.col) == (1, 6)


def test_an_explicit_infinity_and_ordinary_floats_still_load() -> None:
    data, _ = parse_yaml_with_positions(b"a: .inf\nb: -.inf\nc: 1e300\nd: 0.5\n")
    assert data == {"a": float("inf"), "b": float("-inf"), "c": 1e300, "d": 0.5}

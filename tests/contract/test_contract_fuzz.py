"""Whatever shape a contract takes, checking it reports located problems, never a crash.

Each example contract is parsed, one to three of its nodes are replaced, removed or
given a sibling by hypothesis, and the result is dumped back to YAML and checked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests._fuzz_files import edit_json
from verifier.contract.load import check_contract_source

EXAMPLES = sorted((Path(__file__).parents[2] / "contracts" / "examples").glob("*.yaml"))
SOURCES = {path: yaml.safe_load(path.read_text(encoding="utf-8")) for path in EXAMPLES}

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["id", "rubric", "judge", "regex", "enum", "range", "output", "{{ output }}"]),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    example=st.sampled_from(EXAMPLES),
    changes=st.lists(
        st.tuples(st.integers(min_value=0), st.sampled_from(["replace", "delete", "add"]), _values),
        min_size=1,
        max_size=3,
    ),
)
def test_any_mutation_of_an_example_is_reported_not_raised(
    example: Path, changes: list[tuple[int, str, Any]]
) -> None:
    document = edit_json(SOURCES[example], changes)
    source = yaml.safe_dump(document, allow_unicode=True).encode("utf-8")

    contract, diagnostics = check_contract_source(source, example)

    lines = source.count(b"\n") + 1
    for diagnostic in diagnostics:
        text = str(diagnostic)
        assert text.startswith(f"{example}:"), text
        assert "\n" not in text, text
        assert 1 <= diagnostic.line <= lines, text
    if contract is None:
        assert any(d.severity == "error" for d in diagnostics)

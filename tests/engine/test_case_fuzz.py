"""Whatever a case holds, every claim of it gets one stored result and the record audits.

Hypothesis replaces one to three values of the data-extraction example's cases (an
output field becomes a number, a list, a deep object, text with control characters,
...) and runs the whole contract over them, persisted in SQLite.
"""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests._fuzz_files import mutate, value_paths
from tests.conftest import EXAMPLES
from verifier.analyses.audit import audit_store
from verifier.cases import CaseLine, read_cases
from verifier.contract.load import load_contract
from verifier.engine.plan import build_plan
from verifier.engine.runner import Runner, RunOptions, run_sync
from verifier.gaps.sqlite.store import SqliteStore
from verifier.report import make_writer

CONTRACT = load_contract(EXAMPLES / "data-extraction.yaml")
# The example's cases that parse (one line is cut short on purpose, to show the error).
CASES = [
    case.case
    for case in read_cases(EXAMPLES / "data-extraction.cases.jsonl")
    if case.case is not None
]
CLAIMS = [claim.id for claim in CONTRACT.contract.claims]

_json = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=40),
        st.sampled_from(["", " ", "\x00", "\u2028", "https://x.example", "not a url"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changes=st.lists(st.tuples(st.integers(min_value=0), _json), min_size=1, max_size=3))
def test_any_case_values_give_one_result_per_claim_and_an_intact_record(
    changes: list[tuple[int, Any]],
) -> None:
    cases = json.loads(json.dumps(CASES))
    for pick, value in changes:
        # Values inside cases; the cases themselves and their ids stay.
        paths = [p for p in value_paths(cases) if len(p) > 1 and p[1:] != ("id",)]
        mutate(cases, paths[pick % len(paths)], "replace", value)
    lines = [CaseLine(i + 1, str(case["id"]), case) for i, case in enumerate(cases)]

    with tempfile.TemporaryDirectory() as folder, SqliteStore(Path(folder) / "g.db") as store:
        out = io.StringIO()
        runner = Runner(
            CONTRACT,
            store,
            plan=build_plan(CONTRACT),
            sinks=[make_writer("json", out)],
            options=RunOptions(chunk_size=2),
        )
        run_sync(runner, lines)
        rows = list(store.iter_rows())
        audit = audit_store(store)

    assert audit.ok, [str(p) for p in audit.problems]
    per_case: dict[str, list[str]] = {}
    for row in rows:
        per_case.setdefault(row.case_id, []).append(row.claim_id)
    assert sorted(per_case) == sorted(str(case["id"]) for case in cases)
    for claims in per_case.values():
        assert sorted(claims) == sorted(CLAIMS)
    report = json.loads(out.getvalue())
    assert report["total_cases"] == len(cases)

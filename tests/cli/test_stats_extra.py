"""A core install: everything but the ``stats`` extra's figures works without numpy, scipy
and krippendorff, and a figure that needs them says which extra to install, in one line.

Each test runs in a fresh interpreter where those packages cannot be imported
(``tests._without_stats``), as after ``pip install verifier-llm``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._cli import CLEARED
from tests._cli import verifier as run_verifier
from tests.conftest import EXAMPLES, FIXTURES, ROOT
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer

pytestmark = pytest.mark.e2e

STATS = ("numpy", "scipy", "krippendorff")
INSTALL = "pip install 'verifier-llm[stats]'"

# The core paths a CI job takes: check, a rubric run, audit, the HTML report, the server
# and its viewer. Writes what it saw, and which of the extra's modules were loaded.
_CORE_PATHS = """\
import json, sys
from pathlib import Path
from tests._without_stats import block

block()
from fastapi.testclient import TestClient

from verifier import audit_store, check_contract, open_store, run_contract
from verifier.cli import main
from verifier.server.app import create_app
from verifier.server.settings import ServerSettings

work, examples = Path(sys.argv[1]), Path(sys.argv[2])
contract, problems = check_contract(examples / "data-extraction.yaml")
store = str(work / "gaps.db")
result = run_contract(contract, examples / "data-extraction.cases.jsonl", store=store)
with open_store(store) as gap_store:
    audit = audit_store(gap_store)
try:
    main(["report", "--store", store, "--html", str(work / "run.html")])
except SystemExit as exc:
    report_exit = exc.code
app = create_app(ServerSettings(store=store))
with TestClient(app, base_url="http://127.0.0.1") as client:
    runs_page = client.get("/view/runs").status_code
seen = {
    "checked": contract is not None and not problems,
    "cases": result.summary.total_cases,
    "audit_problems": len(audit.problems),
    "report_exit": report_exit,
    "runs_page": runs_page,
    "loaded": sorted(m for m in sys.modules if m.partition(".")[0] in ("numpy", "scipy", "krippendorff")),
}
(work / "seen.json").write_text(json.dumps(seen))
"""


def _environ() -> dict[str, str]:
    """This environment without CLEARED's variables, with the tree on the path."""
    kept = {k: v for k, v in os.environ.items() if k not in CLEARED}
    return {**kept, "PYTHONPATH": str(ROOT)}


def without_stats(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``verifier ARGS`` in a fresh interpreter that cannot import the stats extra."""
    return subprocess.run(
        [sys.executable, "-m", "tests._without_stats", *args],
        cwd=cwd,
        env={**_environ(), **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_run_audit_report_and_serve_neither_need_nor_load_the_stats_extra(
    tmp_path: Path,
) -> None:
    result = subprocess.run(
        [sys.executable, "-c", _CORE_PATHS, str(tmp_path), str(EXAMPLES)],
        cwd=tmp_path,
        env=_environ(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads((tmp_path / "seen.json").read_text(encoding="utf-8"))
    assert seen["checked"] and seen["cases"] == 7 and seen["audit_problems"] == 0
    assert seen["report_exit"] == 0 and (tmp_path / "run.html").exists()
    assert seen["runs_page"] == 200
    assert seen["loaded"] == []


_CLAIM = """\
contract: shipped
version: 1
claims:
  - id: shipped
    rubric: enum
    field: status
    values: [shipped]
"""


def two_runs(tmp_path: Path) -> Path:
    """A store with a baseline where all ten cases pass and a candidate where eight fail."""
    contract = tmp_path / "shipped.yaml"
    contract.write_text(_CLAIM, encoding="utf-8")
    store = tmp_path / "gaps.db"
    for name, failing in (("baseline", 0), ("candidate", 8)):
        cases = tmp_path / f"{name}.jsonl"
        lines = [
            json.dumps({"id": f"c{i}", "status": "lost" if i < failing else "shipped"})
            for i in range(10)
        ]
        cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
        run = run_verifier(
            "run", str(contract), "--cases", str(cases), "--store", str(store), cwd=tmp_path
        )
        assert run.returncode == (1 if failing else 0), run.stderr
    return store


def test_compare_decides_without_the_extra_and_says_the_power_figures_need_it(
    tmp_path: Path,
) -> None:
    store = two_runs(tmp_path)
    args = ("compare", "last~1", "last", "--store", str(store), "--format", "json")
    core = without_stats(tmp_path, *args)
    full = run_verifier(*args, cwd=tmp_path)
    # The exact test and its verdict need no extra: the same either way.
    assert core.returncode == full.returncode == 1, core.stderr
    core_claim = json.loads(core.stdout)["claims"][0]
    full_claim = json.loads(full.stdout)["claims"][0]
    assert core_claim["verdict"] == full_claim["verdict"] == "worse"
    assert core_claim["p_value"] == full_claim["p_value"]
    # The power figures are the extra's: computed with it, named as missing without.
    assert full_claim["power"] is not None and full_claim["cases_needed"] is not None
    assert core_claim["power"] is None and core_claim["cases_needed"] is None
    missing = f"power and cases needed were not computed: they need the stats extra ({INSTALL})"
    assert f"warning: {missing}" in core.stderr.splitlines()
    assert missing in json.loads(core.stdout)["warnings"]
    assert "warning: power" not in full.stderr
    assert "Traceback" not in core.stderr
    # The console report says the same in place of its note on the two columns.
    console = without_stats(tmp_path, *args[:-2]).stdout
    assert missing in " ".join(console.split())  # as wide as the terminal: it may wrap
    assert "cases needed: smallest number" not in console


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding one judged run of the calibration fixture."""
    where = tmp_path_factory.mktemp("judged")
    given = FIXTURES / "calibrate"
    args = ("run", str(given / "replies.yaml"), "--cases", str(given / "replies.cases.jsonl"))
    env = {"ANTHROPIC_API_KEY": "sk-ant-stats-extra-test"}
    with MessagesServer(default=brain) as server:
        env["ANTHROPIC_BASE_URL"] = server.base_url
        run = run_verifier(
            *args,
            "--store",
            str(where / "gaps.db"),
            cwd=where,
            env=env,
            clear_prefixes=("ANTHROPIC_",),
        )
    assert run.returncode == 1, run.stderr  # some cases fail: see test_calibrate_cli
    return where / "gaps.db"


def test_calibrate_of_scored_labels_without_the_extra_is_one_line_and_exit_2(
    judged: Path, tmp_path: Path
) -> None:
    labels = FIXTURES / "calibrate" / "labels.jsonl"  # scores, two raters: correlations, alpha
    result = without_stats(tmp_path, "calibrate", "--labels", str(labels), "--store", str(judged))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"error: Spearman's correlation needs the stats extra: {INSTALL}"
    ]
    assert result.stdout == ""


def test_a_planned_gate_without_the_extra_is_one_line_and_exit_2(tmp_path: Path) -> None:
    store = two_runs(tmp_path)
    gate = tmp_path / "gate.yaml"
    result = without_stats(
        tmp_path,
        "gate",
        "lock",
        str(tmp_path / "shipped.yaml"),
        "--cases",
        str(tmp_path / "baseline.jsonl"),
        "--primary",
        "shipped",
        "--effect",
        "0.2",
        "--store",
        str(store),
        "--out",
        str(gate),
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        "error: the power of the exact McNemar test (power, cases needed) needs the stats "
        f"extra: {INSTALL}"
    ]
    assert not gate.exists()

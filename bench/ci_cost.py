"""What a CI job pays for verifier: installing it into a fresh venv, then the example run.

In a fresh temporary folder: builds this tree's wheel (not timed; or takes ``--wheel
PATH``), creates a virtual environment (not timed) and times ``pip install -q WHEEL``
into it (the core, no extras, from the index pip is configured with, its cache as it
is), measures the venv on disk, then copies ``contracts/examples`` there and runs the
example contract as a CI job does, offline: ``verifier check`` of
``account-research.yaml``, then ``verifier run`` of it over its five cases with
``--judges replay`` (its judges' verdicts are the recordings beside it; no key, no
network) into a new SQLite store. Each command runs in a process of its own; printed:
wall and CPU seconds (user + system), peak RSS, the venv's size and the total.

    python bench/ci_cost.py [--wheel PATH] [--promptfoo] [--json]

``--promptfoo`` also measures promptfoo the same way: ``npm install
promptfoo@0.121.20`` into a fresh temporary folder (npm's cache as it is; the size of
``node_modules``), then ``promptfoo eval`` offline (its echo provider) of five cases
with seven deterministic checks, the configuration ``bench/peer_promptfoo.py`` writes,
without its database (``--no-write``) and with a fresh one. When npm cannot install it
here, one line says so and verifier's figures are printed alone. ``--json`` prints the
figures as one JSON object instead of a table.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import install
import peer_promptfoo as peer
import peer_promptfoo_cases as cases_for

ROOT = install.ROOT
EXAMPLES = ROOT / "contracts" / "examples"
CONTRACT = "account-research.yaml"
CASES = "account-research.cases.jsonl"
PROMPTFOO_CASES = 5
"""As many cases as the example contract has."""


@dataclass
class Step:
    """One measured step: seconds of wall and CPU time, and megabytes (on disk or RSS)."""

    name: str
    wall: float
    cpu: float
    mb: float | None = None
    what: str = ""


def offline_env() -> dict[str, str]:
    """The environment of a CI job without keys: no judge can be asked, no other code
    put first on the path."""
    return {
        key: value
        for key, value in os.environ.items()
        if key not in ("CI", "PYTHONPATH")
        and not key.startswith("VERIFIER_")
        and not key.endswith("_API_KEY")
    }


def built_wheel(given: Path | None, folder: Path) -> Path:
    """``given``, or this tree's wheel built into ``folder`` (not timed)."""
    if given is not None:
        if not given.is_file():
            raise SystemExit(f"ci_cost: --wheel {given}: no such file")
        return given.resolve()
    return Path(install.install_target(ROOT, None, folder))


def verifier_steps(wheel: Path, folder: Path) -> list[Step]:
    """Installs ``wheel`` into a new venv in ``folder``, then checks and runs the example."""
    venv = install.new_venv(folder / "venv")
    wall, cpu = install.timed_install(str(wheel), venv)
    size = install.disk_usage(venv) / install.MB
    installed = Step("pip install", wall, cpu, size, "venv size")
    return [installed, *example_job([str(venv / "bin" / "verifier")], folder / "job")]


def example_job(verifier: Sequence[str], work: Path) -> list[Step]:
    """What a CI job runs, offline: ``check`` of the example contract, then ``run`` of it
    with its recorded judge verdicts, in ``work`` (a copy of the examples goes there)."""
    shutil.copytree(EXAMPLES, work / "examples")
    contract, env = f"examples/{CONTRACT}", offline_env()
    check = peer.measure([*verifier, "check", contract], env, work, {0})
    # The example's cases include failures on purpose: it exits 1, as .ci/run expects.
    command = [*verifier, "run", contract, "--cases", f"examples/{CASES}", "--judges", "replay"]
    ran = peer.measure([*command, "--store", "gaps.db"], env, work, {1})
    return [Step("verifier check", *check, "peak RSS"), Step("verifier run", *ran, "peak RSS")]


def promptfoo_steps(folder: Path) -> list[Step]:
    """``npm install promptfoo`` into ``folder``, then its eval of five cases, offline."""
    modules = folder / "npm"
    entry: list[Path] = []
    with contextlib.redirect_stdout(sys.stderr):  # its one line of progress
        wall, cpu = install.timed(lambda: entry.append(peer.install_promptfoo(modules)))
    size = install.disk_usage(modules / "node_modules") / install.MB
    steps = [Step(f"npm install promptfoo@{peer.VERSION}", wall, cpu, size, "node_modules")]
    work = folder / "eval"
    work.mkdir()
    cases, plan = cases_for.make_cases(PROMPTFOO_CASES)
    config = cases_for.write_promptfoo_files(work, cases)
    for database in (False, True):
        figures, out = peer.run_promptfoo(entry[0], config, work, database)
        peer.check("promptfoo", cases_for.promptfoo_verdicts(out), plan)
        label = "promptfoo eval" + ("" if database else " --no-write")
        steps.append(Step(label, *figures, "peak RSS"))
    return steps


def total(name: str, steps: list[Step]) -> Step:
    """The steps' wall and CPU seconds added up; the largest RSS of the runs after the install."""
    peaks = [step.mb for step in steps[1:] if step.mb is not None]
    return Step(name, sum(s.wall for s in steps), sum(s.cpu for s in steps), max(peaks), "peak RSS")


def table(sections: dict[str, list[Step]]) -> str:
    """The figures as a table, one section per tool, each ending with its total."""
    lines = [f"{'':<38} {'wall s':>7} {'CPU s':>7} {'MB':>7}"]
    for steps in sections.values():
        for step in steps:
            size = "" if step.mb is None else f"{step.mb:>7.0f} {step.what}"
            lines.append(f"{step.name:<38} {step.wall:>7.2f} {step.cpu:>7.2f} {size}")
    return "\n".join(lines)


def measure_all(wheel: Path | None, with_promptfoo: bool) -> dict[str, list[Step]]:
    """Every step, each tool in a fresh temporary folder; promptfoo only when asked."""
    sections: dict[str, list[Step]] = {}
    with tempfile.TemporaryDirectory(prefix="verifier-ci-cost-") as temp:
        steps = verifier_steps(built_wheel(wheel, Path(temp) / "wheel"), Path(temp))
        sections["verifier"] = [*steps, total("total: install, check, run", steps)]
    if with_promptfoo:
        with tempfile.TemporaryDirectory(prefix="promptfoo-ci-cost-") as temp:
            try:
                steps = promptfoo_steps(Path(temp))
            except SystemExit as stopped:
                print(f"promptfoo not measured: {stopped}", file=sys.stderr)
            else:
                # The total counts the eval without its database, promptfoo's cheaper one.
                sections["promptfoo"] = [
                    *steps,
                    total("total: install, eval --no-write", steps[:2]),
                ]
    return sections


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--wheel", type=Path, help="install this wheel instead of building one")
    parser.add_argument("--promptfoo", action="store_true", help="measure promptfoo as well")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    options = parser.parse_args()
    sections = measure_all(options.wheel, options.promptfoo)
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    if options.json:
        figures = {name: [asdict(step) for step in steps] for name, steps in sections.items()}
        facts = {"date": when, "load": load, "python": platform.python_version()}
        print(json.dumps({**facts, **figures}, indent=2))
        return
    print(f"{when}, Python {platform.python_version()}, load average {load:.1f}")
    print(table(sections))


if __name__ == "__main__":
    main()

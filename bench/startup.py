"""Start-up: how soon a fresh ``verifier`` process answers, and how soon it calls a judge.

Each measurement runs in a fresh process, ``--tries`` times (default 15); the median
is printed with the CPU seconds the process used (user + system):

- ``verifier --help``, to its exit;
- ``verifier check`` of the shipped example ``contracts/examples/data-extraction.yaml``
  (rubric claims only), to its exit;
- ``verifier run`` of a one-case contract with one judge claim (a fresh SQLite store
  each time, so the verdict is never cached), from just before the process is started
  to the first request received by a local Messages API stand-in
  (``tests/judge/messages_server.py``) in this process, which the provider reaches
  through ``ANTHROPIC_BASE_URL`` with a dummy key; the CPU seconds are the child's at
  that moment;
- ``python -c "import anthropic"``: the SDK's own import, for reference. A judge call
  no longer waits for it (the provider's own Messages client, ADR 0049); code before
  that change imported it before its first call;
- two floors, for reference: a process that only imports the libraries ``check``
  cannot do without (click and PyYAML) and builds and uses one pydantic model; and
  one that also imports those a judge run needs before its first call (asyncio,
  sqlite3, httpx2) and opens and closes an ``httpx2.AsyncClient``. Neither reads a
  contract or makes a call, so no ``verifier`` can start faster than they finish
  (ADR 0053).

Targets (issue 18): ``verifier check`` <= 0.15 s, the first judge call <= 0.3 s.

    python bench/startup.py [--tries 15] [--ref REF]

``--ref REF`` (a commit, branch or tag) also measures the code of REF, exported with
``git archive`` into a temporary folder and run by the same interpreter, alternating
with this tree try by try so both see the same load; it prints this tree's medians
over REF's. Bytecode is written and one untimed try of each warms the caches, so no
try compiles modules. On a shared machine the CPU seconds say more than wall times.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.judge.behaviours import Behaviour  # noqa: E402
from tests.judge.messages_server import MessagesServer, default_responder  # noqa: E402

EXAMPLE = ROOT / "contracts" / "examples" / "data-extraction.yaml"
JUDGE_CONTRACT = """\
contract: bench-startup
version: 1
llm_fields: [output]
judges:
  j:
    provider: anthropic
    model: claude-haiku-4-5-20251001
claims:
  - id: polite
    judge: j
    instruction: The output is polite
"""
JUDGE_CASE = '{"id": "c1", "input": "hello", "output": "Good morning, how can I help?"}\n'
Sample = tuple[float, float]  # wall seconds, CPU seconds
CHECK_FLOOR = """\
import click, yaml
from pydantic import BaseModel
class Model(BaseModel):
    x: int
Model.model_validate({"x": 1})
"""
JUDGE_FLOOR = f"""\
{CHECK_FLOOR}
import asyncio, sqlite3, httpx2
async def client():
    async with httpx2.AsyncClient():
        pass
asyncio.run(client())
"""


class FirstCall:
    """A responder noting when the first call of the watched process arrives."""

    def __init__(self) -> None:
        self.pid = 0
        self.arrived: Sample | None = None
        self.seen = threading.Event()

    def watch(self, pid: int) -> None:
        self.pid, self.arrived = pid, None
        self.seen.clear()

    def __call__(self, request: dict[str, Any]) -> Behaviour:
        if not self.seen.is_set():
            self.arrived = (time.monotonic(), _cpu_of(self.pid))
            self.seen.set()
        return default_responder(request)


def _cpu_of(pid: int) -> float:
    """User + system seconds of a running process (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _environment(tree: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CI"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = str(tree)
    env.update(extra or {})
    return env


def _command(*args: str) -> list[str]:
    # What the console script does, so both trees run through the same interpreter.
    return [
        sys.executable,
        "-c",
        "import sys; from verifier.cli import main; sys.exit(main())",
        *args,
    ]


def _check_source(tree: Path, work: Path) -> None:
    """Refuses to measure when the children would not import ``verifier`` from ``tree``."""
    found = subprocess.run(
        [sys.executable, "-c", "import verifier; print(verifier.__file__)"],
        cwd=work,
        env=_environment(tree),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not Path(found).is_relative_to(tree):
        raise SystemExit(f"verifier imports from {found}, not from {tree}")


def _to_exit(tree: Path, work: Path, *args: str, python: bool = False) -> Sample:
    start = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, *args] if python else _command(*args),
        # Not this tree's folder: `python -c` puts the working folder first on the path.
        cwd=work,
        env=_environment(tree),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"verifier {' '.join(args)} exited {process.returncode} in {tree}")
    return wall, usage.ru_utime + usage.ru_stime


def _to_first_call(tree: Path, server: MessagesServer, first: FirstCall, work: Path) -> Sample:
    store = work / "gaps.db"
    for stale in work.glob("gaps.db*"):
        stale.unlink()
    env = _environment(
        tree, {"ANTHROPIC_API_KEY": "sk-ant-bench", "ANTHROPIC_BASE_URL": server.base_url}
    )
    args = [
        "run",
        str(work / "judge.yaml"),
        "--cases",
        str(work / "cases.jsonl"),
        "--store",
        str(store),
    ]
    start = time.monotonic()
    process = subprocess.Popen(
        _command(*args),
        cwd=work,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    first.watch(process.pid)
    _, stderr = process.communicate(timeout=120)
    if first.arrived is None:
        raise SystemExit(f"no judge call from verifier run in {tree}: {stderr.strip()[-400:]}")
    arrived, cpu = first.arrived
    return arrived - start, cpu


def _exported(ref: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", ref, "verifier"],
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tries", type=int, default=15)
    parser.add_argument("--ref", help="also measure this commit, alternating with this tree")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="verifier-startup-") as temp:
        work = Path(temp)
        (work / "judge.yaml").write_text(JUDGE_CONTRACT, encoding="utf-8")
        (work / "cases.jsonl").write_text(JUDGE_CASE, encoding="utf-8")
        trees = {"this tree": ROOT}
        if options.ref:
            (work / "ref").mkdir()
            trees[options.ref] = _exported(options.ref, work / "ref")
        first = FirstCall()
        with MessagesServer(default=first) as server:
            measures: dict[str, Callable[[Path], Sample]] = {
                "verifier --help": lambda tree: _to_exit(tree, work, "--help"),
                f"verifier check {EXAMPLE.name}": lambda tree: _to_exit(
                    tree, work, "check", str(EXAMPLE)
                ),
                "judge run: first call": lambda tree: _to_first_call(tree, server, first, work),
                "import anthropic (the SDK alone)": lambda tree: _to_exit(
                    tree, work, "-c", "import anthropic", python=True
                ),
                "floor of check (no verifier)": lambda tree: _to_exit(
                    tree, work, "-c", CHECK_FLOOR, python=True
                ),
                "floor of a judge run (no verifier)": lambda tree: _to_exit(
                    tree, work, "-c", JUDGE_FLOOR, python=True
                ),
            }
            samples = {(m, t): [] for m in measures for t in trees}
            for tree in trees.values():  # untimed: writes bytecode, warms the file cache
                _check_source(tree, work)
                for measure in measures.values():
                    measure(tree)
            for _ in range(options.tries):
                for name, measure in measures.items():
                    for label, tree in trees.items():
                        samples[name, label].append(measure(tree))
        _print(options.tries, trees, measures, samples)


def _print(
    tries: int,
    trees: dict[str, Path],
    measures: dict[str, Any],
    samples: dict[tuple[str, str], list[Sample]],
) -> None:
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"start-up, median of {tries} tries each in a fresh process (load average {load})")
    labels = list(trees)
    header = f"{'':<40}" + "".join(f"{label[:20]:>22}" for label in labels)
    if len(labels) == 2:
        header += f"{'ratio':>16}"
    print(header)
    print(
        f"{'':<40}"
        + f"{'wall s':>11}{'cpu s':>11}" * len(labels)
        + ("   wall    cpu" if len(labels) == 2 else "")
    )
    for name in measures:
        medians = [
            (
                statistics.median(w for w, _ in samples[name, label]),
                statistics.median(c for _, c in samples[name, label]),
            )
            for label in labels
        ]
        line = f"{name:<40}" + "".join(f"{w:>11.3f}{c:>11.3f}" for w, c in medians)
        if len(medians) == 2:
            (w0, c0), (w1, c1) = medians
            line += f"{w0 / w1:>7.2f}{c0 / c1:>7.2f}"
        print(line)


if __name__ == "__main__":
    main()

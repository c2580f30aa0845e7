"""verifier side by side with promptfoo 0.121.20 on the same cases and checks.

Installs promptfoo 0.121.20 with npm into a folder of the system's temporary directory
(kept there, so later runs reuse it; never in this repository), generates N cases
(default 10,000) with 7 deterministic checks written for both tools (see
`peer_promptfoo_cases.py`), and runs, interleaved, round after round:

- `verifier run` end to end: SQLite store, JSON report (one row per rubric check);
- the same on one case: verifier's start-up and fixed costs;
- `promptfoo eval` with the echo provider, `--no-write` (no database) and `-o out.json`;
- the same writing its database (a fresh one each round, as verifier's store is).

After every run both tools' per-case, per-check verdicts are compared with the ones the
generator planted, so with each other too; any difference stops the bench. Prints the
wall time, CPU time (user + system, which varies less on a busy machine) and peak RSS
of each, the medians and the ratios to verifier's median taken round by round.

    python bench/peer_promptfoo.py [--cases N] [--rounds R] [--verifier PATH ...]

`--verifier PATH` (repeatable) times the `verifier` of another checkout (its
`.venv/bin/python`) or the Python interpreter PATH names, instead of the interpreter
running this script; each one is a column of its own, in the same rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import peer_promptfoo_cases as peer

VERSION = "0.121.20"
ENTRYPOINT = Path("node_modules/promptfoo/dist/src/entrypoint.js")
PROMPTFOO_ENV = {
    "PROMPTFOO_DISABLE_TELEMETRY": "1",
    "PROMPTFOO_DISABLE_UPDATE": "1",
    "PROMPTFOO_DISABLE_SHARING": "1",
    "PROMPTFOO_DISABLE_REMOTE_GENERATION": "1",
    "PROMPTFOO_DISABLE_DEBUG_LOG": "1",
}

Measure = tuple[float, float, float]  # wall s, CPU s, peak RSS MB


def fail(message: str) -> None:
    raise SystemExit(f"peer_promptfoo: {message}")


def install_promptfoo(folder: Path) -> Path:
    """promptfoo's entry point in ``folder``, installed there with npm on the first run."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            fail(
                f"{tool} is not on PATH; install Node.js 20 or newer (with npm) to run"
                f" promptfoo {VERSION}"
            )
    manifest = folder / "node_modules/promptfoo/package.json"
    if manifest.is_file() and json.loads(manifest.read_text())["version"] == VERSION:
        return folder / ENTRYPOINT
    folder.mkdir(parents=True, exist_ok=True)
    print(f"installing promptfoo {VERSION} into {folder} (once)...", flush=True)
    installed = subprocess.run(
        [
            "npm",
            "install",
            "--prefix",
            str(folder),
            "--no-audit",
            "--no-fund",
            f"promptfoo@{VERSION}",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if installed.returncode != 0 or not (folder / ENTRYPOINT).is_file():
        # npm's first error line names the cause (its last one, where its log is).
        lines = installed.stderr.strip().splitlines() or ["no output"]
        cause = next((line for line in lines if line.startswith("npm error")), lines[-1])
        fail(f"npm install promptfoo@{VERSION} failed ({installed.returncode}): {cause}")
    return folder / ENTRYPOINT


def verifier_python(path: str) -> str:
    """The interpreter that runs the verifier of ``path``: a checkout with a .venv, or itself."""
    # absolute(), not resolve(): a venv's python is a link that must stay unresolved.
    candidate = Path(path).absolute()
    if candidate.is_dir():
        candidate = candidate / ".venv/bin/python"
    if not candidate.is_file():
        fail(f"--verifier {path}: no checkout with .venv/bin/python, nor a Python interpreter")
    return str(candidate)


# Run in a small process of its own, which starts the command and reports its usage: a
# child forked from this bench (which holds the cases and promptfoo's parsed output)
# would count the bench's memory in its peak RSS.
TIMER = """
import json, os, sys, time
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    except OSError as error:
        print(f"cannot start {sys.argv[2]}: {error}", file=sys.stderr)
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - started
code = os.waitstatus_to_exitcode(status)
cpu = usage.ru_utime + usage.ru_stime
with open(sys.argv[1], "w") as out:
    json.dump([code, wall, cpu, usage.ru_maxrss / 1024], out)
"""


def measure(command: Sequence[str], env: dict[str, str], cwd: Path, ok: set[int]) -> Measure:
    """Runs ``command``; its wall time, CPU time and peak RSS (its waited-for children's too)."""
    figures = cwd / "usage.json"
    timed = subprocess.run(
        [sys.executable, "-c", TIMER, str(figures), *command],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
    )
    if timed.returncode != 0 or not figures.is_file():
        fail(f"could not time {command[0]}: {timed.stderr.decode(errors='replace')[-2000:]}")
    code, wall, cpu, rss = json.loads(figures.read_text())
    figures.unlink()
    if code not in ok:
        stderr = timed.stderr.decode(errors="replace").strip()[-2000:]
        fail(f"{' '.join(command[:4])} ... exited {code}: {stderr}")
    return float(wall), float(cpu), float(rss)


def run_verifier(python: str, contract: Path, cases: Path, work: Path) -> tuple[Measure, Path]:
    """`verifier run` into a new SQLite store with a JSON report; its figures and its store."""
    store, report = work / "gaps.db", work / "report.json"
    for stale in work.glob("gaps.db*"):
        stale.unlink()
    env = {k: v for k, v in os.environ.items() if k != "CI" and not k.startswith("VERIFIER_")}
    command = [python, "-m", "verifier", "run", str(contract), "--cases", str(cases)]
    command += ["--store", str(store), "--format", "json", "--out", str(report)]
    return measure(command, env, work, {0, 1}), store


def run_promptfoo(entry: Path, config: Path, work: Path, database: bool) -> tuple[Measure, Path]:
    """`promptfoo eval` with or without its database (a fresh config folder each time)."""
    home = work / "promptfoo-home"
    shutil.rmtree(home, ignore_errors=True)
    out = work / "out.json"
    env = {**os.environ, **PROMPTFOO_ENV, "PROMPTFOO_CONFIG_DIR": str(home)}
    command = ["node", str(entry), "eval", "-c", str(config), "--no-cache", "-o", str(out)]
    command += ["--no-table", "--no-progress-bar", *([] if database else ["--no-write"])]
    return measure(command, env, config.parent, {0, 100}), out


def check(name: str, got: peer.Verdicts, plan: peer.Verdicts) -> None:
    """Stops the bench when ``name``'s verdicts are not the planned ones."""
    lines = peer.differences(name, got, plan)
    if lines:
        fail("verdicts differ:\n" + "\n".join(lines))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--verifier", action="append", metavar="PATH", default=[])
    parser.add_argument("--no-db", action="store_true", help="skip promptfoo with its database")
    parser.add_argument(
        "--promptfoo-dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / f"verifier-bench-promptfoo-{VERSION}",
    )
    args = parser.parse_args(argv)
    pythons = {path: verifier_python(path) for path in args.verifier} or {
        "verifier": sys.executable
    }
    entry = install_promptfoo(args.promptfoo_dir)
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    work = Path(tempfile.mkdtemp(prefix="verifier-bench-peer-"))
    try:
        cases, plan = peer.make_cases(args.cases)
        contract, cases_path = peer.write_verifier_files(work, cases)
        one = work / "one"
        one.mkdir()
        _, one_case = peer.write_verifier_files(one, cases[:1])
        config = peer.write_promptfoo_files(work, cases)
        print(
            f"{args.cases:,} cases x {len(peer.CHECKS)} checks; promptfoo {VERSION} on node {node}"
        )
        columns = {f"{name} run": python for name, python in pythons.items()}
        figures: dict[str, list[Measure]] = {}
        for round_ in range(1, args.rounds + 1):
            for label, python in columns.items():
                figure, store = run_verifier(python, contract, cases_path, work)
                check(label, peer.verifier_verdicts(python, store), plan)
                figures.setdefault(label, []).append(figure)
                start, _ = run_verifier(python, contract, one_case, one)
                figures.setdefault(f"{label}, 1 case", []).append(start)
            for database in [False] if args.no_db else [False, True]:
                label = f"promptfoo eval{'' if database else ' --no-write'}"
                figure, out = run_promptfoo(entry, config, work, database)
                check(label, peer.promptfoo_verdicts(out), plan)
                figures.setdefault(label, []).append(figure)
            print(f"round {round_}: verdicts identical ({len(plan):,} per tool)", flush=True)
        report(figures, next(iter(columns)), args.cases)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(figures: dict[str, list[Measure]], base: str, n: int) -> None:
    """The table: medians of wall, CPU and peak RSS, and their ratios to ``base``'s."""
    print(
        f"\n{'':<34} {'wall s':>7} {'CPU s':>7} {'peak MB':>7} {'cases/s':>8}"
        f" {'wall x':>15} {'CPU x':>6} {'peak x':>6}"
    )
    for label, runs in figures.items():
        medians = [statistics.median(run[i] for run in runs) for i in range(3)]
        # Each round's figure over the same round's verifier: pairing keeps a ratio
        # meaningful while the machine's load drifts.
        ratios = [
            [run[i] / ref[i] for run, ref in zip(runs, figures[base], strict=True)]
            for i in range(3)
        ]
        wall, cpu, rss = (statistics.median(r) for r in ratios)
        rate = f"{n / medians[0]:>8,.0f}" if "1 case" not in label else f"{'':>8}"
        spread = f"({min(ratios[0]):.1f}-{max(ratios[0]):.1f})"
        print(
            f"{label:<34} {medians[0]:>7.2f} {medians[1]:>7.2f} {medians[2]:>7.0f} {rate}"
            f" {wall:>5.1f} {spread:>9} {cpu:>6.1f} {rss:>6.1f}"
        )
    print(f"medians over the rounds; ratios: to {base} of the same round (wall: median and range)")


if __name__ == "__main__":
    main()

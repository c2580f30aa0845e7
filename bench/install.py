"""Install cost: ``pip install`` of this tree into a fresh virtual environment.

Each try creates a new venv in a temporary folder (``python3 -m venv``, not timed) and
times ``pip install -q TREE`` into it, from the index pip is configured with; then
measures the venv on disk (as ``du`` counts it, each file once). Printed: the median
wall and CPU seconds (user + system of pip and its children) over ``--tries`` (default
3), the size, the size of an empty venv for reference, and the largest installed
packages.

    python bench/install.py [--tries 3] [--ref REF] [--extras stats] [--wheel]

``--ref REF`` (a commit, branch or tag) also installs the tree of REF, exported with
``git archive`` into a temporary folder, alternating with this tree try by try so both
see the same load and the same pip cache; it prints this tree's figures over REF's.
``--extras`` installs ``TREE[EXTRAS]`` instead (both trees). ``--wheel`` builds each
tree's wheel first (not timed) and installs the wheel, as ``pip install verifier-llm``
from an index does; without it pip also builds the package in each try. The first try
of each may fill pip's cache; on a shared machine the CPU seconds say more than wall
times.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MB = 1024 * 1024
BUILT_FROM = ("verifier", "pyproject.toml", "README.md", "LICENSE")
"""What the wheel is built from (``[tool.hatch.build.targets.wheel]`` and the metadata)."""


@dataclass
class Figures:
    """What the tries of one tree measured."""

    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    size: int = 0
    largest: list[tuple[int, str]] = field(default_factory=list)


def disk_usage(path: Path) -> int:
    """Bytes on disk under ``path``, each inode counted once (as ``du`` does)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for folder, dirs, files in os.walk(path):
        for name in [*dirs, *files]:
            stat = os.lstat(os.path.join(folder, name))
            if (stat.st_dev, stat.st_ino) not in seen:
                seen.add((stat.st_dev, stat.st_ino))
                total += stat.st_blocks * 512
    return total


def largest_packages(venv: Path, count: int = 8) -> list[tuple[int, str]]:
    """The ``count`` largest entries of the venv's site-packages, by bytes on disk."""
    (site,) = venv.glob("lib/python*/site-packages")
    sizes = [(disk_usage(entry), entry.name) for entry in site.iterdir() if entry.is_dir()]
    return sorted((s for s in sizes if not s[1].endswith("-info")), reverse=True)[:count]


def new_venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    return where


def install_target(tree: Path, extras: str | None, wheels: Path | None) -> str:
    """What ``pip install`` is given: the tree, or its wheel built into ``wheels``."""
    if wheels is not None:
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(tree)],
            check=True,
        )
        (tree,) = wheels.glob("*.whl")
    return f"{tree}[{extras}]" if extras else str(tree)


def timed(action: Callable[[], object]) -> tuple[float, float]:
    """(wall, CPU) seconds of ``action``: CPU is user + system of the processes it
    started and waited for (pip, npm and their children)."""
    before = os.times()
    start = time.perf_counter()
    action()
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return wall, cpu


def timed_install(target: str, venv: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of ``pip install -q TARGET`` into ``venv``."""
    return timed(
        lambda: subprocess.run(
            [str(venv / "bin" / "pip"), "install", "-q", target],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    )


def exported(ref: str, into: Path) -> Path:
    """The files of REF that an install reads: the package, its metadata, the README."""
    into.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", ref, *BUILT_FROM],
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def line(name: str, figures: Figures) -> str:
    return (
        f"{name:<12} wall {statistics.median(figures.walls):6.1f} s  "
        f"CPU {statistics.median(figures.cpus):6.1f} s  size {figures.size / MB:6.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tries", type=int, default=3)
    parser.add_argument("--ref", help="also install this commit, alternating with this tree")
    parser.add_argument("--extras", help="install TREE[EXTRAS]")
    parser.add_argument("--wheel", action="store_true", help="install each tree's wheel")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="verifier-install-") as temp:
        trees = {"this tree": ROOT}
        if options.ref:
            trees[options.ref] = exported(options.ref, Path(temp) / "ref-tree")
        targets = {}
        for n, (name, tree) in enumerate(trees.items()):
            wheels = Path(temp) / f"wheels-{n}" if options.wheel else None
            targets[name] = install_target(tree, options.extras, wheels)
        results = {name: Figures() for name in trees}
        empty = disk_usage(new_venv(Path(temp) / "empty"))
        for attempt in range(options.tries):
            for name, target in targets.items():
                venv = new_venv(Path(temp) / "venv")
                wall, cpu = timed_install(target, venv)
                figures = results[name]
                figures.walls.append(wall)
                figures.cpus.append(cpu)
                figures.size, figures.largest = disk_usage(venv), largest_packages(venv)
                shutil.rmtree(venv)
                print(f"  try {attempt + 1} {name}: {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
    what = "WHEEL" if options.wheel else "TREE"
    print(f"pip install {what + '[' + options.extras + ']' if options.extras else what}, "
          f"median of {options.tries}; an empty venv is {empty / MB:.0f} MB")  # fmt: skip
    for name, figures in results.items():
        print(line(name, figures))
        print("   largest: " + ", ".join(f"{n} {s / MB:.0f} MB" for s, n in figures.largest))
    if options.ref:
        mine, theirs = results["this tree"], results[options.ref]
        print(
            f"this tree / {options.ref}: wall "
            f"{statistics.median(mine.walls) / statistics.median(theirs.walls):.2f}, CPU "
            f"{statistics.median(mine.cpus) / statistics.median(theirs.cpus):.2f}, size "
            f"{mine.size / theirs.size:.2f}"
        )


if __name__ == "__main__":
    main()

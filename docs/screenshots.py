"""The viewer's screenshots in the documentation, made from the bundled examples.

    python docs/screenshots.py [--out docs/images]

Runs the example contracts of contracts/examples/ (judges replayed from their
recordings: offline, no key) into a temporary store, serves that store with
``verifier view`` on 127.0.0.1 (a free port), and photographs its pages in headless
Chromium at a fixed viewport: the runs list, a run, a run with a citation's and a
judge's failing result unfolded, one of its cases, the evaluation panel of that case,
the diff of two runs, the grid of the second against the first, and the trends of
their contract. Then it serves the same store with
``verifier serve --contracts`` over a copy of the examples and photographs the
playground (``/play/``) with a stored case of the last run tried. The browser is Debian's
(``/usr/bin/chromium``, or ``$VERIFIER_TEST_CHROMIUM``), driven by Playwright, never
one Playwright downloads; every request but the viewer's own is refused. Needs the
``dev`` extra (the viewer and Playwright).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = "contracts/examples"
STORE = ".verifier/gaps.db"
WIDTH, HEIGHT = 1200, 900  # the viewport, in CSS pixels (one device pixel each)
FOLD = "tr.result details.content"
# Each shot: its file, the viewer's page (last: the newest run of the store), and the
# fold opened and scrolled to before the photograph, if any.
SHOTS: tuple[tuple[str, str, str | None], ...] = (
    ("viewer-runs.png", "/view/runs", None),
    ("viewer-run.png", "/view/runs/last", None),
    ("viewer-run-citation-fold.png", "/view/runs/last~1?claim=spans_grounded", FOLD),
    ("viewer-run-judge-fold.png", "/view/runs/last?claim=executive_tone", FOLD),
    ("viewer-case.png", "/view/runs/last/cases/acct-003", None),
    ("viewer-panel.png", "/view/panel/last?case=acct-003", None),
    ("viewer-diff.png", "/view/diff?a=last~2&b=last~1", None),
    ("viewer-grid.png", "/view/runs/last~1/grid?against=last~2", None),
    ("viewer-trends.png", "/view/trends?contract=org-extraction", None),
)
# Run in this order: two runs of one contract to diff, then the run to show.
RUNS = (
    ("data-extraction.yaml", "data-extraction.cases.jsonl"),
    ("data-extraction.yaml", "data-extraction.candidate.cases.jsonl"),
    ("account-research.yaml", "account-research.cases.jsonl"),
)
PLAYGROUND = "playground.png"
PLAYGROUND_CONTRACT = "account-research.yaml"
PLAYGROUND_CASE = "acct-003"
BROWSER_FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]


def _verifier(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "verifier", *arguments]


def _environment() -> dict[str, str]:
    """This environment without keys or a store: the runs replay, into the given store."""
    return {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("ANTHROPIC_", "OPENAI_", "VERIFIER_STORE"))
    }


def run_examples(store: Path) -> None:
    """Runs the example contracts into ``store`` (a case failing is expected)."""
    for contract, cases in RUNS:
        done = subprocess.run(
            _verifier(
                "run",
                f"{EXAMPLES}/{contract}",
                "--cases",
                f"{EXAMPLES}/{cases}",
                "--judges",
                "replay",
                "--store",
                str(store),
                "--format",
                "json",
            ),
            cwd=ROOT,
            env=_environment(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode not in (0, 1):
            sys.exit(f"error: verifier run {contract} exited {done.returncode}:\n{done.stderr}")


@contextmanager
def viewer(folder: Path, command: str = "view", *options: str) -> Iterator[str]:
    """``verifier view`` (or ``serve``) serving ``folder``'s store on a free port of
    127.0.0.1; yields its URL. It runs in ``folder``, so its pages name the store as a
    relative path."""
    process = subprocess.Popen(
        _verifier(command, "--store", STORE, "--host", "127.0.0.1", "--port", "0", *options),
        cwd=folder,
        env=_environment(),
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    try:
        for line in process.stderr:
            if line.startswith("serving the "):
                yield line.split(" on ", 1)[1].strip().removesuffix("/view/")
                break
        else:
            sys.exit(f"error: verifier {command} did not start (exit {process.wait()})")
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)


def chromium() -> str:
    """Debian's Chromium, or the one ``$VERIFIER_TEST_CHROMIUM`` names."""
    path = os.environ.get("VERIFIER_TEST_CHROMIUM") or shutil.which("chromium")
    if not path or not Path(path).is_file():
        sys.exit("error: no Chromium: install Debian's chromium or set VERIFIER_TEST_CHROMIUM")
    return path


@contextmanager
def browser_page(base: str) -> Iterator[Any]:
    """A page of headless Chromium at the fixed viewport that reaches ``base`` only."""
    from playwright.sync_api import sync_playwright

    def route(request: Any) -> None:
        if request.request.url.startswith(base + "/"):
            request.continue_()
        else:
            request.abort()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium(), headless=True, args=BROWSER_FLAGS
        )
        context = browser.new_context(
            viewport={"width": WIDTH, "height": HEIGHT}, device_scale_factor=1
        )
        context.route("**/*", route)
        yield context.new_page()
        browser.close()


def photograph(base: str, out: Path) -> list[Path]:
    """Each page of SHOTS at ``base``, as a PNG of the viewport in ``out``."""
    written = []
    with browser_page(base) as page:
        for name, path, fold in SHOTS:
            response = page.goto(base + path, wait_until="load")
            if response is None or not response.ok:
                sys.exit(f"error: {path}: the viewer answered {response and response.status}")
            # The diff's statistics are computed in the background: asked for until shown.
            for _ in range(240):
                if not page.locator("#summary-pending").count():
                    break
                page.wait_for_timeout(250)
                page.goto(base + path, wait_until="load")
            if fold is not None:
                _open(page, fold, path)
            page.screenshot(path=str(out / name))
            written.append(out / name)
    return written


def _open(page: Any, fold: str, path: str) -> None:
    """Opens the page's first ``fold`` and scrolls its result to the top."""
    found = page.locator(fold).first
    if found.count() == 0:
        sys.exit(f"error: {path}: no {fold} to open")
    found.locator("summary").click()
    found.evaluate("f => f.closest('tr').scrollIntoView({block: 'start'})")


def photograph_playground(base: str, out: Path) -> Path:
    """The playground with the example contract open and a stored case of its last run
    tried: the verdicts beside the output, the deciding spans marked (the whole page,
    as the verdicts come below the editor)."""
    from playwright.sync_api import expect

    with browser_page(base) as page:
        page.goto(base + "/play/", wait_until="load")
        page.locator("#pick").select_option(f"file:{PLAYGROUND_CONTRACT}")
        page.locator("#open").click()
        expect(page.locator("#check-summary")).to_contain_text("account-research")
        page.locator("#run").select_option(index=1)
        page.locator(f"#case-id option[value='{PLAYGROUND_CASE}']").wait_for(state="attached")
        page.locator("#case-id").select_option(PLAYGROUND_CASE)
        expect(page.locator("#output")).not_to_have_value("")
        page.locator("#run-button").click()
        page.locator("#play-verdict").wait_for()
        page.screenshot(path=str(out / PLAYGROUND), full_page=True)
    return out / PLAYGROUND


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    out = parser.parse_args().out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="verifier-screenshots-") as folder:
        (Path(folder) / STORE).parent.mkdir()
        run_examples(Path(folder) / STORE)
        with viewer(Path(folder)) as base:
            for path in photograph(base, out):
                print(path)
        shutil.copytree(ROOT / EXAMPLES, Path(folder) / "contracts")
        options = ("--contracts", "contracts", "--judges", "replay")
        with viewer(Path(folder), "serve", *options) as base:
            print(photograph_playground(base, out))


if __name__ == "__main__":
    main()
